package echov5

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"
)

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
