package echov4

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

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
