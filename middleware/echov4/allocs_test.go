package echov4

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"bytes"
	"io"

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
// what a no-op Echo v4 middleware mounted there adds: the one closure
// Echo v4 asks every middleware for per request (Echo v4 applies route and
// group middleware per request too, in the handler Echo.add registers),
// and under e.Pre also the routing closure Echo makes per request as soon
// as any e.Pre middleware is mounted. Nothing of the checks allocates.
func TestCleanRequestAllocsAreOneClosure(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	bare := getAllocs(t, "none", cleanServer("none", nil))
	for _, tc := range []struct {
		mount string
		added float64 // over the bare server
	}{
		{"use", 1},
		{"group", 1},
		{"route", 1},
		{"pre", 2},
	} {
		n := getAllocs(t, tc.mount, cleanServer(tc.mount, strictMiddleware()))
		nop := getAllocs(t, tc.mount+" no-op", cleanServer(tc.mount, nopMiddleware))
		if n != nop {
			t.Errorf("mounted with %s: %v allocations per request, %v with a no-op middleware there, want as many", tc.mount, n, nop)
		}
		if n != bare+tc.added {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want %v more", tc.mount, n, bare, tc.added)
		}
	}
	t.Logf("%v allocations per request without the middleware", bare)
}

// quiet is a logger that writes nothing.
func quiet() *zerolog.Logger { l := zerolog.Nop(); return &l }

// TestJSONRequestAllocsAreClosureAndReader: on a clean 1 KiB JSON POST
// the middleware adds two allocations over the bare server mounted with
// e.Use: the closure Echo v4 asks every middleware for per request, and
// the reader the handler gets the body from (the body itself is in pooled
// memory, lent to the handler and taken back after it). Mounted with
// e.Pre, one more: the routing closure Echo makes per request once any
// e.Pre middleware is mounted.
func TestJSONRequestAllocsAreClosureAndReader(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	serve := func(mount string) float64 {
		e := benchServer(mount)
		r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
		r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		w := &discard{h: http.Header{}}
		body := bytes.NewReader(json1K)
		rc := io.NopCloser(body)
		return testing.AllocsPerRun(500, func() {
			body.Reset(json1K)
			r.Body, r.ContentLength = rc, int64(len(json1K))
			w.code = 0
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("%s: status %d", mount, w.code)
			}
		})
	}
	bare := serve("none")
	for _, tc := range []struct {
		mount string
		added float64
	}{{"use", 2}, {"pre", 3}} {
		if n := serve(tc.mount); n != bare+tc.added {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want %v more", tc.mount, n, bare, tc.added)
		}
	}
}
