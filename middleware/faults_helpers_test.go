package middleware

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"

	"github.com/utf8guard/utf8guard/rules"
)

// The harness of the fault tests (faults_test.go), also used by the body
// limit tests (body_limits_test.go): a real server per adapter whose
// handler reads the whole body and records it, with a counter of the
// octets taken from the connection; raw TCP clients; the wait for one log
// line; the goroutine leak check; and an in-process env (fltNewEnv).

// fltTimeout bounds every wait of the fault and limit tests.
const fltTimeout = 5 * time.Second

// The three log messages of an outcome.
const (
	fltAccepted   = "utf8guard: request accepted"
	fltRejected   = "utf8guard: request rejected"
	fltReadFailed = "body_unreadable" // a rejection of that reason: see fltLogLine
)

// fltAdapter is the way utf8guard is mounted on a test server.
type fltAdapter int

const (
	fltEcho fltAdapter = iota // Echo, e.Use
	fltHTTP                   // the net/http adapter around a ServeMux handler
)

var fltAdapters = []fltAdapter{fltEcho, fltHTTP}

func (a fltAdapter) String() string { return [...]string{"echo", "nethttp"}[a] }

// fltRoute is the one route of a fault server, for POST.
const fltRoute = "/up"

// fltRun is one run of a fault server's handler: what it read of the body,
// and how the read ended.
type fltRun struct {
	body []byte
	err  error
}

// fltServer is a real http.Server on 127.0.0.1 with utf8guard mounted one
// way in front of a handler that reads the whole body and records it. In
// front of everything, a counter wraps the request body, so that read
// counts the octets utf8guard and the handler took from the connection.
type fltServer struct {
	addr   string
	route  string // as the log names it
	app    http.Handler
	srv    *http.Server
	logs   *logBuf
	errlog *logBuf
	read   atomic.Int64

	mu   sync.Mutex
	runs []fltRun

	closeOnce sync.Once
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

// fltStart starts a fault server with pol under adapter a; readTimeout, if
// not zero, is the server's ReadTimeout, and each of opts edits the server
// before it starts (s.srv; s.app is the handler without the counter).
// Accepted requests are logged too, so that every request has its line.
// The server is closed at the end of the test, and its error log checked
// for panics.
func fltStart(t testing.TB, a fltAdapter, pol rules.Policy, readTimeout time.Duration, opts ...func(*fltServer)) *fltServer {
	t.Helper()
	s := &fltServer{logs: &logBuf{}, errlog: &logBuf{}}
	var app http.Handler
	switch a {
	case fltEcho:
		e := echo.New()
		e.HideBanner, e.HidePort = true, true
		e.Use(emw.RequestID(), WithConfig(Config{Rules: &pol, Logger: s.logs.logger(), LogAccepted: true}))
		e.POST(fltRoute, echo.WrapHandler(http.HandlerFunc(s.handle)))
		app = e
		s.route = fltRoute
	case fltHTTP:
		mux := http.NewServeMux()
		mux.Handle("POST "+fltRoute, Handler(HTTPConfig{Rules: &pol, Logger: s.logs.logger(), LogAccepted: true})(http.HandlerFunc(s.handle)))
		app = mux
		s.route = "POST " + fltRoute // the ServeMux pattern
	}
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			// In place, as a small middleware typically does. (net/http
			// then no longer recognises its own body after the handler:
			// for "Expect: 100-continue", that makes it wait for a body it
			// never asked for; the tests of it run without the counter.)
			r.Body = &fltCounter{ReadCloser: r.Body, n: &s.read}
		}
		app.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if readTimeout == 0 {
		readTimeout = 2 * fltTimeout
	}
	s.srv = &http.Server{
		Handler:           counted,
		ReadHeaderTimeout: fltTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      2 * fltTimeout,
		ErrorLog:          log.New(s.errlog, "", 0),
	}
	s.app = app
	for _, o := range opts {
		o(s)
	}
	go func() { _ = s.srv.Serve(ln) }()
	s.addr = ln.Addr().String()
	t.Cleanup(func() {
		s.close()
		s.errlog.mu.Lock()
		l := s.errlog.buf.String()
		s.errlog.mu.Unlock()
		if strings.Contains(l, "panic") {
			t.Errorf("server panicked: %s", l)
		}
	})
	return s
}

// close closes the server and its connections; it may be called again.
func (s *fltServer) close() { s.closeOnce.Do(func() { _ = s.srv.Close() }) }

// fltUnread is a request header that makes the handler answer 403 without
// reading the body.
const fltUnread = "X-Flt-Unread"

// handle is the handler: it reads the body whole, records what it read, and
// answers the sha256 and length of the body, or 413 when the read was cut
// off at a limit (http.MaxBytesError), or 400 when it failed otherwise.
// Given the fltUnread header, it reads nothing and answers 403.
func (s *fltServer) handle(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(fltUnread) != "" {
		s.mu.Lock()
		s.runs = append(s.runs, fltRun{})
		s.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		return
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
}

// fltSum is what the handler answers for an accepted body.
func fltSum(body []byte) string { return fmt.Sprintf("%x %d", sha256.Sum256(body), len(body)) }

// handlerRuns returns a copy of the handler's runs so far.
func (s *fltServer) handlerRuns() []fltRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

// takeRuns returns the handler's runs so far and forgets them.
func (s *fltServer) takeRuns() []fltRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs := s.runs
	s.runs = nil
	return runs
}

// dial opens a raw connection to the server, with a deadline.
func (s *fltServer) dial(t testing.TB) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", s.addr, fltTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.SetDeadline(time.Now().Add(2 * fltTimeout)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
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
func (s *fltServer) oneLog(t testing.TB, msg string) map[string]any {
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

// fltEnv is an in-process target: the Echo middleware (e.Use) or the
// net/http adapter around a ServeMux handler, each with the recording
// handler of helpers_test.go on POST and GET /echo (/api/echo on Echo).
type fltEnv struct {
	prefix string // of every target: "/api" on Echo
	serve  func(*http.Request) *httptest.ResponseRecorder
	rec    *recorder
	logs   *logBuf
}

func fltNewEnv(t testing.TB, a fltAdapter, pol rules.Policy, logAccepted bool) *fltEnv {
	t.Helper()
	switch a {
	case fltEcho:
		ev := newServer(t, recSetup(Config{Rules: &pol, LogAccepted: logAccepted}, mountGlobal), &recorder{})
		return &fltEnv{prefix: "/api", serve: ev.do, rec: ev.rec, logs: ev.logs}
	default:
		ev := newServer(t, muxSetup(HTTPConfig{Rules: &pol, LogAccepted: logAccepted}, mountHandler), &recorder{})
		return &fltEnv{serve: ev.do, rec: ev.rec, logs: ev.logs}
	}
}
