package echov4_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// What every adapter does to a request is in the conformance kit's rows
// (middleware/adaptertest), which conformance_test.go runs on this adapter;
// these tests cover what is Echo v4's own: where it mounts, the parameters
// it hands back, the configuration, the hooks, the answer's error, and the
// routing it does under e.Pre.

func do(e *echo.Echo, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func nop() *zerolog.Logger { l := zerolog.Nop(); return &l }

// logLines is a zerolog logger into a buffer, and the lines it holds.
type logLines struct{ buf bytes.Buffer }

func (l *logLines) logger() *zerolog.Logger { z := zerolog.New(&l.buf); return &z }

// lines returns the JSON objects logged since the last call.
func (l *logLines) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if s == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		out = append(out, m)
	}
	l.buf.Reset()
	return out
}

// mount registers handler for GET route on e with mw mounted at where:
// "use", "pre", "group" (the route's first segment is the group's
// prefix) or "route".
func mount(e *echo.Echo, where string, mw echo.MiddlewareFunc, route string, handler echo.HandlerFunc) {
	switch where {
	case "use":
		e.Use(mw)
	case "pre":
		e.Pre(mw)
	}
	switch where {
	case "group":
		i := strings.IndexByte(route[1:], '/') + 1
		e.Group(route[:i], mw).GET(route[i:], handler)
	case "route":
		e.GET(route, handler, mw)
	default:
		e.GET(route, handler)
	}
}

var mounts = []string{"use", "pre", "group", "route"}

// TestCleanPassesMalformedRefused: wherever it is mounted, a clean request
// reaches the handler with c.Param decoded (also where Echo routed on the
// escaped path, URL.RawPath, and would hand back "%63af%C3%A9"), and
// without a log line; a malformed one gets its status and the JSON body
// {"location","reason"} from DefaultErrorHandler, never the handler, and
// exactly one warn line naming the route.
func TestCleanPassesMalformedRefused(t *testing.T) {
	for _, tt := range []struct {
		name, target string
		status       int
		body         string // the handler's answer, or the refusal's
		reason, loc  string
	}{
		{"clean", "/files/caf%C3%A9.txt?q=ok", 200, "café.txt ok", "", ""},
		{"clean, routed on RawPath", "/files/%63af%C3%A9%2Etxt", 200, "café.txt", "", ""},
		{"overlong slash", "/files/..%C0%AFetc%C0%AFpasswd", 400, `{"location":"path","reason":"overlong"}`, "overlong", "path"},
		{"lone surrogate", "/files/%ED%A0%80", 400, `{"location":"path","reason":"surrogate"}`, "surrogate", "path"},
		{"NUL in the query", "/files/a?q=%00", 400, `{"location":"query","reason":"forbidden_char"}`, "forbidden_char", "query"},
		{"bad escape in the query", "/files/a?q=%zz", 400, `{"location":"query","reason":"bad_escape"}`, "bad_escape", "query"},
	} {
		if tt.name == "clean, routed on RawPath" {
			// Echo alone hands the handler the escapes.
			e := echo.New()
			e.GET("/files/:name", func(c echo.Context) error { return c.String(http.StatusOK, c.Param("name")) })
			if w := do(e, http.MethodGet, tt.target); w.Body.String() != "%63af%C3%A9%2Etxt" {
				t.Fatalf("without the middleware, Echo gives %q", w.Body.String())
			}
		}
		for _, where := range mounts {
			t.Run(tt.name+"/"+where, func(t *testing.T) {
				var log logLines
				p := rules.Strict()
				e := echo.New()
				ran := false
				mount(e, where, echov4.WithConfig(echov4.Config{Rules: &p, Logger: log.logger()}), "/files/:name", func(c echo.Context) error {
					ran = true
					return c.String(http.StatusOK, c.Param("name")+" "+c.QueryParam("q"))
				})
				w := do(e, http.MethodGet, tt.target)
				if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.body {
					t.Fatalf("%d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
				}
				lines := log.lines(t)
				if tt.reason == "" {
					if len(lines) != 0 {
						t.Errorf("clean request logged %v", lines)
					}
					return
				}
				if ran {
					t.Errorf("the handler ran for a refused request")
				}
				if ct := w.Header().Get(echo.HeaderContentType); !strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
					t.Errorf("Content-Type %q", ct)
				}
				if len(lines) != 1 {
					t.Fatalf("%d log lines, want 1: %v", len(lines), lines)
				}
				l := lines[0]
				if l["level"] != "warn" || l["reason"] != tt.reason || l["location"] != tt.loc || l["route"] != "/files/:name" || l["mode"] != "enforce" {
					t.Errorf("log line %v", l)
				}
			})
		}
	}
}

// TestDefaults: New checks with rules.Default() (NUL refused, a forbidden
// bidi control let through) and answers with DefaultErrorHandler, without
// a body for HEAD.
func TestDefaults(t *testing.T) {
	e := echo.New()
	e.Use(echov4.WithConfig(echov4.Config{Logger: nop()}))
	e.GET("/*", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	if w := do(e, http.MethodGet, "/a?q=%E2%80%AE"); w.Code != http.StatusNoContent {
		t.Errorf("bidi under the default preset: %d, want 204", w.Code)
	}
	w := do(e, http.MethodGet, "/a?q=%00")
	if w.Code != http.StatusBadRequest || w.Body.String() != `{"location":"query","reason":"forbidden_char"}`+"\n" {
		t.Errorf("NUL: %d %q", w.Code, w.Body.String())
	}
	if w := do(e, http.MethodHead, "/a?q=%00"); w.Code != http.StatusBadRequest || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d %q, want 400 without a body", w.Code, w.Body.String())
	}
}

// TestHooks: the Skipper skips (the handler sees what Echo alone gives
// it), OnReject sees every refused or flagged request once, ErrorHandler
// decides the answer, and errors.As finds the Rejection in
// DefaultErrorHandler's *echo.HTTPError.
func TestHooks(t *testing.T) {
	var rejected []string
	var fromDefault error
	e := echo.New()
	e.Use(echov4.WithConfig(echov4.Config{
		Logger:  nop(),
		Skipper: func(c echo.Context) bool { return c.Request().Header.Get("X-Skip") != "" },
		Rules: &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/beta/*": rules.Strict().AsMonitor(),
		}},
		OnReject: func(c echo.Context, rj *middleware.Rejection) {
			rejected = append(rejected, rj.Reason.String()+" "+rj.Mode.String())
		},
		ErrorHandler: func(c echo.Context, rj *middleware.Rejection) error {
			fromDefault = echov4.DefaultErrorHandler(c, rj)
			return c.String(http.StatusTeapot, rj.Location.String())
		},
	}))
	ok := func(c echo.Context) error { return c.String(http.StatusOK, c.Param("*")) }
	e.GET("/a/*", ok)
	e.GET("/beta/*", ok)

	if w := do(e, http.MethodGet, "/a/x?q=ok"); w.Code != http.StatusOK {
		t.Errorf("clean: %d", w.Code)
	}
	if w := do(e, http.MethodGet, "/a/%C0%AE"); w.Code != http.StatusTeapot || w.Body.String() != "path" {
		t.Errorf("refused: %d %q, want the ErrorHandler's 418 \"path\"", w.Code, w.Body.String())
	}
	var rj *middleware.Rejection
	var he *echo.HTTPError
	if !errors.As(fromDefault, &rj) || !errors.As(fromDefault, &he) || !errors.Is(fromDefault, sanitize.ErrOverlong) ||
		he.Code != http.StatusBadRequest || rj.Reason != sanitize.Overlong || rj.Location != rules.Path {
		t.Errorf("DefaultErrorHandler returned %v", fromDefault)
	}
	if w := do(e, http.MethodGet, "/beta/%C0%AE"); w.Code != http.StatusOK || w.Body.String() != "\xc0\xae" {
		t.Errorf("monitored: %d %q, want 200 and the parameter as Echo cut it", w.Code, w.Body.String())
	}
	r := httptest.NewRequest(http.MethodGet, "/a/%C0%AE", nil)
	r.Header.Set("X-Skip", "1")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	if w.Code != http.StatusOK || w.Body.String() != "\xc0\xae" {
		t.Errorf("skipped: %d %q, want 200 and the parameter as Echo cut it", w.Code, w.Body.String())
	}
	if want := []string{"overlong enforce", "overlong monitor"}; strings.Join(rejected, ",") != strings.Join(want, ",") {
		t.Errorf("OnReject saw %q, want %q", rejected, want)
	}
}

// TestDefaultErrorHandlerAnswer: DefaultErrorHandler's *echo.HTTPError has
// the rejection's status, the message {"reason","location"} that Echo's
// DefaultHTTPErrorHandler writes as the JSON body, and the Rejection as
// its Internal error; the offending octets are in neither.
func TestDefaultErrorHandlerAnswer(t *testing.T) {
	for _, tt := range []struct {
		rj     *middleware.Rejection
		status int
		body   string
	}{
		{&middleware.Rejection{Reason: sanitize.TooLarge, Location: rules.Body}, 413, `{"location":"body","reason":"too_large"}`},
		{&middleware.Rejection{Reason: sanitize.Overlong, Location: rules.Path, Sample: `\xc0\xae`}, 400, `{"location":"path","reason":"overlong"}`},
		{&middleware.Rejection{Reason: sanitize.BodyUnreadable, Location: rules.JSON, Err: errors.New("unexpected EOF")}, 400, `{"location":"json","reason":"body_unreadable"}`},
	} {
		t.Run(tt.rj.Reason.String(), func(t *testing.T) {
			e := echo.New()
			c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
			err := echov4.DefaultErrorHandler(c, tt.rj)
			var he *echo.HTTPError
			if !errors.As(err, &he) || he.Code != tt.status || he.Internal != tt.rj {
				t.Fatalf("%#v, want an *echo.HTTPError of code %d holding the Rejection", err, tt.status)
			}
			w := httptest.NewRecorder()
			e.DefaultHTTPErrorHandler(err, e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), w))
			if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.body {
				t.Errorf("answer %d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			if strings.Contains(w.Body.String(), `\x`) {
				t.Errorf("the answer holds the sample: %q", w.Body.String())
			}
		})
	}
}

// TestPreRoutesDecodedPath: mounted with e.Pre, the middleware clears
// URL.RawPath, so Echo routes the decoded path ("/%61dmin/x" reaches
// "/admin/:id", which it does not after routing) and cuts decoded
// parameters from it; the policy that runs is that route's; a path with an
// encoded slash keeps RawPath, on which Echo routes and cuts the raw
// parameter "a%2Fb".
func TestPreRoutesDecodedPath(t *testing.T) {
	admin := rules.Default()
	admin.Query = rules.Strict().Query // bidi controls refused in the query
	for _, tt := range []struct {
		target string
		pre    bool
		status int
		body   string
		route  string // in the log line of a refusal
	}{
		{"/%61dmin/x%79", true, 200, "/admin/:id xy", ""},
		{"/%61dmin/x%79", false, 404, "", ""},
		{"/admin/%E2%80%AE?q=ok", true, 200, "/admin/:id \u202e", ""},
		{"/%61dmin/x?q=%E2%80%AE", true, 400, `{"location":"query","reason":"forbidden_char"}`, "/admin/:id"},
		{"/admin/x?q=%E2%80%AE", false, 400, `{"location":"query","reason":"forbidden_char"}`, "/admin/:id"},
		{"/admin/a%2Fb", true, 200, "/admin/:id a%2Fb", ""},
	} {
		t.Run(tt.target, func(t *testing.T) {
			var log logLines
			mw := echov4.WithConfig(echov4.Config{Logger: log.logger(), Rules: &rules.Table{
				Default: rules.Default(),
				Routes:  map[string]rules.Policy{"/admin/:id": admin},
			}})
			e := echo.New()
			if tt.pre {
				e.Pre(mw)
			} else {
				e.Use(mw)
			}
			e.GET("/admin/:id", func(c echo.Context) error { return c.String(http.StatusOK, c.Path()+" "+c.Param("id")) })
			e.GET("/admin/*", func(c echo.Context) error { return c.String(http.StatusOK, c.Path()+" "+c.Param("*")) })
			w := do(e, http.MethodGet, tt.target)
			if w.Code != tt.status || (tt.body != "" && strings.TrimSpace(w.Body.String()) != tt.body) {
				t.Fatalf("%d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			lines := log.lines(t)
			if tt.route == "" {
				if len(lines) != 0 {
					t.Errorf("logged %v", lines)
				}
				return
			}
			if len(lines) != 1 || lines[0]["route"] != tt.route {
				t.Errorf("log %v, want one line with route %s", lines, tt.route)
			}
		})
	}
}

// TestPreRechecksMovedRequest: under e.Pre, a canonical rewrite (NFC) that
// moves the request to another route runs that route's policy too, on the
// rewritten request, and Echo dispatches it there: a bidi control the
// default policy lets through is refused by the moved-to route's strict
// one, with one log line naming it. A request that the second route's
// rewrite (NFKC) moves again is refused 400 canonical_syntax in the path,
// once logged and once passed to OnReject.
func TestPreRechecksMovedRequest(t *testing.T) {
	def := rules.Default()
	def.Normalization = normalize.NFC
	strictNFC := rules.Strict()
	strictNFC.Normalization = normalize.NFC
	ligature := def
	ligature.Normalization = normalize.NFKC
	for _, tt := range []struct {
		name, target string
		status       int
		body         string
		reason, loc  string
		route        string // of the log line, which hex-escapes non-ASCII octets
	}{
		{"moved, clean", "/cafe%CC%81?q=ok", 200, "/café ok", "", "", ""},
		{"moved, refused by the second policy", "/cafe%CC%81?q=%E2%80%AE", 400, `{"location":"query","reason":"forbidden_char"}`, "forbidden_char", "query", `/caf\xc3\xa9`},
		{"not moved, refused", "/caf%C3%A9?q=%E2%80%AE", 400, `{"location":"query","reason":"forbidden_char"}`, "forbidden_char", "query", `/caf\xc3\xa9`},
		{"default route, passed", "/other?q=%E2%80%AE", 200, "/other \u202e", "", "", ""},
		{"moved twice", "/%EF%AC%81e%CC%81", 400, `{"location":"path","reason":"canonical_syntax"}`, "canonical_syntax", "path", `/\xef\xac\x81\xc3\xa9`},
		{"ligature route, moved once", "/%EF%AC%81%C3%A9", 200, "/fié", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log logLines
			var rejected []string
			e := echo.New()
			e.Pre(echov4.WithConfig(echov4.Config{
				Logger: log.logger(),
				Rules: &rules.Table{Default: def, Routes: map[string]rules.Policy{
					"/café": strictNFC, "/\ufb01é": ligature, "/fié": rules.Strict(),
				}},
				OnReject: func(c echo.Context, rj *middleware.Rejection) { rejected = append(rejected, rj.Reason.String()) },
			}))
			for _, p := range []string{"/café", "/\ufb01é", "/fié", "/other"} {
				e.GET(p, func(c echo.Context) error { return c.String(http.StatusOK, c.Path()+" "+c.QueryParam("q")) })
			}
			w := do(e, http.MethodGet, tt.target)
			if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.body {
				t.Fatalf("%d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
			}
			lines := log.lines(t)
			if tt.reason == "" {
				if len(lines) != 0 || len(rejected) != 0 {
					t.Errorf("logged %v, OnReject %v", lines, rejected)
				}
				return
			}
			if len(lines) != 1 || lines[0]["reason"] != tt.reason || lines[0]["location"] != tt.loc || lines[0]["route"] != tt.route {
				t.Errorf("log %v, want one %s line in %s, route %s", lines, tt.reason, tt.loc, tt.route)
			}
			if len(rejected) != 1 || rejected[0] != tt.reason {
				t.Errorf("OnReject saw %v, want [%s]", rejected, tt.reason)
			}
		})
	}
}

// TestPreLeavesNoAllow: routing under e.Pre finds a path whose route
// takes another method (Echo notes the allowed methods on the context for
// its 405 answer); the canonical form moves the request to a route that
// takes it: the handler does not see the first path's Allow.
func TestPreLeavesNoAllow(t *testing.T) {
	pol := rules.Strict()
	pol.Normalization = normalize.NFC
	e := echo.New()
	e.Pre(echov4.WithConfig(echov4.Config{Rules: &pol, Logger: nop()}))
	var allow any = "unset"
	e.PUT("/cafe\u0301", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e.GET("/café", func(c echo.Context) error {
		allow = c.Get(echo.ContextKeyHeaderAllow)
		return c.NoContent(http.StatusOK)
	})
	if w := do(e, http.MethodGet, "/cafe%CC%81"); w.Code != http.StatusOK || allow != nil {
		t.Errorf("status %d, Allow on the context %v; want 200 and none", w.Code, allow)
	}
	if w := do(e, http.MethodGet, "/other"); w.Code != http.StatusNotFound {
		t.Errorf("no route: %d, want 404", w.Code)
	}
	if w := do(e, http.MethodPost, "/café"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("another method: %d, want 405", w.Code)
	}
}

// TestHostRouters: a route registered on a host's router (Echo.Host) gets
// its table policy, before routing (e.Pre finds it with the host's router,
// as Echo does) and after; the same path on another host gets the default
// router's route and policy.
func TestHostRouters(t *testing.T) {
	loose := rules.Default()
	for _, where := range []string{"use", "pre"} {
		for _, tt := range []struct {
			host   string
			status int
			body   string
		}{
			{"api.example.com", 400, `{"location":"query","reason":"forbidden_char"}`},
			{"www.example.com", 200, "default /users/:id x"},
		} {
			t.Run(where+"/"+tt.host, func(t *testing.T) {
				var log logLines
				mw := echov4.WithConfig(echov4.Config{Logger: log.logger(), Rules: &rules.Table{
					Default: loose,
					Routes:  map[string]rules.Policy{"/api/users/:id": rules.Strict()},
				}})
				e := echo.New()
				if where == "pre" {
					e.Pre(mw)
				} else {
					e.Use(mw)
				}
				e.Host("api.example.com").GET("/api/users/:id", func(c echo.Context) error {
					return c.String(http.StatusOK, "api "+c.Path()+" "+c.Param("id"))
				})
				e.GET("/users/:id", func(c echo.Context) error {
					return c.String(http.StatusOK, "default "+c.Path()+" "+c.Param("id"))
				})
				target := "/api/users/x?q=%E2%80%AE"
				if tt.host != "api.example.com" {
					target = "/users/x?q=%E2%80%AE"
				}
				r := httptest.NewRequest(http.MethodGet, target, nil)
				r.Host = tt.host
				w := httptest.NewRecorder()
				e.ServeHTTP(w, r)
				if w.Code != tt.status || strings.TrimSpace(w.Body.String()) != tt.body {
					t.Fatalf("%d %q, want %d %q", w.Code, w.Body.String(), tt.status, tt.body)
				}
				if lines := log.lines(t); tt.status == 400 && (len(lines) != 1 || lines[0]["route"] != "/api/users/:id") {
					t.Errorf("log %v, want one line with the host's route", lines)
				}
			})
		}
	}
}

// TestContextLogger: a zerolog logger in the request's context gets the
// line, the configured one nothing, also for the refusal only routing
// under e.Pre makes (a request moved twice).
func TestContextLogger(t *testing.T) {
	var configured, ctxLog bytes.Buffer
	cfgLogger := zerolog.New(&configured)
	def := rules.Strict()
	def.Normalization = normalize.NFC
	ligature := def
	ligature.Normalization = normalize.NFKC
	e := echo.New()
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			l := zerolog.New(&ctxLog)
			c.SetRequest(c.Request().WithContext(l.WithContext(c.Request().Context())))
			return next(c)
		}
	}, echov4.WithConfig(echov4.Config{Logger: &cfgLogger, Rules: &rules.Table{Default: def, Routes: map[string]rules.Policy{
		"/\ufb01é": ligature, "/fié": rules.Strict(),
	}}}))
	for _, p := range []string{"/\ufb01é", "/fié"} {
		e.GET(p, func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	}
	for _, target := range []string{"/x?q=%00", "/%EF%AC%81e%CC%81"} {
		ctxLog.Reset()
		if w := do(e, http.MethodGet, target); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", target, w.Code)
		}
		if n := strings.Count(ctxLog.String(), "\n"); n != 1 {
			t.Errorf("%s: %d lines in the context's logger, want 1: %s", target, n, ctxLog.String())
		}
	}
	if configured.Len() != 0 {
		t.Errorf("the configured logger got %q", configured.String())
	}
}

// TestRequestIDAndRemoteIP: the log line's request_id is the one Echo's
// RequestID middleware set on the response, marked as the client's when
// it adopted the client's X-Request-Id, and remote_ip is c.RealIP().
func TestRequestIDAndRemoteIP(t *testing.T) {
	for _, tt := range []struct {
		name, sent, want string
		fromClient       bool
	}{
		{"generated", "", "gen-1", false},
		{"adopted", "client-7", "client-7", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log logLines
			e := echo.New()
			e.IPExtractor = echo.ExtractIPDirect()
			e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
				return func(c echo.Context) error {
					id := c.Request().Header.Get(echo.HeaderXRequestID)
					if id == "" {
						id = "gen-1"
					}
					c.Response().Header().Set(echo.HeaderXRequestID, id)
					return next(c)
				}
			}, echov4.WithConfig(echov4.Config{Logger: log.logger()}))
			e.GET("/*", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
			r := httptest.NewRequest(http.MethodGet, "/a?q=%00", nil)
			r.RemoteAddr = "203.0.113.9:4711"
			r.Header.Set(echo.HeaderXForwardedFor, "198.51.100.1")
			if tt.sent != "" {
				r.Header.Set(echo.HeaderXRequestID, tt.sent)
			}
			e.ServeHTTP(httptest.NewRecorder(), r)
			lines := log.lines(t)
			if len(lines) != 1 {
				t.Fatalf("log %v", lines)
			}
			l := lines[0]
			_, marked := l["request_id_client"]
			if l["request_id"] != tt.want || marked != tt.fromClient || l["remote_ip"] != "203.0.113.9" {
				t.Errorf("log line %v, want request_id %s (client's: %v), remote_ip 203.0.113.9", l, tt.want, tt.fromClient)
			}
		})
	}
}
