package middleware_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The hooks harness: each adapter, mounted each way, with recording
// OnReject and ErrorHandler hooks (the latter answering as the default
// one does), on one route, "/r/*" (Echo) or "/r/{rest...}" (ServeMux).

// hkCall is one call of a hook.
type hkCall struct {
	hook, reason, location string
	mode                   rules.Mode
}

// hkRecorder records the hooks' calls and whether the handler ran.
type hkRecorder struct {
	mu    sync.Mutex
	calls []hkCall
	ran   bool
}

func (h *hkRecorder) add(hook string, rj *middleware.Rejection) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, hkCall{hook, rj.Reason.String(), rj.Location.String(), rj.Mode})
}

func (h *hkRecorder) handled() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ran = true
}

// hkSetup is what a harness server is built with.
type hkSetup struct {
	rules rules.Ruleset
	log   *rtLog
	// before, when set, runs on the request before utf8guard does, as an
	// earlier middleware would.
	before func(r *http.Request)
	// spoolBytes is the adapter's SpoolBytes (0: the default).
	spoolBytes int64
}

// hkTargets are the adapters and mounts the harness builds.
var hkTargets = []string{"v4/use", "v4/pre", "v4/group", "v5/use", "v5/pre", "v5/group", "nethttp/route"}

// hkServer builds target with s, recording into rec.
func hkServer(t *testing.T, target string, s hkSetup, rec *hkRecorder) http.Handler {
	t.Helper()
	handle := func(r *http.Request) int {
		rec.handled()
		if _, err := io.ReadAll(r.Body); err != nil {
			return http.StatusTeapot // the handler's read failed
		}
		return http.StatusOK
	}
	adapter, mount, _ := strings.Cut(target, "/")
	switch adapter {
	case "v4":
		mw, err := echov4.Config{Rules: s.rules, Logger: s.log.logger(), SpoolBytes: s.spoolBytes,
			OnReject: func(c echo4.Context, rj *middleware.Rejection) { rec.add("OnReject", rj) },
			ErrorHandler: func(c echo4.Context, rj *middleware.Rejection) error {
				rec.add("ErrorHandler", rj)
				return echov4.DefaultErrorHandler(c, rj)
			}}.ToMiddleware()
		if err != nil {
			t.Fatal(err)
		}
		e := echo4.New()
		if s.before != nil {
			e.Pre(func(next echo4.HandlerFunc) echo4.HandlerFunc {
				return func(c echo4.Context) error { s.before(c.Request()); return next(c) }
			})
		}
		h := func(c echo4.Context) error { return c.NoContent(handle(c.Request())) }
		switch mount {
		case "use":
			e.Use(mw)
			e.Any("/r/*", h)
		case "pre":
			e.Pre(mw)
			e.Any("/r/*", h)
		case "group":
			e.Group("/r", mw).Any("/*", h)
		}
		return e
	case "v5":
		mw, err := echov5.Config{Rules: s.rules, Logger: s.log.logger(), SpoolBytes: s.spoolBytes,
			OnReject: func(c *echo5.Context, rj *middleware.Rejection) { rec.add("OnReject", rj) },
			ErrorHandler: func(c *echo5.Context, rj *middleware.Rejection) error {
				rec.add("ErrorHandler", rj)
				return echov5.DefaultErrorHandler(c, rj)
			}}.ToMiddleware()
		if err != nil {
			t.Fatal(err)
		}
		e := echo5.New()
		if s.before != nil {
			e.Pre(func(next echo5.HandlerFunc) echo5.HandlerFunc {
				return func(c *echo5.Context) error { s.before(c.Request()); return next(c) }
			})
		}
		h := func(c *echo5.Context) error { return c.NoContent(handle(c.Request())) }
		switch mount {
		case "use":
			e.Use(mw)
			e.Any("/r/*", h)
		case "pre":
			e.Pre(mw)
			e.Any("/r/*", h)
		case "group":
			e.Group("/r", mw).Any("/*", h)
		}
		return e
	default:
		guard, err := middleware.HTTPConfig{Rules: s.rules, Logger: s.log.logger(), SpoolBytes: s.spoolBytes,
			OnReject: func(r *http.Request, rj *middleware.Rejection) { rec.add("OnReject", rj) },
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, rj *middleware.Rejection) {
				rec.add("ErrorHandler", rj)
				middleware.DefaultHTTPErrorHandler(w, r, rj)
			}}.ToHandler()
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/r/{rest...}", guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(handle(r))
		})))
		if s.before == nil {
			return mux
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.before(r); mux.ServeHTTP(w, r) })
	}
}

// hkBody decodes an answer's {"reason", "location"}.
func hkBody(t *testing.T, body []byte) (reason, location string) {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %q: %v", body, err)
	}
	return m["reason"], m["location"]
}

// hkBroken is a body that fails after a few octets.
type hkBroken struct{ n int }

func (b *hkBroken) Read(p []byte) (int, error) {
	if b.n >= 3 {
		return 0, errors.New("connection reset")
	}
	b.n++
	p[0] = 'a'
	return 1, nil
}

// TestEveryReasonReachesTheHooks: for every reason of the taxonomy, a
// request refused for it reaches OnReject and then the ErrorHandler, once
// each, with its reason and location, on every adapter and mount, and is
// answered with its status and {"reason", "location"}; the handler does
// not run.
func TestEveryReasonReachesTheHooks(t *testing.T) {
	t.Parallel()
	strict := rules.Strict
	with := func(edit func(p *rules.Policy)) rules.Policy { p := strict(); edit(&p); return p }
	type request struct {
		method, target, ct, body string
		edit                     func(r *http.Request)
		spoolBytes               int64 // the adapter's SpoolBytes
	}
	get := func(target string) request { return request{method: http.MethodGet, target: target} }
	post := func(ct, body string) request {
		return request{method: http.MethodPost, target: "/r/x", ct: ct, body: body}
	}
	cases := []struct {
		reason   sanitize.Reason
		policy   rules.Policy
		req      request
		location string
		status   int
	}{
		{sanitize.Overlong, strict(), get("/r/x?q=%C0%AE"), "query", 400},
		{sanitize.Surrogate, strict(), get("/r/x?q=%ED%A0%80"), "query", 400},
		{sanitize.OutOfRange, strict(), get("/r/x?q=%F4%90%80%80"), "query", 400},
		{sanitize.InvalidByte, strict(), get("/r/x?q=%FF"), "query", 400},
		{sanitize.Truncated, strict(), get("/r/x?q=%E2%82"), "query", 400},
		{sanitize.UnexpectedContinuation, strict(), get("/r/x?q=%80"), "query", 400},
		{sanitize.BadEscape, strict(), get("/r/x?q=%zz"), "query", 400},
		{sanitize.DoubleEncoding, strict(), get("/r/%252e%252e"), "path", 400},
		{sanitize.ForbiddenChar, strict(), get("/r/x?q=a%00"), "query", 400},
		{sanitize.NotNormalized, with(func(p *rules.Policy) { p.Normalization, p.RejectUnnormalized = normalize.NFC, true }),
			get("/r/x?q=e%CC%81"), "query", 400},
		{sanitize.TooLarge, with(func(p *rules.Policy) { p.Limits.BodyBytes = 8 }), post("text/plain", "more than eight octets"), "body", 413},
		{sanitize.BadCharset, strict(), post("text/plain; charset=iso-8859-1", "abc"), "body", 400},
		{sanitize.Precis, with(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped}}
		}), get("/r/x?user=a%20b"), "query", 400},
		{sanitize.CanonicalSyntax, with(func(p *rules.Policy) { p.Normalization = normalize.NFKC }), get("/r/a%EF%BC%8Fb"), "path", 400},
		{sanitize.UnsupportedMediaType, strict(), post("application/octet-stream", "abc"), "body", 415},
		{sanitize.BadMediaType, strict(), post("text/plain; charset", "abc"), "body", 400},
		{sanitize.KeyCollision, with(func(p *rules.Policy) { p.Normalization = normalize.NFC }), get("/r/x?%C3%A9=1&e%CC%81=2"), "query", 400},
		{sanitize.DuplicateKey, strict(), post("application/json", `{"a":1,"a":2}`), "json", 400},
		{sanitize.ForbiddenTrailer, with(func(p *rules.Policy) {
			p.Header.On, p.Headers, p.BinaryTypes = true, []string{"X-Name"}, []string{"application/octet-stream"}
		}), request{method: http.MethodPost, target: "/r/x", ct: "application/octet-stream", body: "abc", edit: func(r *http.Request) {
			r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
			r.Trailer = http.Header{"X-Name": nil} // announced
		}}, "header", 400},
		{sanitize.BodyUnreadable, strict(), request{method: http.MethodPost, target: "/r/x", ct: "application/json", edit: func(r *http.Request) {
			r.Body, r.ContentLength = io.NopCloser(&hkBroken{}), -1
		}}, "json", 400},
		{sanitize.ParsedBeforeCheck, strict(), request{method: http.MethodPost, target: "/r/x", ct: "application/x-www-form-urlencoded", body: "x=%ff",
			edit: func(r *http.Request) { _ = r.ParseForm() }}, "form", 500},
		{sanitize.UnsupportedEncoding, strict(), request{method: http.MethodPost, target: "/r/x", ct: "application/json", body: "{}",
			edit: func(r *http.Request) { r.Header.Set("Content-Encoding", "br") }}, "json", 415},
		{sanitize.SpoolFull, with(func(p *rules.Policy) { p.FileContents = rules.DataFiles }),
			request{method: http.MethodPost, target: "/r/x", ct: mpFileType, body: mpFile(3 << 19), spoolBytes: 1 << 20}, "multipart", 503},
		{sanitize.AmbiguousHeader, strict(), post("multipart/form-data; boundary=BB",
			"--BB\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n1\r\n--BB--\r\n"),
			"multipart", 400},
	}
	// Every reason of the taxonomy has its case.
	var covered []sanitize.Reason
	for _, tc := range cases {
		covered = append(covered, tc.reason)
	}
	for r := sanitize.Reason(1); !strings.HasPrefix(r.String(), "Reason("); r++ {
		if !slices.Contains(covered, r) {
			t.Errorf("no case for reason %s", r)
		}
	}
	for _, tc := range cases {
		for _, target := range hkTargets {
			t.Run(tc.reason.String()+"/"+target, func(t *testing.T) {
				t.Parallel()
				rec := &hkRecorder{}
				h := hkServer(t, target, hkSetup{rules: tc.policy, log: &rtLog{}, spoolBytes: tc.req.spoolBytes}, rec)
				var body io.Reader
				if tc.req.body != "" {
					body = strings.NewReader(tc.req.body)
				}
				r := httptest.NewRequest(tc.req.method, tc.req.target, body)
				if tc.req.ct != "" {
					r.Header.Set("Content-Type", tc.req.ct)
				}
				if tc.req.edit != nil {
					tc.req.edit(r)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				want := []hkCall{{"OnReject", tc.reason.String(), tc.location, rules.Enforce}, {"ErrorHandler", tc.reason.String(), tc.location, rules.Enforce}}
				if !slices.Equal(rec.calls, want) {
					t.Errorf("hooks %v, want %v", rec.calls, want)
				}
				reason, location := hkBody(t, w.Body.Bytes())
				if w.Code != tc.status || reason != tc.reason.String() || location != tc.location {
					t.Errorf("answer %d %s, want %d with reason %s, location %s", w.Code, w.Body, tc.status, tc.reason, tc.location)
				}
				if rec.ran {
					t.Error("the handler ran")
				}
			})
		}
	}
}

// TestPreMoveRefusalReachesTheHooks: the one refusal an Echo adapter makes
// itself, under e.Pre (a request that a rewrite moves to another route,
// whose rewrite moves it again: canonical_syntax), reaches OnReject and
// the ErrorHandler as the pipeline's refusals do.
func TestPreMoveRefusalReachesTheHooks(t *testing.T) {
	t.Parallel()
	def := rules.Strict()
	def.Normalization = normalize.NFC
	ligature := def
	ligature.Normalization = normalize.NFKC
	table := rules.Table{Default: def, Routes: map[string]rules.Policy{"/r/\ufb01é": ligature, "/r/fié": rules.Strict()}}
	routes := []string{"/r/\ufb01é", "/r/fié"}
	target := "/r/\ufb01e%CC%81" // NFC: "/r/ﬁé"; then NFKC: "/r/fié"
	want := []hkCall{{"OnReject", "canonical_syntax", "path", rules.Enforce}, {"ErrorHandler", "canonical_syntax", "path", rules.Enforce}}

	rec := &hkRecorder{}
	e4 := echo4.New()
	e4.Pre(echov4.WithConfig(echov4.Config{Rules: table, Logger: (&rtLog{}).logger(),
		OnReject: func(c echo4.Context, rj *middleware.Rejection) { rec.add("OnReject", rj) },
		ErrorHandler: func(c echo4.Context, rj *middleware.Rejection) error {
			rec.add("ErrorHandler", rj)
			return echov4.DefaultErrorHandler(c, rj)
		}}))
	rec5 := &hkRecorder{}
	e5 := echo5.New()
	e5.Pre(echov5.WithConfig(echov5.Config{Rules: table, Logger: (&rtLog{}).logger(),
		OnReject: func(c *echo5.Context, rj *middleware.Rejection) { rec5.add("OnReject", rj) },
		ErrorHandler: func(c *echo5.Context, rj *middleware.Rejection) error {
			rec5.add("ErrorHandler", rj)
			return echov5.DefaultErrorHandler(c, rj)
		}}))
	for _, r := range routes {
		e4.GET(r, func(c echo4.Context) error { rec.handled(); return nil })
		e5.GET(r, func(c *echo5.Context) error { rec5.handled(); return nil })
	}
	for name, s := range map[string]struct {
		h   http.Handler
		rec *hkRecorder
	}{"v4/pre": {e4, rec}, "v5/pre": {e5, rec5}} {
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		if w.Code != 400 || !slices.Equal(s.rec.calls, want) || s.rec.ran {
			t.Errorf("%s: %d %s, hooks %v, handler ran %v; want 400 and %v", name, w.Code, w.Body, s.rec.calls, s.rec.ran, want)
		}
	}
}

// mpFileType is the Content-Type of the bodies mpFile makes.
const mpFileType = "multipart/form-data; boundary=hooks-boundary"

// mpFile is a multipart body of one file part of size octets.
func mpFile(size int) string {
	return "--hooks-boundary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\n" + strings.Repeat("\xa5", size) + "\r\n--hooks-boundary--\r\n"
}
