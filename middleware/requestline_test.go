package middleware_test

import (
	"encoding/json"
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
	"github.com/utf8guard/utf8guard/rules"
)

// TestRequestURIIsWhatWasChecked: a middleware before utf8guard that
// rewrites the URL (Echo's Rewrite under e.Pre, the order the README asks
// for) leaves Request.RequestURI as the client sent it. A handler reads
// it; so utf8guard checks it when it no longer stands for the URL, and
// refuses it as it would refuse the path or query it holds, on Echo v4
// and v5 under e.Pre and e.Use. A RequestURI that is clean, or that
// stands for the URL, passes as it is.
func TestRequestURIIsWhatWasChecked(t *testing.T) {
	t.Parallel()
	nop := zerolog.Nop()
	rewrite := map[string]string{"/old/*": "/new/fixed"}
	p := rules.Strict()
	type result struct {
		status int
		answer map[string]string
		uri    string
	}
	servers := map[string]func(mount string) (http.Handler, *string){
		"v4": func(mount string) (http.Handler, *string) {
			var uri string
			e := echo4.New()
			mw := echov4.WithConfig(echov4.Config{Rules: p, Logger: &nop})
			e.Pre(emw4.Rewrite(rewrite))
			if mount == "pre" {
				e.Pre(mw)
			} else {
				e.Use(mw)
			}
			e.GET("/new/*", func(c echo4.Context) error { uri = c.Request().RequestURI; return c.NoContent(200) })
			return e, &uri
		},
		"v5": func(mount string) (http.Handler, *string) {
			var uri string
			e := echo5.New()
			mw := echov5.WithConfig(echov5.Config{Rules: p, Logger: &nop})
			e.Pre(emw5.Rewrite(rewrite))
			if mount == "pre" {
				e.Pre(mw)
			} else {
				e.Use(mw)
			}
			e.GET("/new/*", func(c *echo5.Context) error { uri = c.Request().RequestURI; return c.NoContent(200) })
			return e, &uri
		},
	}
	for _, tc := range []struct {
		target   string
		status   int
		reason   string
		location string
	}{
		{"/old/abc", 200, "", ""},
		{"/old/%E2%80%AE", 400, "forbidden_char", "path"},
		{"/old/%C0%AE%C0%AE", 400, "overlong", "path"},
		{"/old/x?q=%00", 400, "forbidden_char", "query"},
		{"/old/x?q=%zz", 400, "bad_escape", "query"},
	} {
		for name, server := range servers {
			for _, mount := range []string{"pre", "use"} {
				h, uri := server(mount)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
				var res result
				res.status = w.Code
				_ = json.Unmarshal(w.Body.Bytes(), &res.answer)
				res.uri = *uri
				if res.status != tc.status || res.answer["reason"] != tc.reason || res.answer["location"] != tc.location {
					t.Errorf("%s under e.%s, %s: %d %s; want %d %s in %s", name, mount, tc.target, res.status, w.Body, tc.status, tc.reason, tc.location)
				}
				if tc.status == 200 && res.uri != tc.target {
					t.Errorf("%s under e.%s, %s: the handler read RequestURI %q", name, mount, tc.target, res.uri)
				}
			}
		}
	}
}

// TestRequestURIUnderStripPrefix: http.StripPrefix keeps the prefix in
// RequestURI; a clean one passes as it is, and one that holds what the
// path check refuses is refused.
func TestRequestURIUnderStripPrefix(t *testing.T) {
	t.Parallel()
	nop := zerolog.Nop()
	var uri string
	mw := middleware.Handler(middleware.HTTPConfig{Rules: rules.Strict(), Logger: &nop})
	h := http.StripPrefix("/api", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { uri = r.RequestURI })))
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/api/x?q=1", 200},
		{"/api/caf%C3%A9", 200},
		{"/api/a%E2%80%AEb", 400},
	} {
		uri = ""
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
		if w.Code != tc.status || tc.status == 200 && uri != tc.target {
			t.Errorf("%s: %d %s, the handler read RequestURI %q", tc.target, w.Code, w.Body, uri)
		}
	}
}
