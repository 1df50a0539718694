package middleware

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// violations is one violating request per location, for the tests that
// only need "some rejection" at each.
var violations = []struct {
	name, method, target, ct, body string
	header                         [2]string
	reason, location               string
}{
	{"path", "GET", "/api/files/%C0%AE", "", "", [2]string{}, "overlong", "path"},
	{"path raw", "GET", "/api/users/\xED\xA0\x80", "", "", [2]string{}, "surrogate", "path"},
	{"param lowercase", "GET", "/api/users/%ed%a0%80", "", "", [2]string{}, "surrogate", "path"},
	{"query", "GET", "/api/echo?q=%E2%82", "", "", [2]string{}, "truncated", "query"},
	{"query bad escape", "GET", "/api/echo?q=%zz", "", "", [2]string{}, "bad_escape", "query"},
	{"form", "POST", "/api/echo", ctForm, "q=%FF", [2]string{}, "invalid_byte", "form"},
	{"json", "POST", "/api/echo", ctJSON, `{"a":["\ud800"]}`, [2]string{}, "surrogate", "json"},
	{"multipart", "POST", "/api/echo", ctMP, multipartBody(mpPart{disp: `name="q"`, data: "\x80"}), [2]string{}, "unexpected_continuation", "multipart"},
	{"text", "POST", "/api/echo", ctText, "a\x00b", [2]string{}, "forbidden_char", "body"},
	{"charset", "POST", "/api/echo", "text/plain; charset=koi8-r", "\xC1", [2]string{}, "bad_charset", "body"},
	{"header", "GET", "/api/echo", "", "", [2]string{"X-Name", "\xC0\xAE"}, "overlong", "header"},
	{"too large", "POST", "/api/echo", ctText, strings.Repeat("x", 2048), [2]string{}, "too_large", "body"},
}

// checked is Strict with headers checked and 1 KiB bodies.
func checked() rules.Policy {
	p := rules.Strict()
	p.Header.On = true
	p.Headers = []string{"X-Name"}
	p.Limits.BodyBytes = 1024
	return p
}

func violationReq(i int) *http.Request {
	v := violations[i]
	var r *http.Request
	if v.body != "" {
		r = req(v.method, v.target, v.ct, strings.NewReader(v.body))
	} else {
		r = req(v.method, v.target, v.ct, nil)
	}
	if v.header[0] != "" {
		r.Header.Set(v.header[0], v.header[1])
	}
	return r
}

// TestMonitor: given a policy in Monitor mode, when a request breaks it,
// expect the handler to run with the request exactly as it would have seen
// it without the middleware (body included), and exactly one log line with
// mode "monitor".
func TestMonitor(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		for i, v := range violations {
			for _, unknownLength := range []bool{false, true} {
				if unknownLength && v.body == "" {
					continue
				}
				name := m.String() + "/" + v.name
				if unknownLength {
					name += "/length unknown"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					// given
					mon := checked()
					for l := range rules.Location(rules.NumLocations) {
						mon.Location(l).Repair = true // Monitor never repairs
					}
					mon = mon.AsMonitor()
					var hooks atomic.Int32
					ev := newServer(t, recSetup(Config{Rules: &mon, OnReject: func(echo.Context, *Rejection) { hooks.Add(1) }}, m), &recorder{})
					ref := newServer(t, recSetup(Config{Rules: ptr(rules.Unchecked())}, m), &recorder{})
					r, rr := violationReq(i), violationReq(i)
					if unknownLength {
						r.ContentLength, rr.ContentLength = -1, -1
					}
					// when
					w := ev.do(r)
					wr := ref.do(rr)
					// expect
					if w.Code != http.StatusOK || wr.Code != http.StatusOK {
						t.Fatalf("status = %d (reference %d), want 200; %s", w.Code, wr.Code, w.Body.String())
					}
					if ev.rec.calls.Load() != 1 {
						t.Fatalf("handler ran %d times, want 1", ev.rec.calls.Load())
					}
					got, want := ev.rec.seen(), ref.rec.seen()
					if want.ContentLength < 0 && got.ContentLength == int64(len(v.body)) {
						// A body read whole is handed on with its length;
						// one left unread (over the limit) keeps -1.
						want.ContentLength = got.ContentLength
					}
					want.Header.Del("X-Request-Id")
					got.Header.Del("X-Request-Id")
					if !reflect.DeepEqual(got, want) {
						t.Errorf("the handler saw\n%+v\nwant, as without the middleware,\n%+v", got, want)
					}
					if !bytes.Equal(got.Body, []byte(v.body)) {
						t.Errorf("body changed: %q", got.Body)
					}
					l := checkOneLog(t, ev.logs, wantLog{reason: v.reason, offset: -1}, "monitor", v.method, "")
					if l["location"] != v.location {
						t.Errorf("location = %v, want %s", l["location"], v.location)
					}
					if l["message"] != "utf8guard: request flagged" {
						t.Errorf("message = %v", l["message"])
					}
					if n := hooks.Load(); n != 1 {
						t.Errorf("OnReject called %d times, want 1", n)
					}
				})
			}
		}
	}
}

// TestEnforceHooks: given OnReject, expect it once per rejected request,
// after the log line, and never for clean ones; the handler never runs.
func TestEnforceHooks(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			var got []*Rejection
			var logsAtHook []int
			var ev *server[*recorder]
			ev = newServer(t, recSetup(Config{Rules: ptr(checked()), OnReject: func(c echo.Context, rj *Rejection) {
				got = append(got, rj)
				logsAtHook = append(logsAtHook, len(ev.logs.lines(t)))
			}}, m), &recorder{})
			for i, v := range violations {
				ev.logs.reset()
				before := len(got)
				w := ev.do(violationReq(i))
				if w.Code/100 != 4 {
					t.Errorf("%s: status %d", v.name, w.Code)
				}
				if len(got) != before+1 {
					t.Fatalf("%s: OnReject called %d times, want 1", v.name, len(got)-before)
				}
				rj := got[len(got)-1]
				if rj.Reason.String() != v.reason || rj.Location.String() != v.location || rj.Mode != rules.Enforce {
					t.Errorf("%s: OnReject got %v", v.name, rj)
				}
				if logsAtHook[len(logsAtHook)-1] != 1 {
					t.Errorf("%s: %d log lines when OnReject ran, want 1 (the hook runs after the log)", v.name, logsAtHook[len(logsAtHook)-1])
				}
				if !errors.Is(rj, rj.Reason.Sentinel()) {
					t.Errorf("%s: errors.Is(rj, %v) = false", v.name, rj.Reason.Sentinel())
				}
			}
			n := len(got)
			ev.do(req("GET", "/api/users/%C3%A9?q=%C3%A9", "", nil))
			if len(got) != n {
				t.Errorf("OnReject called for a clean request")
			}
			if ev.rec.calls.Load() != 1 {
				t.Errorf("handler calls = %d, want 1 (the clean request only)", ev.rec.calls.Load())
			}
		})
	}
}

// TestSkipper: given a Skipper, expect skipped requests to pass unchecked
// and unlogged, and the others to be checked.
func TestSkipper(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict()), Skipper: func(c echo.Context) bool {
				return c.Request().Header.Get("X-Skip") == "1"
			}}, m), &recorder{})
			r := req("GET", "/api/files/%C0%AE", "", nil)
			r.Header.Set("X-Skip", "1")
			if w := ev.do(r); w.Code != 200 || ev.rec.calls.Load() != 1 {
				t.Fatalf("skipped: status %d, calls %d", w.Code, ev.rec.calls.Load())
			}
			if l := ev.logs.lines(t); len(l) != 0 {
				t.Errorf("skipped request logged: %v", l)
			}
			if w := ev.do(req("GET", "/api/files/%C0%AE", "", nil)); w.Code != 400 || ev.rec.calls.Load() != 1 {
				t.Fatalf("not skipped: status %d, calls %d", w.Code, ev.rec.calls.Load())
			}
		})
	}
}

// TestErrorHandler: given a custom ErrorHandler, expect its answer, either
// an error for Echo's error handler or a response it wrote itself.
func TestErrorHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		h      func(c echo.Context, rj *Rejection) error
		status int
		body   string
	}{
		{"returns an error", func(c echo.Context, rj *Rejection) error {
			return echo.NewHTTPError(http.StatusUnprocessableEntity, "nope "+rj.Reason.String())
		}, 422, `{"message":"nope overlong"}`},
		{"writes the response", func(c echo.Context, rj *Rejection) error {
			return c.String(http.StatusTeapot, "teapot "+rj.Location.String())
		}, 418, "teapot path"},
	}
	for _, m := range mounts {
		for _, tc := range cases {
			t.Run(m.String()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				calls := 0
				ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict()), ErrorHandler: func(c echo.Context, rj *Rejection) error {
					calls++
					return tc.h(c, rj)
				}}, m), &recorder{})
				w := ev.do(req("GET", "/api/files/%C0%AE", "", nil))
				if w.Code != tc.status || strings.TrimSpace(w.Body.String()) != tc.body {
					t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.status, tc.body)
				}
				if calls != 1 || ev.rec.calls.Load() != 0 {
					t.Errorf("ErrorHandler calls %d, handler calls %d", calls, ev.rec.calls.Load())
				}
				checkOneLog(t, ev.logs, rej("overlong", "path", "", 11), "enforce", "GET", rFiles)
			})
		}
	}
}

// TestDefaultErrorHandler: the default answer is an *echo.HTTPError with
// the status of the rejection and {"reason","location"} only.
func TestDefaultErrorHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		rj     Rejection
		status int
	}{
		{Rejection{Reason: sanitize.Overlong, Location: rules.Query, Field: "q", Sample: `\xc0\xae`}, 400},
		{Rejection{Reason: sanitize.TooLarge, Location: rules.Body}, 413},
		{Rejection{Reason: sanitize.TooLarge, Location: rules.JSON}, 413},
		{*finding.TooMany(rules.Form, 10), 400},                                                   // a count, not a size
		{*unreadable(rules.Multipart, fmt.Errorf("writing the spool: %w", upload.ErrSpool)), 500}, // the server's disk
		{*unreadable(rules.Multipart, io.ErrUnexpectedEOF), 400},                                  // the client's body
		{Rejection{Reason: sanitize.SpoolFull, Location: rules.Multipart}, 503},
		{Rejection{Reason: sanitize.TooLarge, Location: rules.Multipart, Field: "f"}, 400},
		{Rejection{Reason: sanitize.TooLarge, Location: rules.Path}, 400},
		{Rejection{Reason: sanitize.TooLarge, Location: rules.Query}, 400},
		{Rejection{Reason: sanitize.BadCharset, Location: rules.Body, Field: "latin1"}, 400},
	}
	for _, tc := range cases {
		t.Run(tc.rj.Reason.String()+"/"+tc.rj.Location.String(), func(t *testing.T) {
			t.Parallel()
			rj := tc.rj
			err := DefaultErrorHandler(nil, &rj)
			var he *echo.HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("not an *echo.HTTPError: %T", err)
			}
			want := map[string]string{"reason": rj.Reason.String(), "location": rj.Location.String()}
			if he.Code != tc.status || !reflect.DeepEqual(he.Message, want) || he.Internal != &rj {
				t.Errorf("got %d %v internal %v, want %d %v", he.Code, he.Message, he.Internal, tc.status, want)
			}
		})
	}
	// Through a server, the body never holds the offending text, even
	// printable: an attacker must not get a reflection point.
	ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, mountGlobal), &recorder{})
	w := ev.do(req("GET", "/api/echo?%3Cscript%3E=%zz%3Cscript%3E", "", nil))
	if w.Code != 400 || strings.Contains(strings.ToLower(w.Body.String()), "script") {
		t.Errorf("body = %q", w.Body.String())
	}
	if got := errorBody(t, w.Body.Bytes()); len(got) != 2 || got["reason"] != "bad_escape" || got["location"] != "query" {
		t.Errorf("body = %v", got)
	}
}

// TestConfig: New works, with rules.Default().
func TestConfig(t *testing.T) {
	t.Parallel()
	e := echo.New()
	e.Use(New())
	rec := &recorder{}
	e.GET("/x/:id", echoHandler(rec))
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req("GET", "/x/%c3%a9?q=1", "", nil))
	if w.Code != 200 || rec.seen().Params["id"] != "é" {
		t.Errorf("New: %d %v", w.Code, rec.seen())
	}
}

// TestTable: given a rules.Table, expect each route's policy, and the
// default for the others, whatever the mount.
func TestTable(t *testing.T) {
	t.Parallel()
	table := &rules.Table{
		Default: rules.Strict(),
		Routes: map[string]rules.Policy{
			rUser:  rules.Default(),   // C0 allowed, NUL refused
			rFiles: rules.Unchecked(), // anything goes
		},
	}
	cases := []struct {
		target string
		status int
		route  string
	}{
		{"/api/users/%01", 200, rUser},
		{"/api/users/%00", 400, rUser},
		{"/api/users/%ed%a0%80", 400, rUser},
		{"/api/files/%C0%AE%00", 200, rFiles},
		{"/api/echo?q=%01", 400, rEcho},
		{"/api/echo?q=ok", 200, rEcho},
		{"/api/users/1/posts/%01", 400, "/api/users/:id/posts/:post"},
	}
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			ev := newServer(t, recSetup(Config{Rules: table}, m), &recorder{})
			for _, tc := range cases {
				ev.logs.reset()
				w := ev.do(req("GET", tc.target, "", nil))
				if w.Code != tc.status {
					t.Errorf("%s: status %d, want %d", tc.target, w.Code, tc.status)
					continue
				}
				if tc.status == 400 {
					l := ev.logs.lines(t)
					if len(l) != 1 || l[0]["route"] != tc.route {
						t.Errorf("%s: log %v, want one line with route %s", tc.target, l, tc.route)
					}
				}
			}
		})
	}
}

// TestCanonPreRouting: mounted with e.Pre, the middleware normalizes the
// path before Echo routes it, so a route registered in NFC matches a
// decomposed request path; after routing it is too late to match.
func TestCanonPreRouting(t *testing.T) {
	t.Parallel()
	for _, mnt := range allMounts {
		t.Run(mnt.String(), func(t *testing.T) {
			ev := newServer(t, canonSetup(canonPolicy(normalize.NFC), mnt), &canonRec{})
			for _, target := range []string{"/api/cafe%CC%81", "/api/cafe\u0301", "/api/caf%C3%A9"} {
				w := ev.do(canonReq("GET", target, "", ""))
				matched := target == "/api/caf%C3%A9" || mnt == mountPre || mnt == mountMux
				if !matched {
					if w.Code != http.StatusNotFound {
						t.Errorf("%s: status %d, want 404 (routed before normalization)", target, w.Code)
					}
					continue
				}
				if w.Code != 200 {
					t.Errorf("%s: status %d, want 200", target, w.Code)
					continue
				}
				s := ev.rec.get()
				canonEq(t, target+" URL.Path", s.Path, "/api/caf\u00E9")
				canonEq(t, target+" URL.RawPath", s.RawPath, "")
			}
		})
	}
}
