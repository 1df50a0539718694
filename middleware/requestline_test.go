package middleware_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
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
	rw := map[string]string{"/old/*": "/new/fixed"}
	p := rules.Strict()
	type result struct {
		status int
		answer map[string]string
		uri    string
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
		for _, name := range []string{"v4", "v5"} {
			for _, mount := range []string{"pre", "use"} {
				var uri string
				s := newServer(t, mounting{adapter: name, how: mount, cfg: middleware.HTTPConfig{Rules: p}, pre: []echoMW{rewrite(rw)},
					routes: []string{"/new/*"}, methods: []string{http.MethodGet}},
					handlerFunc(func(_ echoCtx, w http.ResponseWriter, r *http.Request) { uri = r.RequestURI; w.WriteHeader(200) }))
				w := s.Do(httptest.NewRequest(http.MethodGet, tc.target, nil))
				var res result
				res.status = w.Code
				_ = json.Unmarshal(w.Body.Bytes(), &res.answer)
				res.uri = uri
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
	var uri string
	s := newServer(t, mounting{adapter: "nethttp", how: "bare", cfg: middleware.HTTPConfig{Rules: rules.Strict()},
		wrap: func(h http.Handler) http.Handler { return http.StripPrefix("/api", h) }},
		handlerFunc(func(_ echoCtx, _ http.ResponseWriter, r *http.Request) { uri = r.RequestURI }))
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/api/x?q=1", 200},
		{"/api/caf%C3%A9", 200},
		{"/api/a%E2%80%AEb", 400},
	} {
		uri = ""
		w := s.Do(httptest.NewRequest(http.MethodGet, tc.target, nil))
		if w.Code != tc.status || tc.status == 200 && uri != tc.target {
			t.Errorf("%s: %d %s, the handler read RequestURI %q", tc.target, w.Code, w.Body, uri)
		}
	}
}
