package middleware

// What the tests of package middleware_test use of this package's tests:
// the one server harness (harness_test.go), on which they mount the
// adapters this package cannot import (middleware/echov4 and
// middleware/echov5 import it), and the size of a large upload.

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
)

// Server is a server of the harness.
type Server[H any] = server[H]

// Outside is a mount supplied from outside this package: given the
// middleware's configuration and the test's handler, it returns the
// server.
type Outside[H any] = outside[H]

// NewServer builds the server that the outside mount on makes of cfg and
// rec, with its log captured: a nil cfg.Logger logs to Server.Logs.
func NewServer[H any](t testing.TB, cfg HTTPConfig, on Outside[H], rec H) *Server[H] {
	t.Helper()
	return newServerOn(t, cfg, on, rec)
}

// The mounts of the net/http adapter, for HTTPMount.
const (
	MountHandler = mountHandler // around each handler of a ServeMux
	MountMux     = mountMux     // around the ServeMux
	MountBare    = mountBare    // around the one handler, no ServeMux
)

// HTTPMount is the net/http adapter configured by cfg, mounted as m in
// front of h (ServeMux patterns, for MountHandler and MountMux): the
// harness's own net/http mounts, for an outside mount.
func HTTPMount(t testing.TB, m mount, cfg HTTPConfig, patterns []string, h http.Handler) http.Handler {
	t.Helper()
	return httpMount(t, m, cfg, patterns, h)
}

// Do serves r in process and returns the response.
func (s *server[H]) Do(r *http.Request) *httptest.ResponseRecorder { return s.do(r) }

// Handler is the server, for a test that calls it itself (one that
// counts the allocations of ServeHTTP).
func (s *server[H]) Handler() http.Handler { return s.h }

// Logs is the server's log.
func (s *server[H]) Logs() *LogBuf { return s.logs }

// LogBuf collects zerolog output; safe for concurrent writers.
type LogBuf = logBuf

// Lines parses every log line as JSON; a line that is not JSON fails t.
func (l *logBuf) Lines(t testing.TB) []map[string]any {
	t.Helper()
	return l.lines(t)
}

// Reset empties the log.
func (l *logBuf) Reset() { l.reset() }

// Logger logs to l.
func (l *logBuf) Logger() *zerolog.Logger { return l.logger() }

// BigFile is bigFile: a file over the text limit and the spool's memory.
var BigFile = bigFile
