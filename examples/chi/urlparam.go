package main

import (
	"net"
	"net/http"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// chiGuard is utf8guard as a chi middleware over middleware.Pipeline, for
// handlers that read chi.URLParam: the net/http adapter (newRouter) hands
// the canonical or PRECIS-enforced value of a parameter back through
// r.SetPathValue only, which chi.URLParam does not read.
//
// Mounted with r.With or inside r.Group, a chi middleware runs after chi
// has routed: chi.RouteContext(r.Context()) holds the route pattern
// (RoutePattern: "/users/{id}", "/files/*", without a method) and the
// parameters (URLParams, whose Keys and Values are exported slices),
// which chiGuard hands to the pipeline, and into which it writes the
// values the pipeline hands back, and to r.SetPathValue too: chi.URLParam
// and r.PathValue then return what was checked. chi cuts the values from
// URL.RawPath when it is set, still escaped (Match.Escaped), and the
// pipeline decodes them: "/users/a%2Fb" gives "a/b". In Monitor mode the
// handler gets them as chi alone would, raw.
//
// Mounted with r.Use on the router, it runs before chi routes: it sees no
// pattern and no parameter, checks the request under the table's default
// policy, and chi.URLParam returns what chi cuts afterwards, raw where
// chi routed RawPath. The table's keys are chi's patterns exactly, for
// every method ("/users/{id}", "/files/*"; a catch-all's parameter is
// "*").
func chiGuard(rs rules.Ruleset, cfg middleware.PipelineConfig, onReject func(*http.Request, *middleware.Rejection)) (func(http.Handler) http.Handler, error) {
	cfg.Rules = rs
	cfg.Identity = chiIdentity
	pl, err := middleware.NewPipeline(cfg)
	if err != nil {
		return nil, err
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m := middleware.Match{Escaped: r.URL.RawPath != ""} // chi routes RawPath when it is set
			rctx := chi.RouteContext(r.Context())
			if rctx != nil && rctx.RoutePattern() != "" { // after routing
				m.Route, m.Names, m.Values = rctx.RoutePattern(), rctx.URLParams.Keys, rctx.URLParams.Values
			}
			v := pl.Check(r, m, r)
			defer v.Release() // after the handler, and after its panic
			if v.Rejection != nil {
				if onReject != nil {
					onReject(v.Request, v.Rejection)
				}
				if !v.Pass {
					middleware.DefaultHTTPErrorHandler(w, v.Request, v.Rejection)
					return
				}
			}
			for i, value := range v.Params {
				rctx.URLParams.Values[i] = value // what chi.URLParam reads
				v.Request.SetPathValue(m.Names[i], value)
			}
			next.ServeHTTP(w, v.Request)
		})
	}, nil
}

// chiIdentity gives the log the id chi's RequestID middleware gave the
// request (the client's X-Request-Id, which it adopts, marked as the
// client's; or its own), and the connection's address: chi's RealIP
// middleware, mounted before, would have rewritten RemoteAddr from
// X-Forwarded-For.
func chiIdentity(who any) middleware.Identity {
	r := who.(*http.Request)
	id := chimw.GetReqID(r.Context())
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return middleware.Identity{RequestID: id, RequestIDFromClient: id != "" && id == r.Header.Get(chimw.RequestIDHeader), RemoteIP: host}
}
