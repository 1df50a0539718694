package middleware_test

// The mounts of this package's tests on the one server harness of package
// middleware (harness_test.go, exported by export_test.go). The harness
// cannot import the Echo adapters' packages, which import it; these tests
// can, and supply them as outside mounts: Echo v4 through
// middleware/echov4 (package middleware's tests run a copy of its
// source) and Echo v5 through middleware/echov5, mounted each way Echo
// takes one. The net/http adapter is the harness's own mount. A test
// describes its server (a mounting) and gives one handler for every
// adapter; newServer builds it with its log captured, and the test serves
// requests to it (Server.Do).

import (
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	emw4 "github.com/labstack/echo/v4/middleware"
	echo5 "github.com/labstack/echo/v5"
	emw5 "github.com/labstack/echo/v5/middleware"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
)

// echoCtx is what a handler reads through Echo's context, in either
// version.
type echoCtx interface {
	Param(name string) string
	QueryParam(name string) string
	FormFile(name string) (*multipart.FileHeader, error)
}

// A handler is the test's handler on every adapter: c is the Echo context
// on Echo, nil on net/http.
type handler interface {
	serve(c echoCtx, w http.ResponseWriter, r *http.Request)
}

// handlerFunc is a handler of a function.
type handlerFunc func(c echoCtx, w http.ResponseWriter, r *http.Request)

func (f handlerFunc) serve(c echoCtx, w http.ResponseWriter, r *http.Request) { f(c, w, r) }

// A mounting describes a server.
type mounting struct {
	// adapter is "v4" or "v5" (Echo, through its package) or "nethttp".
	adapter string
	// how is where the middleware sits: on Echo "use" (e.Use), "pre"
	// (e.Pre) or "group" (e.Group(group, mw)); on net/http "handler"
	// (around each handler of a ServeMux), "mux" (around the ServeMux) or
	// "bare" (around the one handler).
	how string
	// cfg configures the adapter (on Echo: its Rules, LogAccepted,
	// OnReject, Observe, TempDir and SpoolBytes). A nil Logger logs to
	// the server's log.
	cfg middleware.HTTPConfig
	// onError, when set, is told of each refusal before the adapter's
	// default error handler answers it (in place of cfg.ErrorHandler).
	onError func(rj *middleware.Rejection)
	// routes are the routes served: Echo templates, or ServeMux
	// patterns; on an Echo group they lie below the group's prefix.
	routes []string
	// methods are the methods each Echo route answers; nil is every method
	// (e.Any).
	methods []string
	// group is the prefix of the Echo group mount.
	group string
	// pre are Echo middleware mounted with e.Pre before all; before and
	// after, Echo middleware before and after the adapter, mounted as it
	// is.
	pre, before, after []echoMW
	// wrap, when set, is net/http middleware around the whole server.
	wrap func(http.Handler) http.Handler
}

// An echoMW is an Echo middleware in each version.
type echoMW struct {
	v4 echo4.MiddlewareFunc
	v5 echo5.MiddlewareFunc
}

// decompress is Echo's Decompress middleware.
func decompress() echoMW { return echoMW{emw4.Decompress(), emw5.Decompress()} }

// rewrite is Echo's Rewrite middleware of rules.
func rewrite(rules map[string]string) echoMW {
	return echoMW{emw4.Rewrite(rules), emw5.Rewrite(rules)}
}

// newServer builds the server m describes, in front of rec.
func newServer(t testing.TB, m mounting, rec handler) *middleware.Server[handler] {
	t.Helper()
	on := map[string]middleware.Outside[handler]{"v4": m.echoV4, "v5": m.echoV5, "nethttp": m.netHTTP}[m.adapter]
	if on == nil {
		t.Fatalf("no adapter %q", m.adapter)
	}
	if m.wrap != nil {
		mount := on
		on = func(t testing.TB, cfg middleware.HTTPConfig, rec handler) http.Handler {
			return m.wrap(mount(t, cfg, rec))
		}
	}
	return middleware.NewServer(t, m.cfg, on, rec)
}

// echoV4 is the Echo v4 adapter mounted as m says; echoV5 is the same
// mount in Echo v5's types.
func (m mounting) echoV4(t testing.TB, cfg middleware.HTTPConfig, rec handler) http.Handler {
	t.Helper()
	ecfg := echov4.Config{Rules: cfg.Rules, Logger: cfg.Logger, LogAccepted: cfg.LogAccepted, Observe: cfg.Observe,
		TempDir: cfg.TempDir, SpoolBytes: cfg.SpoolBytes}
	if cfg.OnReject != nil {
		ecfg.OnReject = func(c echo4.Context, rj *middleware.Rejection) { cfg.OnReject(c.Request(), rj) }
	}
	if m.onError != nil {
		ecfg.ErrorHandler = func(c echo4.Context, rj *middleware.Rejection) error {
			m.onError(rj)
			return echov4.DefaultErrorHandler(c, rj)
		}
	}
	mw, err := ecfg.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e := echo4.New()
	for _, p := range m.pre {
		e.Pre(p.v4)
	}
	var mws []echo4.MiddlewareFunc
	for _, b := range m.before {
		mws = append(mws, b.v4)
	}
	mws = append(mws, mw)
	for _, a := range m.after {
		mws = append(mws, a.v4)
	}
	var g interface {
		Add(string, string, echo4.HandlerFunc, ...echo4.MiddlewareFunc) *echo4.Route
		Any(string, echo4.HandlerFunc, ...echo4.MiddlewareFunc) []*echo4.Route
	} = e
	prefix := ""
	switch m.how {
	case "use":
		e.Use(mws...)
	case "pre":
		e.Pre(mws...)
	case "group":
		g, prefix = e.Group(m.group, mws...), m.group
	default:
		t.Fatalf("no Echo mount %q", m.how)
	}
	h := func(c echo4.Context) error { rec.serve(c, c.Response(), c.Request()); return nil }
	for _, path := range m.routes {
		path = strings.TrimPrefix(path, prefix)
		if m.methods == nil {
			g.Any(path, h)
		}
		for _, method := range m.methods {
			g.Add(method, path, h)
		}
	}
	return e
}

// echoV5 is the Echo v5 adapter mounted as m says (as echoV4).
func (m mounting) echoV5(t testing.TB, cfg middleware.HTTPConfig, rec handler) http.Handler {
	t.Helper()
	ecfg := echov5.Config{Rules: cfg.Rules, Logger: cfg.Logger, LogAccepted: cfg.LogAccepted, Observe: cfg.Observe,
		TempDir: cfg.TempDir, SpoolBytes: cfg.SpoolBytes}
	if cfg.OnReject != nil {
		ecfg.OnReject = func(c *echo5.Context, rj *middleware.Rejection) { cfg.OnReject(c.Request(), rj) }
	}
	if m.onError != nil {
		ecfg.ErrorHandler = func(c *echo5.Context, rj *middleware.Rejection) error {
			m.onError(rj)
			return echov5.DefaultErrorHandler(c, rj)
		}
	}
	mw, err := ecfg.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e := echo5.New()
	for _, p := range m.pre {
		e.Pre(p.v5)
	}
	var mws []echo5.MiddlewareFunc
	for _, b := range m.before {
		mws = append(mws, b.v5)
	}
	mws = append(mws, mw)
	for _, a := range m.after {
		mws = append(mws, a.v5)
	}
	var g interface {
		Add(string, string, echo5.HandlerFunc, ...echo5.MiddlewareFunc) echo5.RouteInfo
		Any(string, echo5.HandlerFunc, ...echo5.MiddlewareFunc) echo5.RouteInfo
	} = e
	prefix := ""
	switch m.how {
	case "use":
		e.Use(mws...)
	case "pre":
		e.Pre(mws...)
	case "group":
		g, prefix = e.Group(m.group, mws...), m.group
	default:
		t.Fatalf("no Echo mount %q", m.how)
	}
	h := func(c *echo5.Context) error { rec.serve(c, c.Response(), c.Request()); return nil }
	for _, path := range m.routes {
		path = strings.TrimPrefix(path, prefix)
		if m.methods == nil {
			g.Any(path, h)
		}
		for _, method := range m.methods {
			g.Add(method, path, h)
		}
	}
	return e
}

// netHTTP is the net/http adapter mounted as m says, the harness's own
// mount.
func (m mounting) netHTTP(t testing.TB, cfg middleware.HTTPConfig, rec handler) http.Handler {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rec.serve(nil, w, r) })
	if m.onError != nil {
		cfg.ErrorHandler = func(w http.ResponseWriter, r *http.Request, rj *middleware.Rejection) {
			m.onError(rj)
			middleware.DefaultHTTPErrorHandler(w, r, rj)
		}
	}
	how := middleware.MountHandler
	switch m.how {
	case "handler":
	case "mux":
		how = middleware.MountMux
	case "bare":
		how = middleware.MountBare
	default:
		t.Fatalf("no net/http mount %q", m.how)
	}
	return middleware.HTTPMount(t, how, cfg, m.routes, h)
}

// linesAt returns the lines of the log l at level.
func linesAt(t testing.TB, l *middleware.LogBuf, level string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range l.Lines(t) {
		if m["level"] == level {
			out = append(out, m)
		}
	}
	return out
}
