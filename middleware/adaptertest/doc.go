// Package adaptertest proves an adapter of utf8guard: it runs the
// conformance table, every row of it, on a server the adapter's test
// builds, and holds each answer to the row and to the kit's reference, the
// net/http adapter. It is a package of test helpers, as net/http/httptest
// is: import it from _test.go files only.
//
// Package middleware exports its pipeline (middleware.Pipeline) so that an
// adapter for another router (Gin, chi, Fiber, one of your own) is a few
// lines over it and behaves exactly as the shipped adapters do. This
// package makes "exactly" checkable: the Echo v4 and v5 adapters and the
// net/http one are held to it, mount by mount, by the same Run a third
// party calls.
//
// # What a row checks
//
// A row is one request (the request-target as sent, raw octets and all;
// a body, plain, coded, chunked or failing part way; header lines,
// trailers, cookies), its policy (a rules.Table) and what must come of
// it:
//
//   - the status: 200 when the handler runs, else the refusal's;
//   - a refusal's answer, octet for octet: the JSON object
//     {"location": ..., "reason": ...} that middleware.DefaultHTTPErrorHandler
//     writes, as application/json, with X-Content-Type-Options: nosniff
//     unless the target says otherwise (NoNosniff); or, where the
//     framework's own encoder writes it (FrameworkJSON), the same object
//     with a media type of application/json and any parameters;
//   - the log line, field for field: one for a refused or flagged request
//     (reason, location, field, offset, class, sample, limit, route, mode,
//     method, request_id, remote_ip, message, level), none for a clean one;
//   - the OnReject hook: called once for a refused or flagged request, with
//     its reason and location, never for a clean one;
//   - what the handler read through its framework's API (Reads): the
//     path, the path parameters, the query as a map and key by key, the
//     listed header, the cookies, the body, its length, its form.
//
// Run runs each row in process (httptest) and over a real http.Server on
// 127.0.0.1 with HTTP/1.1, h2c and TLS h2, since Go's HTTP/2 server hands
// a handler a request unlike the one HTTP/1.1 gives; a row a client cannot
// send a way (a body that fails, a form parsed before the server, an
// absolute-form target over HTTP/2) is skipped that way, with the reason.
// Every run is also compared with the Reference's run of the same row:
// the same status, reads, and log fields, those a row need not spell out
// (a sample) included.
//
// # Targets
//
// A Target is an adapter mounted one way. Its Serve builds a server from a
// Server: the row's policies, keyed in the adapter's own route syntax
// (Target.Template maps the kit's routes, ServeMux patterns such as
// "/api/t/{id}" and "/api/f/{rest...}", to it: EchoTemplate gives
// "/api/t/:id" and "/api/f/*"); the logger the adapter must log to; the
// OnReject hook it must call; and the routes (Routes) to serve for every
// method of Methods(). Each route's handler fills a Reads through the
// framework's API and answers it with status 200 as JSON (Reads
// documents the shape; Reply writes it).
//
// What a target cannot do, it leaves out of Can: a row that needs a
// Capability it lacks is skipped, with the reason, and the report counts
// it. An adapter around a whole router (which has not matched the request
// yet) lacks ParamsChecked; under http.StripPrefix, WholePath; only an
// adapter before routing has Reroute. What its framework forces, it lists
// in Differs: a row that meets a Difference holds the target to what the
// row says such a target does instead (raw parameters, the framework's
// request id, an answer without nosniff). Nothing is skipped or excused
// silently: when its rows are done, Run logs a report of the runs passed,
// failed and skipped, each skip with its reason, and the differences met.
//
// # Writing an adapter and proving it
//
// An adapter for a router finds the request's route template and path
// parameters in the router's terms, hands them to Pipeline.Check, and does
// what the Verdict says. For a router whose middleware runs after routing
// and gets the match as p (Route, Names, Values, cut from the path and
// decoded):
//
//	func Guard(cfg middleware.PipelineConfig, onReject func(*http.Request, *middleware.Rejection)) (func(HandlerFunc) HandlerFunc, error) {
//		pl, err := middleware.NewPipeline(cfg)
//		if err != nil {
//			return nil, err
//		}
//		return func(next HandlerFunc) HandlerFunc {
//			return func(w http.ResponseWriter, r *http.Request, p *Params) {
//				v := pl.Check(r, middleware.Match{Route: p.Route, Names: p.Names, Values: p.Values}, r)
//				defer v.Release() // after the handler, and after its panic
//				if v.Rejection != nil {
//					onReject(v.Request, v.Rejection)
//					if !v.Pass {
//						middleware.DefaultHTTPErrorHandler(w, v.Request, v.Rejection)
//						return
//					}
//				}
//				if v.Params != nil { // the canonical or PRECIS-enforced values
//					p = &Params{Route: p.Route, Names: p.Names, Values: v.Params}
//				}
//				next(w, v.Request, p)
//			}
//		}, nil
//	}
//
// Its test describes the server to the kit, and runs it:
//
//	func TestGuardConforms(t *testing.T) {
//		adaptertest.Run(t, adaptertest.Target{
//			Name:     "router",
//			Template: adaptertest.EchoTemplate, // its syntax is Echo's: "/api/t/:id"
//			Serve: func(t testing.TB, s adaptertest.Server) http.Handler {
//				guard, err := Guard(middleware.PipelineConfig{Rules: s.Rules, Logger: s.Logger}, s.OnReject)
//				if err != nil {
//					t.Fatal(err)
//				}
//				rt := &Router{}
//				rt.Use(guard)
//				for _, route := range s.Routes {
//					for _, method := range adaptertest.Methods() {
//						rt.Handle(method, route.Template, func(w http.ResponseWriter, r *http.Request, p *Params) {
//							rd := &adaptertest.Reads{Params: map[string]string{}, Query: r.URL.Query(),
//								First: map[string]string{}, Cookies: map[string]string{}}
//							for i, v := range p.Values { // by the kit's names
//								rd.Params[route.Params[i]] = v
//							}
//							for k := range rd.Query {
//								rd.First[k] = rd.Query.Get(k)
//							}
//							for _, c := range r.Cookies() {
//								rd.Cookies[c.Name] = c.Value
//							}
//							rd.ReadRequest(r) // path, listed header, body, form
//							adaptertest.Reply(w, rd)
//						})
//					}
//				}
//				return rt
//			},
//			Can: []adaptertest.Capability{adaptertest.PathParams, adaptertest.ParamsChecked, adaptertest.WholePath},
//		})
//	}
//
// router_test.go in this directory has it whole, router included, and it
// passes. A real framework's handler reads through the framework instead
// (c.Param, c.QueryParams, c.Cookies on Echo; middleware/echov4's
// conformance_test.go), and its test declares what the framework forces:
// Echo hands on parameters cut from URL.RawPath raw (RawParams), its
// RequestID middleware sets an id (OwnRequestID), v4's c.RealIP believes
// X-Forwarded-For (ForwardedFor), its HTTPErrorHandler writes no nosniff
// (NoNosniff). `go test -v` shows the report:
//
//	adaptertest: router: 463 rows, 1852 runs (in process, http1, h2c, h2)
//	  passed 1806, failed 0, skipped 46
//	  skipped:
//	      12  needs Reroute: the row moves the request to another route by a rewrite, which only an adapter before routing can
//	       6  over h2: HTTP/2 has no absolute-form target: :authority and :path carry it
//	  ...
//
// Run takes about a second a target, wires included; InProcess leaves the
// wires out. The rows of the documents and sentences tables read the
// module's testdata directory beside the kit's source; a kit built with
// -trimpath cannot find it, and skips them with that reason.
package adaptertest
