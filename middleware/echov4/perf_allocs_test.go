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
// the middleware adds two allocations over the bare server, mounted with
// e.Use or e.Pre: the closure Echo v4 asks every middleware for per
// request, and the reader the handler gets the body from (the body itself
// is in pooled memory, lent to the handler and taken back after it).
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
	for _, m := range []string{"use", "pre"} {
		n := serve(m)
		t.Logf("mounted with %s: %v allocations, %v bare", m, n, bare)
		if n != bare+2 {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want two more", m, n, bare)
		}
	}
}
