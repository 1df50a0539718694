package middleware

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// TestCutOffRefused: a binary body of unknown length over its limit is
// cut off in the handler's read; a handler that returns that error (as
// is, or wrapped) gets the refusal the limit gives a declared length
// before the handler runs: OnReject, then 413 too_large from the
// ErrorHandler, and one log line naming the limit. A handler that has
// answered already, or swallows the error, keeps its answer; the line is
// logged all the same. Monitor mode does not cut the body.
func TestCutOffRefused(t *testing.T) {
	t.Parallel()
	const limit = 1000
	tests := []struct {
		name    string
		mount   string // "use" or "pre"
		monitor bool
		handler func(c echo.Context) error
		status  int
		lines   int
		reject  bool // OnReject called
	}{
		{"returned", "use", false, func(c echo.Context) error {
			_, err := io.ReadAll(c.Request().Body)
			return err
		}, 413, 1, true},
		{"returned under e.Pre", "pre", false, func(c echo.Context) error {
			_, err := io.ReadAll(c.Request().Body)
			return err
		}, 413, 1, true},
		{"wrapped", "use", false, func(c echo.Context) error {
			if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
				return fmt.Errorf("saving the upload: %w", err)
			}
			return c.NoContent(http.StatusOK)
		}, 413, 1, true},
		{"answered first", "use", false, func(c echo.Context) error {
			_ = c.NoContent(http.StatusAccepted)
			_, err := io.ReadAll(c.Request().Body)
			return err
		}, 202, 1, false},
		{"swallowed", "use", false, func(c echo.Context) error {
			_, _ = io.ReadAll(c.Request().Body)
			return c.NoContent(http.StatusOK)
		}, 200, 1, false},
		{"monitor", "use", true, func(c echo.Context) error {
			b, err := io.ReadAll(c.Request().Body)
			if err != nil || len(b) != 3*limit {
				return fmt.Errorf("read %d octets, %v", len(b), err)
			}
			return c.NoContent(http.StatusOK)
		}, 200, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := strictUpload()
			p.Limits.BinaryBodyBytes = limit
			if tt.monitor {
				p = p.AsMonitor()
			}
			var rejected []*Rejection
			m := mountGlobal
			if tt.mount == "pre" {
				m = mountPre
			}
			srv := newServer(t, setup{mount: m, echo: Config{Rules: &p, OnReject: func(c echo.Context, rj *Rejection) {
				rejected = append(rejected, rj)
			}}, routes: []string{"/files/:name"}, methods: []string{http.MethodPut}}, onEcho(tt.handler))
			logs := srv.logs
			r := httptest.NewRequest(http.MethodPut, "/files/a.bin", strings.NewReader(strings.Repeat("x", 3*limit)))
			r.Header.Set("Content-Type", "application/octet-stream")
			r.ContentLength = -1 // chunked
			w := srv.do(r)
			if w.Code != tt.status {
				t.Fatalf("status %d %q, want %d", w.Code, w.Body.String(), tt.status)
			}
			if tt.status == 413 && w.Body.String() != `{"location":"body","reason":"too_large"}`+"\n" {
				t.Errorf("answer %q", w.Body.String())
			}
			if got := len(rejected) > 0; got != tt.reject || len(rejected) > 1 {
				t.Errorf("OnReject called %d times; want it called: %v", len(rejected), tt.reject)
			} else if tt.reject && (rejected[0].Limit != limit || rejected[0].Location != rules.Body) {
				t.Errorf("OnReject got %+v", rejected[0])
			}
			lines := logs.lines(t)
			if len(lines) != tt.lines {
				t.Fatalf("%d log lines, want %d: %v", len(lines), tt.lines, lines)
			}
			if tt.lines == 1 && (lines[0]["reason"] != "too_large" || lines[0]["limit"] != float64(limit) ||
				lines[0]["route"] != "/files/:name") {
				t.Errorf("log line %v", lines[0])
			}
		})
	}
}

// TestCutOffOnlyOurs: CutOff finds only the cut-off of a binaryLimit on an
// enforcing route, not net/http's own MaxBytesError nor other errors.
func TestCutOffOnlyOurs(t *testing.T) {
	t.Parallel()
	rj := &Rejection{Mode: rules.Enforce}
	ours := &cutOffError{mbe: &http.MaxBytesError{Limit: 1}, rj: rj}
	for _, tt := range []struct {
		err  error
		want *Rejection
	}{
		{nil, nil},
		{errors.New("other"), nil},
		{&http.MaxBytesError{Limit: 1}, nil},
		{ours, rj},
		{fmt.Errorf("wrapped: %w", ours), rj},
		{&cutOffError{mbe: &http.MaxBytesError{Limit: 1}, rj: &Rejection{Mode: rules.Monitor}}, nil},
	} {
		if got := CutOff(tt.err); got != tt.want {
			t.Errorf("CutOff(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	var mbe *http.MaxBytesError
	if !errors.As(ours, &mbe) || mbe.Limit != 1 {
		t.Errorf("errors.As finds no *http.MaxBytesError in the cut-off")
	}
}
