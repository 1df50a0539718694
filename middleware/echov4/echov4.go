package echov4

import (
	"net/http"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// Config configures the Echo v4 middleware.
type Config struct {
	// Skipper defines a function to skip the middleware.
	// Optional. Default value emw.DefaultSkipper (never skip).
	Skipper emw.Skipper

	// Rules is the policy of every route (a rules.Policy), or a table
	// (a rules.Table) that maps Echo route templates ("/users/:id") to
	// policies, with a default for the rest.
	// A *rules.Live can be given new rules while the server runs.
	// Optional. Default value rules.Default().
	Rules rules.Ruleset

	// Logger receives the rejection log lines, unless the request's context
	// carries a zerolog logger (zerolog.Ctx), which is then used instead.
	// Optional. Default value: JSON lines on os.Stderr with a timestamp.
	Logger *zerolog.Logger

	// LogAccepted writes a debug-level event for each accepted request.
	// Optional. Default value false: clean requests are not logged.
	LogAccepted bool

	// OnReject is called for every rejected or flagged (Monitor) request,
	// after the log line, for metrics and the like.
	// Optional.
	OnReject func(c echo.Context, rj *middleware.Rejection)

	// ErrorHandler returns what the middleware returns for a rejected
	// request (Enforce mode): an error for Echo's HTTPErrorHandler, or nil
	// after writing a response itself.
	// Optional. Default value DefaultErrorHandler.
	ErrorHandler func(c echo.Context, rj *middleware.Rejection) error

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
	// Optional. Default value middleware.DefaultSpoolBytes; -1 for no bound.
	SpoolBytes int64
}

// DefaultConfig is the default configuration: rules.Default() on every
// route, logs on os.Stderr.
var DefaultConfig = Config{Skipper: emw.DefaultSkipper}

// DefaultErrorHandler answers a rejection with an *echo.HTTPError of status
// rj.Status() whose message is {"reason": ..., "location": ...}: it never
// echoes the offending bytes. The status is 400 for ill-formed text and
// for every limit that is not a body's, 413 for a body or file part over
// its limit, 415 for a refused media type or content coding, and 500 for
// the server's own mistakes (parsed_before_check, a body it could not
// spool); middleware.Rejection.Status lists them. The Rejection is its
// Internal error.
func DefaultErrorHandler(c echo.Context, rj *middleware.Rejection) error {
	return echo.NewHTTPError(rj.Status(), map[string]string{
		"reason":   rj.Reason.String(),
		"location": rj.Location.String(),
	}).SetInternal(rj)
}

// New returns the middleware with DefaultConfig.
func New() echo.MiddlewareFunc { return WithConfig(DefaultConfig) }

// WithConfig returns the middleware with cfg. It panics if cfg is invalid;
// Config.ToMiddleware returns the error instead.
func WithConfig(cfg Config) echo.MiddlewareFunc {
	mw, err := cfg.ToMiddleware()
	if err != nil {
		panic(err)
	}
	return mw
}

// ToMiddleware returns the middleware with cfg, or an error if cfg is
// invalid. It works wherever Echo takes a middleware: e.Use, a group, a
// single route, and e.Pre (the package doc says how they differ).
//
// A body the policy checks but that cannot be read (the client went away,
// a broken chunked encoding) is a Rejection of reason body_unreadable,
// answered, logged and passed to OnReject like any other (400, with its
// location; the log line has the cause in "error"); in Monitor mode the
// handler runs and its read fails the same way, after the same octets.
func (cfg Config) ToMiddleware() (echo.MiddlewareFunc, error) {
	pl, err := middleware.NewPipeline(middleware.PipelineConfig{
		Rules: cfg.Rules, Logger: cfg.Logger, LogAccepted: cfg.LogAccepted, TempDir: cfg.TempDir, SpoolBytes: cfg.SpoolBytes,
		Identity: identity, Observe: cfg.Observe,
		ValidateKeys: middleware.ValidateEchoRoutes, // Echo's route syntax
	})
	if err != nil {
		return nil, err
	}
	m := &guard{pl: pl, skipper: cfg.Skipper, onReject: cfg.OnReject, onError: cfg.ErrorHandler}
	if m.skipper == nil {
		m.skipper = emw.DefaultSkipper
	}
	if m.onError == nil {
		m.onError = DefaultErrorHandler
	}
	return m.wrap, nil
}

// guard is the compiled middleware.
type guard struct {
	pl       *middleware.Pipeline
	skipper  emw.Skipper
	onReject func(c echo.Context, rj *middleware.Rejection)
	onError  func(c echo.Context, rj *middleware.Rejection) error
}

// wrap is the echo.MiddlewareFunc. Echo v4 applies its middleware, e.Use,
// e.Pre, a group's or a route's, for every request: the closure is one
// allocation per request, as for every Echo v4 middleware.
func (m *guard) wrap(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error { return m.serve(c, next) }
}

// serve runs the middleware for c.
func (m *guard) serve(c echo.Context, next echo.HandlerFunc) error {
	m.checkRoutes(c) // check.go: once, at the first request
	if m.skipper(c) {
		return next(c)
	}
	// Echo's router always sets a template ("" is registered as "/"), so
	// an empty one means routing has not happened yet: e.Pre. (c.Handler()
	// cannot tell: Context.Reset sets it to NotFoundHandler.) After
	// routing, "" means nothing matched, and finding again changes nothing.
	if route := c.Path(); route != "" {
		return m.check(c, next, route, nil)
	}
	pre := m.pl.PreRoute(c.Request(), finder(c))
	return m.check(c, next, pre.Route, &pre)
}

// check runs the policy of route on c; pre is how the route was found
// before routing (e.Pre), nil after routing.
func (m *guard) check(c echo.Context, next echo.HandlerFunc, route string, pre *middleware.PreRouted) error {
	r := c.Request()
	// Echo's router cuts the values from URL.RawPath when it is set; under
	// e.Pre, from the path the route was found on (pre says).
	v := m.pl.Check(r, middleware.Match{Route: route, Names: c.ParamNames(), Values: c.ParamValues(), Escaped: r.URL.RawPath != "", Pre: pre}, c)
	defer v.Release() // after the handler, and after its panic
	if v.Request != r {
		c.SetRequest(v.Request)
		r = v.Request
	}
	if v.Rejection != nil {
		if m.onReject != nil {
			m.onReject(c, v.Rejection)
		}
		if !v.Pass {
			return m.onError(c, v.Rejection)
		}
		return next(c)
	}
	if v.Params != nil {
		c.SetParamValues(v.Params...)
	}
	if pre != nil {
		moved, again, rj := m.pl.Reroute(r, pre, finder(c), c)
		if rj != nil {
			if m.onReject != nil {
				m.onReject(c, rj)
			}
			return m.onError(c, rj)
		}
		if again {
			return m.check(c, next, moved.Route, &moved)
		}
	}
	err := next(c)
	if rj := middleware.CutOff(err); rj != nil && !c.Response().Committed {
		// A body of unknown length the handler's read cut off: the
		// refusal it would have had before the handler ran.
		if m.onReject != nil {
			m.onReject(c, rj)
		}
		return m.onError(c, rj)
	}
	return err
}
