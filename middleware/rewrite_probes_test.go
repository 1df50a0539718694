package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	emw4 "github.com/labstack/echo/v4/middleware"
	echo5 "github.com/labstack/echo/v5"
	emw5 "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
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
	nop := zerolog.Nop()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	rep := rules.Strict()
	rep.Path.Repair = true
	rep.Query.Repair = true
	rewrite := map[string]string{"/old/*": "/new/$1"}
	for _, tc := range []struct {
		name, target string
		pol          rules.Policy
		bad          func(param, q string) bool
	}{
		{"nfc", "/old/cafe%CC%81?q=e%CC%81", nfc, func(p, q string) bool { return !normalize.NFC.IsNormalString(p) || !normalize.NFC.IsNormalString(q) }},
		{"repair", "/old/a%FF?q=b%FF", rep, func(p, q string) bool { return sanitize.ValidateString(p) != nil || sanitize.ValidateString(q) != nil }},
	} {
		t.Run("v4/"+tc.name, func(t *testing.T) {
			e := echo4.New()
			pol := tc.pol
			e.Pre(echov4.WithConfig(echov4.Config{Rules: &pol, Logger: &nop}))
			e.Pre(emw4.Rewrite(rewrite))
			var param, q string
			ran := false
			e.GET("/new/:id", func(c echo4.Context) error {
				ran, param, q = true, c.Param("id"), c.Request().URL.Query().Get("q")
				return nil
			})
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
			if !ran || tc.bad(param, q) {
				t.Errorf("status %d; handler read c.Param(id) %+q, query q %+q", w.Code, param, q)
			}
		})
		t.Run("v5/"+tc.name, func(t *testing.T) {
			e := echo5.New()
			pol := tc.pol
			e.Pre(echov5.WithConfig(echov5.Config{Rules: &pol, Logger: &nop}))
			e.Pre(emw5.Rewrite(rewrite))
			var param, q string
			ran := false
			e.GET("/new/:id", func(c *echo5.Context) error {
				ran, param, q = true, c.Param("id"), c.QueryParam("q")
				return nil
			})
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
			if !ran || tc.bad(param, q) {
				t.Errorf("status %d; handler read c.Param(id) %+q, c.QueryParam(q) %+q", w.Code, param, q)
			}
		})
	}
}

// TestRequestURIFollowsTheRewrite: RequestURI follows the rewritten path and
// query, and stays as sent when nothing was rewritten or in Monitor mode.
func TestRequestURIFollowsTheRewrite(t *testing.T) {
	nop := zerolog.Nop()
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
			h := middleware.Handler(middleware.HTTPConfig{Rules: &pol, Logger: &nop})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.RequestURI
			}))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
			if w.Code != http.StatusOK || got != tc.want {
				t.Errorf("status %d, RequestURI %q, want %q", w.Code, got, tc.want)
			}
		})
	}
}
