package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// Router says how requests find their route, and so their policy, as the
// service routes them. MuxRoutes, EchoRoutes and Handler make one.
type Router struct {
	kind    routerKind
	routes  []string
	handler http.Handler
	route   func(*http.Request) string
}

type routerKind uint8

const (
	noRouter routerKind = iota
	muxRouter
	echoRouter
	handlerRouter
)

// MuxRoutes routes requests with a real http.ServeMux on which each of
// patterns (ServeMux patterns, "GET /users/{id}", "/static/") is
// registered with the net/http adapter around its handler, as a service
// on a ServeMux mounts it: the policy table's keys are ServeMux patterns.
func MuxRoutes(patterns ...string) Router {
	return Router{kind: muxRouter, routes: patterns}
}

// EchoRoutes routes requests with a real Echo v5 router on which each of
// routes is registered, behind the Echo v5 adapter mounted with e.Use,
// as the demo mounts it: the policy table's keys are Echo route
// templates. A route is a template ("/users/:id", "/files/*"), for every
// method, or methods and a template ("GET /users/:id", "GET,POST
// /files/*").
func EchoRoutes(routes ...string) Router {
	return Router{kind: echoRouter, routes: routes}
}

// Handler replays requests through h, the service's own handler, wrapped
// by the net/http adapter (middleware.HTTPConfig) with route as its
// HTTPConfig.Route (nil: the request's ServeMux pattern, which is empty
// around a whole ServeMux, so that only the table's default applies).
// It works for any router, but h runs for every request the policy
// passes: give it a handler without effects outside the process.
func Handler(h http.Handler, route func(*http.Request) string) Router {
	return Router{kind: handlerRouter, handler: h, route: route}
}

// Outcome is what a policy made of one request.
type Outcome struct {
	// Rejection is the violation found, nil for a request that passed.
	// Its Mode says whether the request was refused (Enforce) or flagged
	// and passed on (Monitor).
	Rejection *middleware.Rejection
	// Status is the status of the answer: the refusal's, or the handler's
	// (200 from the routers MuxRoutes and EchoRoutes build, 404 or 405
	// for a request they have no route for).
	Status int
}

// Refused reports whether the request was refused (Enforce mode).
func (o Outcome) Refused() bool { return o.Rejection != nil && o.Rejection.Mode == rules.Enforce }

// Flagged reports whether the request broke a Monitor-mode policy.
func (o Outcome) Flagged() bool { return o.Rejection != nil && o.Rejection.Mode == rules.Monitor }

// A Replayer runs requests through one policy, in process: nothing is
// sent anywhere. It is safe for use by one goroutine at a time.
type Replayer struct {
	h http.Handler
}

// slotKey is the context key of the *Outcome a replayed request's
// rejection is written to.
type slotKey struct{}

// record writes rj to the request's slot: the first one, which is the
// one the adapter answered.
func record(r *http.Request, rj *middleware.Rejection) {
	if o, ok := r.Context().Value(slotKey{}).(*Outcome); ok && o.Rejection == nil {
		o.Rejection = rj
	}
}

// New returns a Replayer of rs, with requests routed by rt. Like the
// service at start-up, it refuses a policy that is no valid
// configuration for the adapter, and a table with a key that names none
// of the routes (middleware.CheckMuxRoutes, echov5.CheckRoutes).
func New(rs rules.Ruleset, rt Router) (*Replayer, error) {
	nop := zerolog.Nop()
	switch rt.kind {
	case muxRouter:
		cfg := middleware.HTTPConfig{Rules: rs, Logger: &nop, OnReject: record}
		guard, err := cfg.ToHandler()
		if err != nil {
			return nil, err
		}
		mux := http.NewServeMux()
		for _, p := range rt.routes {
			if err := register(mux, p, guard(http.HandlerFunc(drain))); err != nil {
				return nil, err
			}
		}
		if err := middleware.CheckMuxRoutes(rs, rt.routes); err != nil {
			return nil, err
		}
		return &Replayer{h: mux}, nil
	case echoRouter:
		guard, err := echov5.Config{Rules: rs, Logger: &nop, OnReject: func(c *echo.Context, rj *middleware.Rejection) {
			record(c.Request(), rj)
		}}.ToMiddleware()
		if err != nil {
			return nil, err
		}
		e := echo.New()
		e.Use(guard)
		for _, route := range rt.routes {
			if err := addEcho(e, route); err != nil {
				return nil, err
			}
		}
		if err := echov5.CheckRoutes(e, rs); err != nil {
			return nil, err
		}
		return &Replayer{h: e}, nil
	case handlerRouter:
		if rt.handler == nil {
			return nil, errors.New("replay: Handler: nil handler")
		}
		cfg := middleware.HTTPConfig{Rules: rs, Route: rt.route, Logger: &nop, OnReject: record}
		guard, err := cfg.ToHandler()
		if err != nil {
			return nil, err
		}
		return &Replayer{h: guard(rt.handler)}, nil
	}
	return nil, errors.New("replay: no Router: use MuxRoutes, EchoRoutes or Handler")
}

// register registers h for pattern on mux, with ServeMux's panic on a
// bad or conflicting pattern turned into an error.
func register(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("replay: route %q: %v", pattern, p)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// addEcho registers route ("/users/:id" or "GET,POST /users/:id") on e.
func addEcho(e *echo.Echo, route string) error {
	h := func(c *echo.Context) error {
		_, err := io.Copy(io.Discard, c.Request().Body)
		return err // a body cut off past its limit: the adapter answers it (middleware.CutOff)
	}
	methods, path := []string{echo.RouteAny}, route
	if m, p, ok := strings.Cut(route, " "); ok {
		methods, path = strings.Split(m, ","), strings.TrimSpace(p)
	}
	for _, m := range methods {
		if _, err := e.AddRoute(echo.Route{Method: m, Path: path, Handler: h}); err != nil {
			return fmt.Errorf("replay: route %q: %v", route, err)
		}
	}
	return nil
}

// drain is the handler of the routes MuxRoutes registers: it reads the
// body, as a handler does, so that a binary body of unknown length is cut
// off past its limit (middleware.CutOff), and answers 200.
func drain(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		if rj := middleware.CutOff(err); rj != nil {
			record(r, rj)
			middleware.DefaultHTTPErrorHandler(w, r, rj)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// Replay runs r through the policy and returns what it made of it. r is
// served in process (ServeHTTP with an httptest.ResponseRecorder); its
// body is read as the service would read it.
func (rp *Replayer) Replay(r *http.Request) Outcome {
	var o Outcome
	r = r.WithContext(context.WithValue(r.Context(), slotKey{}, &o))
	w := httptest.NewRecorder()
	rp.h.ServeHTTP(w, r)
	o.Status = w.Code
	return o
}
