package replay_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/replay"
)

// got is what a test reads of one request a Recording returned.
type got struct {
	method, target, body string
	header               http.Header
	err                  string // the error's text, for a request that could not be read
}

// readAll reads every request of rec, and the error of each that could
// not be read, in order.
func readAll(t *testing.T, rec *replay.Recording) []got {
	t.Helper()
	var out []got
	for {
		req, err := rec.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			if _, ok := errors.AsType[*replay.ReadError](err); !ok {
				t.Fatalf("Next: %v is no *ReadError", err)
			}
			out = append(out, got{err: err.Error()})
			continue
		}
		body, err := io.ReadAll(req.HTTP.Body)
		if err == nil {
			err = req.Finish()
		}
		if err != nil {
			out = append(out, got{err: err.Error()})
			continue
		}
		out = append(out, got{method: req.HTTP.Method, target: req.HTTP.RequestURI, body: string(body), header: req.HTTP.Header})
	}
}

// har wraps entries (JSON, comma-separated) in a HAR file.
func har(entries ...string) string {
	return `{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
"pages": [{"id": "p"}],
"entries": [` + strings.Join(entries, ",\n") + `]}}`
}

// entry is a HAR entry of a request whose members are given as JSON.
func entry(request string) string {
	return `{"startedDateTime": "2025-06-02T09:00:00.000Z", "request": {` + request + `}, "response": {"status": 200}}`
}

func TestHARReader(t *testing.T) {
	const get = `"method": "GET", "url": "http://example.com/a?q=1", "httpVersion": "HTTP/1.1", "headers": []`
	tests := []struct {
		name string
		file string
		want []got
	}{
		{"get", har(entry(get)), []got{{method: "GET", target: "/a?q=1"}}},
		{"text body", har(entry(`"method": "POST", "url": "http://example.com/j",
			"headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Content-Length", "value": "999"}],
			"postData": {"mimeType": "application/json", "text": "{\"a\":\"\u00e9\"}"}`)),
			[]got{{method: "POST", target: "/j", body: `{"a":"é"}`, header: http.Header{"Content-Type": {"application/json"}, "Content-Length": {"10"}}}}},
		{"base64 body keeps octets text cannot", har(entry(`"method": "POST", "url": "http://example.com/b",
			"headers": [], "postData": {"mimeType": "text/plain", "text": "/8CvAA==", "encoding": "base64"}`)),
			[]got{{method: "POST", target: "/b", body: "\xff\xc0\xaf\x00", header: http.Header{"Content-Type": {"text/plain"}}}}},
		{"params-only form post", har(entry(`"method": "POST", "url": "http://example.com/f", "headers": [],
			"postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a b", "value": "é&"}, {"name": "c", "value": ""}]}`)),
			[]got{{method: "POST", target: "/f", body: "a+b=%C3%A9%26&c="}}},
		{"params-only multipart post", har(entry(`"method": "POST", "url": "http://example.com/m", "headers": [],
			"postData": {"mimeType": "multipart/form-data; boundary=XX", "params": [{"name": "t", "value": "v"}, {"name": "f", "fileName": "a.txt", "contentType": "text/plain", "value": "hi"}]}`)),
			[]got{{method: "POST", target: "/m", header: http.Header{"Content-Type": {"multipart/form-data; boundary=XX"}},
				body: "--XX\r\nContent-Disposition: form-data; name=t\r\n\r\nv\r\n--XX\r\nContent-Disposition: form-data; filename=a.txt; name=f\r\nContent-Type: text/plain\r\n\r\nhi\r\n--XX--\r\n"}}},
		{"HTTP/2 pseudo-headers skipped, host from the url", har(entry(`"method": "GET", "url": "https://example.com:8443", "httpVersion": "h2",
			"headers": [{"name": ":authority", "value": "example.com:8443"}, {"name": ":path", "value": "/"}, {"name": "accept", "value": "*/*"}]`)),
			[]got{{method: "GET", target: "/", header: http.Header{"Accept": {"*/*"}}}}},
		{"queryString when the url has none; cookies without a Cookie header", har(entry(`"method": "GET", "url": "http://example.com/s#frag",
			"headers": [], "queryString": [{"name": "q", "value": "a b"}], "cookies": [{"name": "id", "value": "7"}]`)),
			[]got{{method: "GET", target: "/s?q=a+b", header: http.Header{"Cookie": {"id=7"}}}}},
		{"missing fields", har(
			entry(`"url": "http://example.com/"`),
			entry(`"method": "GET"`),
			`{"startedDateTime": "2025-06-02T09:00:00Z"}`,
			entry(`"method": "GET", "url": "/relative"`),
			entry(`"method": "POST", "url": "http://example.com/", "bodySize": 12`),
			entry(`"method": "GET", "url": "http://example.com/", "headers": [{"name": "X"}]`),
			entry(get)),
			[]got{
				{err: "log.entries[0] (line 3): request.method is missing"},
				{err: "log.entries[1] (line 4): request.url is missing"},
				{err: "log.entries[2] (line 5): request is missing"},
				{err: "log.entries[3] (line 6): request.url \"/relative\" is not an absolute URL"},
				{err: "log.entries[4] (line 7): request.bodySize is 12 but the entry has no postData"},
				{err: "log.entries[5] (line 8): request.headers[0]: name or value is missing"},
				{method: "GET", target: "/a?q=1"},
			}},
		{"what a server refuses before any handler", har(
			entry(`"method": "GET", "url": "http://example.com/%zz"`),
			entry(`"method": "GET", "url": "http://example.com/", "headers": [{"name": "X", "value": "a\u0000b"}]`),
			entry(`"method": "GET", "url": "http://example.com/", "headers": [{"name": "X", "value": "a\r\nY: b"}]`)),
			[]got{
				{err: "log.entries[0] (line 3): a net/http server would refuse it before any handler"},
				{err: "log.entries[1] (line 4): a net/http server would refuse it before any handler: malformed MIME header"},
				{err: "log.entries[2] (line 5): request.headers[0]: \"X\": \"a\\r\\nY: b\": not a header field"},
			}},
		{"text JSON decoders would change", har(
			entry(`"method": "POST", "url": "http://example.com/", "postData": {"mimeType": "text/plain", "text": "\ud800"}`),
			entry(`"method": "POST", "url": "http://example.com/", "postData": {"mimeType": "text/plain", "text": "\ud83d\ude00 \\ud800"}`),
			entry(`"method": "POST", "url": "http://example.com/", "postData": {"mimeType": "text/plain", "text": "`+"\xff"+`"}`),
			entry(`"method": "POST", "url": "http://example.com/", "postData": {"mimeType": "text/plain", "text": "x", "encoding": "gzip"}`)),
			[]got{
				{err: "log.entries[0] (line 3): a JSON string holds \\ud800, a lone surrogate"},
				{method: "POST", target: "/", body: "😀 \\ud800", header: http.Header{"Content-Type": {"text/plain"}}},
				{err: "log.entries[2] (line 5): the entry is not valid UTF-8"},
				{err: "log.entries[3] (line 6): request.postData.encoding \"gzip\": want base64 or none"},
			}},
		{"malformed file: the entries before the fault are read", har(entry(get)) + "x",
			[]got{{method: "GET", target: "/a?q=1"}, {err: "t.har:3: data after the HAR object (the rest of the file is not read)"}}},
		{"malformed file: cut off", har(entry(get), entry(get))[:len(har(entry(get), entry(get)))-40],
			[]got{{method: "GET", target: "/a?q=1"}, {err: "log.entries[1] (line 4): unexpected end of file (the rest of the file is not read)"}}},
		{"malformed file: syntax error", "{\"log\": {\n\"entries\": [\n{,}]}}",
			[]got{{err: "log.entries[0] (line 3): invalid character ',' looking for beginning of object key string (the rest of the file is not read)"}}},
		{"not a HAR", `{"entries": []}`, []got{{err: "no log object: not a HAR file"}}},
		{"entries not an array", `{"log": {"entries": {}}}`, []got{{err: "log.entries is an object, not an array"}}},
		{"no entries", `{"log": {"version": "1.2"}}`, []got{{err: "log has no entries"}}},
		{"empty entries", `{"log": {"entries": []}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := readAll(t, replay.NewHAR(strings.NewReader(tt.file), "t.har"))
			compare(t, out, tt.want)
		})
	}
}

// compare checks out against want: each error contains want's, each
// request has want's method, target, body and header fields.
func compare(t *testing.T, out, want []got) {
	t.Helper()
	if len(out) != len(want) {
		t.Fatalf("read %d requests and errors, want %d: %+v", len(out), len(want), out)
	}
	for i, w := range want {
		o := out[i]
		if w.err != "" || o.err != "" {
			if w.err == "" || !strings.Contains(o.err, w.err) {
				t.Errorf("[%d]: error %q, want one containing %q", i, o.err, w.err)
			}
			continue
		}
		if o.method != w.method || o.target != w.target || o.body != w.body {
			t.Errorf("[%d]: %s %s body %q, want %s %s body %q", i, o.method, o.target, o.body, w.method, w.target, w.body)
		}
		for k, v := range w.header {
			if got := o.header[k]; strings.Join(got, "|") != strings.Join(v, "|") {
				t.Errorf("[%d]: header %s: %q, want %q", i, k, got, v)
			}
		}
	}
}

func TestHARRequestIsWhatAServerParses(t *testing.T) {
	rec := replay.NewHAR(strings.NewReader(har(entry(`"method": "PUT", "url": "http://u:p@example.com:81/a%2Fb/%C3%A9?x=%00#f",
		"httpVersion": "http/2.0", "headers": [{"name": "host", "value": "example.com:81"}]`))), "t.har")
	req, err := rec.Next()
	if err != nil {
		t.Fatal(err)
	}
	r := req.HTTP
	if r.Host != "example.com:81" || r.URL.RawPath != "/a%2Fb/%C3%A9" || r.URL.RawQuery != "x=%00" || r.ProtoMajor != 2 {
		t.Errorf("Host %q RawPath %q RawQuery %q proto %s", r.Host, r.URL.RawPath, r.URL.RawQuery, r.Proto)
	}
	if req.Source != "t.har: log.entries[0]" || req.Time.IsZero() {
		t.Errorf("Source %q, Time %v", req.Source, req.Time)
	}
}
