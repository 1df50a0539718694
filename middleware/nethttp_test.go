package middleware

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// muxSetup is the net/http adapter configured by cfg on m (around each
// handler of a ServeMux, or around the ServeMux), serving the recorder on
// routes without /api, with methods, so that the log names the pattern.
func muxSetup(cfg HTTPConfig, m mount) setup {
	return setup{mount: m, http: cfg, patterns: []string{"GET /users/{id}", "POST /echo", "GET /echo", "/files/"}}
}

// TestHTTPAdapter: the net/http adapter applies the same checks, statuses
// and log lines, the route being the ServeMux pattern.
func TestHTTPAdapter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, target, ct, body string
		status                         int
		want                           wantLog
		route                          string
	}{
		{"clean", "GET", "/users/%c3%a9?q=%C3%A9", "", "", 200, wantLog{}, ""},
		{"path", "GET", "/users/%C0%AE", "", "", 400, rej("overlong", "path", "", 7), "GET /users/{id}"},
		{"path raw", "GET", "/files/\xED\xA0\x80", "", "", 400, rej("surrogate", "path", "", 7), "/files/"},
		{"path double encoding", "GET", "/files/%252e", "", "", 400, rej("double_encoding", "path", "", 7), "/files/"},
		{"query", "GET", "/echo?a=1&q=%FF", "", "", 400, rej("invalid_byte", "query", "q", 0), "GET /echo"},
		{"query bad escape", "GET", "/echo?q=%G0", "", "", 400, rej("bad_escape", "query", "q", 0), "GET /echo"},
		{"form", "POST", "/echo", ctForm, "q=%00", 400, forb("form", "q", 0, "nul"), "POST /echo"},
		{"json", "POST", "/echo", ctJSON, `{"a":{"b":"\udc00"}}`, 400, rej("surrogate", "json", "/a/b", 11), "POST /echo"},
		{"json pair", "POST", "/echo", ctJSON, `{"a":"\ud83d\ude00"}`, 200, wantLog{}, ""},
		{"multipart filename*", "POST", "/echo", ctMP, multipartBody(mpPart{disp: `name="f"; filename*=UTF-8''%C0%AE.txt`, ct: "image/png", data: "x"}), 400, rej("overlong", "multipart", "f", 0), "POST /echo"},
		{"text", "POST", "/echo", ctText, "ok\xF4\x90\x80\x80", 400, rej("out_of_range", "body", "", 2), "POST /echo"},
		{"charset", "POST", "/echo", "text/plain; charset=Shift_JIS", "\x82\xa0", 400, rej("bad_charset", "body", "Shift_JIS", -1), "POST /echo"},
		{"too large", "POST", "/echo", ctText, strings.Repeat("a", 2000), 413, rej("too_large", "body", "", -1), "POST /echo"},
	}
	for _, m := range []mount{mountHandler, mountMux} {
		for _, tc := range cases {
			name := "per handler/" + tc.name
			if m == mountMux {
				name = "around the mux/" + tc.name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// given
				pol := rules.Strict()
				pol.Limits.BodyBytes = 1024
				ev := newServer(t, muxSetup(HTTPConfig{Rules: &pol}, m), &recorder{})
				var r *http.Request
				if tc.body != "" {
					r = req(tc.method, tc.target, tc.ct, strings.NewReader(tc.body))
				} else {
					r = req(tc.method, tc.target, tc.ct, nil)
				}
				r.Header.Set("X-Request-Id", "rid-7")
				r.Header.Set("X-Real-Ip", "203.0.113.1") // not trusted by the adapter
				// when
				w := ev.do(r)
				// expect
				if w.Code != tc.status {
					t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body.String())
				}
				if tc.want.reason == "" {
					if ev.rec.calls.Load() != 1 || len(ev.logs.lines(t)) != 0 {
						t.Fatalf("calls %d, log %v", ev.rec.calls.Load(), ev.logs.lines(t))
					}
					if s := ev.rec.seen(); tc.name == "clean" && (s.Params["id"] != "é" || s.Query.Get("q") != "é") {
						t.Errorf("handler saw %+v", s)
					}
					if s := ev.rec.seen(); tc.body != "" && (string(s.Body) != tc.body || s.ContentLength != int64(len(tc.body))) {
						t.Errorf("body %q, length %d", s.Body, s.ContentLength)
					}
					return
				}
				if ev.rec.calls.Load() != 0 {
					t.Errorf("handler ran on a rejection")
				}
				if ct := w.Header().Get("Content-Type"); ct != "application/json" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("headers %v", w.Header())
				}
				got := errorBody(t, w.Body.Bytes())
				if len(got) != 2 || got["reason"] != tc.want.reason || got["location"] != tc.want.location {
					t.Errorf("error body %v", got)
				}
				route := tc.route
				if m == mountMux {
					route = "" // wrapping the mux itself: no pattern yet
				}
				l := checkOneLog(t, ev.logs, tc.want, "enforce", tc.method, "")
				if l["route"] != route || l["request_id"] != "rid-7" || l["remote_ip"] != "192.0.2.1" {
					t.Errorf("route %v request_id %v remote_ip %v", l["route"], l["request_id"], l["remote_ip"])
				}
			})
		}
	}
}

// TestHTTPAdapterTable: the Routes table is looked up by the route the
// adapter names: the ServeMux pattern by default, or what Route returns.
func TestHTTPAdapterTable(t *testing.T) {
	t.Parallel()
	table := &rules.Table{
		Default: rules.Strict(),
		Routes: map[string]rules.Policy{
			"GET /users/{id}": rules.Default(),
			"/files/":         rules.Unchecked(),
			"GET /echo":       rules.Strict().AsMonitor(),
		},
	}
	t.Run("pattern", func(t *testing.T) {
		t.Parallel()
		ev := newServer(t, muxSetup(HTTPConfig{Rules: table}, mountHandler), &recorder{})
		for _, tc := range []struct {
			target string
			status int
			lines  int
		}{
			{"/users/%01", 200, 0},         // Default: C0 allowed
			{"/users/%00", 400, 1},         // Default: NUL refused
			{"/files/%C0%AE", 200, 0},      // Unchecked
			{"/echo?q=%01", 200, 1},        // monitored
			{"/echo?q=%C3%A9", 200, 0},     // clean
			{"/nowhere/%01", 404, 0},       // unrouted: the mux answers
			{"/users/a%2Fb%C0%AE", 400, 1}, // encoded slash, checked all the same
		} {
			ev.logs.reset()
			w := ev.do(req("GET", tc.target, "", nil))
			if w.Code != tc.status || len(ev.logs.lines(t)) != tc.lines {
				t.Errorf("%s: status %d log %v; want %d and %d lines", tc.target, w.Code, ev.logs.lines(t), tc.status, tc.lines)
			}
		}
	})
	t.Run("route func", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{
			Rules: &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"open": rules.Unchecked()}},
			Route: func(r *http.Request) string {
				if strings.HasPrefix(r.URL.Path, "/open/") {
					return "open"
				}
				return "api:" + r.Method
			},
		}}, &recorder{})
		lb := srv.logs
		if w := srv.do(req("GET", "/open/%C0%AE", "", nil)); w.Code != 200 {
			t.Errorf("open: %d", w.Code)
		}
		if w := srv.do(req("GET", "/x/%C0%AE", "", nil)); w.Code != 400 {
			t.Errorf("strict: %d", w.Code)
		}
		if l := lb.lines(t); len(l) != 1 || l[0]["route"] != "api:GET" {
			t.Errorf("log %v", l)
		}
	})
}

// TestHTTPAdapterHooks: Monitor passes on unchanged with one line; OnReject
// runs once; a custom ErrorHandler answers; a broken body is 400.
func TestHTTPAdapterHooks(t *testing.T) {
	t.Parallel()
	t.Run("monitor", func(t *testing.T) {
		t.Parallel()
		var hooks atomic.Int32
		mon := rules.Strict().AsMonitor()
		ev := newServer(t, muxSetup(HTTPConfig{Rules: &mon, OnReject: func(*http.Request, *Rejection) { hooks.Add(1) }}, mountHandler), &recorder{})
		body := `{"a":"\ud800"}`
		w := ev.do(req("POST", "/echo", ctJSON, strings.NewReader(body)))
		if w.Code != 200 || ev.rec.calls.Load() != 1 || string(ev.rec.seen().Body) != body || hooks.Load() != 1 {
			t.Fatalf("status %d calls %d body %q hooks %d", w.Code, ev.rec.calls.Load(), ev.rec.seen().Body, hooks.Load())
		}
		checkOneLog(t, ev.logs, rej("surrogate", "json", "/a", 6), "monitor", "POST", "POST /echo")
	})
	t.Run("error handler", func(t *testing.T) {
		t.Parallel()
		var hooks atomic.Int32
		ev := newServer(t, muxSetup(HTTPConfig{
			Rules:    ptr(rules.Strict()),
			OnReject: func(*http.Request, *Rejection) { hooks.Add(1) },
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, rj *Rejection) {
				http.Error(w, "no: "+rj.Reason.String(), http.StatusTeapot)
			},
		}, mountHandler), &recorder{})
		w := ev.do(req("GET", "/echo?q=%C0%AE", "", nil))
		if w.Code != 418 || !strings.HasPrefix(w.Body.String(), "no: overlong") || hooks.Load() != 1 || ev.rec.calls.Load() != 0 {
			t.Errorf("got %d %q hooks %d calls %d", w.Code, w.Body.String(), hooks.Load(), ev.rec.calls.Load())
		}
	})
	t.Run("repair", func(t *testing.T) {
		t.Parallel()
		pol := repairing()
		ev := newServer(t, muxSetup(HTTPConfig{Rules: &pol}, mountHandler), &recorder{})
		w := ev.do(req("GET", "/echo?q=a%C0", "", nil))
		if w.Code != 200 || ev.rec.seen().Query.Get("q") != "a"+fffd {
			t.Errorf("got %d, q %q", w.Code, ev.rec.seen().Query.Get("q"))
		}
	})
	t.Run("broken body", func(t *testing.T) {
		t.Parallel()
		ev := newServer(t, muxSetup(HTTPConfig{Rules: ptr(rules.Strict())}, mountHandler), &recorder{})
		r := req("POST", "/echo", ctText, &failingReader{data: []byte("abc"), err: errBroken})
		r.ContentLength = -1
		w := ev.do(r)
		if w.Code != 400 || ev.rec.calls.Load() != 0 || errorBody(t, w.Body.Bytes())["reason"] != "body_unreadable" {
			t.Errorf("got %d %q", w.Code, w.Body.String())
		}
		if l := ev.logs.lines(t); len(l) != 1 || l[0]["route"] != "POST /echo" {
			t.Errorf("log %v", l)
		}
		mon := rules.Strict().AsMonitor()
		ev = newServer(t, muxSetup(HTTPConfig{Rules: &mon}, mountHandler), &recorder{})
		r = req("POST", "/echo", ctText, &failingReader{data: []byte("abc"), err: errBroken})
		r.ContentLength = -1
		ev.do(r)
		if s := ev.rec.seen(); s == nil || !bytes.Equal(s.Body, []byte("abc")) || !errors.Is(s.BodyErr, errBroken) {
			t.Errorf("monitor: handler saw %+v", s)
		}
	})
	t.Run("body integrity", func(t *testing.T) {
		t.Parallel()
		ev := newServer(t, muxSetup(HTTPConfig{Rules: ptr(rules.Strict())}, mountHandler), &recorder{})
		body := mixedText(300000)
		r := req("POST", "/echo", ctText, io.MultiReader(bytes.NewReader(body[:77]), bytes.NewReader(body[77:])))
		r.ContentLength = -1
		if w := ev.do(r); w.Code != 200 || !bytes.Equal(ev.rec.seen().Body, body) || ev.rec.seen().ContentLength != int64(len(body)) {
			t.Errorf("status %d, body intact %v", w.Code, bytes.Equal(ev.rec.seen().Body, body))
		}
	})
}
