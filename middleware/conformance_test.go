package middleware_test

// The conformance kit (middleware/adaptertest) on the net/http adapter,
// mounted each way net/http takes one: around each handler of a ServeMux
// (the kit's reference, which the kit's own tests run), around the
// ServeMux itself, and around it under http.StripPrefix.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/adaptertest"
)

// TestConformance runs every row of the kit on each mount but the
// reference, around each handler, which the kit's own tests run
// (TestReferenceMeetsEveryRow).
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, tg := range []adaptertest.Target{aroundMux(""), aroundMux("/api")} {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			adaptertest.Run(t, tg)
		})
	}
}

// aroundMux is the net/http adapter around a ServeMux, which has not
// matched the request yet: the route is the pattern it will match (the
// README's recipe). With a prefix, the mux serves the routes without it,
// under an http.StripPrefix that takes it off, and the adapter sees the
// path that is left.
//
// The adapter does not know the route's parameters: the mux cuts them
// after it, so a refusal in one is the path's, and a PRECIS parameter's
// enforced form is not handed on.
func aroundMux(prefix string) adaptertest.Target {
	name, can := "nethttp/around the ServeMux", []adaptertest.Capability{adaptertest.PathParams, adaptertest.WholePath}
	if prefix != "" {
		name, can = "nethttp/around the ServeMux under StripPrefix", []adaptertest.Capability{adaptertest.PathParams}
	}
	return adaptertest.Target{
		Name:     name,
		Template: func(pattern string) string { return strings.TrimPrefix(pattern, prefix) },
		Serve: func(t testing.TB, s adaptertest.Server) http.Handler {
			mux := adaptertest.ServeMux(s, nil, prefix)
			mw, err := middleware.HTTPConfig{Rules: s.Rules, Logger: s.Logger, OnReject: s.OnReject,
				Route: func(r *http.Request) string {
					_, pattern := mux.Handler(r)
					return pattern
				}}.ToHandler()
			if err != nil {
				t.Fatal(err)
			}
			h := mw(mux)
			if prefix != "" {
				h = http.StripPrefix(prefix, h)
			}
			return h
		},
		Can:     can,
		Differs: []adaptertest.Difference{adaptertest.ParamsCutAfter},
	}
}
