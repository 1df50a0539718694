package middleware

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// locCase is one request against the test routes: given a policy and a
// request, expect a status and (for a rejection) a log line.
type locCase struct {
	name   string
	pol    func() rules.Policy // nil: rules.Strict
	method string              // "" is GET, or POST when body is set
	target string              // raw request-target
	ct     string
	body   string
	header [][2]string
	// expect
	status int     // 200 when accepted
	want   wantLog // want.reason == "": accepted, no log line
	route  string  // the route template in the log
	check  func(t *testing.T, s *seen)
}

// encodingCases are the UTF-8 malformations, escaped, with the reason each
// must give; raw is the octets themselves.
var encodingCases = []struct{ reason, esc, raw string }{
	{"overlong", "%C0%AE", "\xC0\xAE"},
	{"overlong", "%E0%80%AF", "\xE0\x80\xAF"},
	{"surrogate", "%ED%A0%80", "\xED\xA0\x80"},
	{"surrogate", "%ED%B0%80", "\xED\xB0\x80"},
	{"out_of_range", "%F4%90%80%80", "\xF4\x90\x80\x80"},
	{"invalid_byte", "%FF", "\xFF"},
	{"invalid_byte", "%C0", "\xC0"},
	{"truncated", "%E2%82", "\xE2\x82"},
	{"unexpected_continuation", "%80", "\x80"},
}

// urlForbidden are characters Strict refuses in the path and the query.
var urlForbidden = []struct{ class, esc string }{
	{"nul", "%00"},
	{"c0", "%01"},
	{"tab_newline", "%0A"},
	{"c1", "%C2%85"},
	{"bidi_control", "%E2%80%AE"},
}

// bodyForbidden are characters Strict refuses in bodies, raw.
var bodyForbidden = []struct{ class, raw string }{
	{"nul", "\x00"},
	{"c0", "\x01"},
	{"c1", "\xC2\x85"},
	{"bidi_control", "\xE2\x80\xAE"},
}

// locationTables are the cases of TestLocations, each location's in the
// test file of the source file that checks it: pathCases in path_test.go,
// queryCases and formCases in pairs_test.go, jsonCases in json_test.go,
// multipartCases in multipart_check_test.go, textCases (the body kinds a
// Content-Type selects) in media_test.go, headerCases in header_test.go.
var locationTables = []struct {
	name  string
	cases func() []locCase
}{
	{"path", pathCases},
	{"query", queryCases},
	{"form", formCases},
	{"json", jsonCases},
	{"multipart", multipartCases},
	{"body", textCases},
	{"header", headerCases},
}

// TestLocations runs every location's cases through e.ServeHTTP, with the
// middleware mounted globally, on a group, on the route and with e.Pre.
func TestLocations(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			for _, tab := range locationTables {
				t.Run(tab.name, func(t *testing.T) {
					t.Parallel()
					names := map[string]int{}
					for _, tc := range tab.cases() {
						name := tc.name
						if n := names[name]; n > 0 {
							name = fmt.Sprintf("%s#%d", name, n)
						}
						names[tc.name]++
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							runLocCase(t, m, tc)
						})
					}
				})
			}
		})
	}
}

func runLocCase(t *testing.T, m mount, tc locCase) {
	t.Helper()
	// given
	pol := rules.Strict()
	if tc.pol != nil {
		pol = tc.pol()
	}
	ev := newServer(t, recSetup(Config{Rules: &pol}, m), &recorder{})
	method := tc.method
	if method == "" {
		method = http.MethodGet
		if tc.body != "" {
			method = http.MethodPost
		}
	}
	var body *strings.Reader
	if tc.body != "" || method == http.MethodPost {
		body = strings.NewReader(tc.body)
	}
	var r *http.Request
	if body != nil {
		r = req(method, tc.target, tc.ct, body)
	} else {
		r = req(method, tc.target, tc.ct, nil)
	}
	for _, h := range tc.header {
		r.Header.Add(h[0], h[1])
	}
	// when
	w := ev.do(r)
	// expect
	wantStatus := tc.status
	if wantStatus == 0 {
		wantStatus = http.StatusBadRequest
	}
	if w.Code != wantStatus {
		t.Fatalf("status = %d, want %d; body %q; log %v", w.Code, wantStatus, w.Body.Bytes(), ev.logs.lines(t))
	}
	if tc.want.reason == "" {
		if n := ev.rec.calls.Load(); n != 1 {
			t.Fatalf("handler ran %d times, want 1", n)
		}
		if l := ev.logs.lines(t); len(l) != 0 {
			t.Errorf("accepted request logged: %v", l)
		}
		s := ev.rec.seen()
		if tc.body != "" && string(s.Body) != tc.body {
			t.Errorf("handler body = %q, want %q", s.Body, tc.body)
		}
		if tc.body != "" && s.ContentLength != int64(len(tc.body)) {
			t.Errorf("ContentLength = %d, want %d", s.ContentLength, len(tc.body))
		}
		if tc.check != nil {
			tc.check(t, s)
		}
		return
	}
	if n := ev.rec.calls.Load(); n != 0 {
		t.Errorf("handler ran %d times on a rejection", n)
	}
	got := errorBody(t, w.Body.Bytes())
	if got["reason"] != tc.want.reason || got["location"] != tc.want.location || len(got) != 2 {
		t.Errorf("error body = %v, want reason %s location %s", got, tc.want.reason, tc.want.location)
	}
	if !printableASCII(strings.TrimSuffix(w.Body.String(), "\n")) {
		t.Errorf("error body echoes raw octets: %q", w.Body.String())
	}
	want := tc.want
	if want.reason == "too_large" || want.reason == "bad_charset" {
		want.offset = -1
	}
	l := checkOneLog(t, ev.logs, want, "enforce", method, tc.route)
	if id := w.Header().Get("X-Request-Id"); id == "" || l["request_id"] != id {
		t.Errorf("request_id = %v, response X-Request-Id = %q", l["request_id"], id)
	}
	if l["remote_ip"] != "192.0.2.1" {
		t.Errorf("remote_ip = %v", l["remote_ip"])
	}
}

// TestRepair: given a policy that repairs, when a request holds ill-formed
// UTF-8, expect the handler to see U+FFFD in its place (maximal subparts),
// and no log line; forbidden characters and limits are still rejected.
func TestRepair(t *testing.T) {
	t.Parallel()
	type tc struct {
		name             string
		target, ct, body string
		want             wantLog // rejection
		check            func(t *testing.T, s *seen)
		limitFieldBytes  int
	}
	cases := []tc{
		{name: "path", target: "/api/files/a%C0%AEb", check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/a"+fffd+fffd+"b" {
				t.Errorf("Path = %q", s.Path)
			}
			if s.Params["*"] != "a"+fffd+fffd+"b" {
				t.Errorf("param * = %q", s.Params["*"])
			}
		}},
		{name: "path param lowercase", target: "/api/users/%c0%ae", check: func(t *testing.T, s *seen) {
			if s.Params["id"] != fffd+fffd {
				t.Errorf("param id = %q", s.Params["id"])
			}
		}},
		{name: "path raw octets", target: "/api/users/x\xED\xA0\x80y", check: func(t *testing.T, s *seen) {
			if s.Params["id"] != "x"+fffd+fffd+fffd+"y" {
				t.Errorf("param id = %q", s.Params["id"])
			}
			if s.Path != "/api/users/x"+fffd+fffd+fffd+"y" {
				t.Errorf("Path = %q", s.Path)
			}
		}},
		{name: "path encoded slash kept", target: "/api/files/a%2Fb%FF", check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/a/b"+fffd {
				t.Errorf("Path = %q", s.Path)
			}
			if !strings.Contains(s.RawPath, "a%2Fb") {
				t.Errorf("RawPath = %q: the encoded slash must stay encoded", s.RawPath)
			}
		}},
		{name: "path repair exposes nul", target: "/api/files/%C0%AE%00", want: forb("path", "", 17, "nul")},
		{name: "path repair keeps double encoding refused", target: "/api/files/%C0%252e", want: rej("double_encoding", "path", "", 12)},
		{name: "query", target: "/api/echo?a=1&q=x%C0%AEy&k%FF=v", check: func(t *testing.T, s *seen) {
			if s.Query.Get("q") != "x"+fffd+fffd+"y" || s.Query.Get("k"+fffd) != "v" || s.Query.Get("a") != "1" {
				t.Errorf("query = %q (raw %q)", s.Query, s.RawQuery)
			}
		}},
		{name: "query raw octets", target: "/api/echo?q=\xC0\xAE", check: func(t *testing.T, s *seen) {
			if s.Query.Get("q") != fffd+fffd {
				t.Errorf("query = %q", s.Query)
			}
		}},
		{name: "query bad escape still rejected", target: "/api/echo?q=%C0%zz", want: rej("bad_escape", "query", "q", 1)},
		{name: "query nul still rejected", target: "/api/echo?q=%C0%00", want: forb("query", "q", 3, "nul")},
		{name: "query field length still holds", target: "/api/echo?q=%C0%C0%C0%C0%C0%C0%C0%C0%C0", limitFieldBytes: 8, want: rej("too_large", "query", "q", -1)},
		{name: "form", target: "/api/echo", ct: ctForm, body: "a=1&q=x%C0%AEy", check: func(t *testing.T, s *seen) {
			v, err := url.ParseQuery(string(s.Body))
			if err != nil || v.Get("q") != "x"+fffd+fffd+"y" || v.Get("a") != "1" {
				t.Errorf("form body = %q", s.Body)
			}
			if s.ContentLength != int64(len(s.Body)) {
				t.Errorf("ContentLength = %d, body %d", s.ContentLength, len(s.Body))
			}
		}},
		{name: "form field length still holds", target: "/api/echo", ct: ctForm, body: "q=%C0%C0%C0%C0%C0%C0%C0%C0%C0", limitFieldBytes: 8, want: rej("too_large", "form", "q", -1)},
		{name: "text body", target: "/api/echo", ct: ctText, body: "a\xC0\xAEb\xE2\x82", check: func(t *testing.T, s *seen) {
			if string(s.Body) != "a"+fffd+fffd+"b"+fffd {
				t.Errorf("body = %q", s.Body)
			}
			if s.ContentLength != int64(len(s.Body)) {
				t.Errorf("ContentLength = %d, body %d", s.ContentLength, len(s.Body))
			}
		}},
		{name: "text body nul still rejected", target: "/api/echo", ct: ctText, body: "a\xC0\x00", want: forb("body", "", 4, "nul")},
		{name: "json", target: "/api/echo", ct: ctJSON, body: `{"q":"a` + "\xC0\xAE" + `","s":"\ud800","p":"\ud83d\ude00"}`, check: func(t *testing.T, s *seen) {
			var v map[string]string
			if err := json.Unmarshal(s.Body, &v); err != nil {
				t.Fatalf("body %q: %v", s.Body, err)
			}
			if v["q"] != "a"+fffd+fffd || v["s"] != fffd || v["p"] != "😀" {
				t.Errorf("json = %q (body %q)", v, s.Body)
			}
			if !strings.Contains(string(s.Body), `\uFFFD`) {
				t.Errorf("lone surrogate escape not rewritten: %q", s.Body)
			}
		}},
		{name: "json nul still rejected", target: "/api/echo", ct: ctJSON, body: `{"q":"\ud800\u0000"}`, want: forb("json", "/q", 12, "nul")},
		{name: "multipart never repaired", target: "/api/echo", ct: ctMP, body: multipartBody(mpPart{disp: `name="q"`, data: "\xC0\xAE"}), want: rej("overlong", "multipart", "q", 0)},
	}
	for _, m := range mounts {
		for _, c := range cases {
			t.Run(m.String()+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				// given
				pol := repairing()
				if c.limitFieldBytes != 0 {
					pol.Limits.FieldBytes = c.limitFieldBytes
				}
				ev := newServer(t, recSetup(Config{Rules: &pol}, m), &recorder{})
				var r *http.Request
				if c.body != "" {
					r = req(http.MethodPost, c.target, c.ct, strings.NewReader(c.body))
				} else {
					r = req(http.MethodGet, c.target, "", nil)
				}
				// when
				w := ev.do(r)
				// expect
				if c.want.reason != "" {
					if w.Code != http.StatusBadRequest || ev.rec.calls.Load() != 0 {
						t.Fatalf("status %d, handler calls %d: want 400 and none", w.Code, ev.rec.calls.Load())
					}
					checkOneLog(t, ev.logs, c.want, "enforce", "", "")
					return
				}
				if w.Code != http.StatusOK {
					t.Fatalf("status = %d, body %q, log %v", w.Code, w.Body.String(), ev.logs.lines(t))
				}
				if l := ev.logs.lines(t); len(l) != 0 {
					t.Errorf("a repaired request is logged: %v", l)
				}
				c.check(t, ev.rec.seen())
			})
		}
	}
}
