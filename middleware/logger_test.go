package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// TestLoggerPrecedence: the request context's logger is used only when the
// context really carries one; a global zerolog.DefaultContextLogger, which
// zerolog.Ctx returns for a context without a logger, never replaces
// Config.Logger. Not parallel: it sets a global, and restores it.
func TestLoggerPrecedence(t *testing.T) {
	global := &middleware.LogBuf{}
	gl := zerolog.New(global)
	saved := zerolog.DefaultContextLogger
	zerolog.DefaultContextLogger = &gl
	defer func() { zerolog.DefaultContextLogger = saved }()

	bad := func() *http.Request { return httptest.NewRequest(http.MethodGet, "/r/x?q=%FF", nil) }
	for _, target := range hkTargets {
		// No logger in the context: Config.Logger, not the global.
		rec := &hkRecorder{}
		s := newServer(t, hkMounting(target, rules.Strict(), rec, nil), rec)
		s.Do(bad())
		if n, g := len(linesAt(t, s.Logs(), "warn")), len(linesAt(t, global, "warn")); n != 1 || g != 0 {
			t.Errorf("%s, DefaultContextLogger set: %d lines in Config.Logger, %d in the global; want 1 and 0", target, n, g)
		}

		// A request-scoped logger in the context: it, with its fields.
		scoped := &middleware.LogBuf{}
		rec = &hkRecorder{}
		s = newServer(t, hkMounting(target, rules.Strict(), rec, func(r *http.Request) {
			l := zerolog.New(scoped).With().Str("tenant", "t-1").Logger()
			*r = *r.WithContext(l.WithContext(r.Context()))
		}), rec)
		s.Do(bad())
		lines := linesAt(t, scoped, "warn")
		if len(lines) != 1 || lines[0]["tenant"] != "t-1" || len(linesAt(t, s.Logs(), "warn")) != 0 || len(linesAt(t, global, "warn")) != 0 {
			t.Errorf("%s, a context logger: %v in it, %d lines in Config.Logger; want its one line", target, lines, len(linesAt(t, s.Logs(), "warn")))
		}

		// A disabled context logger: Config.Logger.
		rec = &hkRecorder{}
		s = newServer(t, hkMounting(target, rules.Strict(), rec, func(r *http.Request) {
			l := zerolog.Nop()
			*r = *r.WithContext(l.WithContext(r.Context()))
		}), rec)
		s.Do(bad())
		if n := len(linesAt(t, s.Logs(), "warn")); n != 1 {
			t.Errorf("%s, a disabled context logger: %d lines in Config.Logger, want 1", target, n)
		}
	}
}
