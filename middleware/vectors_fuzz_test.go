package middleware

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
)

// FuzzRequest feeds arbitrary request bytes (request line, headers, body)
// through net/http's request parser, exactly as http.Server reads a request
// (http.ReadRequest; TestVectorsRawTCP checks a real server on a socket
// answers the same), into Echo with the middleware under rules.Strict(),
// mounted with e.Use and with e.Pre. It asserts:
//
//   - no panic;
//   - a rejection (400/413 and its one log line) never reaches the handler;
//   - for an accepted request, every textual value the handler can read is
//     valid UTF-8 and free of the classes Strict refuses at that location:
//     URL.Path, the path parameters, every query key and value, the form
//     values (ParseForm and ParseMultipartForm, as net/http parses them,
//     file names and part headers included), the strings and keys of a
//     JSON body, a text/* body; and no lone surrogate was silently turned
//     into U+FFFD on the way (encoding/json does that);
//   - the body the handler reads is byte-identical to the one the parser
//     delivered, and a body that could not be read whole never reaches the
//     handler when its type is one the middleware checks.
//
// CI runs it for 15 s (.ci/run); for a longer run:
//
//	go test ./middleware -run '^$' -fuzz '^FuzzRequest$' -fuzztime 10m -parallel 1
func FuzzRequest(f *testing.F) {
	for _, v := range vecLoadAll(f) {
		for _, loc := range v.locations {
			vr, _, _, _ := v.vecBuild(loc)
			f.Add(vr.wire())
		}
	}
	for _, s := range vecFuzzSeeds {
		f.Add([]byte(s))
	}
	for _, tc := range vecFuzzFindings {
		if tc.why == "" || os.Getenv("UTF8GUARD_VEC_BUGS") != "" {
			f.Add([]byte(tc.data))
		}
	}
	fz := vecNewFuzzer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fz.check(t, data)
	})
}

// vecFuzzSeeds are well-formed requests of every shape, for the fuzzer to
// start from.
var vecFuzzSeeds = []string{
	"GET /v/hello?a=1&b=%C3%A9&c=+x HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET /u/caf%C3%A9/p/%E2%82%AC HTTP/1.1\r\nHost: example.com\r\nX-Request-Id: abc\r\n\r\n",
	"GET /v/a%2Fb/%c3%a9 HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET http://example.com/v/abs?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET /v/x HTTP/1.0\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"POST /v/f HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 17\r\n\r\na=%C3%A9&b=x+y&c=",
	"POST /v/j HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 40\r\n\r\n{\"a\":[\"\\u00e9\",{\"\\ud83d\\ude00\":null}]}\n",
	"POST /v/j HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/problem+json\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{\"k\":\"v\"\r\n1\r\n}\r\n0\r\n\r\n",
	"PUT /v/t HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\nContent-Length: 12\r\n\r\nh\xc3\xa9llo w\xc3\xb6rld",
	"PATCH /v/t HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/csv; charset=us-ascii\r\nContent-Length: 6\r\n\r\na,b\r\nc",
	"POST /v/m HTTP/1.1\r\nHost: example.com\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 252\r\n\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\ncaf\xc3\xa9\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nline\r\n" +
		"--XyZ\r\nContent-Disposition: form-data; name=\"bin\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\xff\x00\r\n--XyZ--\r\n",
	"POST /v/m HTTP/1.1\r\nHost: example.com\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 107\r\n\r\n" +
		"--b\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-8''%E2%82%AC.txt\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n",
	"POST /v/o HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/octet-stream\r\nContent-Length: 4\r\n\r\n\xff\xfe\x00\x01",
	"DELETE /v/d?x=%E2%80%8B HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n",
}

// vecFuzzer is the server side of FuzzRequest: two Echo instances, built
// once, and what the handler saw of the current request. The fuzz function
// runs one input at a time in each process, so the state is not shared.
type vecFuzzer struct {
	use, pre *server[handler]
	seen     *vecFuzzSeen
}

// vecFuzzSeen is what the handler read.
type vecFuzzSeen struct {
	ran       bool
	path      string
	params    []string
	query     url.Values
	body      []byte
	bodyErr   error
	form      url.Values // r.Form after ParseMultipartForm: query and body
	postForm  url.Values
	multipart *multipart.Form
	ctype     string
}

func vecNewFuzzer(t testing.TB) *vecFuzzer {
	fz := &vecFuzzer{}
	pol := rules.Strict()
	st := setup{echo: Config{Rules: &pol}, routes: []string{"/v/*", "/u/:id", "/u/:id/p/:post", "/*"}}
	st.mount = mountGlobal
	fz.use = newServer(t, st, onEcho(fz.handle))
	st.mount = mountPre
	fz.pre = newServer(t, st, onEcho(fz.handle))
	return fz
}

// handle is the handler: it reads everything a handler can.
func (fz *vecFuzzer) handle(c echo.Context) error {
	s := fz.seen
	r := c.Request()
	s.ran = true
	s.path = r.URL.Path
	s.params = append([]string(nil), c.ParamValues()...)
	s.query = c.QueryParams()
	s.ctype = r.Header.Get("Content-Type")
	if r.Body != nil {
		s.body, s.bodyErr = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(s.body))
	}
	_ = r.ParseMultipartForm(1 << 20) // ParseForm too, whatever the type
	s.form, s.postForm, s.multipart = r.Form, r.PostForm, r.MultipartForm
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
	return c.NoContent(http.StatusOK)
}

// vecParseRequest parses data as http.Server does (http.ReadRequest) and
// sets what the server sets besides.
func vecParseRequest(data []byte) (*http.Request, error) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return nil, err
	}
	req.RemoteAddr = "127.0.0.1:40000"
	return req, nil
}

func (fz *vecFuzzer) check(t *testing.T, data []byte) {
	ref, err := vecParseRequest(data)
	if err != nil {
		return // http.Server answers 400 itself; nothing reaches Echo
	}
	refBody, refErr := io.ReadAll(ref.Body)
	for _, srv := range []*server[handler]{fz.use, fz.pre} {
		req, err := vecParseRequest(data)
		if err != nil {
			t.Fatalf("the second parse failed: %v", err)
		}
		srv.logs.reset()
		fz.seen = &vecFuzzSeen{}
		rec := srv.do(req)
		for _, p := range fz.problems(req, rec, []byte(srv.logs.String()), refBody, refErr) {
			t.Errorf("%s: %s", srv.mount, p)
		}
		if t.Failed() {
			t.Fatalf("request %q\nstatus %d, log %s", data, rec.Code, srv.logs)
		}
	}
}

// TestVectorsRawTCP sends a few requests as raw bytes to a real http.Server
// on 127.0.0.1 and checks that it answers as FuzzRequest's parse of the same
// bytes does: the shortcut of the fuzz target is the server's own parser.
func TestVectorsRawTCP(t *testing.T) {
	t.Parallel()
	ln := vecStrictServer(t).listen(t, "http1", func(srv *http.Server) {
		srv.ReadHeaderTimeout = 2 * time.Second
		srv.SetKeepAlivesEnabled(false)
	})

	cases := []struct {
		name string
		data string
		want int
	}{
		{"clean", "GET /v/caf%C3%A9?q=%E2%82%AC HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"iis-overlong-lower", "GET /v/..%c0%af..%c0%afwinnt HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"raw-octets-in-path", "GET /v/\xc0\xaf HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"raw-rlo-in-query", "GET /v/x?k=\xe2\x80\xae HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"double-encoding", "GET /v/..%255c.. HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"bad-escape-query", "GET /v/x?k=%u002f HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"bad-escape-path", "GET /v/%u002f HTTP/1.1\r\nHost: x\r\n\r\n", 400}, // refused by the server itself
		{"form-surrogate", "POST /v/f HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\nk=%ED%A0%80", 400},
		{"json-lone-surrogate", "POST /v/j HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"k\":\"\\ud800\"}", 400},
		{"chunked-text", "POST /v/t HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab\xff\r\n0\r\n\r\n", 400},
		{"text-ok", "POST /v/t HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nab\n", 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vecRoundTrip(ln.addr, []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("the server answered %d, want %d", got, tc.want)
			}
			// The same bytes through the fuzz target's path.
			req, err := vecParseRequest([]byte(tc.data))
			if err != nil {
				if got != http.StatusBadRequest {
					t.Errorf("http.ReadRequest refused what the server answered %d to: %v", got, err)
				}
				return
			}
			rec := vecStrictServer(t).do(req)
			if rec.Code != got {
				t.Errorf("through http.ReadRequest: %d; through the server: %d", rec.Code, got)
			}
		})
	}
}

// vecStrictServer is Echo with the middleware under rules.Strict() and a
// handler that answers 200 on every route.
func vecStrictServer(t testing.TB) *server[handler] {
	nop := zerolog.Nop()
	return newServer(t, setup{mount: mountGlobal, echo: Config{Rules: ptr(rules.Strict()), Logger: &nop}, routes: []string{"/*"}},
		onEcho(func(c echo.Context) error { return c.NoContent(http.StatusOK) }))
}

// vecRoundTrip writes data on a fresh connection and returns the status of
// the response.
func vecRoundTrip(addr string, data []byte) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write(data); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// vecFuzzFindings are inputs on which FuzzRequest's checks failed. Those
// with a reason are known open bugs, skipped (UTF8GUARD_VEC_BUGS=1 runs them)
// and kept out of the seed corpus so that CI's fuzz run stays green until
// the fix; clear the reason with the fix. The others are fixed bugs, kept
// as regressions and seeds:
//
//   - *-dotted-capital-i: the body's media type was matched with
//     strings.EqualFold, but mime.ParseMediaType (so net/http's ParseForm
//     and ParseMultipartForm, and handlers) lower-cases it with
//     strings.ToLower, which maps U+0130 to 'i': net/http parsed
//     "appl\u0130cation/x-www-form-urlencoded" as a form, unchecked.
//   - multipart-empty-filename, multipart-filename-in-field-name: a part was
//     taken for a file (contents unchecked) when its Content-Disposition
//     merely contained "filename"; net/http's ReadForm makes it a form value
//     unless Part.FileName() is non-empty.
//   - multipart-unterminated-part: a part that ends without a boundary was
//     accepted unchecked (ReadForm fails on it, but r.MultipartReader hands
//     a streaming handler its octets before the error).
//   - multipart-part-without-disposition: a part whose Content-Disposition
//     is missing or does not parse was not checked (ReadForm skips it; a
//     streaming handler reads it).
var vecFuzzFindings = []struct{ name, why, data string }{
	{
		"form-content-type-dotted-capital-i",
		"", // fixed: media types are lower-cased as mime.ParseMediaType does
		vecWire("POST", "/v/f", "appl\u0130cation/x-www-form-urlencoded", "k=%C0%AF&n=%00"),
	},
	{
		"multipart-content-type-dotted-capital-i",
		"", // fixed: media types are lower-cased as mime.ParseMediaType does
		vecWire("POST", "/v/m", "mult\u0130part/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\n\xc0\xaf\r\n--b--\r\n"),
	},
	{
		"json-content-type-dotted-capital-i",
		"", // fixed: media types are lower-cased as mime.ParseMediaType does
		vecWire("POST", "/v/j", "appl\u0130cation/json", `{"k":"\ud800"}`),
	},
	{
		"multipart-empty-filename",
		"", // fixed: a file part is one with a non-empty file name, as Part.FileName says
		vecWire("POST", "/v/m", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"k\"; filename=\"\"\r\n\r\n\xc0\xaf\r\n--b--\r\n"),
	},
	{
		"multipart-filename-in-field-name",
		"", // fixed: a file part is one with a non-empty file name, as Part.FileName says
		vecWire("POST", "/v/m", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"filename\"\r\n\r\n\u202e\x00\r\n--b--\r\n"),
	},
	{
		"multipart-unterminated-part",
		"", // fixed: the octets of a broken part are checked
		vecWire("POST", "/v/m", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\n\xc0\xaf\u202e\x00 and no closing boundary"),
	},
	{
		"multipart-part-without-disposition",
		"", // fixed: such a part is checked as a field
		vecWire("POST", "/v/m", "multipart/form-data; boundary=b",
			"--b\r\nX-A: 1\r\n\r\n\xc0\xaf\u202e\x00\r\n"+
				"--b\r\nContent-Disposition: form-data; name=\"k\"; name=\"k\"\r\n\r\n\xc0\xaf\r\n--b--\r\n"),
	},
}

// vecWire returns a request with a Content-Length body.
func vecWire(method, target, ctype, body string) string {
	return fmt.Sprintf("%s %s HTTP/1.1\r\nHost: example.com\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
		method, target, ctype, len(body), body)
}

// TestVectorsFuzzFindings runs the known failing inputs of FuzzRequest.
func TestVectorsFuzzFindings(t *testing.T) {
	for _, tc := range vecFuzzFindings {
		t.Run(tc.name, func(t *testing.T) {
			vecSkipBug(t, tc.why)
			vecNewFuzzer(t).check(t, []byte(tc.data))
		})
	}
}
