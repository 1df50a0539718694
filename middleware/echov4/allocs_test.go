package echov4

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
)

// cleanTarget is the clean GET of the allocation tests and the
// benchmarks: three path segments, four query fields.
const cleanTarget = "/api/users/42?name=alice&sort=desc&page=2&limit=50"

// cleanHandler answers the clean GET, reading what a handler reads.
func cleanHandler(c echo.Context) error {
	if c.Param("id") != "42" || c.QueryParam("sort") != "desc" {
		return echo.ErrBadRequest
	}
	return c.NoContent(http.StatusOK)
}

// discard is a ResponseWriter that keeps the status only, so that the
// counts are the middleware's and Echo's, not a recorder's.
type discard struct {
	h    http.Header
	code int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) Write(p []byte) (int, error) { return len(p), nil }
func (w *discard) WriteHeader(code int)        { w.code = code }

// nopMiddleware is an Echo v4 middleware that does nothing but what every
// Echo v4 middleware does: return a closure over next.
func nopMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error { return next(c) }
}

// cleanServer is an Echo v4 server for the clean GET with mw mounted at
// mount: "none" (mw unused), "use", "group", "route" or "pre".
func cleanServer(mount string, mw echo.MiddlewareFunc) *echo.Echo {
	e := echo.New()
	switch mount {
	case "use":
		e.Use(mw)
	case "pre":
		e.Pre(mw)
	}
	switch mount {
	case "group":
		e.Group("/api", mw).GET("/users/:id", cleanHandler)
	case "route":
		e.GET("/api/users/:id", cleanHandler, mw)
	default:
		e.GET("/api/users/:id", cleanHandler)
	}
	return e
}

// strictMiddleware is the middleware under rules.Strict(), logging
// nowhere.
func strictMiddleware() echo.MiddlewareFunc {
	pol := rules.Strict()
	return WithConfig(Config{Rules: &pol, Logger: quiet()})
}

// getAllocs is the allocations per clean GET that e serves.
func getAllocs(t *testing.T, name string, e *echo.Echo) float64 {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, cleanTarget, nil)
	w := &discard{h: http.Header{}}
	return testing.AllocsPerRun(1000, func() {
		w.code = 0
		e.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			t.Fatalf("%s: status %d", name, w.code)
		}
	})
}

// TestCleanRequestAllocsAreOneClosure: wherever it is mounted (e.Use,
// e.Pre, a group, a route), the middleware adds to a clean GET exactly
// what a no-op Echo v4 middleware mounted there adds, which is the one
// closure Echo v4 asks every middleware for per request, and nothing
// over the bare server but that closure.
func TestCleanRequestAllocsAreOneClosure(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	bare := getAllocs(t, "none", cleanServer("none", nil))
	for _, m := range []string{"use", "pre", "group", "route"} {
		n := getAllocs(t, m, cleanServer(m, strictMiddleware()))
		nop := getAllocs(t, m+" no-op", cleanServer(m, nopMiddleware))
		t.Logf("mounted with %s: %v allocations, %v with a no-op middleware, %v bare", m, n, nop, bare)
		if n != nop {
			t.Errorf("mounted with %s: %v allocations per request, %v with a no-op middleware there, want as many", m, n, nop)
		}
		if n != bare+1 {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want one more", m, n, bare)
		}
	}
}

// quiet is a logger that writes nothing.
func quiet() *zerolog.Logger { l := zerolog.Nop(); return &l }
