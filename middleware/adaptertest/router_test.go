package adaptertest_test

// The worked example of the package doc, whole: a small router of its own
// (segment templates "/users/:id", a last "*"), an adapter for it on
// middleware.Pipeline, and the kit's proof of that adapter.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/adaptertest"
)

// Params is where the router put a request: its route template and the
// parameters it cut from the decoded path.
type Params struct {
	Route         string
	Names, Values []string
}

// HandlerFunc is the router's handler.
type HandlerFunc func(w http.ResponseWriter, r *http.Request, p *Params)

// Router matches the escaped path segment by segment, as a ServeMux does
// (so that "%2F" stays within its segment), and decodes each: ":name"
// takes one segment, a last "*" the rest.
type Router struct {
	routes []routerRoute
	mw     []func(HandlerFunc) HandlerFunc
}

type routerRoute struct {
	method, template string
	h                HandlerFunc
}

// Use adds a middleware, run after routing, before every handler.
func (rt *Router) Use(mw func(HandlerFunc) HandlerFunc) { rt.mw = append(rt.mw, mw) }

// Handle registers h for method and template.
func (rt *Router) Handle(method, template string, h HandlerFunc) {
	rt.routes = append(rt.routes, routerRoute{method, template, h})
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	for _, route := range rt.routes {
		p, ok := match(route.template, r.URL.EscapedPath())
		if !ok || route.method != r.Method {
			continue
		}
		h := route.h
		for i := len(rt.mw) - 1; i >= 0; i-- {
			h = rt.mw[i](h)
		}
		h(w, r, p)
		return
	}
	http.NotFound(w, r)
}

func match(template, escaped string) (*Params, bool) {
	p := &Params{Route: template}
	ts, ps := strings.Split(template, "/"), strings.Split(escaped, "/")
	for i := range ps {
		s, err := url.PathUnescape(ps[i])
		if err != nil {
			return nil, false
		}
		ps[i] = s
	}
	for i, t := range ts {
		switch {
		case t == "*" && i == len(ts)-1:
			if i >= len(ps) {
				return nil, false
			}
			p.Names, p.Values = append(p.Names, "*"), append(p.Values, strings.Join(ps[i:], "/"))
			return p, true
		case i >= len(ps):
			return nil, false
		case strings.HasPrefix(t, ":"):
			p.Names, p.Values = append(p.Names, t[1:]), append(p.Values, ps[i])
		case t != ps[i]:
			return nil, false
		}
	}
	return p, len(ts) == len(ps)
}

// Guard is the adapter: the router's match is the pipeline's, and the
// verdict is carried out in the router's terms.
func Guard(cfg middleware.PipelineConfig, onReject func(*http.Request, *middleware.Rejection)) (func(HandlerFunc) HandlerFunc, error) {
	pl, err := middleware.NewPipeline(cfg)
	if err != nil {
		return nil, err
	}
	return func(next HandlerFunc) HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request, p *Params) {
			v := pl.Check(r, middleware.Match{Route: p.Route, Names: p.Names, Values: p.Values}, r)
			defer v.Release() // after the handler, and after its panic
			if v.Rejection != nil {
				onReject(v.Request, v.Rejection)
				if !v.Pass {
					middleware.DefaultHTTPErrorHandler(w, v.Request, v.Rejection)
					return
				}
			}
			if v.Params != nil {
				p = &Params{Route: p.Route, Names: p.Names, Values: v.Params}
			}
			next(w, v.Request, p)
		}
	}, nil
}

// TestRouterAdapterConforms: the adapter above meets every row the kit
// has for an adapter after routing.
func TestRouterAdapterConforms(t *testing.T) {
	t.Parallel()
	adaptertest.Run(t, adaptertest.Target{
		Name:     "router",
		Template: adaptertest.EchoTemplate, // the same syntax: "/api/t/:id", "/api/f/*"
		Serve: func(t testing.TB, s adaptertest.Server) http.Handler {
			guard, err := Guard(middleware.PipelineConfig{Rules: s.Rules, Logger: s.Logger}, s.OnReject)
			if err != nil {
				t.Fatal(err)
			}
			rt := &Router{}
			rt.Use(guard)
			for _, route := range s.Routes {
				for _, method := range adaptertest.Methods() {
					rt.Handle(method, route.Template, func(w http.ResponseWriter, r *http.Request, p *Params) {
						rd := &adaptertest.Reads{Params: map[string]string{}, Query: r.URL.Query(),
							First: map[string]string{}, Cookies: map[string]string{}}
						for i, v := range p.Values {
							rd.Params[route.Params[i]] = v
						}
						for k := range rd.Query {
							rd.First[k] = rd.Query.Get(k)
						}
						for _, c := range r.Cookies() {
							rd.Cookies[c.Name] = c.Value
						}
						rd.ReadRequest(r)
						adaptertest.Reply(w, rd)
					})
				}
			}
			return rt
		},
		Can: []adaptertest.Capability{adaptertest.PathParams, adaptertest.ParamsChecked, adaptertest.WholePath},
	})
}
