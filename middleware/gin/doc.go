// Package utf8gin mounts utf8guard in Gin (github.com/gin-gonic/gin): the
// same checks, rewrites and log lines as the Echo adapters and the net/http
// adapter (middleware.Handler), since all are thin adapters over one
// middleware.Pipeline. It is a module of its own, so that utf8guard does
// not depend on Gin; middleware/adaptertest proves it (conformance_test.go).
//
// # The threat
//
// A handler that reads text the middleware did not check (a path
// parameter, a query value parsed by its own rules, a body read a second
// time) reads whatever an attacker sent: overlong encodings that turn into
// "../" further down, lone surrogates that break JSON consumers, bidi
// controls that disguise file names. The middleware checks every location
// its route's rules.Policy turns on before the handler runs, and then
// either refuses the request, passes it on unchanged (Monitor mode), or
// passes it on in one canonical form: c.Param, c.Query, c.PostForm,
// c.ShouldBind and c.Request.Body give what was checked, but for the
// traps below.
//
// # Mounting
//
//	e := gin.New()
//	e.UseRawPath = true // optional: "%2F" stays within its parameter
//	_ = e.SetTrustedProxies(nil)
//	e.Use(utf8gin.WithConfig(utf8gin.Config{Rules: table, Engine: e}))
//	... routes ...
//	if err := utf8gin.CheckRoutes(e, table); err != nil {
//		log.Fatal(err)
//	}
//
// Gin runs every middleware after routing, engine.Use, a group and a
// single route alike: the policy is that of the matched route template,
// c.FullPath() ("/users/:id", "/files/*path"), the table's key; a request
// no route matched (engine.Use runs for NoRoute and NoMethod too) gets
// the table's default. The parameters Gin cut are checked, and where the
// pipeline hands back other values (canonical, PRECIS-enforced, decoded
// from an escaped path) they replace those in c.Params, so that c.Param
// returns them; the rewritten request replaces c.Request. A catch-all's
// value is checked without the "/" Gin puts before it, and a PRECIS path
// field names it by its name, as rules.RouteParams does ("/files/*path"
// has the parameter "path"). No Gin mount runs before routing, so a rewrite never
// moves a request to another route (middleware.Pipeline.Reroute is
// Echo's e.Pre).
//
// Mount it before any middleware that reads the body, the form or the
// query: a form parsed before it is refused with 500
// parsed_before_check, and c.Query keeps the query it parsed first
// (below). Call CheckRoutes once the routes are registered; with
// Config.Engine set, the middleware also logs an error-level line per
// unknown key at its first request.
//
// # Gin's path settings
//
// Gin routes on URL.Path, decoded, unless told otherwise, and the
// middleware must know whether the values it cut still hold escapes
// (middleware.Match.Escaped). Gin's context does not give a middleware
// its engine, hence Config.Engine:
//
//   - gin.New() (UseRawPath, UseEscapedPath false): the values are cut
//     from URL.Path, decoded. An encoded slash is a slash there: no
//     "/t/:id" route matches "/t/a%2Fb", which a ServeMux and Echo route
//     to "/t/:id" with the value "a/b".
//   - UseRawPath (or UseEscapedPath) with UnescapePathValues true, its
//     default: Gin routes on URL.RawPath when it is set (EscapedPath()),
//     and unescapes each value with url.QueryUnescape, so that "%2F"
//     stays in its value, and "+" becomes a space (a ServeMux keeps it).
//     The values are decoded; safe with or without Config.Engine. A
//     static route with non-ASCII text ("/café") then matches no path
//     routed escaped ("/caf%c3%a9", whose RawPath is set; any such path
//     under UseEscapedPath).
//   - UseRawPath or UseEscapedPath with UnescapePathValues false: Gin
//     hands on the values escaped. With Config.Engine set the middleware
//     decodes them, checks them and hands c.Param the decoded values
//     (in Monitor mode the handler gets them raw, as Gin alone would).
//     Unsafe without Config.Engine: the middleware takes the escapes for
//     text, and the handler gets "%C3%A9" raw, a PRECIS profile applied to
//     the escapes, and nothing of the value's own checks.
//
// RemoveExtraSlash and RedirectFixedPath change which route a path finds,
// not how its values are decoded; the middleware checks the request as
// it came under the route Gin found.
//
// # Traps of Gin's API
//
//   - c.Cookie unescapes the cookie's value (url.QueryUnescape) after the
//     middleware checked it as sent: "sid=%C0%AF" passes as ASCII and
//     c.Cookie returns an overlong "/". Read c.Request.Cookie, which is
//     what was checked.
//   - c.Query, c.QueryArray, c.GetQuery and c.QueryMap parse the query
//     once per request, at their first call, and keep it in the context:
//     called by a middleware mounted before utf8guard, they keep the query
//     as it came, not its canonical form.
//   - A handler reports errors with c.Error, not by returning them. A
//     body of unknown length cut off past its limit (middleware.CutOff) is
//     answered 413 with OnReject and ErrorHandler when the handler
//     recorded the read's error with c.Error and wrote nothing; c.Bind and
//     c.AbortWithError answer 400 themselves first, and that answer
//     stands (the too_large log line is written either way).
//
// # Answers
//
// A refused request is answered by Config.ErrorHandler, DefaultErrorHandler
// unless set: c.AbortWithStatusJSON(rj.Status(), {"location", "reason"}),
// as "application/json; charset=utf-8" without a final newline.
// HTTPErrorHandler answers octet for octet as the net/http adapter
// does (with X-Content-Type-Options: nosniff). The middleware aborts the
// chain after the ErrorHandler, so no handler runs after a refusal.
//
// # The log line
//
// One zerolog event at warn level per refused or flagged request, with
// the fields of every adapter. The request_id is the X-Request-Id a
// middleware mounted before set on the response (as gin-contrib/requestid
// does), or else the one the client sent, marked request_id_client. The
// remote_ip is c.ClientIP(): Gin believes X-Forwarded-For and X-Real-IP
// (Engine.RemoteIPHeaders) from the proxies it trusts, every address
// unless Engine.SetTrustedProxies says otherwise, so that by default a
// client writes its own remote_ip. Set the proxies you have, or nil.
package utf8gin
