package middleware

import (
	"bufio"
	"cmp"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/utf8guard/utf8guard/middleware/internal/wiretest"
)

// The one server harness of this package's tests. A test describes its
// server (setup: the middleware's configuration, the mount, the routes)
// and gives the handler that records what it saw (a handler: one function
// for every mount, given the Echo context on Echo); newServer builds it,
// with its log captured, and the test serves requests to it in process
// (server.do) or over a real http.Server on 127.0.0.1 speaking HTTP/1.1,
// h2c or TLS h2 (server.listen, with a raw TCP client: listening.dial and
// send). A test of many requests over HTTP/2 sends them on the wires the
// test binary shares (wireOf), each to the handler it registers.
//
// The mounts are those of the conformance table's targets
// (middleware/adaptertest), which these tests cannot import (it imports
// this package): the Echo v4 adapter (the copy of its source,
// echov4_source_test.go) mounted each way Echo takes one, and the
// net/http adapter around each handler of a ServeMux, around the ServeMux,
// or around one handler (httpMount).
//
// A mount can also come from outside this package (an outside mount):
// the tests of package middleware_test, which can import the Echo
// adapters' packages (middleware/echov4 and middleware/echov5 import this
// one), supply it as a function that makes the server of the
// middleware's configuration and the test's handler, and newServerOn
// builds the server on it, its log captured as any other's.
// export_test.go exports what they use (NewServer is newServerOn;
// HTTPMount, httpMount, makes their net/http servers), and their
// mounts_test.go has their mounts.

// mount is where the middleware sits.
type mount int

const (
	mountGlobal  mount = iota // Echo v4, e.Use
	mountGroup                // Echo v4, e.Group("/api", mw)
	mountRoute                // Echo v4, e.GET(path, h, mw)
	mountPre                  // Echo v4, e.Pre
	mountHandler              // net/http, around each handler of a ServeMux
	mountMux                  // net/http, around the ServeMux itself
	mountBare                 // net/http, around the one handler, no ServeMux
	// The baselines of what the middleware costs: the same servers
	// without it.
	mountEchoAlone // Echo v4, no middleware
	mountMuxAlone  // a ServeMux, no adapter
	mountOutside   // a mount supplied from outside this package (newServerOn)
)

// mounts are the Echo v4 mounts.
var mounts = []mount{mountGlobal, mountGroup, mountRoute, mountPre}

// allMounts are the Echo v4 mounts and the net/http adapter around each
// handler and around the ServeMux.
var allMounts = []mount{mountGlobal, mountGroup, mountRoute, mountPre, mountHandler, mountMux}

func (m mount) String() string {
	return [...]string{"global", "group", "route", "pre", "http handler", "http mux", "http bare", "echo alone", "mux alone", "outside"}[m]
}

// echo reports whether m is an Echo mount.
func (m mount) echo() bool { return m <= mountPre || m == mountEchoAlone }

// A handler is the test's handler on every mount: c is the Echo context
// on an Echo mount, nil on a net/http one.
type handler interface {
	serve(c echo.Context, w http.ResponseWriter, r *http.Request) error
}

// handlerFunc is a handler of a function.
type handlerFunc func(c echo.Context, w http.ResponseWriter, r *http.Request) error

func (f handlerFunc) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	return f(c, w, r)
}

// onEcho is h as the handler of a server on an Echo mount.
func onEcho(h echo.HandlerFunc) handler {
	return handlerFunc(func(c echo.Context, _ http.ResponseWriter, _ *http.Request) error { return h(c) })
}

// onHTTP is h as the handler of a server on a net/http mount.
func onHTTP(h http.HandlerFunc) handler {
	return handlerFunc(func(_ echo.Context, w http.ResponseWriter, r *http.Request) error { h(w, r); return nil })
}

// echoHandler is h as an Echo handler.
func echoHandler(h handler) echo.HandlerFunc {
	return func(c echo.Context) error { return h.serve(c, c.Response(), c.Request()) }
}

// httpHandler is h as a net/http handler.
func httpHandler(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = h.serve(nil, w, r) })
}

// setup describes a server.
type setup struct {
	mount mount
	// echo configures the Echo v4 adapter on an Echo mount; http the
	// net/http adapter on a net/http mount, and when its Rules are nil it
	// takes Rules, LogAccepted, Observe, TempDir and SpoolBytes from echo.
	// A nil Logger logs to the server's log.
	echo Config
	http HTTPConfig
	// routes are the routes served, as Echo templates ("/api/users/:id",
	// "/api/files/*"); on an Echo group mount they lie below the group's
	// prefix. On a net/http mount, patterns are the ServeMux patterns when
	// set, else the routes in ServeMux syntax ("/api/users/{id}",
	// "/api/files/{rest...}").
	routes   []string
	patterns []string
	// methods are the methods each Echo route answers; nil is every method
	// (e.Any). A ServeMux pattern says its own.
	methods []string
	// group is the prefix of the Echo group mount; "" is /api.
	group string
	// requestID mounts Echo's RequestID middleware in front of the
	// middleware, and before more Echo middleware after it; pre, Echo
	// middleware with e.Pre before all.
	requestID bool
	before    []echo.MiddlewareFunc
	pre       []echo.MiddlewareFunc
}

// server is the middleware mounted one way in front of the handler rec,
// with its log captured.
type server[H any] struct {
	mount mount
	h     http.Handler
	e     *echo.Echo // on an Echo mount, for a test that adds a route
	rec   H
	logs  *logBuf
}

// newServer builds the server st describes, in front of rec.
func newServer[H handler](t testing.TB, st setup, rec H) *server[H] {
	t.Helper()
	s := &server[H]{mount: st.mount, rec: rec, logs: &logBuf{}}
	if !st.mount.echo() {
		cfg := st.http
		if cfg.Rules == nil {
			// The Echo configuration, for a test that describes one
			// server for every mount: what the net/http adapter has too.
			// A field it has no counterpart for here would be lost
			// without a word: the test must say it in st.http instead.
			e := st.echo
			if e.Skipper != nil || e.Logger != nil || e.OnReject != nil || e.ErrorHandler != nil {
				t.Fatal("harness: a net/http mount does not take the Echo configuration's Skipper, Logger, OnReject or ErrorHandler: set setup.http")
			}
			cfg.Rules, cfg.LogAccepted, cfg.Observe = e.Rules, e.LogAccepted, e.Observe
			cfg.TempDir, cfg.SpoolBytes = e.TempDir, e.SpoolBytes
		}
		if cfg.Logger == nil {
			cfg.Logger = s.logs.logger()
		}
		patterns := st.patterns
		if patterns == nil {
			for _, rt := range st.routes {
				patterns = append(patterns, muxPattern(rt))
			}
		}
		s.h = httpMount(t, st.mount, cfg, patterns, httpHandler(rec))
		return s
	}
	cfg := st.echo
	if cfg.Logger == nil {
		cfg.Logger = s.logs.logger()
	}
	var mw echo.MiddlewareFunc
	if st.mount != mountEchoAlone {
		var err error
		if mw, err = cfg.ToMiddleware(); err != nil {
			t.Fatal(err)
		}
	}
	e := echo.New()
	s.e, s.h = e, e
	e.Pre(st.pre...)
	var before []echo.MiddlewareFunc
	if st.requestID {
		before = []echo.MiddlewareFunc{emw.RequestID()}
	}
	before = append(before, st.before...)
	var routeMW []echo.MiddlewareFunc
	h := echoHandler(rec)
	add := func(g interface {
		Add(string, string, echo.HandlerFunc, ...echo.MiddlewareFunc) *echo.Route
		Any(string, echo.HandlerFunc, ...echo.MiddlewareFunc) []*echo.Route
	}, prefix string) {
		for _, path := range st.routes {
			path = strings.TrimPrefix(path, prefix)
			if st.methods == nil {
				g.Any(path, h, routeMW...)
			}
			for _, method := range st.methods {
				g.Add(method, path, h, routeMW...)
			}
		}
	}
	switch st.mount {
	case mountGlobal:
		e.Use(append(before, mw)...)
		add(e, "")
	case mountGroup:
		e.Use(before...)
		group := cmp.Or(st.group, "/api")
		add(e.Group(group, mw), group)
	case mountRoute:
		e.Use(before...)
		routeMW = []echo.MiddlewareFunc{mw}
		add(e, "")
	case mountPre:
		e.Pre(append(before, mw)...)
		add(e, "")
	case mountEchoAlone:
		e.Use(before...)
		add(e, "")
	}
	return s
}

// httpMount is the net/http adapter configured by cfg, mounted as m in
// front of h: around each handler of a ServeMux of patterns
// (mountHandler), around the ServeMux (mountMux), around h alone
// (mountBare); mountMuxAlone is the ServeMux without the adapter.
func httpMount(t testing.TB, m mount, cfg HTTPConfig, patterns []string, h http.Handler) http.Handler {
	t.Helper()
	var mw func(http.Handler) http.Handler
	if m != mountMuxAlone {
		var err error
		if mw, err = cfg.ToHandler(); err != nil {
			t.Fatal(err)
		}
	}
	if m == mountBare {
		return mw(h)
	}
	mux := http.NewServeMux()
	for _, p := range patterns {
		if m == mountMux || m == mountMuxAlone {
			mux.Handle(p, h)
		} else {
			mux.Handle(p, mw(h))
		}
	}
	if m == mountMux {
		return mw(mux)
	}
	return mux
}

// An outside mount is one supplied from outside this package, by the
// tests of package middleware_test: given the middleware's configuration,
// its Logger the server's log unless the test set one, and the test's
// handler rec, it returns the server.
type outside[H any] func(t testing.TB, cfg HTTPConfig, rec H) http.Handler

// newServerOn builds the server that the outside mount on makes of cfg
// and rec, with its log captured.
func newServerOn[H any](t testing.TB, cfg HTTPConfig, on outside[H], rec H) *server[H] {
	t.Helper()
	s := &server[H]{mount: mountOutside, rec: rec, logs: &logBuf{}}
	if cfg.Logger == nil {
		cfg.Logger = s.logs.logger()
	}
	s.h = on(t, cfg, rec)
	return s
}

// muxPattern is an Echo template in ServeMux syntax: ":id" is "{id}", a
// last "*" is "{rest...}".
func muxPattern(template string) string {
	segs := strings.Split(template, "/")
	for i, seg := range segs {
		switch {
		case seg == "*":
			segs[i] = "{rest...}"
		case strings.HasPrefix(seg, ":"):
			segs[i] = "{" + seg[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// do serves r in process and returns the response.
func (s *server[H]) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, r)
	return w
}

// wireTimeout bounds every wait of a test over a real connection.
const wireTimeout = 10 * time.Second

// listening is a server on 127.0.0.1.
type listening struct {
	addr   string       // host:port, for a raw TCP client
	url    string       // "http://" or "https://" and addr
	client *http.Client // a client speaking the server's protocol only
	errlog *logBuf      // the server's error log: a panic there fails the test
}

// listen serves s over a real http.Server on 127.0.0.1 with proto
// ("http1", "h2c" or "h2": TLS), until the end of the test. The server's
// read, header and write timeouts are wireTimeout, and each of opts edits
// it before it starts. At the end the test fails if its error log shows a
// panic.
func (s *server[H]) listen(t testing.TB, proto string, opts ...func(*http.Server)) *listening {
	t.Helper()
	l := &listening{errlog: &logBuf{}}
	srv, tr, err := wiretest.Start(s.h, proto, func(srv *http.Server) {
		srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout = wireTimeout, wireTimeout, wireTimeout
		srv.ErrorLog = log.New(l.errlog, "", 0)
		for _, o := range opts {
			o(srv)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	l.url, l.addr = srv.URL, srv.Listener.Addr().String()
	l.client = &http.Client{Transport: tr, Timeout: wireTimeout}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		// The listener and every connection, at once: not httptest's
		// Close, which waits for each connection's goroutine, through
		// net/http's lingering (up to 500 ms) after an answer that left
		// the body unread.
		_ = srv.Config.Close()
		if log := l.errlog.String(); strings.Contains(log, "panic") {
			t.Errorf("server panicked: %s", log)
		}
	})
	return l
}

// A wireServer is a server on 127.0.0.1 of one protocol, started once for the
// test binary and running until it exits, for tests of many requests
// each over a connection of its own (a server and a full TLS handshake a
// request would be most of their time). Each request goes to the handler
// registered for it (wireServer.do). Its client opens a connection for each
// request, so that a hostile request the server answers with GOAWAY (a
// connection error) ends no other request's stream.
type wireServer struct {
	name     string // "http1", "h2c" or "h2"
	url      string
	client   *http.Client
	handlers sync.Map // id (wireHeader) -> http.Handler
	next     atomic.Int64
}

// wireHeader names the handler of a request on a wire; the wire removes
// it before the handler sees the request.
const wireHeader = "X-Harness-Handler"

var wires sync.Map // proto -> func() (*wireServer, error)

// wireOf returns the wire of proto, started at its first use.
func wireOf(t testing.TB, proto string) *wireServer {
	t.Helper()
	start, _ := wires.LoadOrStore(proto, sync.OnceValues(func() (*wireServer, error) {
		w := &wireServer{name: proto}
		srv, tr, err := wiretest.Start(http.HandlerFunc(w.dispatch), proto, func(srv *http.Server) { srv.ReadHeaderTimeout = wireTimeout })
		if err != nil {
			return nil, err
		}
		tr.DisableKeepAlives = true
		w.url, w.client = srv.URL, &http.Client{Transport: tr, Timeout: 2 * wireTimeout}
		return w, nil
	}))
	w, err := start.(func() (*wireServer, error))()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *wireServer) dispatch(rw http.ResponseWriter, r *http.Request) {
	h, ok := w.handlers.Load(r.Header.Get(wireHeader))
	if !ok {
		http.Error(rw, "no handler "+r.Header.Get(wireHeader), http.StatusTeapot)
		return
	}
	r.Header.Del(wireHeader)
	h.(http.Handler).ServeHTTP(rw, r)
}

// do sends req over w to h, and returns the response.
func (w *wireServer) do(req *http.Request, h http.Handler) (*http.Response, error) {
	id := strconv.FormatInt(w.next.Add(1), 10)
	w.handlers.Store(id, h)
	defer w.handlers.Delete(id)
	req.Header.Set(wireHeader, id)
	return w.client.Do(req)
}

// dial opens a raw TCP connection to the server, closed at the end of the
// test, with a deadline of wireTimeout.
func (l *listening) dial(t testing.TB) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", l.addr, wireTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(wireTimeout)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// send writes the raw request head and then body over a connection of its
// own (the body from its own goroutine, so that a server answering before
// the body is all sent does not block the test), and reads the response.
func (l *listening) send(t testing.TB, head string, body io.Reader) (*http.Response, string) {
	t.Helper()
	conn := l.dial(t)
	defer conn.Close()
	go func() {
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		if body != nil {
			_, _ = io.Copy(conn, body) // fails once the server stops reading: fine
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
