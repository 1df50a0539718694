package echov5_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// What every adapter does to a request is in the conformance kit's rows
// (middleware/adaptertest), which conformance_test.go runs on this
// adapter; these tests cover what is Echo v5's
// own: the configuration, the hooks, the answer's error, and the state
// routing under e.Pre leaves on the context.

func do(e *echo.Echo, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func nop() *zerolog.Logger { l := zerolog.Nop(); return &l }

// TestDefaults: New checks with rules.Default() (NUL refused, a forbidden
// bidi control let through) and answers with DefaultErrorHandler.
func TestDefaults(t *testing.T) {
	e := echo.New()
	e.Use(echov5.WithConfig(echov5.Config{Logger: nop()}))
	e.GET("/*", func(c *echo.Context) error { return c.NoContent(http.StatusNoContent) })
	if w := do(e, http.MethodGet, "/a?q=%E2%80%AE"); w.Code != http.StatusNoContent {
		t.Errorf("bidi under the default preset: %d, want 204", w.Code)
	}
	w := do(e, http.MethodGet, "/a?q=%00")
	if w.Code != http.StatusBadRequest || w.Body.String() != `{"location":"query","reason":"forbidden_char"}`+"\n" {
		t.Errorf("NUL: %d %q", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if w := do(e, http.MethodHead, "/a?q=%00"); w.Code != http.StatusBadRequest || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d %q, want 400 without a body", w.Code, w.Body.String())
	}
}

// TestHooks: the Skipper skips, OnReject sees every refused or flagged
// request once, ErrorHandler decides the answer and errors.As finds the
// Rejection in DefaultErrorHandler's error.
func TestHooks(t *testing.T) {
	var rejected []string
	var fromDefault error
	e := echo.New()
	e.Use(echov5.WithConfig(echov5.Config{
		Logger:  nop(),
		Skipper: func(c *echo.Context) bool { return c.Request().Header.Get("X-Skip") != "" },
		Rules: &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/beta/*": rules.Strict().AsMonitor(),
		}},
		OnReject: func(c *echo.Context, rj *middleware.Rejection) {
			rejected = append(rejected, rj.Reason.String()+" "+rj.Mode.String())
		},
		ErrorHandler: func(c *echo.Context, rj *middleware.Rejection) error {
			fromDefault = echov5.DefaultErrorHandler(c, rj)
			return c.String(http.StatusTeapot, rj.Location.String())
		},
	}))
	ok := func(c *echo.Context) error { return c.NoContent(http.StatusOK) }
	e.GET("/a/*", ok)
	e.GET("/beta/*", ok)

	if w := do(e, http.MethodGet, "/a/x?q=ok"); w.Code != http.StatusOK {
		t.Errorf("clean: %d", w.Code)
	}
	if w := do(e, http.MethodGet, "/a/%C0%AE"); w.Code != http.StatusTeapot || w.Body.String() != "path" {
		t.Errorf("refused: %d %q, want the ErrorHandler's 418 \"path\"", w.Code, w.Body.String())
	}
	var rj *middleware.Rejection
	var e5 *echov5.Error
	if !errors.As(fromDefault, &rj) || !errors.As(fromDefault, &e5) || !errors.Is(fromDefault, sanitize.ErrOverlong) ||
		echo.StatusCode(fromDefault) != http.StatusBadRequest || e5.Reason != "overlong" || e5.Location != "path" {
		t.Errorf("DefaultErrorHandler returned %v", fromDefault)
	}
	if w := do(e, http.MethodGet, "/beta/%C0%AE"); w.Code != http.StatusOK {
		t.Errorf("monitored: %d, want 200", w.Code)
	}
	r := httptest.NewRequest(http.MethodGet, "/a/%C0%AE", nil)
	r.Header.Set("X-Skip", "1")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("skipped: %d, want 200", w.Code)
	}
	if want := []string{"overlong enforce", "overlong monitor"}; strings.Join(rejected, ",") != strings.Join(want, ",") {
		t.Errorf("OnReject saw %q, want %q", rejected, want)
	}
}

// TestError: the answer's body and message, for a rejection and for an
// unreadable body.
func TestError(t *testing.T) {
	rj := &middleware.Rejection{Reason: sanitize.TooLarge, Location: rules.Body}
	err := echov5.DefaultErrorHandler(nil, rj)
	if got, _ := json.Marshal(err); string(got) != `{"location":"body","reason":"too_large"}` || echo.StatusCode(err) != http.StatusRequestEntityTooLarge {
		t.Errorf("%s, %d", got, echo.StatusCode(err))
	}
	if want := "code=413, reason=too_large, location=body, internal=" + rj.Error(); err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	unreadable := &echov5.Error{Code: 400, Reason: "body_unreadable", Internal: errors.New("unexpected EOF")}
	if got, _ := json.Marshal(unreadable); string(got) != `{"reason":"body_unreadable"}` {
		t.Errorf("%s", got)
	}
}

// TestPreLeavesNoAllow: routing under e.Pre finds a path whose route
// takes another method (Echo notes the allowed methods on the context for
// its 405 answer), the canonical form moves the request to a route that
// takes it: the handler does not see the first path's Allow.
func TestPreLeavesNoAllow(t *testing.T) {
	pol := rules.Strict()
	pol.Normalization = normalize.NFC
	e := echo.New()
	e.Pre(echov5.WithConfig(echov5.Config{Rules: &pol, Logger: nop()}))
	var allow any = "unset"
	e.PUT("/cafe\u0301", func(c *echo.Context) error { return c.NoContent(http.StatusOK) })
	e.GET("/café", func(c *echo.Context) error {
		allow = c.Get(echo.ContextKeyHeaderAllow)
		return c.NoContent(http.StatusOK)
	})
	if w := do(e, http.MethodGet, "/cafe%CC%81"); w.Code != http.StatusOK || allow != nil {
		t.Errorf("status %d, Allow on the context %v; want 200 and none", w.Code, allow)
	}
	if w := do(e, http.MethodGet, "/other"); w.Code != http.StatusNotFound {
		t.Errorf("no route: %d, want 404", w.Code)
	}
}

// TestContextLogger: a zerolog logger in the request's context gets the
// line, the configured one nothing, also for the refusal only an adapter
// routing under e.Pre makes (a request moved twice).
func TestContextLogger(t *testing.T) {
	var configured, ctxLog bytes.Buffer
	cfgLogger := zerolog.New(&configured)
	def := rules.Strict()
	def.Normalization = normalize.NFC
	ligature := def
	ligature.Normalization = normalize.NFKC
	e := echo.New()
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			l := zerolog.New(&ctxLog)
			c.SetRequest(c.Request().WithContext(l.WithContext(c.Request().Context())))
			return next(c)
		}
	}, echov5.WithConfig(echov5.Config{Logger: &cfgLogger, Rules: &rules.Table{Default: def, Routes: map[string]rules.Policy{
		"/\ufb01é": ligature, "/fié": rules.Strict(),
	}}}))
	for _, p := range []string{"/\ufb01é", "/fié"} {
		e.GET(p, func(c *echo.Context) error { return c.NoContent(http.StatusOK) })
	}
	for _, target := range []string{"/x?q=%00", "/%EF%AC%81e%CC%81"} {
		ctxLog.Reset()
		if w := do(e, http.MethodGet, target); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", target, w.Code)
		}
		if n := strings.Count(ctxLog.String(), "\n"); n != 1 {
			t.Errorf("%s: %d lines in the context's logger, want 1: %s", target, n, ctxLog.String())
		}
	}
	if configured.Len() != 0 {
		t.Errorf("the configured logger got %q", configured.String())
	}
}
