package utf8gin

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// Config configures the Gin middleware. It has the fields of the Echo
// adapters' Config, in Gin's types, and Engine, which Gin's context does
// not give a middleware.
type Config struct {
	// Rules is the policy of every route (a rules.Policy), or a table
	// (a rules.Table) that maps Gin route templates ("/users/:id",
	// "/files/*path", as c.FullPath() names them) to policies, with a
	// default for the rest.
	// A *rules.Live can be given new rules while the server runs.
	// Optional. Default value rules.Default().
	Rules rules.Ruleset

	// Logger receives the log lines, unless the request's context carries
	// a zerolog logger (zerolog.Ctx), which is then used instead.
	// Optional. Default value: JSON lines on os.Stderr with a timestamp.
	Logger *zerolog.Logger

	// LogAccepted writes a debug-level event for each accepted request.
	// Optional. Default value false: clean requests are not logged.
	LogAccepted bool

	// OnReject is called for every refused or flagged (Monitor) request,
	// after the log line, for metrics and the like.
	// Optional.
	OnReject func(c *gin.Context, rj *middleware.Rejection)

	// ErrorHandler answers a refused request (Enforce mode). The
	// middleware aborts the chain after it, whatever it wrote.
	// Optional. Default value DefaultErrorHandler.
	ErrorHandler func(c *gin.Context, rj *middleware.Rejection)

	// Observe is called once for every request the middleware checks,
	// with its verdict (accepted, rejected, flagged, unchecked), its route
	// template and its rejection: for metrics of every request, the
	// accepted ones too (middleware.PipelineConfig.Observe).
	// Optional.
	Observe func(r *http.Request, o middleware.Observation)

	// TempDir is where a multipart body larger than 1 MiB is spooled
	// while it is checked and then read by the handler: one temporary
	// file per request, removed when the handler returns.
	// Optional. Default value os.TempDir().
	TempDir string

	// SpoolBytes bounds the octets the spooled bodies of all requests hold
	// in TempDir together; a body that would go past it is refused with
	// 503 spool_full (middleware.PipelineConfig.SpoolBytes).
	// Optional. Default value middleware.DefaultSpoolBytes; -1 for no
	// bound.
	SpoolBytes int64

	// Engine is the engine the middleware is mounted on. Gin's context
	// does not give a middleware its engine, and two things need it: the
	// path settings (UseRawPath, UseEscapedPath, UnescapePathValues),
	// read at each request, which say whether the parameter values Gin
	// cut still hold escapes; and the routes, which the middleware meets
	// with the table's keys at its first request, as CheckRoutes does,
	// logging an error-level line per unknown key.
	// Optional. Default value nil: the parameters are taken to be
	// decoded, as every engine but one with UnescapePathValues false
	// and UseRawPath or UseEscapedPath cuts them (see the package doc),
	// and the routes are met only by CheckRoutes.
	Engine *gin.Engine
}

// DefaultErrorHandler answers a rejection with
// c.AbortWithStatusJSON(rj.Status(), ...) and the JSON object
// {"location": ..., "reason": ...}: it never echoes the offending octets.
// The status is 400 for ill-formed text and for every limit that is not
// a body's, 413 for a body or file part over its limit, 415 for a refused
// media type or content coding, 503 when the spool is full, and 500 for
// the server's own mistakes (parsed_before_check);
// middleware.Rejection.Status lists them. Gin writes it as
// "application/json; charset=utf-8", without a final newline and without
// X-Content-Type-Options; HTTPErrorHandler writes the net/http adapter's
// answer instead.
func DefaultErrorHandler(c *gin.Context, rj *middleware.Rejection) {
	c.AbortWithStatusJSON(rj.Status(), gin.H{"reason": rj.Reason.String(), "location": rj.Location.String()})
}

// HTTPErrorHandler answers a rejection exactly as the net/http adapter
// does (middleware.DefaultHTTPErrorHandler): the same JSON object as
// DefaultErrorHandler, as "application/json" with a final newline and
// X-Content-Type-Options: nosniff, octet for octet the answer of every
// other utf8guard adapter. Set it as Config.ErrorHandler where clients
// or tests compare answers across services.
func HTTPErrorHandler(c *gin.Context, rj *middleware.Rejection) {
	middleware.DefaultHTTPErrorHandler(c.Writer, c.Request, rj)
	c.Abort()
}

// New returns the middleware with the zero Config: rules.Default() on
// every route, logs on os.Stderr.
func New() gin.HandlerFunc { return WithConfig(Config{}) }

// WithConfig returns the middleware with cfg. It panics if cfg is
// invalid; Config.ToMiddleware returns the error instead.
func WithConfig(cfg Config) gin.HandlerFunc {
	mw, err := cfg.ToMiddleware()
	if err != nil {
		panic(err)
	}
	return mw
}

// ToMiddleware returns the middleware with cfg, or an error if cfg is
// invalid: a key of the table that is no Gin route template, a policy
// that does not validate. Everything that can be is worked out here,
// once: the per-request path only looks up and scans.
func (cfg Config) ToMiddleware() (gin.HandlerFunc, error) {
	pl, err := middleware.NewPipeline(middleware.PipelineConfig{
		Rules: cfg.Rules, Logger: cfg.Logger, LogAccepted: cfg.LogAccepted, TempDir: cfg.TempDir, SpoolBytes: cfg.SpoolBytes,
		Identity: identity, Observe: cfg.Observe,
		ValidateKeys: validateKeys, // Gin's route syntax
	})
	if err != nil {
		return nil, err
	}
	m := &guard{pl: pl, engine: cfg.Engine, onReject: cfg.OnReject, onError: cfg.ErrorHandler}
	if m.onError == nil {
		m.onError = DefaultErrorHandler
	}
	return m.serve, nil
}

// guard is the compiled middleware.
type guard struct {
	pl       *middleware.Pipeline
	engine   *gin.Engine
	onReject func(c *gin.Context, rj *middleware.Rejection)
	onError  func(c *gin.Context, rj *middleware.Rejection)
}

// serve is the gin.HandlerFunc. Gin runs every middleware after routing
// (engine.Use, a group, a route alike): c.FullPath() is the matched
// route's template, "" when no route matched (engine.Use runs for
// NoRoute and NoMethod too), and c.Params are its parameters.
func (m *guard) serve(c *gin.Context) {
	m.checkRoutes(c) // check.go: once, at the first request, with Engine
	r := c.Request
	route := c.FullPath()
	var names, values []string
	var nameBuf, valueBuf [4]string
	star := -1
	if route != "" { // without a route, Gin leaves what a failed match cut
		names, values, star = params(c.Params, route, nameBuf[:0], valueBuf[:0])
	}
	v := m.pl.Check(r, middleware.Match{Route: route, Names: names, Values: values, Escaped: m.escaped(r)}, c)
	defer v.Release() // after the handler, and after its panic
	if v.Request != r {
		c.Request = v.Request
	}
	if v.Rejection != nil {
		if m.onReject != nil {
			m.onReject(c, v.Rejection)
		}
		if !v.Pass {
			m.onError(c, v.Rejection)
			c.Abort()
			return
		}
		c.Next()
		return
	}
	if v.Params != nil {
		setParams(c, v.Params, star)
	}
	c.Next()
	m.cutOff(c)
}

// escaped reports whether the engine cut the parameter values of r from
// an escaped path and left them escaped (middleware.Match.Escaped): with
// UnescapePathValues false, under UseEscapedPath, or under UseRawPath
// when r has a RawPath. Every other engine cuts them from URL.Path, or
// unescapes them (url.QueryUnescape) after cutting them from the escaped
// path.
func (m *guard) escaped(r *http.Request) bool {
	e := m.engine
	if e == nil || e.UnescapePathValues {
		return false
	}
	return e.UseEscapedPath || e.UseRawPath && r.URL.RawPath != ""
}

// cutOff answers, for an accepted request, a body of unknown length that
// the handler's read cut off past its limit (middleware.CutOff), when the
// handler recorded the read's error with c.Error and has written
// nothing: with OnReject and ErrorHandler, as a refusal before the
// handler would have been answered. Gin's handlers return nothing, so
// c.Errors is where such an error can be found.
func (m *guard) cutOff(c *gin.Context) {
	if len(c.Errors) == 0 || c.Writer.Written() {
		return
	}
	for _, e := range c.Errors {
		if rj := middleware.CutOff(e.Err); rj != nil {
			if m.onReject != nil {
				m.onReject(c, rj)
			}
			m.onError(c, rj)
			c.Abort()
			return
		}
	}
}

// params copies the names and values of ps into names and values (which
// have room for a few, on the caller's stack) and returns them, never
// nil, so that the pipeline knows the router has cut the parameters; and
// the index of the catch-all parameter, -1 for none. Gin's catch-all
// ("/files/*path") holds the "/" before it, which is the path's, not the
// value's: it is handed to the pipeline without it, under its name, as
// rules.RouteParams names it ("path").
func params(ps gin.Params, route string, names, values []string) ([]string, []string, int) {
	star := -1
	for i, p := range ps {
		name, value := p.Key, p.Value
		if i == len(ps)-1 && len(route) > len(name) && route[len(route)-len(name)-1] == '*' && route[len(route)-len(name):] == name {
			star = i
			if len(value) > 0 && value[0] == '/' {
				value = value[1:]
			}
		}
		names = append(names, name)
		values = append(values, value)
	}
	return names, values, star
}

// setParams hands the handler, through c.Param, the parameter values
// the pipeline returned (canonical, PRECIS-enforced, or decoded from an
// escaped path), in the order of c.Params; the catch-all's gets its "/"
// back.
func setParams(c *gin.Context, values []string, star int) {
	ps := make(gin.Params, len(c.Params))
	copy(ps, c.Params)
	for i, v := range values {
		if i == star {
			v = "/" + v
		}
		ps[i].Value = v
	}
	c.Params = ps
}
