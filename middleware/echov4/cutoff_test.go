package echov4_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

// TestCutOffAnsweredAsTooLarge: a binary body of unknown length over its
// limit that the handler's read cuts off is answered 413 too_large
// through OnReject and the ErrorHandler, with one log line naming the
// limit, when the handler returns the read's error (as is or wrapped) and
// has written nothing, under e.Use, e.Pre or a route; a handler that
// answered first, or swallows the error, keeps its answer.
func TestCutOffAnsweredAsTooLarge(t *testing.T) {
	const limit = 1000
	read := func(c echo.Context) error {
		if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
			return fmt.Errorf("saving: %w", err)
		}
		return c.NoContent(http.StatusOK)
	}
	returned := func(c echo.Context) error {
		_, err := io.ReadAll(c.Request().Body)
		return err
	}
	answered := func(c echo.Context) error {
		_ = c.NoContent(http.StatusAccepted)
		_, err := io.ReadAll(c.Request().Body)
		return err
	}
	swallowed := func(c echo.Context) error {
		_, _ = io.ReadAll(c.Request().Body)
		return c.NoContent(http.StatusOK)
	}
	for _, tt := range []struct {
		name    string
		mount   string
		handler echo.HandlerFunc
		status  int
	}{
		{"wrapped under use", "use", read, 413},
		{"wrapped under pre", "pre", read, 413},
		{"returned under a route", "route", returned, 413},
		{"answered first", "use", answered, 202},
		{"swallowed", "use", swallowed, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := rules.Strict()
			p.BinaryTypes = []string{"application/octet-stream"}
			p.Limits.BinaryBodyBytes = limit
			var rejected []*middleware.Rejection
			var log bytes.Buffer
			logger := zerolog.New(&log)
			mw := echov4.WithConfig(echov4.Config{Rules: &p, Logger: &logger,
				OnReject: func(c echo.Context, rj *middleware.Rejection) { rejected = append(rejected, rj) }})
			e := echo.New()
			switch tt.mount {
			case "pre":
				e.Pre(mw)
			case "use":
				e.Use(mw)
			}
			if tt.mount == "route" {
				e.PUT("/files/:name", tt.handler, mw)
			} else {
				e.PUT("/files/:name", tt.handler)
			}
			r := httptest.NewRequest(http.MethodPut, "/files/a.bin", strings.NewReader(strings.Repeat("x", 3*limit)))
			r.Header.Set(echo.HeaderContentType, "application/octet-stream")
			r.ContentLength = -1
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if w.Code != tt.status {
				t.Fatalf("status %d %q, want %d", w.Code, w.Body.String(), tt.status)
			}
			if n := strings.Count(log.String(), "\n"); n != 1 || !strings.Contains(log.String(), `"reason":"too_large"`) {
				t.Errorf("log %q, want one too_large line", log.String())
			}
			if tt.status != 413 {
				if len(rejected) != 0 {
					t.Errorf("OnReject called for a request the handler answered")
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
