package middleware

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// What the fault tests (faults_test.go) and the body limit tests
// (body_limits_test.go) share: the harness's server on each mount over a
// real connection (fltStart), whose handler reads the whole body and
// records it, with a counter of the octets taken from the connection; the
// wait for one log line; the goroutine leak check; and the in-process
// server (fltEnvSetup).

// fltTimeout bounds every wait of the fault and limit tests.
const fltTimeout = 5 * time.Second

// The three log messages of an outcome.
const (
	fltAccepted   = "utf8guard: request accepted"
	fltRejected   = "utf8guard: request rejected"
	fltReadFailed = "body_unreadable" // a rejection of that reason: see fltLogLine
)

// fltAdapters are the mounts of a fault server: Echo's e.Use (behind
// its RequestID middleware), and the net/http adapter around the handler
// of a ServeMux pattern.
var fltAdapters = []mount{mountGlobal, mountHandler}

// fltRoute is the one route of a fault server, for POST.
const fltRoute = "/up"

// fltRun is one run of a fault server's handler: what it read of the body,
// and how the read ended.
type fltRun struct {
	body []byte
	err  error
}

// fltRec is the handler of a fault server: it reads the whole body and
// records it. read counts the octets taken from the connection, by
// utf8guard and the handler, when the server counts them (fltStart).
type fltRec struct {
	read atomic.Int64
	mu   sync.Mutex
	runs []fltRun
}

// fltServer is a fault server: utf8guard mounted one way in front of an
// fltRec, over a real http.Server on 127.0.0.1 speaking HTTP/1.1.
type fltServer struct {
	*server[*fltRec]
	*listening
	route string // as the log names it
}

// fltCounter counts the octets read through a request body.
type fltCounter struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *fltCounter) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// fltStart starts a fault server with pol on mount a; readTimeout, if not
// zero, is the server's ReadTimeout (else 2*fltTimeout, and fltTimeout
// the ReadHeaderTimeout), and each of opts edits the server before it
// starts. In front of everything, unless an opt sets the server's Handler
// back to s.h, a counter wraps the request body, so that rec.read counts
// the octets utf8guard and the handler took from the connection.
// Accepted requests are logged too, so that every request has its line.
func fltStart(t testing.TB, a mount, pol rules.Policy, readTimeout time.Duration, opts ...func(*fltServer, *http.Server)) fltServer {
	t.Helper()
	st := setup{mount: a, echo: Config{Rules: &pol, LogAccepted: true}, routes: []string{fltRoute}, methods: []string{http.MethodPost}, requestID: true}
	s := fltServer{route: fltRoute}
	if !a.echo() {
		st.patterns, s.route = []string{"POST " + fltRoute}, "POST "+fltRoute // the ServeMux pattern
	}
	s.server = newServer(t, st, &fltRec{})
	if readTimeout == 0 {
		readTimeout = 2 * fltTimeout
	}
	s.listening = s.listen(t, "http1", func(srv *http.Server) {
		srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout = fltTimeout, readTimeout, 2*fltTimeout
		srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body != nil && r.Body != http.NoBody {
				// In place, as a small middleware typically does. (net/http
				// then no longer recognises its own body after the handler:
				// for "Expect: 100-continue", that makes it wait for a body it
				// never asked for; the tests of it run without the counter.)
				r.Body = &fltCounter{ReadCloser: r.Body, n: &s.rec.read}
			}
			s.h.ServeHTTP(w, r)
		})
		for _, o := range opts {
			o(&s, srv)
		}
	})
	return s
}

// fltUnread is a request header that makes the handler answer 403 without
// reading the body.
const fltUnread = "X-Flt-Unread"

// handle is the handler: it reads the body whole, records what it read, and
// answers the sha256 and length of the body, or 413 when the read was cut
// off at a limit (http.MaxBytesError), or 400 when it failed otherwise.
// Given the fltUnread header, it reads nothing and answers 403.
func (s *fltRec) serve(_ echo.Context, w http.ResponseWriter, r *http.Request) error {
	if r.Header.Get(fltUnread) != "" {
		s.mu.Lock()
		s.runs = append(s.runs, fltRun{})
		s.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		return nil
	}
	body, err := io.ReadAll(r.Body)
	s.mu.Lock()
	s.runs = append(s.runs, fltRun{body, err})
	s.mu.Unlock()
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	case err != nil:
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, "the handler's read failed")
	default:
		_, _ = io.WriteString(w, fltSum(body))
	}
	return nil
}

// fltSum is what the handler answers for an accepted body.
func fltSum(body []byte) string { return fmt.Sprintf("%x %d", sha256.Sum256(body), len(body)) }

// handlerRuns returns a copy of the handler's runs so far.
func (s *fltRec) handlerRuns() []fltRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

// takeRuns returns the handler's runs so far and forgets them.
func (s *fltRec) takeRuns() []fltRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs := s.runs
	s.runs = nil
	return runs
}

// fltHead is the head of a POST to the fault route; framing is a
// "Content-Length: n" or "Transfer-Encoding: chunked" line, or empty.
func fltHead(ct, framing string) string {
	h := "POST " + fltRoute + " HTTP/1.1\r\nHost: test\r\nContent-Type: " + ct + "\r\n"
	if framing != "" {
		h += framing + "\r\n"
	}
	return h + "\r\n"
}

// fltWaitFor polls cond until it holds, failing t after fltTimeout.
func fltWaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(fltTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// oneLog asserts that the server's log holds exactly one line, with
// message msg and the fault route, and returns it.
func (s fltServer) oneLog(t testing.TB, msg string) map[string]any {
	t.Helper()
	l := fltLogLine(t, s.logs, msg)
	if l["route"] != s.route {
		t.Errorf("log line %v; want route %s", l, s.route)
	}
	return l
}

// fltReadResponse reads one response from br and its body.
func fltReadResponse(t testing.TB, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the response body: %v", err)
	}
	return resp, string(b)
}

// fltGoroutines returns the stack of every goroutine, by goroutine ID.
func fltGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[string]string)
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		// "goroutine 42 [chan receive]:\n..."
		f := strings.Fields(g)
		if len(f) >= 2 && f[0] == "goroutine" {
			out[f[1]] = g
		}
	}
	return out
}

// fltLeakCheck is our goleak.VerifyNone: it notes the goroutines running
// now, and when t and its subtests are done (and their cleanups have closed
// their servers and connections), it waits up to fltTimeout for every
// goroutine started since to end, and fails t with the stacks of those
// that do not. Call it first in a test that is not parallel, so that the
// check runs after every other cleanup and no other test starts goroutines
// meanwhile. (A server connection that closes after a response whose
// request body was not read lingers for net/http's rstAvoidanceDelay, 500
// ms: hence the wait.)
func fltLeakCheck(t *testing.T) {
	t.Helper()
	before := fltGoroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(fltTimeout)
		for {
			var left []string
			for id, stack := range fltGoroutines() {
				if _, ok := before[id]; !ok {
					left = append(left, stack)
				}
			}
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines left behind:\n\n%s", len(left), strings.Join(left, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// fltEnvSetup is the in-process server of the fault tests on mount a:
// the Echo middleware (e.Use, recSetup) or the net/http adapter around a
// ServeMux handler (muxSetup), each with the recorder on POST and GET
// /echo (/api/echo on Echo: fltPrefix).
func fltEnvSetup(a mount, pol rules.Policy, logAccepted bool) setup {
	if a.echo() {
		return recSetup(Config{Rules: &pol, LogAccepted: logAccepted}, a)
	}
	return muxSetup(HTTPConfig{Rules: &pol, LogAccepted: logAccepted}, a)
}

// fltPrefix is the prefix of every route of fltEnvSetup's server on a.
func fltPrefix(a mount) string {
	if a.echo() {
		return "/api"
	}
	return ""
}
