package echov5

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"

	"bytes"
	"io"

	"github.com/utf8guard/utf8guard/rules"
)

// cleanTarget is the clean GET of the allocation test and the benchmarks:
// three path segments, four query fields.
const cleanTarget = "/api/users/42?name=alice&sort=desc&page=2&limit=50"

// cleanHandler answers the clean GET, reading what a handler reads.
func cleanHandler(c *echo.Context) error {
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

// cleanServer is an Echo v5 server for the clean GET with the strict
// preset mounted at mount: "none", "use", "group", "route" or "pre".
func cleanServer(mount string) *echo.Echo {
	e := echo.New()
	pol := rules.Strict()
	mw := WithConfig(Config{Rules: &pol})
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

// TestCleanRequestAllocs: Echo v5 builds its middleware chains once, so
// the middleware adds no allocation to a clean GET wherever it is mounted.
func TestCleanRequestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	serve := func(mount string) float64 {
		e := cleanServer(mount)
		r := httptest.NewRequest(http.MethodGet, cleanTarget, nil)
		w := &discard{h: http.Header{}}
		return testing.AllocsPerRun(1000, func() {
			w.code = 0
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("%s: status %d", mount, w.code)
			}
		})
	}
	bare := serve("none")
	for _, m := range []string{"use", "group", "route", "pre"} {
		if n := serve(m); n != bare {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want as many", m, n, bare)
		}
	}
	t.Logf("%v allocations per request, with or without the middleware", bare)
}

// TestJSONRequestAllocs: on a clean 1 KiB JSON POST the middleware adds
// one allocation, wherever it is mounted: the reader the handler gets the
// body from (the body itself is in pooled memory, lent to the handler and
// taken back after it).
func TestJSONRequestAllocs(t *testing.T) {
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
	for _, m := range []string{"use", "pre"} {
		if n := serve(m); n != bare+1 {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want one more", m, n, bare)
		}
	}
}
