package middleware

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Config configures the Echo middleware.
type Config struct {
	// Skipper defines a function to skip the middleware.
	// Optional. Default value emw.DefaultSkipper (never skip).
	Skipper emw.Skipper

	// Rules is the policy of every route (a rules.Policy), or a table
	// (a rules.Table) that maps Echo route templates ("/users/:id") to
	// policies, with a default for the rest.
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
	OnReject func(c echo.Context, rj *Rejection)

	// ErrorHandler returns what the middleware returns for a rejected
	// request (Enforce mode): an error for Echo's HTTPErrorHandler, or nil
	// after writing a response itself.
	// Optional. Default value DefaultErrorHandler.
	ErrorHandler func(c echo.Context, rj *Rejection) error

	// TempDir is where a multipart body larger than 1 MiB is spooled
	// while it is checked and then read by the handler: one temporary
	// file per request, removed when the handler returns.
	// Optional. Default value os.TempDir().
	TempDir string

	// SpoolBytes bounds the octets the spooled bodies of all requests hold
	// in TempDir together; a body that would go past it is refused with
	// 503 spool_full (PipelineConfig.SpoolBytes).
	// Optional. Default value DefaultSpoolBytes; -1 for no bound.
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
// spool); Rejection.Status lists them. The Rejection is its Internal
// error.
func DefaultErrorHandler(c echo.Context, rj *Rejection) error {
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
// invalid.
//
// The middleware works wherever Echo takes one: e.Use (every route), a
// group, a single route, and e.Pre. Registered with e.Use, a group or a
// route, it runs after routing: the policy is that of the matched route
// template, and the handler's c.Param values are the decoded, validated
// ones (Echo alone hands back raw escapes when it routed on URL.RawPath).
// Registered with e.Pre, it runs before routing, finds the route itself
// with the router Echo will use (Echo.Host routers included), and clears
// URL.RawPath where that changes nothing but makes the router match, and
// set parameters from, the decoded path. A path with an encoded slash
// ("%2F") keeps its RawPath, since decoding it would move a segment
// boundary; Echo then hands raw parameter values to the handler, so routes
// that take encoded slashes need the middleware after routing (e.Use, a
// group or the route) for decoded ones. Likewise for PRECIS path
// parameters: under e.Pre a value the profile disallows is rejected, but
// the enforced form ("MIKE" to "mike") reaches the handler only when the
// middleware runs after routing.
//
// A body the policy checks but that cannot be read (the client went away,
// a broken chunked encoding) is a Rejection of reason body_unreadable,
// answered, logged and passed to OnReject like any other (400, with its
// location; the log line has the cause in "error"); in Monitor mode the
// handler runs and its read fails the same way, after the same octets.
func (cfg Config) ToMiddleware() (echo.MiddlewareFunc, error) {
	m, err := cfg.compile()
	if err != nil {
		return nil, err
	}
	return m.wrap, nil
}

// compile returns the middleware with cfg.
func (cfg Config) compile() (*echoGuard, error) {
	g, err := newGuard(cfg.Rules, cfg.Logger, cfg.LogAccepted)
	if err != nil {
		return nil, err
	}
	if err := ValidateEchoRoutes(cfg.Rules); err != nil { // validate.go
		return nil, err
	}
	if g.store, err = newSpoolStore(cfg.TempDir, cfg.SpoolBytes); err != nil {
		return nil, err
	}
	m := &echoGuard{g: g, skipper: cfg.Skipper, onReject: cfg.OnReject, onError: cfg.ErrorHandler}
	if m.skipper == nil {
		m.skipper = emw.DefaultSkipper
	}
	if m.onError == nil {
		m.onError = DefaultErrorHandler
	}
	return m, nil
}

// echoGuard is the compiled Echo middleware.
type echoGuard struct {
	g        *guard
	skipper  emw.Skipper
	onReject func(c echo.Context, rj *Rejection)
	onError  func(c echo.Context, rj *Rejection) error
}

// wrap is the echo.MiddlewareFunc. Echo v4 calls it once per route for a
// group or route middleware, and for every request under e.Use and e.Pre:
// the closure is then one allocation per request, as for every Echo v4
// middleware.
func (m *echoGuard) wrap(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error { return m.serve(c, next) }
}

// serve runs the middleware for c.
func (m *echoGuard) serve(c echo.Context, next echo.HandlerFunc) error {
	m.checkRoutes(c) // routes.go: once, at the first request
	if m.skipper(c) {
		return next(c)
	}
	g := m.g
	r := c.Request()
	route := c.Path()
	// Echo's router always sets a template ("" is registered as "/"), so
	// an empty one means routing has not happened yet: e.Pre. (c.Handler()
	// cannot tell: Context.Reset sets it to NotFoundHandler.) After
	// routing, "" means nothing matched, and finding again changes nothing.
	pre := route == ""
	var p *policy
	clearRaw := false
	foundOn := "" // under e.Pre, the path the route was found on
	if pre {
		route, p, clearRaw = m.preRoute(c, r)
		if foundOn = echo.GetPath(r); clearRaw {
			foundOn = r.URL.Path
		}
	} else {
		p = g.lookup(route)
	}
	return m.check(c, next, route, p, foundOn, clearRaw, 0)
}

// check runs the policy p of route on c. Under e.Pre (foundOn is then the
// path the route was found on) it makes sure that the route Echo will
// dispatch the accepted request to is the one whose policy ran: a repair
// or a canonical form rewrites the path, and
// can move the request to another route ("/cafe%CC%81" is "/café" in NFC).
// Then that route's policy runs too, on the rewritten request (depth 1); a
// request the second rewrite moves again is refused (canonical_syntax).
func (m *echoGuard) check(c echo.Context, next echo.HandlerFunc, route string, p *policy, foundOn string, clearRaw bool, depth int) error {
	g := m.g
	r := c.Request()
	if p.off {
		return next(c)
	}
	// Before routing, these are the values of the route found above: a
	// PRECIS path parameter the profile disallows is rejected; its enforced
	// form cannot be handed on, since Echo routes again after e.Pre.
	// Echo's router cuts the values from URL.RawPath when it is set; under
	// e.Pre, from the path the route was found on.
	escaped := r.URL.RawPath != ""
	if foundOn != "" {
		escaped = escaped && foundOn == r.URL.RawPath
	}
	hand, params, rj, pass, held := g.run(r, route, c.ParamNames(), c.ParamValues(), escaped, p, echoIdentityOf, c)
	defer held.release() // after the handler, and after its panic
	if hand != r {
		c.SetRequest(hand)
		r = hand
	}
	switch {
	case rj != nil:
		if m.onReject != nil {
			m.onReject(c, rj)
		}
		if !pass {
			return m.onError(c, rj)
		}
		return next(c)
	case p.Mode == rules.Monitor:
		// Passed on exactly as it came, as Echo alone would: raw
		// parameter values where Echo routed on RawPath, RawPath kept.
		return next(c)
	}
	if params != nil {
		c.SetParamValues(params...)
	}
	if clearRaw && r.URL.RawPath != "" && !hasEncodedSlash(r.URL.RawPath) {
		r.URL.RawPath = ""
	}
	if foundOn != "" && echo.GetPath(r) != foundOn {
		dispatch := echo.GetPath(r)
		findRoute(routerFor(c.Echo(), r.Host), r.Method, dispatch, c)
		if moved := c.Path(); moved != route && g.lookup(moved) != p {
			if depth > 0 {
				// Moved again: refused under the route whose policy ran.
				rj := &Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Path, Route: route, Mode: p.Mode,
					Sample: sample(r.URL.Path, 0), Err: sanitize.ErrCanonicalSyntax}
				g.logRejection(r, rj, echoIdentity(c))
				if m.onReject != nil {
					m.onReject(c, rj)
				}
				return m.onError(c, rj)
			}
			return m.check(c, next, moved, g.lookup(moved), dispatch, false, depth+1)
		}
	}
	err := next(c)
	if rj := CutOff(err); rj != nil && !c.Response().Committed {
		// A body of unknown length the handler's read cut off: the
		// refusal it would have had before the handler ran.
		if m.onReject != nil {
			m.onReject(c, rj)
		}
		return m.onError(c, rj)
	}
	return err
}

// preRoute finds, under e.Pre, the route Echo will dispatch r to once the
// middleware has run, and its policy. Echo's router matches URL.RawPath
// when it is set: "/%61dmin/x" matches no "/admin/:id" as sent. A request
// the middleware accepts in Enforce mode has RawPath cleared (clearRaw)
// where that moves no segment boundary (no "%2F"), and Echo then routes
// on the decoded URL.Path: so the policy is that of the route the decoded
// path matches, when that policy enforces. Otherwise (its route checks
// nothing, or only monitors, and the request passes on as it came) Echo
// routes on RawPath, and so does the policy.
func (m *echoGuard) preRoute(c echo.Context, r *http.Request) (route string, p *policy, clearRaw bool) {
	rt := routerFor(c.Echo(), r.Host)
	raw := r.URL.RawPath
	if raw == "" || !hasEncodedSlash(raw) {
		findRoute(rt, r.Method, r.URL.Path, c)
		route = c.Path()
		if p = m.g.lookup(route); raw == "" || !p.off && p.Mode == rules.Enforce {
			return route, p, !p.off && p.Mode == rules.Enforce
		}
	}
	findRoute(rt, r.Method, raw, c)
	route = c.Path()
	return route, m.g.lookup(route), false
}

// findRoute routes path on c as Echo does after e.Pre, from the state
// Context.Reset leaves: Router.Find does not touch the context when
// nothing matches, so a route found before for another path would stay,
// and Echo's own Find after e.Pre would dispatch to it.
func findRoute(rt *echo.Router, method, path string, c echo.Context) {
	c.SetHandler(echo.NotFoundHandler)
	c.SetPath("")
	c.SetParamNames()
	rt.Find(method, path, c)
}

// routerFor returns the router Echo uses for host, as Echo.ServeHTTP
// chooses it: the host's own (Echo.Host) or the default one.
func routerFor(e *echo.Echo, host string) *echo.Router {
	if rs := e.Routers(); len(rs) > 0 {
		if rt, ok := rs[host]; ok {
			return rt
		}
	}
	return e.Router()
}

// hasEncodedSlash reports whether an escaped path holds "%2F" in either
// case: decoding it would move a segment boundary.
func hasEncodedSlash(raw string) bool {
	for i := strings.IndexByte(raw, '%'); i >= 0 && i+2 < len(raw); {
		if raw[i+1] == '2' && (raw[i+2] == 'f' || raw[i+2] == 'F') {
			return true
		}
		j := strings.IndexByte(raw[i+1:], '%')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// echoIdentityOf is echoIdentity as an identityFunc: x is the echo.Context.
func echoIdentityOf(x any) requestIdentity { return echoIdentity(x.(echo.Context)) }

// echoIdentity returns the request's identity for the log: the ID Echo's
// RequestID middleware set on the response, or else the X-Request-Id the
// client sent, marked as the client's when it is the one the client sent
// (RequestID adopts it); and c.RealIP(), which trusts X-Forwarded-For and
// X-Real-Ip as sent unless e.IPExtractor is set.
func echoIdentity(c echo.Context) requestIdentity {
	sent := c.Request().Header.Get(echo.HeaderXRequestID)
	id := c.Response().Header().Get(echo.HeaderXRequestID)
	if id == "" {
		id = sent
	}
	return requestIdentity{id: id, idClient: id != "" && id == sent, remoteIP: c.RealIP()}
}
