// Package echov5 mounts utf8guard in Echo v5 (github.com/labstack/echo/v5):
// the same checks, rewrites, answers and log lines as the Echo v4
// middleware (package echov4) and the net/http adapter
// (middleware.Handler), since all three are thin adapters over one
// middleware.Pipeline.
//
// # The threat
//
// A handler that reads text the middleware did not check (a path
// parameter Echo cut from the escaped path, a query value url.ParseQuery
// decoded by its own rules, a body read a second time) reads whatever an
// attacker sent: overlong encodings that turn into "../" further down, lone
// surrogates that break JSON consumers, bidi controls that disguise file
// names. The middleware checks every location its route's rules.Policy
// turns on before the handler runs, and then either refuses the request,
// passes it on unchanged (Monitor mode), or passes it on in one canonical
// form; whatever the handler reads, by c.Param, c.QueryParam, c.Bind,
// c.FormValue or Request().Body, is what was checked.
//
// # Mounting
//
//	e := echo.New()
//	e.Use(middleware.RequestID()) // optional: gives the log its request_id
//	e.Use(echov5.WithConfig(echov5.Config{Rules: table}))
//
// Mount it before any middleware that reads the body or the query (a
// request whose form something before it parsed is refused with 500
// parsed_before_check), and call CheckRoutes once the routes are
// registered: a key of the policy table that names no route is an error
// there, and an error-level log line at the first request otherwise. It
// works wherever Echo v5 takes a middleware:
//
//   - e.Use, a group, a single route: after routing. The policy is that of
//     the matched route template (c.Path()), and c.Param returns the
//     decoded, validated (and, where the policy asks, canonical) values,
//     handed back with c.SetPathValues: Echo alone returns raw escapes
//     when it routed on URL.RawPath.
//   - e.Pre: before routing. The middleware finds the route Echo will
//     dispatch to with Echo's own router, runs that route's policy, and
//     clears URL.RawPath where that moves no segment boundary, so that the
//     router matches, and cuts parameters from, the decoded path. A path
//     with an encoded slash ("%2F") keeps its RawPath, and Echo then hands
//     raw parameter values to the handler: routes that take encoded
//     slashes, or PRECIS path parameters whose enforced form the handler
//     must see, need the middleware after routing. A rewrite that moves
//     the request to another route runs that route's policy too; a second
//     move is refused (canonical_syntax).
//
// Unsafe with it: RouterConfig.UnescapePathParamValues and
// RouterConfig.UseEscapedPathForMatching (both off in echo.New's router).
// The middleware takes parameter values that Echo cut from URL.RawPath,
// when that is set, to be escaped, and decodes them; with either option
// the router hands them on decoded once already, and the handler gets
// them decoded twice: under rules.Default(), which lets "%25" through,
// "/files/%252e%252e%7e" reaches a "/files/:name" handler as "..~". The
// strict preset refuses such a path (double_encoding).
//
// # Answers
//
// A refused request gets DefaultErrorHandler's answer unless
// Config.ErrorHandler says otherwise: an *Error, which Echo's
// DefaultHTTPErrorHandler writes as status rj.Status() (400; 413 for a body
// over its limit; 415 for a media type the policy refuses) with the JSON
// body {"location": ..., "reason": ...}, byte for byte the Echo v4
// middleware's answer. A body the policy checks but that cannot be read is
// refused the same way, with reason body_unreadable and its location.
//
// # The log line
//
// One zerolog event at warn level per refused or flagged request, with the
// fields reason, location, field, offset, sample (hex-escaped, never raw
// request octets), method, route, request_id, remote_ip, mode, class for
// forbidden_char, and request_id_client when the client chose the id. The
// request_id is the X-Request-Id that Echo's RequestID middleware set on
// the response (mount it before utf8guard), or else the one the client
// sent; request_id_client marks an id equal to the client's X-Request-Id,
// which RequestID adopts. The remote_ip is c.RealIP(): in Echo v5 the
// connection's address unless Echo.IPExtractor says otherwise (Echo v4's
// RealIP believes X-Forwarded-For as sent; v5's does not).
//
// # Allocations
//
// Echo v5 builds middleware chains once, not per request: for a clean
// request without a body the middleware allocates nothing. A checked body
// costs what it costs on every adapter: its memory and its reader.
package echov5
