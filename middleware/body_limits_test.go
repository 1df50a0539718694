package middleware

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// TestLimitUnreadBodies: a route that checks bodies bounds the bodies it
// does not read as text too, by their declared length before anything is
// read, or by cutting off a body of unknown length.
func TestLimitUnreadBodies(t *testing.T) {
	t.Parallel()
	const limit = 1000
	tests := []struct {
		name      string
		ct        string
		size      int
		chunked   bool
		policy    func() rules.Policy
		status    int
		ran       bool
		readError bool // the handler's read fails with *http.MaxBytesError
	}{
		{"binary under", "application/octet-stream", limit, false, strictUpload, 200, true, false},
		{"binary over", "application/octet-stream", limit + 1, false, strictUpload, 413, false, false},
		{"binary unlisted strict", "application/octet-stream", limit, false, rules.Strict, 415, false, false},
		{"no type over", "", limit + 1, false, rules.Default, 413, false, false},
		{"no type strict", "", limit, false, strictUpload, 415, false, false},
		{"other charset over", "text/plain; charset=latin1", limit + 1, false, rules.Default, 413, false, false},
		{"binary chunked over", "application/octet-stream", limit + 1, true, strictUpload, 200, true, true},
		{"binary chunked under", "application/octet-stream", limit, true, strictUpload, 200, true, false},
		{"unchecked route", "application/octet-stream", limit + 1, false, rules.Unchecked, 200, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.policy()
			p.Limits.BodyBytes = limit
			ran, readErr := false, error(nil)
			e := echo.New()
			logs := &logBuf{}
			e.Use(WithConfig(Config{Rules: &p, Logger: logs.logger()}))
			e.POST("/u", func(c echo.Context) error {
				ran = true
				_, readErr = io.ReadAll(c.Request().Body)
				return c.NoContent(http.StatusOK)
			})
			req := httptest.NewRequest(http.MethodPost, "/u", strings.NewReader(strings.Repeat("x", tt.size)))
			if tt.chunked {
				req.ContentLength = -1
			}
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != tt.status || ran != tt.ran {
				t.Fatalf("status %d, handler ran %v; want %d, %v", rec.Code, ran, tt.status, tt.ran)
			}
			var mbe *http.MaxBytesError
			if got := errors.As(readErr, &mbe); got != tt.readError {
				t.Errorf("handler's read error %v; want a MaxBytesError: %v", readErr, tt.readError)
			}
		})
	}
}
