package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestRewriteUnderPreRunsTheNewRoutesPolicy: Echo's Rewrite middleware,
// mounted under e.Pre after utf8guard, builds a new URL from
// Request.RequestURI, the request line as sent; a path and query utf8guard
// had repaired or brought to NFC came back as sent, ill-formed octets and
// all. utf8guard now rewrites RequestURI with them.
func TestRewriteUnderPreRunsTheNewRoutesPolicy(t *testing.T) {
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	rep := rules.Strict()
	rep.Path.Repair = true
	rep.Query.Repair = true
	rw := map[string]string{"/old/*": "/new/$1"}
	for _, tc := range []struct {
		name, target string
		pol          rules.Policy
		bad          func(param, q string) bool
	}{
		{"nfc", "/old/cafe%CC%81?q=e%CC%81", nfc, func(p, q string) bool { return !normalize.NFC.IsNormalString(p) || !normalize.NFC.IsNormalString(q) }},
		{"repair", "/old/a%FF?q=b%FF", rep, func(p, q string) bool { return sanitize.ValidateString(p) != nil || sanitize.ValidateString(q) != nil }},
	} {
		for _, a := range []struct {
			adapter, query string // query: how the handler reads q
			read           func(c echoCtx, r *http.Request) string
		}{
			{"v4", "query q", func(_ echoCtx, r *http.Request) string { return r.URL.Query().Get("q") }},
			{"v5", "c.QueryParam(q)", func(c echoCtx, _ *http.Request) string { return c.QueryParam("q") }},
		} {
			t.Run(a.adapter+"/"+tc.name, func(t *testing.T) {
				pol := tc.pol
				var param, q string
				ran := false
				s := newServer(t, mounting{adapter: a.adapter, how: "pre", cfg: middleware.HTTPConfig{Rules: &pol}, after: []echoMW{rewrite(rw)},
					routes: []string{"/new/:id"}, methods: []string{http.MethodGet}},
					handlerFunc(func(c echoCtx, _ http.ResponseWriter, r *http.Request) {
						ran, param, q = true, c.Param("id"), a.read(c, r)
					}))
				w := s.Do(httptest.NewRequest(http.MethodGet, tc.target, nil))
				if !ran || tc.bad(param, q) {
					t.Errorf("status %d; handler read c.Param(id) %+q, %s %+q", w.Code, param, a.query, q)
				}
			})
		}
	}
}

// TestRequestURIFollowsTheRewrite: RequestURI follows the rewritten path and
// query, and stays as sent when nothing was rewritten or in Monitor mode.
func TestRequestURIFollowsTheRewrite(t *testing.T) {
	for _, tc := range []struct {
		name, target, want string
		monitor            bool
	}{
		{"rewritten", "/x/cafe%CC%81?q=e%CC%81&r=1", "/x/caf%C3%A9?q=%C3%A9&r=1", false},
		{"as sent", "/x/caf%C3%A9?q=%C3%A9&r=1", "/x/caf%C3%A9?q=%C3%A9&r=1", false},
		{"monitor", "/x/cafe%CC%81?q=e%CC%81", "/x/cafe%CC%81?q=e%CC%81", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := rules.Strict()
			pol.Normalization = normalize.NFC
			if tc.monitor {
				pol = pol.AsMonitor()
			}
			var got string
			s := newServer(t, mounting{adapter: "nethttp", how: "bare", cfg: middleware.HTTPConfig{Rules: &pol}},
				handlerFunc(func(_ echoCtx, _ http.ResponseWriter, r *http.Request) { got = r.RequestURI }))
			w := s.Do(httptest.NewRequest(http.MethodGet, tc.target, nil))
			if w.Code != http.StatusOK || got != tc.want {
				t.Errorf("status %d, RequestURI %q, want %q", w.Code, got, tc.want)
			}
		})
	}
}
