package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// TestCleanRequestAllocs checks what the middleware adds to a clean GET
// (three path segments, four query fields, strict preset) through Echo's
// ServeHTTP, wherever it is mounted: Echo v4 applies every middleware per
// request (e.Use, e.Pre, groups and routes alike), so the one allocation
// of its closure, as for any Echo v4 middleware, and nothing more.
func TestCleanRequestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	const target = "/api/users/42?name=alice&sort=desc&page=2&limit=50"
	handler := func(c echo.Context) error {
		if c.Param("id") != "42" || c.QueryParam("sort") != "desc" {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	}
	serve := func(t *testing.T, mountAt string) float64 {
		e := echo.New()
		pol := rules.Strict()
		mw := WithConfig(Config{Rules: &pol})
		switch mountAt {
		case "use":
			e.Use(mw)
		case "pre":
			e.Pre(mw)
		case "nop-pre":
			// Any e.Pre middleware costs Echo a closure per request.
			e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc { return next })
		}
		switch mountAt {
		case "group":
			e.Group("/api", mw).GET("/users/:id", handler)
		case "route":
			e.GET("/api/users/:id", handler, mw)
		default:
			e.GET("/api/users/:id", handler)
		}
		r := httptest.NewRequest(http.MethodGet, target, nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(1000, func() {
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("%s: status %d", mountAt, w.code)
			}
		})
	}
	bare := serve(t, "none")
	for _, m := range []string{"use", "group", "route"} {
		if n := serve(t, m); n != bare+1 {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want one more", m, n, bare)
		}
	}
	// Under e.Pre, Echo makes the next handler per request, so the one
	// over it is made per request too: one allocation.
	if n, nop := serve(t, "pre"), serve(t, "nop-pre"); n != nop+1 {
		t.Errorf("mounted with pre: %v allocations per request, %v with a no-op e.Pre middleware, want one more", n, nop)
	}
}
