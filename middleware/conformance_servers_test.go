package middleware_test

// The servers of the conformance test (conformance_test.go): one per
// adapter and mount, on the same routes, with a handler that records what
// it reads through its framework's own API.

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	emw4 "github.com/labstack/echo/v4/middleware"
	echo5 "github.com/labstack/echo/v5"
	emw5 "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// confRoute is a route of every conformance server: its Echo template, its
// ServeMux pattern, and the mux's name for each Echo parameter.
type confRoute struct {
	echo, mux string
	params    map[string]string // Echo name -> ServeMux wildcard name
}

// confRoutes are below /api, so that a group can hold them. The last three
// are the targets of the rewrites that move a request under e.Pre.
var confRoutes = []confRoute{
	{echo: "/api/t/:id", mux: "/api/t/{id}", params: map[string]string{"id": "id"}},
	{echo: "/api/u/:id/p/:post", mux: "/api/u/{id}/p/{post}", params: map[string]string{"id": "id", "post": "post"}},
	{echo: "/api/f/*", mux: "/api/f/{star...}", params: map[string]string{"*": "star"}},
	{echo: "/api/e", mux: "/api/e"},
	{echo: "/api/café", mux: "/api/café"},
	{echo: "/api/\ufb01é", mux: "/api/\ufb01é"}, // "ﬁé": NFC keeps the ligature
	{echo: "/api/fié", mux: "/api/fié"},
}

// confMethods are the methods every route answers.
var confMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions}

// muxPattern returns the ServeMux pattern of an Echo route template, or
// the template itself when it is none of confRoutes.
func muxPattern(route string) string {
	for _, r := range confRoutes {
		if r.echo == route {
			return r.mux
		}
	}
	return route
}

// echoTemplate is muxPattern's inverse.
func echoTemplate(pattern string) string {
	for _, r := range confRoutes {
		if r.mux == pattern {
			return r.echo
		}
	}
	return pattern
}

// confTarget is one adapter mounted one way.
type confTarget struct {
	adapter string // "v4", "v5" or "nethttp"
	mount   string // "use", "pre", "group", "route"; "mux", "wrap" or "strip" for net/http
}

func (t confTarget) String() string { return t.adapter + "/" + t.mount }

// cannotCompare returns why the log line of tc on t cannot be the first
// target's, or "": the net/http adapter mounted around a ServeMux does not
// know the route's parameters (a refusal in one is the path's, in field
// "" at its offset in the path); under http.StripPrefix it sees the path
// without the prefix (a refusal in the path counts its offset, and shows
// its sample, from there). The README says so.
func (t confTarget) cannotCompare(tc confCase) string {
	if tc.rej == nil || tc.rej.location != "path" || t.adapter != "nethttp" {
		return ""
	}
	switch {
	case t.mount == "strip":
		return "the path's offsets count from what StripPrefix leaves"
	case t.mount == "wrap" && tc.rej.field != "" && tc.rej.field != "host" && tc.rej.field != "userinfo":
		return "around a ServeMux a parameter's refusal is the path's"
	}
	return ""
}

// in reports whether t belongs to the group g: an adapter ("v4", "v5",
// "nethttp"), "echo" (v4 and v5), a mount ("pre", ...) or one target
// ("v5/pre").
func (t confTarget) in(g string) bool {
	return g == t.adapter || g == t.mount || g == t.String() || g == "echo" && t.adapter != "nethttp"
}

var confTargets = []confTarget{
	{"v4", "use"}, {"v4", "pre"}, {"v4", "group"}, {"v4", "route"},
	{"v5", "use"}, {"v5", "pre"}, {"v5", "group"}, {"v5", "route"},
	{"nethttp", "mux"}, {"nethttp", "wrap"}, {"nethttp", "strip"},
}

// confReads is what a handler read of a request, each through its
// framework's API.
type confReads struct {
	// Path is URL.Path.
	Path string
	// Params are the path parameters by their Echo names: c.Param(name)
	// on Echo, r.PathValue(wildcard) on net/http.
	Params map[string]string
	// Query is the query as a map (c.QueryParams() on Echo, URL.Query()
	// on net/http), and First each key's value as the single-value API
	// gives it (c.QueryParam(key), which Echo v5 parses by its own code;
	// URL.Query().Get(key) on net/http).
	Query url.Values
	First map[string]string
	// Body is the body read whole; ContentLength the request's.
	Body          string
	ContentLength int64
	// Form is the form body's fields (url-encoded: Request.PostForm;
	// multipart: the MultipartForm's values), parsed from Body; nil for
	// other bodies.
	Form url.Values
	// BodyErr is the error reading the body, if any.
	BodyErr string
}

// record fills the framework-neutral part of rd from r; the caller has set
// Params and First.
func (rd *confReads) record(r *http.Request, query url.Values) {
	rd.Path = r.URL.Path
	rd.Query = query
	rd.ContentLength = r.ContentLength
	if r.Body == nil {
		return
	}
	body, err := io.ReadAll(r.Body)
	rd.Body = string(body)
	if err != nil {
		rd.BodyErr = err.Error()
		return
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "application/x-www-form-urlencoded":
		rd.Form, _ = url.ParseQuery(rd.Body)
	case mt == "multipart/form-data":
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		if err := r2.ParseMultipartForm(1 << 20); err == nil {
			rd.Form = url.Values(r2.MultipartForm.Value)
		} else {
			rd.BodyErr = "multipart: " + err.Error() + " (boundary " + params["boundary"] + ")"
		}
	}
}

// confServer is one adapter, mounted one way, with a recording handler and
// a captured log.
type confServer struct {
	h     http.Handler
	logs  bytes.Buffer
	mu    sync.Mutex
	reads *confReads // the last request's; nil if the handler did not run
	calls int
}

func (s *confServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

func (s *confServer) saw(rd *confReads) {
	s.mu.Lock()
	s.reads = rd
	s.calls++
	s.mu.Unlock()
}

// newConfServer builds the server of tg with the policies of table, whose
// keys are Echo templates.
func newConfServer(t *testing.T, tg confTarget, table *rules.Table) *confServer {
	t.Helper()
	s := &confServer{}
	logger := zerolog.New(s)
	switch tg.adapter {
	case "v4":
		mw, err := echov4.Config{Rules: table, Logger: &logger}.ToMiddleware()
		if err != nil {
			t.Fatal(err)
		}
		s.h = echoV4Server(s, tg.mount, mw)
	case "v5":
		mw, err := echov5.Config{Rules: table, Logger: &logger}.ToMiddleware()
		if err != nil {
			t.Fatal(err)
		}
		s.h = echoV5Server(s, tg.mount, mw)
	case "nethttp":
		prefix := ""
		if tg.mount == "strip" {
			prefix = "/api"
		}
		mux := &rules.Table{Default: table.Default, Routes: map[string]rules.Policy{}}
		for route, p := range table.Routes {
			mux.Routes[strings.TrimPrefix(muxPattern(route), prefix)] = p
		}
		if tg.mount == "mux" {
			h, err := middleware.HTTPConfig{Rules: mux, Logger: &logger}.ToHandler()
			if err != nil {
				t.Fatal(err)
			}
			s.h = netHTTPServer(s, h, "")
			break
		}
		// Around the ServeMux itself, which has not matched the request
		// yet: the route is the pattern it will match (the README's
		// recipe); under http.StripPrefix, of the path it strips.
		inner := netHTTPServer(s, nil, prefix).(*http.ServeMux)
		h, err := middleware.HTTPConfig{Rules: mux, Logger: &logger, Route: func(r *http.Request) string {
			_, pattern := inner.Handler(r)
			return pattern
		}}.ToHandler()
		if err != nil {
			t.Fatal(err)
		}
		s.h = h(inner)
		if prefix != "" {
			s.h = http.StripPrefix(prefix, s.h)
		}
	default:
		t.Fatalf("no adapter %q", tg.adapter)
	}
	return s
}

func echoV4Server(s *confServer, mount string, mw echo4.MiddlewareFunc) http.Handler {
	e := echo4.New()
	handler := func(c echo4.Context) error {
		rd := &confReads{Params: map[string]string{}, First: map[string]string{}}
		for _, n := range c.ParamNames() {
			rd.Params[n] = c.Param(n)
		}
		q := c.QueryParams()
		for k := range q {
			rd.First[k] = c.QueryParam(k)
		}
		rd.record(c.Request(), q)
		s.saw(rd)
		return c.String(http.StatusOK, "ok")
	}
	var routeMW []echo4.MiddlewareFunc
	add := func(add func(method, path string, h echo4.HandlerFunc, m ...echo4.MiddlewareFunc) *echo4.Route, prefix string) {
		for _, r := range confRoutes {
			for _, method := range confMethods {
				add(method, strings.TrimPrefix(r.echo, prefix), handler, routeMW...)
			}
		}
	}
	switch mount {
	case "use":
		e.Use(emw4.RequestID(), mw)
		add(e.Add, "")
	case "pre":
		e.Pre(emw4.RequestID(), mw)
		add(e.Add, "")
	case "group":
		e.Use(emw4.RequestID())
		add(e.Group("/api", mw).Add, "/api")
	case "route":
		e.Use(emw4.RequestID())
		routeMW = []echo4.MiddlewareFunc{mw}
		add(e.Add, "")
	}
	return e
}

func echoV5Server(s *confServer, mount string, mw echo5.MiddlewareFunc) http.Handler {
	e := echo5.New()
	handler := func(c *echo5.Context) error {
		rd := &confReads{Params: map[string]string{}, First: map[string]string{}}
		for _, p := range c.PathValues() {
			rd.Params[p.Name] = c.Param(p.Name)
		}
		q := c.QueryParams()
		for k := range q {
			rd.First[k] = c.QueryParam(k)
		}
		rd.record(c.Request(), q)
		s.saw(rd)
		return c.String(http.StatusOK, "ok")
	}
	var routeMW []echo5.MiddlewareFunc
	add := func(add func(method, path string, h echo5.HandlerFunc, m ...echo5.MiddlewareFunc) echo5.RouteInfo, prefix string) {
		for _, r := range confRoutes {
			for _, method := range confMethods {
				add(method, strings.TrimPrefix(r.echo, prefix), handler, routeMW...)
			}
		}
	}
	switch mount {
	case "use":
		e.Use(emw5.RequestID(), mw)
		add(e.Add, "")
	case "pre":
		e.Pre(emw5.RequestID(), mw)
		add(e.Add, "")
	case "group":
		e.Use(emw5.RequestID())
		add(e.Group("/api", mw).Add, "/api")
	case "route":
		e.Use(emw5.RequestID())
		routeMW = []echo5.MiddlewareFunc{mw}
		add(e.Add, "")
	}
	return e
}

// netHTTPServer registers every route on a ServeMux, each handler wrapped
// in the adapter mw, if any (so that it knows the route: r.Pattern), and
// without prefix, which an http.StripPrefix in front takes off.
func netHTTPServer(s *confServer, mw func(http.Handler) http.Handler, prefix string) http.Handler {
	mux := http.NewServeMux()
	if mw == nil {
		mw = func(h http.Handler) http.Handler { return h }
	}
	for _, r := range confRoutes {
		names := r.params
		mux.Handle(strings.TrimPrefix(r.mux, prefix), mw(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			rd := &confReads{Params: map[string]string{}, First: map[string]string{}}
			for echoName, muxName := range names {
				rd.Params[echoName] = req.PathValue(muxName)
			}
			q := req.URL.Query()
			for k := range q {
				rd.First[k] = q.Get(k)
			}
			rd.record(req, q)
			rd.Path = prefix + rd.Path // as the case sent it: StripPrefix took it off
			s.saw(rd)
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, "ok")
		})))
	}
	return mux
}
