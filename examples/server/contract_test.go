package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

var routes = []string{"strict", "nfc", "monitor", "open"}

// bodyKind is a request body and what the handler must see of it.
type bodyKind struct {
	name        string
	contentType string
	body        []byte
	form        map[string][]string // nil: no "form" in the answer
	json        any                 // nil: no "json" in the answer
}

func unmarshal(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// testAccepted: well-formed requests pass every route, GET and POST, and
// the handler sees every value byte-identical, decoded where it was
// percent-encoded. The values are already NFC, so /nfc changes nothing
// either; and no line is logged.
func (d *demo) testAccepted(t *testing.T) {
	mpType, mpBody := multipartBody(t, "name", "Zoë "+composed, "emoji", "\U0001F600", "tab", "a\tb")
	jsonText := `{"s":"h` + composed + `llo","esc":"\u00e9\ud83d\ude00","n":1.5,"a":[true,null,"x"],"o":{"k\u00e9y":"v"},"lt":"<&>"}`
	bodies := []bodyKind{
		{
			name:        "form",
			contentType: "application/x-www-form-urlencoded",
			body:        []byte("a=1&a=2&t=h%C3%A9llo+w%C3%B6rld&raw=Zo" + composed + "&sp=%20%2B&empty=&k%C3%A9y=v"),
			form: map[string][]string{
				"a": {"1", "2"}, "t": {"h" + composed + "llo w\u00f6rld"}, "raw": {"Zo" + composed},
				"sp": {" +"}, "empty": {""}, "k" + composed + "y": {"v"},
			},
		},
		{name: "json", contentType: "application/json", body: []byte(jsonText), json: unmarshal(t, jsonText)},
		{name: "json charset", contentType: "application/json; charset=utf-8", body: []byte(`["` + composed + `"]`), json: []any{composed}},
		{name: "text", contentType: "text/plain; charset=utf-8", body: []byte("line one\r\n\tZo" + composed + " \U0001F600\n")},
		{name: "multipart", contentType: mpType, body: mpBody, form: map[string][]string{"name": {"Zo\u00eb " + composed}, "emoji": {"\U0001F600"}, "tab": {"a\tb"}}},
		{name: "empty", body: []byte{}},
		// Types Echo's binder reads by a prefix of the value, which
		// utf8guard checks as the binder reads them, and the handler
		// decodes so.
		{name: "json by the binder's prefix", contentType: "application/json-patch", body: []byte(`{"k":"v"}`), json: map[string]any{"k": "v"}},
		{name: "form by the binder's prefix", contentType: "application/x-www-form-urlencodedx", body: []byte("a=b&c=%C3%A9"),
			form: map[string][]string{"a": {"b"}, "c": {composed}}},
	}
	for _, route := range routes {
		// GET: path, parameter and query.
		target := "/" + route + "/a/b%20c/%C3%A9/x+y?x=1&x=2&y=%C3%A9&z=&plus=a+b&k%C3%A9y=%E2%82%AC&emoji=%F0%9F%98%80"
		name := "GET " + target
		a := decodeAnswer(t, name, d.do(t, name, req{target: target}, nil))
		wantPath := "/" + route + "/a/b c/" + composed + "/x+y"
		if a.Path != wantPath {
			t.Errorf("%s: path %q, want %q", name, a.Path, wantPath)
		}
		if want := strings.TrimPrefix(wantPath, "/"+route+"/"); a.Param != want {
			t.Errorf("%s: param %q, want %q", name, a.Param, want)
		}
		wantQuery := map[string][]string{
			"x": {"1", "2"}, "y": {composed}, "z": {""}, "plus": {"a b"},
			"k" + composed + "y": {"\u20ac"}, "emoji": {"\U0001F600"},
		}
		if !reflect.DeepEqual(a.Query, wantQuery) {
			t.Errorf("%s: query %q, want %q", name, a.Query, wantQuery)
		}
		if a.Body != "" || a.present["form"] || a.present["json"] {
			t.Errorf("%s: body %q, form %v, json %v: want an empty body, no form, no json", name, a.Body, a.Form, a.JSON)
		}

		// POST: each kind of body, with a query.
		for _, bk := range bodies {
			target := "/" + route + "/post/%C3%A9?src=post"
			name := "POST " + route + " " + bk.name
			a := decodeAnswer(t, name, d.do(t, name, req{method: http.MethodPost, target: target, contentType: bk.contentType, body: bk.body}, nil))
			if a.Path != "/"+route+"/post/"+composed || a.Param != "post/"+composed {
				t.Errorf("%s: path %q param %q", name, a.Path, a.Param)
			}
			if !reflect.DeepEqual(a.Query, map[string][]string{"src": {"post"}}) {
				t.Errorf("%s: query %q, want src=post only", name, a.Query)
			}
			if a.Body != string(bk.body) {
				t.Errorf("%s: body\n got %q\nwant %q", name, a.Body, bk.body)
			}
			if bk.form != nil {
				if !reflect.DeepEqual(a.Form, bk.form) {
					t.Errorf("%s: form\n got %q\nwant %q", name, a.Form, bk.form)
				}
			} else if a.present["form"] {
				t.Errorf("%s: answer has a form: %q", name, a.Form)
			}
			if bk.json != nil {
				if !reflect.DeepEqual(a.JSON, bk.json) {
					t.Errorf("%s: json\n got %#v\nwant %#v", name, a.JSON, bk.json)
				}
			} else if a.present["json"] {
				t.Errorf("%s: answer has json: %#v", name, a.JSON)
			}
		}
	}

	// Echo alone hands back raw escapes in c.Param when it routes on
	// URL.RawPath (lower-case hex makes one): under utf8guard the handler
	// sees decoded values whatever the case of the escapes. Monitor mode
	// passes the request on as Echo alone would.
	for _, route := range []string{"strict", "nfc", "monitor"} {
		target := "/" + route + "/%c3%a9/b%20c"
		a := decodeAnswer(t, target, d.do(t, target, req{target: target}, nil))
		want, wantParam := composed+"/b c", composed+"/b c"
		if route == "monitor" {
			wantParam = "%c3%a9/b%20c"
		}
		if a.Param != wantParam || a.Path != "/"+route+"/"+want {
			t.Errorf("%s: path %q param %q, want %q and %q", target, a.Path, a.Param, "/"+route+"/"+want, wantParam)
		}
	}
}

// testNFC: a decomposed é reaches the /nfc handler as U+00E9 in every
// field (path, parameter, query keys and values, form keys and values,
// JSON keys and strings, multipart fields, text bodies), and reaches the
// /strict handler untouched.
func (d *demo) testNFC(t *testing.T) {
	mpType, mpBody := multipartBody(t, "m", decomposed, decomposed, "k")
	type nfcCase struct {
		name string
		r    req
		// check returns the fields of the answer that must all be want.
		fields func(a answer) map[string]string
	}
	cases := []nfcCase{
		{
			name: "path and query",
			r:    req{target: "/ROUTE/%65%CC%81/x?q=%65%CC%81&%65%CC%81=k"},
			fields: func(a answer) map[string]string {
				return map[string]string{
					"path":      strings.TrimPrefix(strings.TrimSuffix(a.Path, "/x"), routePrefix(a.Path)),
					"param":     strings.TrimSuffix(a.Param, "/x"),
					"query q":   first(a.Query["q"]),
					"query key": onlyKeyBut(a.Query, "q"),
				}
			},
		},
		{
			name: "raw octets in the query",
			r:    req{target: "/ROUTE/x?q=" + decomposed},
			fields: func(a answer) map[string]string {
				return map[string]string{"query q": first(a.Query["q"])}
			},
		},
		{
			name: "form, raw and escaped",
			r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/x-www-form-urlencoded",
				body: []byte("f=" + decomposed + "&g=%65%CC%81&" + decomposed + "=1")},
			fields: func(a answer) map[string]string {
				body, _ := url.ParseQuery(a.Body)
				return map[string]string{
					"form f": first(a.Form["f"]), "form g": first(a.Form["g"]), "form key": onlyKeyBut(a.Form, "f", "g"),
					"body f": first(body["f"]), "body g": first(body["g"]), "body key": onlyKeyBut(body, "f", "g"),
				}
			},
		},
		{
			name: "json, raw and \\u escapes",
			r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/json",
				body: []byte(`{"raw":"` + decomposed + `","esc":"e\u0301","e\u0301":["e\u0301"]}`)},
			fields: func(a answer) map[string]string {
				m, _ := a.JSON.(map[string]any)
				var body map[string]any
				_ = json.Unmarshal([]byte(a.Body), &body)
				f := map[string]string{
					"json raw": str(m["raw"]), "json esc": str(m["esc"]),
					"body raw": str(body["raw"]), "body esc": str(body["esc"]),
				}
				for k, v := range m {
					if k != "raw" && k != "esc" {
						f["json key"] = k
						if l, ok := v.([]any); ok && len(l) == 1 {
							f["json array"] = str(l[0])
						}
					}
				}
				return f
			},
		},
		{
			name: "multipart",
			r:    req{method: http.MethodPost, target: "/ROUTE/x", contentType: mpType, body: mpBody},
			fields: func(a answer) map[string]string {
				return map[string]string{"form m": first(a.Form["m"]), "form key": onlyKeyBut(a.Form, "m")}
			},
		},
		{
			name: "text body",
			r:    req{method: http.MethodPost, target: "/ROUTE/x", contentType: "text/plain", body: []byte(decomposed)},
			fields: func(a answer) map[string]string {
				return map[string]string{"body": a.Body}
			},
		},
	}
	for _, route := range []string{"nfc", "strict"} {
		want := composed
		if route == "strict" {
			want = decomposed // no normalization: byte-identical
		}
		for _, c := range cases {
			r := c.r
			r.target = strings.Replace(r.target, "ROUTE", route, 1)
			name := r.methodOrGET() + " /" + route + " " + c.name
			a := decodeAnswer(t, name, d.do(t, name, r, nil))
			for field, got := range c.fields(a) {
				if got != want {
					t.Errorf("%s: %s is %+q, want %+q", name, field, got, want)
				}
			}
		}
	}
}

func routePrefix(path string) string {
	for _, r := range routes {
		if p := "/" + r + "/"; strings.HasPrefix(path, p) {
			return p
		}
	}
	return ""
}

func first(l []string) string {
	if len(l) == 0 {
		return "<missing>"
	}
	return l[0]
}

// onlyKeyBut returns the one key of m other than but, or a description of
// what is there instead.
func onlyKeyBut(m map[string][]string, but ...string) string {
	var keys []string
	for k := range m {
		skip := false
		for _, b := range but {
			skip = skip || k == b
		}
		if !skip {
			keys = append(keys, k)
		}
	}
	if len(keys) != 1 {
		return fmt.Sprintf("<keys %q>", keys)
	}
	return keys[0]
}

func str(v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprintf("<%#v>", v)
	}
	return s
}

// attack is a malformed request and the rejection it must give.
type attack struct {
	name   string
	r      req // target holds ROUTE for the route's name
	reason string
	loc    string
	field  string // checked: "" for the path and raw bodies
	offset int    // -1: not checked
	class  string
}

func attacks(t *testing.T) []attack {
	mpType, mpBody := multipartBody(t, "m", "a\x00b")
	return []attack{
		{name: "overlong traversal in the path", r: req{target: "/ROUTE/%c0%ae%c0%ae/etc"}, reason: "overlong", loc: "path", offset: -2},
		{name: "overlong NUL in the query", r: req{target: "/ROUTE/x?q=a%C0%80"}, reason: "overlong", loc: "query", field: "q", offset: 1},
		{name: "encoded surrogate", r: req{target: "/ROUTE/x?q=%ED%A0%80"}, reason: "surrogate", loc: "query", field: "q", offset: 0},
		{name: "above U+10FFFF", r: req{target: "/ROUTE/x?q=%F4%90%80%80"}, reason: "out_of_range", loc: "query", field: "q", offset: 0},
		{name: "FF octet", r: req{target: "/ROUTE/x?q=ab%FF"}, reason: "invalid_byte", loc: "query", field: "q", offset: 2},
		{name: "truncated", r: req{target: "/ROUTE/x?q=%E2%82"}, reason: "truncated", loc: "query", field: "q", offset: 0},
		{name: "lone continuation", r: req{target: "/ROUTE/x?q=%80"}, reason: "unexpected_continuation", loc: "query", field: "q", offset: 0},
		{name: "NUL in the query", r: req{target: "/ROUTE/x?q=a%00b"}, reason: "forbidden_char", loc: "query", field: "q", offset: 1, class: "nul"},
		{name: "bad escape", r: req{target: "/ROUTE/x?q=%zz"}, reason: "bad_escape", loc: "query", field: "q", offset: -1},
		{name: "double encoding in the path", r: req{target: "/ROUTE/%252e%252e/x"}, reason: "double_encoding", loc: "path", offset: -1},
		{name: "bidi override in the path", r: req{target: "/ROUTE/a%E2%80%AEb"}, reason: "forbidden_char", loc: "path", offset: -2, class: "bidi_control"},
		{name: "raw overlong octets in the request line", r: req{target: "/ROUTE/\xc0\xae\xc0\xae/etc"}, reason: "overlong", loc: "path", offset: -2},
		{name: "JSON lone surrogate escape", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/json", body: []byte(`{"k":"\ud800"}`)},
			reason: "surrogate", loc: "json", field: "/k", offset: -1},
		{name: "JSON raw surrogate", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/json", body: []byte("{\"k\":\"\xed\xa0\x80\"}")},
			reason: "surrogate", loc: "json", field: "/k", offset: -1},
		{name: "form overlong", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/x-www-form-urlencoded", body: []byte("ok=1&f=%C0%AE")},
			reason: "overlong", loc: "form", field: "f", offset: 0},
		{name: "form raw FF", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "application/x-www-form-urlencoded", body: []byte("f=\xff")},
			reason: "invalid_byte", loc: "form", field: "f", offset: 0},
		{name: "text body bidi", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: "text/plain", body: []byte("abc\u202edef")},
			reason: "forbidden_char", loc: "body", offset: 3, class: "bidi_control"},
		{name: "multipart NUL", r: req{method: http.MethodPost, target: "/ROUTE/x", contentType: mpType, body: mpBody},
			reason: "forbidden_char", loc: "multipart", field: "m", offset: -1, class: "nul"},
	}
}

// testRejected: /strict and /nfc reject each attack with 400 and
// {"reason","location"}, /monitor lets it through with a flagged line,
// /open lets it through silently.
func (d *demo) testRejected(t *testing.T) {
	for _, route := range routes {
		for _, at := range attacks(t) {
			r := at.r
			r.target = strings.Replace(r.target, "ROUTE", route, 1)
			name := route + ": " + at.name
			want := &logExpect{reason: at.reason, location: at.loc, field: at.field, checkField: true, offset: at.offset, class: at.class}
			if at.offset == -2 { // the path: the offset is past "/route/"
				want.offset = len("/" + route + "/")
				if at.class == "bidi_control" {
					want.offset++
				}
			}
			switch route {
			case "strict", "nfc":
				want.mode = "enforce"
				resp := d.do(t, name, r, want)
				rj, ok := rejection(resp)
				if !ok || resp.status != http.StatusBadRequest {
					t.Errorf("%s: got %d %q, want 400 {reason, location}", name, resp.status, truncate(resp.body))
					continue
				}
				if rj.Reason != at.reason || rj.Location != at.loc {
					t.Errorf("%s: rejected as %s in %s, want %s in %s", name, rj.Reason, rj.Location, at.reason, at.loc)
				}
			case "monitor":
				want.mode = "monitor"
				resp := d.do(t, name, r, want)
				if resp.status != http.StatusOK {
					t.Errorf("%s: got %d %q, want 200 (monitor never rejects)", name, resp.status, truncate(resp.body))
				}
			case "open":
				resp := d.do(t, name, r, nil)
				if resp.status != http.StatusOK {
					t.Errorf("%s: got %d %q, want 200 (unchecked)", name, resp.status, truncate(resp.body))
				}
			}
		}
	}

	// Monitor passes the request on unchanged.
	a := decodeAnswer(t, "monitor NUL", d.do(t, "monitor NUL echo", req{target: "/monitor/x?q=a%00b"},
		&logExpect{reason: "forbidden_char", location: "query", field: "q", checkField: true, offset: 1, class: "nul", mode: "monitor"}))
	if got := first(a.Query["q"]); got != "a\x00b" {
		t.Errorf("monitor: the handler saw q=%+q, want the unchanged %+q", got, "a\x00b")
	}
}

// testOneLine: a request with several violations gives one line, the first.
func (d *demo) testOneLine(t *testing.T) {
	for _, route := range []string{"strict", "monitor"} {
		mode, status := "enforce", http.StatusBadRequest
		if route == "monitor" {
			mode, status = "monitor", http.StatusOK
		}
		r := req{method: http.MethodPost, target: "/" + route + "/%c0%ae?q=%ff&r=%00", contentType: "application/json", body: []byte(`{"k":"\ud800"}`)}
		resp := d.do(t, route+" several violations", r,
			&logExpect{reason: "overlong", location: "path", checkField: true, offset: len("/" + route + "/"), mode: mode})
		if resp.status != status {
			t.Errorf("%s several violations: status %d, want %d", route, resp.status, status)
		}
	}
}

// testIdentity: a client cannot choose the log's
// request_id (the demo drops its X-Request-Id before Echo's RequestID
// adopts it) nor its remote_ip (the demo sets an IPExtractor, so a forged
// X-Forwarded-For is ignored: checkLog requires 127.0.0.1 on every line).
func (d *demo) testIdentity(t *testing.T) {
	const forged = "replayed-request-id"
	r := req{target: "/strict/x?q=%00", header: []string{"X-Request-Id: " + forged, "X-Forwarded-For: 203.0.113.9", "X-Real-Ip: 203.0.113.9"}}
	resp := d.do(t, "forged identity", r, &logExpect{reason: "forbidden_char", location: "query", field: "q", checkField: true, offset: 0, class: "nul", mode: "enforce"})
	if rid := resp.header.Get("X-Request-Id"); rid == forged || rid == "" {
		t.Errorf("X-Request-Id %q: the client chose the request id", rid)
	}
}

// testStatic: /static/hello.txt is served from the embedded public/ (not
// the decoys), and secret.txt never, however the way there is spelled.
func (d *demo) testStatic(t *testing.T) {
	// Every route answers GET and POST.
	for _, method := range []string{"GET", "POST"} {
		resp := d.do(t, method+" hello.txt", req{method: method, target: "/static/hello.txt"}, nil)
		if resp.status != http.StatusOK || string(resp.body) != "hello" {
			t.Errorf("%s /static/hello.txt: %d %q, want 200 \"hello\"", method, resp.status, resp.body)
		}
	}
	resp := d.do(t, "GET /upload without a form", req{target: "/upload/x"}, nil)
	if resp.status != http.StatusBadRequest || !strings.Contains(string(resp.body), "want a multipart/form-data body") {
		t.Errorf("GET /upload/x: %d %q, want the upload handler's 400", resp.status, resp.body)
	}
	targets := []string{
		"/static/../secret.txt",
		"/static/%2e%2e/secret.txt",
		"/static/%2E%2E%2Fsecret.txt",
		"/static/..%2fsecret.txt",
		"/static/..%5csecret.txt",
		"/static/..\\secret.txt",
		"/static/%2e%2e%5csecret.txt",
		"/static/%c0%ae%c0%ae/secret.txt",
		"/static/..%c0%afsecret.txt",
		"/static/%e0%80%ae%e0%80%ae/secret.txt",
		"/static/%252e%252e/secret.txt",
		"/static/..%252fsecret.txt",
		"/static/....//secret.txt",
		"/static/.%2e/secret.txt",
		"/static//../secret.txt",
		"/static/hello.txt/../../secret.txt",
		"/static/%u002e%u002e/secret.txt",
		"/static/\xc0\xae\xc0\xae/secret.txt",
		"/static/..%00/secret.txt",
		"/static/%2e%2e/%2e%2e/examples/server/secret.txt",
		"/static/../../examples/server/secret.txt",
		"/static%2f..%2fsecret.txt",
		"/static/./secret.txt",
		"/static/secret.txt",
		"/static/../public/../secret.txt",
		"http://" + d.addr + "/static/../secret.txt",
	}
	// The spellings the strict preset of /static/* must reject itself;
	// the others reach the file server and find nothing.
	rejected := map[string]string{
		"/static/%c0%ae%c0%ae/secret.txt":       "overlong",
		"/static/..%c0%afsecret.txt":            "overlong",
		"/static/%e0%80%ae%e0%80%ae/secret.txt": "overlong",
		"/static/\xc0\xae\xc0\xae/secret.txt":   "overlong",
		"/static/%252e%252e/secret.txt":         "double_encoding",
		"/static/..%252fsecret.txt":             "double_encoding",
		"/static/..%00/secret.txt":              "forbidden_char",
	}
	for _, target := range targets {
		resp := d.do(t, "static "+target, req{target: target}, nil)
		if bytes.Contains(resp.body, []byte(secretMarker)) || bytes.Contains(resp.body, []byte("WRONG")) {
			t.Errorf("GET %+q served a file it must not: %d %q", target, resp.status, resp.body)
		} else if resp.status == http.StatusOK {
			t.Errorf("GET %+q: 200 %q, want an error status", target, resp.body)
		}
		if reason, ok := rejected[target]; ok {
			if rj, ok := rejection(resp); !ok || rj.Reason != reason || rj.Location != "path" {
				t.Errorf("GET %+q: %d %q, want 400 {reason: %s, location: path}", target, resp.status, resp.body, reason)
			}
		}
	}
}

// testBodyLimit: text bodies over 1 MiB are 413 on /strict and /nfc;
// bodies of a type the strict preset does not check as text (or without
// one) are 415 there whatever their size, as it keeps a positive list;
// 1 MiB exactly passes; /monitor flags and passes, /open passes.
func (d *demo) testBodyLimit(t *testing.T) {
	over := bytes.Repeat([]byte("a"), mib+1)
	exact := over[:mib]
	kinds := []struct{ contentType, loc string }{
		{"text/plain", "body"},
		{"application/json", "json"},
		{"application/x-www-form-urlencoded", "form"},
		{"application/octet-stream", "body"}, // not text: refused unread, 415
		{"", "body"},
	}
	for _, route := range routes {
		for _, k := range kinds {
			name := fmt.Sprintf("%s %q over 1 MiB", route, k.contentType)
			body := over
			if k.contentType == "application/json" {
				body = append(append([]byte(`"`), over[:mib-1]...), '"') // 1 MiB + 1, valid JSON
			}
			r := req{method: http.MethodPost, target: "/" + route + "/big", contentType: k.contentType, body: body}
			var want *logExpect
			unlisted := k.contentType == "" || k.contentType == "application/octet-stream"
			if k.loc != "" && route != "open" {
				want = &logExpect{reason: "too_large", location: k.loc, checkField: true, offset: -1, mode: "enforce"}
				if unlisted {
					want.reason, want.field = "unsupported_media_type", "Content-Type"
				}
				if route == "monitor" {
					want.mode = "monitor"
				}
			}
			resp := d.do(t, name, r, want)
			switch {
			case (route == "strict" || route == "nfc") && unlisted:
				if rj, ok := rejection(resp); resp.status != http.StatusUnsupportedMediaType || !ok || rj.Reason != "unsupported_media_type" {
					t.Errorf("%s: status %d %q, want 415 {reason: unsupported_media_type}", name, resp.status, truncate(resp.body))
				}
			case route == "strict" || route == "nfc":
				if resp.status != http.StatusRequestEntityTooLarge {
					t.Errorf("%s: status %d, want 413; body %q", name, resp.status, truncate(resp.body))
				} else if k.loc != "" {
					if rj, ok := rejection(resp); !ok || rj.Reason != "too_large" || rj.Location != k.loc {
						t.Errorf("%s: 413 %q, want {reason: too_large, location: %s}", name, truncate(resp.body), k.loc)
					}
				}
			default:
				if resp.status != http.StatusOK {
					t.Errorf("%s: status %d, want 200", name, resp.status)
				} else if a := decodeAnswer(t, name, resp); len(a.Body) != len(body) {
					t.Errorf("%s: the handler saw %d octets, want %d", name, len(a.Body), len(body))
				}
			}
		}
		name := route + " 1 MiB exactly"
		resp := d.do(t, name, req{method: http.MethodPost, target: "/" + route + "/big", contentType: "text/plain", body: exact}, nil)
		if resp.status != http.StatusOK {
			t.Errorf("%s: status %d, want 200", name, resp.status)
		}
	}
}
