package echov5_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// TestCutOff: as on Echo v4 (middleware.TestCutOffRefused), a binary body
// of unknown length over its limit that the handler's read cuts off is
// answered 413 too_large through OnReject and the ErrorHandler when the
// handler returns the read's error and has written nothing; a handler
// that answered first keeps its answer.
func TestCutOff(t *testing.T) {
	const limit = 1000
	read := func(c *echo.Context) error {
		if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
			return fmt.Errorf("saving: %w", err)
		}
		return c.NoContent(http.StatusOK)
	}
	answered := func(c *echo.Context) error {
		_ = c.NoContent(http.StatusAccepted)
		_, err := io.ReadAll(c.Request().Body)
		return err
	}
	for _, tt := range []struct {
		name    string
		pre     bool
		handler echo.HandlerFunc
		status  int
	}{
		{"use", false, read, 413},
		{"pre", true, read, 413},
		{"answered first", false, answered, 202},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := rules.Strict()
			p.BinaryTypes = []string{"application/octet-stream"}
			p.Limits.BinaryBodyBytes = limit
			var rejected []*middleware.Rejection
			mw := echov5.WithConfig(echov5.Config{Rules: &p, Logger: nop(),
				OnReject: func(c *echo.Context, rj *middleware.Rejection) { rejected = append(rejected, rj) }})
			e := echo.New()
			if tt.pre {
				e.Pre(mw)
			} else {
				e.Use(mw)
			}
			e.PUT("/files/:name", tt.handler)
			r := httptest.NewRequest(http.MethodPut, "/files/a.bin", strings.NewReader(strings.Repeat("x", 3*limit)))
			r.Header.Set("Content-Type", "application/octet-stream")
			r.ContentLength = -1
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d %q, want %d", w.Code, w.Body.String(), tt.status)
			}
			if tt.status != 413 {
				if len(rejected) != 0 {
					t.Errorf("OnReject called for an answered request")
				}
				return
			}
			if w.Body.String() != `{"location":"body","reason":"too_large"}`+"\n" {
				t.Errorf("answer %q", w.Body.String())
			}
			if len(rejected) != 1 || rejected[0].Limit != limit {
				t.Errorf("OnReject: %v", rejected)
			}
		})
	}
}
