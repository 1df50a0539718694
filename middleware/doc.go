// Package middleware mounts utf8guard in front of handlers. It holds the
// framework-free pipeline every adapter runs (Pipeline), the Rejection,
// the checks of a configuration and of the mounting, and the net/http
// adapter (Handler, HTTPConfig.ToHandler); it imports no web framework.
// The Echo adapters are packages of their own beside it, built on
// Pipeline as a third party would build one: middleware/echov5 and
// middleware/echov4 (echov4.New, echov4.WithConfig,
// echov4.Config.ToMiddleware, echov4.CheckRoutes), which apply the same
// rules.Policy and write the same log lines.
//
// This comment is the package's guide: what it does, how to mount it,
// and then, location by location, what is checked where, which media
// types each preset reads, compressed bodies, uploads and their limits,
// canonical text and the escape scan of bodies. MAINTAINERS.md in this
// directory maps the source and traces a request through it.
//
// # What it does
//
// Before the handler runs, the middleware checks each location the route's
// policy turns on:
//
//   - path: the escaped path is strictly percent-decoded and validated;
//     the handler's c.Param values and URL.Path are the validated ones;
//   - query: every key and value, strictly decoded (a malformed escape is
//     rejected, where url.ParseQuery would skip the pair);
//   - form, json (JSON lines included), xml, multipart and text bodies:
//     read once through the body limit, decoded from their content coding
//     (gzip, deflate), checked as what they are and scanned for the
//     escapes the decoder of any text type the strict preset accepts
//     would read in them whatever their type (JSON, YAML, GraphQL,
//     JavaScript, HTML, XML), and handed to the handler complete and
//     byte-identical (or repaired, where the policy repairs; decoded,
//     with Content-Encoding removed) with a correct ContentLength; a
//     multipart body is checked as it streams in, and spooled;
//   - header: the header values the policy lists, cookies, and the
//     trailers of those names.
//
// The first violation ends the check: within a value, the one at the
// lowest offset. In Enforce mode the request is rejected (400, 413 for a
// body over its limit, 415 for a media type the policy does not accept or
// a content coding it cannot decode, 500 for a form parsed before the
// check or a spool that cannot be written, 503 when the spool's disk
// budget is spent; too many fields or parts, a field, a path, a query or
// a JSON nesting over its limit are 400) and the handler does not run; in
// Monitor mode it is passed on as it came. Either way one zerolog event
// at warn level describes it. The default error handlers answer
// {"reason": "...", "location": "..."} and never echo the offending
// octets.
//
// # Adapters and the pipeline
//
// Every adapter runs one pipeline: the Echo v4 middleware (package
// middleware/echov4), the Echo v5 middleware (package middleware/echov5)
// and the net/http adapter (HTTPConfig) find a request's route and path
// parameters in their framework's terms and hand them to Pipeline.Check,
// which checks, rewrites and logs, and returns a Verdict each carries out
// in its own terms. One conformance table (the kit, middleware/adaptertest) holds the
// three to the same checks, rewrites, answers, log lines and reads.
// Pipeline is exported, rather than kept internal, so that an adapter for
// another router (Gin, chi, Fiber) is a few lines over it and behaves
// exactly as these do, instead of a fourth copy of the sequence drifting
// from the others. Such an adapter defers Verdict.Release after Check, so
// that a spooled body's temporary file is removed and lent memory goes
// back even when its handler panics, and finds a binary body cut off in
// the handler's read with CutOff.
//
// The differences a framework forces:
//
//   - under e.Pre (Echo v4 and v5): a path with an encoded slash (%2F)
//     keeps its RawPath, so the handler gets raw parameter values; a
//     PRECIS path parameter's enforced form is not handed on (Echo routes
//     again after e.Pre); and only there can a rewrite move a request to
//     another route, whose policy then runs too;
//   - Monitor mode passes requests on as the framework alone would: Echo
//     hands on parameters cut from URL.RawPath raw, a ServeMux decodes
//     them;
//   - request_id: Echo's RequestID middleware sets one when the client
//     sends none; net/http has none to log (HTTPConfig.RequestID returns
//     the id a middleware of your own gave the request);
//   - remote_ip: Echo v4's c.RealIP() believes X-Forwarded-For unless an
//     IPExtractor is set; Echo v5's and net/http's use the connection;
//   - the net/http adapter writes its refusals itself, with
//     X-Content-Type-Options: nosniff; Echo's HTTPErrorHandler writes the
//     Echo adapters' (the same JSON) without it;
//   - the log's route is the router's own name for it (/users/:id or
//     GET /users/{id});
//   - on Echo v5, the router options UnescapePathParamValues and
//     UseEscapedPathForMatching (off in echo.New()) decode parameters a
//     second time after the check: do not set them on a checked router.
//
// The net/http adapter wrapped around each handler registered on a
// ServeMux sees the pattern (Request.Pattern) as the route, and
// canonicalizes the wildcard values r.PathValue returns; wrapped around the
// whole mux it sees no pattern (route "", the table's default), and knows
// no parameter names, so PRECIS path fields apply only when it wraps each
// handler. HTTPConfig.Route names routes otherwise. CheckMuxRoutes meets
// keys with patterns as a ServeMux reads them, and the adapter applies
// them the same way: a key without a method holds for every method of its
// path, a key with one for that method (GET for HEAD too), the most
// specific first.
//
// Under chi, r.Use runs before chi routes: the adapter mounted there sees
// no route pattern and no path parameters. Mounted with r.With or inside
// r.Group, it runs after routing, where chi (v5.3.0 and later) has set
// Request.Pattern to the route pattern (without a method) and the path
// values (v5.2.4 and later); with an older chi, name routes with
// HTTPConfig.Route and chi.RouteContext(r.Context()).RoutePattern(). Read
// parameters with r.PathValue: the canonical or PRECIS-enforced value is
// handed back with r.SetPathValue, which chi.URLParam does not see. chi
// routes on URL.RawPath when the path holds escapes it needs, so a value
// can reach the handler escaped; under the strict preset a value holding
// %2F is refused (double_encoding). A key with a chi regexp
// (/users/{id:[0-9]+}) or chi's * is no ServeMux pattern and is refused;
// name routes with HTTPConfig.Route to use such keys (PRECIS path fields
// then match no parameter name). chi.Walk gives each route with its
// method, so a key "GET /users/{id}" names chi's /users/{id} walked with
// GET.
//
// # Where to mount it
//
// utf8guard checks what it is handed: whatever runs before it sees the
// request unchecked, and whatever runs after it sees only what passed.
// With Echo's standard middlewares (v4 and v5 alike, but where said):
//
//   - Recover: before; it catches a panic anywhere after it, utf8guard's
//     hooks included.
//   - RequestID: before; utf8guard's log line then carries the request_id
//     it sets.
//   - Logger (v4 only), RequestLogger (access logs): before; after
//     utf8guard they never see a refused request, since utf8guard answers
//     without calling the rest of the chain. Echo v5's RequestLogger()
//     logs every request whose chain returned an error at
//     slog.LevelError (REQUEST_ERROR), and every refusal is one (an
//     *echov5.Error): to keep refusals out of the error level, use
//     RequestLoggerWithConfig with LogStatus: true and a LogValuesFunc
//     that picks the level from v.Status (400, 413, 415) rather than from
//     v.Error != nil (HandleError: true makes the error handler answer
//     first, so the status is the one sent).
//   - CORS: before; it answers preflights, and adds its headers to
//     utf8guard's 400 too; after utf8guard a browser sees a refusal as an
//     opaque CORS failure.
//   - Decompress: after (recommended). utf8guard decodes gzip and deflate
//     itself within the policy's limits and removes Content-Encoding, so
//     in enforce mode Decompress after it finds nothing to do; in monitor
//     mode utf8guard hands the body on as sent (still compressed) and
//     Decompress decodes it, so a clean request reads the same in both
//     modes (TestRecommendedStackReadsAlikeInBothModes). Echo's Decompress
//     decodes gzip only: a service that takes deflate bodies mounts a
//     decoder of its own there too, as the demo does
//     (examples/server/app Inflate). Before utf8guard it works too:
//     utf8guard recognizes the gzip.Reader it put in place and checks the
//     decoded text within the body limit, but a stream of empty gzip
//     members is then bounded only by the server's ReadTimeout. Not
//     mounted at all, monitor mode hands the handler compressed bodies.
//     Any other decoder mounted before utf8guard must remove
//     Content-Encoding, or what it decoded is refused as a stream that
//     does not decode (400 body_unreadable).
//   - Timeout (v4 only), ContextTimeout: before; like Recover they wrap
//     the whole chain. Pooled memory under a body goes back to the pool
//     only once the rest has moved to memory of its own, so a handler
//     still running after a timeout answered never reads another
//     request's body. A client that sends its body slowly is bounded by
//     http.Server's ReadTimeout, not by these.
//   - Secure, Gzip (responses): either; they touch the response only.
//   - BodyLimit: after, or not at all; the policy's Limits.BodyBytes
//     already bounds bodies (413 for text bodies). Before utf8guard,
//     BodyLimit cuts an oversized chunked body off in the middle of
//     utf8guard's read, which then answers 400 body_unreadable instead of
//     413.
//   - CSRF, sessions, KeyAuth, BasicAuth, JWT: after; a token looked up
//     in the form (form:_csrf) or the query parses them before the check,
//     and with the form utf8guard then refuses every such request with
//     500 parsed_before_check. Header and cookie lookups work either way.
//   - Rewrite, Proxy with Rewrite rules, anything else under e.Pre that
//     changes the path: before utf8guard under e.Pre, or utf8guard under
//     e.Use. utf8guard checks a request under the policy of the route its
//     path leads to; under e.Pre a rewrite after utf8guard moves the
//     request to a route whose policy did not run. (utf8guard sets
//     Request.RequestURI to a path or query it rewrote, which Rewrite
//     reads, so that a repaired or canonical form is not undone; what a
//     later rewrite makes of it is not checked.)
//   - MethodOverride with MethodFromForm (under e.Pre): after utf8guard,
//     which must then be under e.Pre too; it parses the form before
//     anything under e.Use runs. The default getter reads a header and is
//     safe anywhere.
//
// With e.Use (or on a group or route) the policy is chosen by route
// template; with e.Pre the path is checked before the router sees it.
//
// Something that parsed the form before utf8guard (a session, CSRF or
// auth middleware calling c.FormValue, or r.ParseForm in net/http code
// wrapped around the adapter) would hand the handler values no check saw,
// and would have consumed the body utf8guard reads. On a route whose
// policy checks the query, form or multipart bodies, a request that
// arrives with Request.Form, PostForm or MultipartForm already set is
// refused with 500 parsed_before_check (a mistake of the server's, not
// the client's), through OnReject and the error handler like any other
// refusal, with an error-level log line that names the field and says to
// mount utf8guard earlier; Monitor mode logs it and passes the request on.
// What cannot be seen: Echo's own query cache. Echo v4's c.QueryParam and
// c.QueryParams, and Echo v5's c.QueryParams, parse the query once into
// the context, where no middleware can see it; the query is still checked
// from URL.RawQuery (a refused query is refused), but a repaired or
// normalized query does not reach a handler reading that cache (Echo v5's
// c.QueryParam alone reads URL.RawQuery each time). A body read to its end
// before utf8guard and not put back leaves nothing to check, and nothing
// for the handler either.
//
// # Mistakes are start-up errors
//
// A configuration is checked as strictly in Go as in a policy file: every
// adapter's constructor (echov4.Config.ToMiddleware,
// echov5.Config.ToMiddleware, HTTPConfig.ToHandler, NewPipeline) runs
// rules.Policy.Validate and rules.Table.Validate and returns the first
// mistake; WithConfig and Handler panic with it. Refused: Header.On with
// no Headers, and Headers without Header.On; RejectUnnormalized without a
// Normalization; a limit below -1; media types with parameters or not
// type/subtype; names or types listed twice; an unknown Mode,
// Normalization, FileContents, class bit or PRECIS profile (the zero
// profile too); a PRECIS field in a location the policy does not check,
// two PRECIS fields whose names differ only in case, a PRECIS path field
// that is no parameter of its route's key; an empty route key or one with
// control characters. The error names the route and the Go field:
//
//	rules: route "/users/:username": Precis[0].Field: "user" is not a parameter of the route: its parameter is "username"; the profile would never apply
//
// rules.LoadFile runs the same checks on what it read and reports them
// with the file, line and column. Route keys are in the router's syntax:
// the Echo adapters refuse keys that do not start with / and other
// routers' syntax (/users/{id}, GET /users); the net/http adapter, while
// it names routes by their ServeMux pattern, refuses keys a ServeMux would
// not register and Echo's :id and *. A key that names no registered route
// is found by echov4.CheckRoutes or echov5.CheckRoutes (CheckMuxRoutes on
// net/http and chi), called at start-up once the routes are registered,
// with the route it resembles:
//
//	utf8guard: the policy table's route "/monitr/*" (did you mean "/monitor/*"?) names no registered route: its requests would get the default policy
//
// The same calls hold the default policy's PRECIS path fields, which have
// no key, to the registered routes no key names: a field that is a
// parameter of none of them is an error. Without the call each Echo
// adapter compares the keys with the routes at its first request and logs
// one error-level line per unknown key, once; the net/http adapter cannot
// know the routes by itself.
//
// # The body and the handler
//
// A body the policy checks is read whole before the handler runs, and the
// handler gets it as r.Body, so c.Bind and c.FormValue work as before. In
// Enforce mode a body declared at most 1 MiB long (the default body
// limit) is read into pooled memory: one declared at most 64 KiB at once,
// a longer one once a sixteenth of it has come through pooled working
// memory, so that a client that declares much and sends little holds
// little. An accepted request's handler reads it through a reader of its
// own (lentBody), and the memory goes back to its pool once the handler
// has returned, after the octets the handler had not read yet, if any,
// have moved to memory of their own. When the body is rewritten to its
// canonical form, the handler reads that, memory of its own, and the
// memory the body came in goes back too. A refused request's body memory
// goes back at once: its Rejection refers to memory of its own, and its
// body reads as empty. A longer body, one of unknown length, and every
// body in Monitor mode, is read through pooled working memory that no
// handler sees and then copied once into memory of its own (readBody).
// So a handler that keeps reading after a timeout wrapper (Echo's
// Timeout, http.TimeoutHandler) has answered, or from a goroutine after
// it returned, reads the rest of its own request's octets, never another
// request's. Echo's HTTPErrorHandler, which runs after the middleware has
// returned, can read an accepted request's body as the handler left it.
// The memory held while a body arrives grows with the octets that arrive,
// not with the length a client declares.
//
// A checked body that cannot be read whole (the client went away, a
// broken chunked encoding) is refused like any other violation: reason
// body_unreadable, with its location, through OnReject and the
// ErrorHandler, and the log line carries the cause in error; in Monitor
// mode the handler's own read fails the same way.
//
// # Allocations
//
// Echo v4 applies every middleware per request (e.Use, e.Pre, groups and
// routes alike): the handler the middleware returns, a closure over the
// next one, is one allocation per request, as for every Echo v4
// middleware, and the only one for a clean request without a body,
// wherever it is mounted. The net/http adapter and the Echo v5 adapter
// allocate nothing for it. A checked body costs one allocation, its
// reader, when it is declared at most 1 MiB long and handed on as it came
// or rewritten (its memory is pooled, lent to the handler: see The body
// and the handler; a rewritten body's canonical form is one allocation
// more); two otherwise, its memory and its reader.
//
// # The log line
//
// One zerolog event per rejected (or, in Monitor mode, flagged) request,
// at warn level (error level for parsed_before_check, the server's
// mistake), from the request context's logger (zerolog.Ctx, as hlog sets
// it) when the context carries one, else the configured Logger; a global
// zerolog.DefaultContextLogger never replaces the configured Logger. Its
// fields: reason, location, field, offset, sample (hex-escaped, never raw
// request octets), method, route, request_id, request_id_client (only when
// the client chose the id), remote_ip, mode, class for forbidden_char,
// limit (the limit exceeded) for too_large, and error for
// body_unreadable and parsed_before_check. The message is "utf8guard:
// request rejected" or "utf8guard: request flagged". The README at the
// module's root documents each field and who chooses its value. Clean
// requests log nothing unless LogAccepted is set: then one debug-level
// "utf8guard: request accepted" event with method and route. Under
// attack, a flood of rejections is a flood of lines: give the middleware
// a sampled logger and count every rejection with OnReject, which is not
// sampled:
//
//	logger := zerolog.New(os.Stdout).Sample(&zerolog.BurstSampler{
//		Burst: 20, Period: time.Second, NextSampler: &zerolog.BasicSampler{N: 100},
//	})
//
// examples/metrics counts requests by route and rejections by route,
// location, reason and mode with expvar (GET /debug/vars:
// utf8guard_requests, utf8guard_rejections, utf8guard_rejection_ratio).
// The same counts from the log, one line per kind, most frequent first:
//
//	jq -rR 'fromjson? | select(.message? // "" | startswith("utf8guard: request")) | [.reason, .route, .location, .mode, .class, .field] | @tsv' app.log | sort | uniq -c | sort -rn
//
// The demo sets e.IPExtractor to echo.ExtractIPDirect() (it listens
// directly) and drops the client's X-Request-Id before Echo's RequestID,
// so every id in its log is its own.
package middleware
