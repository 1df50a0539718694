package adaptertest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// A Target is one adapter mounted one way, as its test describes it to
// the kit.
type Target struct {
	// Name names the target in subtests and the report ("echov4/e.Use").
	Name string

	// Template maps a route of the kit (Routes: ServeMux syntax,
	// "/api/t/{id}", "/api/f/{rest...}") to the adapter's syntax
	// ("/api/t/:id", "/api/f/*"): the keys of the policy table the server
	// gets, and the route the log line must name. Nil keeps the kit's.
	Template func(pattern string) string

	// Serve builds the server of s: the adapter, configured with s.Rules,
	// s.Logger and s.OnReject, mounted in front of handlers that serve every
	// route of s.Routes for the methods of Methods(), and answer, through
	// their framework's API, what they read (Reads). It calls t.Fatal if it
	// cannot.
	Serve func(t testing.TB, s Server) http.Handler

	// Can lists what the target can do; a row that needs what it cannot is
	// skipped, with the reason, and counted in the report.
	Can []Capability

	// Differs lists the differences its framework forces: the rows that
	// meet one hold the target to the row's other expectation for it.
	Differs []Difference

	// reference marks the kit's own Reference, which is compared with
	// nothing.
	reference bool
}

// Server is what a Target's Serve gets.
type Server struct {
	// Rules are the row's policies, keyed by the adapter's templates
	// (Target.Template).
	Rules *rules.Table
	// Logger is where the adapter must log: the kit reads its lines.
	Logger *zerolog.Logger
	// OnReject is the hook the adapter must call for each rejected or
	// flagged request, after its log line, with the rejection.
	OnReject func(r *http.Request, rj *middleware.Rejection)
	// Routes are the routes to serve, with their templates in the
	// adapter's syntax.
	Routes []Route
}

// Route is a route every target serves.
type Route struct {
	// Pattern is the kit's name of it, in ServeMux syntax.
	Pattern string
	// Template is the adapter's (Target.Template of Pattern).
	Template string
	// Params are the names of its parameters in the order they appear in
	// the path: a handler reports the i-th parameter its router cut as
	// Reads.Params[Params[i]].
	Params []string
}

// Methods returns the methods each route must answer.
func Methods() []string {
	return []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions}
}

// patterns are the kit's routes, below /api so that a group can hold them.
// The last three are where the rewrites that move a request before
// routing (Reroute) take it.
var patterns = []string{
	"/api/t/{id}",
	"/api/u/{id}/p/{post}",
	"/api/f/{rest...}",
	"/api/e",
	"/api/café",
	"/api/\ufb01é", // "ﬁé": NFC keeps the ligature
	"/api/fié",
}

// routesOf returns the kit's routes: the patterns a target serves, its
// parameters' names, and the template of each, mapped by tg.Template.
func routesOf(tg Target) []Route {
	out := make([]Route, len(patterns))
	for i, p := range patterns {
		out[i] = Route{Pattern: p, Template: tg.template(p), Params: paramNames(p)}
	}
	return out
}

func (tg Target) template(pattern string) string {
	if tg.Template == nil {
		return pattern
	}
	return tg.Template(pattern)
}

// paramNames returns the wildcard names of a ServeMux pattern.
func paramNames(pattern string) []string {
	var names []string
	for seg := range strings.SplitSeq(pattern, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			names = append(names, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return names
}

// EchoTemplate maps a kit pattern to Echo's syntax: "{id}" is ":id",
// a last "{rest...}" is "*".
func EchoTemplate(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "...}"):
			segs[i] = "*"
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			segs[i] = ":" + strings.Trim(s, "{}")
		}
	}
	return strings.Join(segs, "/")
}

// A Capability is what a row may need of a target.
type Capability int

const (
	// PathParams: the router serves routes with parameters ("{id}",
	// a last "{rest...}") and the handler reads them.
	PathParams Capability = iota + 1
	// ParamsChecked: the adapter hands the route's parameters to the
	// pipeline (middleware.Match.Names), so that a refusal in one names
	// it; an adapter around a whole router, which has not matched the
	// request yet, refuses it as the path's.
	ParamsChecked
	// WholePath: the adapter sees the path as the client sent it, so that
	// a refusal in it counts its offset, and shows its sample, from its
	// first octet; under http.StripPrefix it sees what is left.
	WholePath
	// Reroute: the adapter runs before its router and routes a request
	// its rewrite changed again (Pipeline.PreRoute and Reroute, as under
	// Echo's e.Pre), so that a rewrite can move a request to another
	// route, whose policy then runs too.
	Reroute
)

func (c Capability) String() string {
	switch c {
	case PathParams:
		return "PathParams"
	case ParamsChecked:
		return "ParamsChecked"
	case WholePath:
		return "WholePath"
	case Reroute:
		return "Reroute"
	}
	return "Capability(?)"
}

// why is what a row lacking c cannot prove.
func (c Capability) why() string {
	switch c {
	case PathParams:
		return "the row's route has path parameters, which the target does not serve"
	case ParamsChecked:
		return "the row refuses a parameter by name, and the target refuses it as the path's"
	case WholePath:
		return "the row's refusal counts in the path as sent, and the target sees less of it"
	case Reroute:
		return "the row moves the request to another route by a rewrite, which only an adapter before routing can"
	}
	return c.String()
}

// A Difference is one the framework of a target forces on what a row
// expects; each row that meets one says what the target does instead.
type Difference int

const (
	// RawParams: in Monitor mode the request passes on as the router
	// alone would take it, and the router cuts parameters from
	// URL.RawPath when it is set and hands them on raw (Echo); a ServeMux
	// decodes each segment.
	RawParams Difference = iota + 1
	// ParamsCutAfter: the router cuts the parameters from the path after
	// the adapter ran (Echo's e.Pre, an adapter around a ServeMux), so
	// that a PRECIS parameter's enforced form cannot be handed on.
	ParamsCutAfter
	// SlashKeepsRawPath: before routing, a path with %2F keeps its
	// RawPath (decoding it would move a segment boundary), and the router
	// hands raw parameters to the handler (Echo's e.Pre).
	SlashKeepsRawPath
	// OwnRequestID: the server gives a request that has no X-Request-Id an
	// id of its own (Echo's RequestID middleware mounted before the
	// adapter), which the log's request_id names.
	OwnRequestID
	// ForwardedFor: the log's remote_ip believes X-Forwarded-For as the
	// client sent it (Echo v4's c.RealIP without an IPExtractor).
	ForwardedFor
	// NoNosniff: the refusal is written by the framework's error handler,
	// without X-Content-Type-Options: nosniff (Echo's HTTPErrorHandler);
	// the net/http adapter's DefaultHTTPErrorHandler writes it.
	NoNosniff
	// FrameworkJSON: the refusal's JSON is written by the framework's own
	// encoder (Gin's AbortWithStatusJSON): the same object, {"location",
	// "reason"}, but not the same octets (no final newline), and a media
	// type with parameters ("application/json; charset=utf-8").
	FrameworkJSON
)

func (d Difference) String() string {
	switch d {
	case RawParams:
		return "RawParams"
	case ParamsCutAfter:
		return "ParamsCutAfter"
	case SlashKeepsRawPath:
		return "SlashKeepsRawPath"
	case OwnRequestID:
		return "OwnRequestID"
	case ForwardedFor:
		return "ForwardedFor"
	case NoNosniff:
		return "NoNosniff"
	case FrameworkJSON:
		return "FrameworkJSON"
	}
	return "Difference(?)"
}

func (tg Target) can(c Capability) bool {
	for _, x := range tg.Can {
		if x == c {
			return true
		}
	}
	return false
}

func (tg Target) differs(d Difference) bool {
	for _, x := range tg.Differs {
		if x == d {
			return true
		}
	}
	return false
}
