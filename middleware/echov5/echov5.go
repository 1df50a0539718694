package echov5

import (
	"net/http"

	"encoding/json"
	"strconv"

	"github.com/labstack/echo/v5"
	emw "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// Config configures the Echo v5 middleware. It has the shape of the Echo v4
// middleware's middleware.Config, in Echo v5's types.
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
	OnReject func(c *echo.Context, rj *middleware.Rejection)

	// ErrorHandler returns what the middleware returns for a refused
	// request (Enforce mode): an error for Echo's HTTPErrorHandler, or nil
	// after writing a response itself.
	// Optional. Default value DefaultErrorHandler.
	ErrorHandler func(c *echo.Context, rj *middleware.Rejection) error

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
}

// DefaultConfig is the default configuration: rules.Default() on every
// route, logs on os.Stderr.
var DefaultConfig = Config{Skipper: emw.DefaultSkipper}

// Error is the error the middleware returns for a refused request under
// DefaultErrorHandler, an unreadable body (body_unreadable) included. It
// implements echo.HTTPStatusCoder (its Code) and json.Marshaler, so that
// Echo's DefaultHTTPErrorHandler answers Code with the JSON object
// {"location": ..., "reason": ...}, as the Echo v4 middleware answers:
// every refusal has a location. It never holds the offending octets.
type Error struct {
	// Code is the HTTP status, rj.Status().
	Code int
	// Reason and Location are the rejection's, as the log names them.
	Reason, Location string
	// Internal is the *middleware.Rejection, which holds the error
	// reading the body for body_unreadable.
	Internal error
}

// StatusCode returns e.Code, for echo.HTTPStatusCoder.
func (e *Error) StatusCode() int { return e.Code }

// Error returns a one-line description, such as "code=400,
// reason=overlong, location=path, internal=utf8guard: overlong in path at
// offset 3".
func (e *Error) Error() string {
	msg := "code=" + strconv.Itoa(e.Code) + ", reason=" + e.Reason
	if e.Location != "" {
		msg += ", location=" + e.Location
	}
	if e.Internal != nil {
		msg += ", internal=" + e.Internal.Error()
	}
	return msg
}

// Unwrap returns e.Internal, so that errors.As finds the
// *middleware.Rejection and errors.Is its sanitize sentinel.
func (e *Error) Unwrap() error { return e.Internal }

// MarshalJSON returns the answer's body: {"location": ..., "reason": ...},
// without location when it is empty.
func (e *Error) MarshalJSON() ([]byte, error) {
	m := map[string]string{"reason": e.Reason}
	if e.Location != "" {
		m["location"] = e.Location
	}
	return json.Marshal(m)
}

// DefaultErrorHandler answers a rejection with an *Error of status
// rj.Status() whose body is {"location": ..., "reason": ...}: it never
// echoes the offending octets. The status is 400 for ill-formed text and
// for every limit that is not a body's, 413 for a body or file part over
// its limit, 415 for a refused media type or content coding, and 500 for
// the server's own mistakes (parsed_before_check, a body it could not
// spool); middleware.Rejection.Status lists them. The Rejection is its
// Internal error.
func DefaultErrorHandler(c *echo.Context, rj *middleware.Rejection) error {
	return &Error{Code: rj.Status(), Reason: rj.Reason.String(), Location: rj.Location.String(), Internal: rj}
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
// invalid. Everything that can be is worked
// out here, once: the per-request path only looks up and scans.
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
	onReject func(c *echo.Context, rj *middleware.Rejection)
	onError  func(c *echo.Context, rj *middleware.Rejection) error
}

// wrap is the echo.MiddlewareFunc. Echo v5 calls it once per chain, when
// the chain is built (e.Use, e.Pre, a group or a route), not per request:
// the handler it returns costs no allocation per request.
func (m *guard) wrap(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error { return m.serve(c, next) }
}

// serve runs the middleware for c.
func (m *guard) serve(c *echo.Context, next echo.HandlerFunc) error {
	m.checkRoutes(c) // check.go: once, at the first request
	if m.skipper(c) {
		return next(c)
	}
	if route := c.Path(); route != "" {
		return m.check(c, next, route, nil)
	}
	// Echo's router always sets a template for a route it matched ("" is
	// registered as "/"), so an empty one means routing has not happened
	// yet (e.Pre), or found nothing: finding again changes nothing then.
	pre := m.pl.PreRoute(c.Request(), func() string { return m.find(c) })
	return m.check(c, next, pre.Route, &pre)
}

// check runs the policy of route on c. Under e.Pre (pre is not nil) it
// makes sure that the route Echo will dispatch the accepted request to is
// the one whose policy ran: a repair or a canonical form rewrites the path,
// and can move the request to another route ("/cafe%CC%81" is "/café" in
// NFC). Then that route's policy runs too, on the rewritten request; a
// request the second rewrite moves again is refused (canonical_syntax).
// middleware.Pipeline.Reroute decides which.
//
// A route whose policy checks nothing passes as it came, and so does a
// request in Monitor mode, exactly as Echo alone would pass it on: raw
// parameter values where Echo routed on RawPath, RawPath kept. The
// pipeline rewrites nothing then and hands back no parameters, and
// PreRoute has kept RawPath.
func (m *guard) check(c *echo.Context, next echo.HandlerFunc, route string, pre *middleware.PreRouted) error {
	r := c.Request()
	// Before routing, these are the values of the route found above: a
	// PRECIS path parameter the profile disallows is refused; its enforced
	// form cannot be handed on, since Echo routes again after e.Pre.
	var nameBuf, valueBuf [4]string
	names, values := params(c.PathValues(), nameBuf[:0], valueBuf[:0])
	// Echo's router cuts the values from URL.RawPath when it is set; under
	// e.Pre, from the path the route was found on (pre says).
	v := m.pl.Check(r, middleware.Match{Route: route, Names: names, Values: values, Escaped: r.URL.RawPath != "", Pre: pre}, c)
	defer v.Release() // after the handler, and after its panic
	if v.Request != r {
		c.SetRequest(v.Request)
		r = v.Request
	}
	switch {
	case v.Rejection != nil:
		if m.onReject != nil {
			m.onReject(c, v.Rejection)
		}
		if !v.Pass {
			return m.onError(c, v.Rejection)
		}
		return next(c)
	}
	if v.Params != nil {
		setParams(c, names, v.Params)
	}
	if pre == nil {
		return m.handle(c, next)
	}
	moved, again, rj := m.pl.Reroute(r, pre, func() string { return m.find(c) }, c)
	switch {
	case rj != nil:
		if m.onReject != nil {
			m.onReject(c, rj)
		}
		return m.onError(c, rj)
	case again:
		return m.check(c, next, moved.Route, &moved)
	}
	return m.handle(c, next)
}

// handle runs next for an accepted request. A body of unknown length
// that the handler's read cut off past its limit, when the handler
// returns that error and has written nothing, gets the refusal it would
// have had before the handler ran (middleware.CutOff).
func (m *guard) handle(c *echo.Context, next echo.HandlerFunc) error {
	err := next(c)
	if rj := middleware.CutOff(err); rj != nil {
		if resp, uerr := echo.UnwrapResponse(c.Response()); uerr == nil && !resp.Committed {
			if m.onReject != nil {
				m.onReject(c, rj)
			}
			return m.onError(c, rj)
		}
	}
	return err
}

// params copies the names and values of pv into names and values (which
// have room for a few, on the caller's stack) and returns them: never nil, so
// that the pipeline knows the router has cut the parameters.
func params(pv echo.PathValues, names, values []string) ([]string, []string) {
	for _, p := range pv {
		names = append(names, p.Name)
		values = append(values, p.Value)
	}
	return names, values
}

// setParams hands the handler the parameter values the pipeline returned,
// in the order of names.
func setParams(c *echo.Context, names, values []string) {
	pv := make(echo.PathValues, len(values))
	for i, v := range values {
		pv[i] = echo.PathValue{Name: names[i], Value: v}
	}
	c.SetPathValues(pv)
}
