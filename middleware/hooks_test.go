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
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The hooks' servers: each adapter, mounted each way, with recording
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

// serve is the handler: it reads the body, and answers 200, or 418 when
// the read fails.
func (h *hkRecorder) serve(_ echoCtx, w http.ResponseWriter, r *http.Request) {
	h.handled()
	if _, err := io.ReadAll(r.Body); err != nil {
		w.WriteHeader(http.StatusTeapot) // the handler's read failed
		return
	}
	w.WriteHeader(http.StatusOK)
}

// hkTargets are the adapters and mounts the hooks' tests run on.
var hkTargets = []string{"v4/use", "v4/pre", "v4/group", "v5/use", "v5/pre", "v5/group", "nethttp/route"}

// hkMounting describes the server of target, one of hkTargets, with the
// rules rs and rec as its hooks and handler; before, when set, runs on the
// request before utf8guard, as an earlier middleware would.
func hkMounting(target string, rs rules.Ruleset, rec *hkRecorder, before func(r *http.Request)) mounting {
	adapter, how, _ := strings.Cut(target, "/")
	m := mounting{adapter: adapter, how: how, routes: []string{"/r/*"}, group: "/r",
		cfg:     middleware.HTTPConfig{Rules: rs, OnReject: func(r *http.Request, rj *middleware.Rejection) { rec.add("OnReject", rj) }},
		onError: func(rj *middleware.Rejection) { rec.add("ErrorHandler", rj) }}
	if adapter == "nethttp" {
		m.how, m.routes = "handler", []string{"/r/{rest...}"}
	}
	if before == nil {
		return m
	}
	if adapter == "nethttp" {
		m.wrap = func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { before(r); h.ServeHTTP(w, r) })
		}
		return m
	}
	m.pre = []echoMW{{
		v4: func(next echo4.HandlerFunc) echo4.HandlerFunc {
			return func(c echo4.Context) error { before(c.Request()); return next(c) }
		},
		v5: func(next echo5.HandlerFunc) echo5.HandlerFunc {
			return func(c *echo5.Context) error { before(c.Request()); return next(c) }
		},
	}}
	return m
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
				m := hkMounting(target, tc.policy, rec, nil)
				m.cfg.SpoolBytes = tc.req.spoolBytes
				h := newServer(t, m, rec)
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
				w := h.Do(r)
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

	for _, name := range []string{"v4/pre", "v5/pre"} {
		rec := &hkRecorder{}
		m := hkMounting(name, table, rec, nil)
		m.routes, m.methods = routes, []string{http.MethodGet}
		w := newServer(t, m, rec).Do(httptest.NewRequest(http.MethodGet, target, nil))
		if w.Code != 400 || !slices.Equal(rec.calls, want) || rec.ran {
			t.Errorf("%s: %d %s, hooks %v, handler ran %v; want 400 and %v", name, w.Code, w.Body, rec.calls, rec.ran, want)
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
