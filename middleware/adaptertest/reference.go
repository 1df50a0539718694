package adaptertest

import (
	"net/http"
	"sync"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
)

// Reference returns the target every other is compared with: the net/http
// adapter (middleware.HTTPConfig) around each handler of a ServeMux (the
// request's pattern is its route). A row a target and the reference both
// run must come out alike on both, but for what the row or a Difference
// of the target's says.
func Reference() Target {
	return Target{
		Name: "nethttp/around each handler",
		Serve: func(t testing.TB, s Server) http.Handler {
			mw, err := middleware.HTTPConfig{Rules: s.Rules, Logger: s.Logger, OnReject: s.OnReject}.ToHandler()
			if err != nil {
				t.Fatal(err)
			}
			return ServeMux(s, mw, "")
		},
		Can:       []Capability{PathParams, ParamsChecked, WholePath},
		reference: true,
	}
}

// ServeMux returns a ServeMux that serves every route of s at its
// template, for every method, with a handler that reads the request
// through net/http's API (r.PathValue, URL.Query, Request.Cookies) and
// answers what it read; mw, if not nil, wraps each handler, so that it
// knows the route (Request.Pattern). stripped is the prefix an
// http.StripPrefix in front of the mux takes off, which the handler puts
// back in Reads.Path.
func ServeMux(s Server, mw func(http.Handler) http.Handler, stripped string) *http.ServeMux {
	mux := http.NewServeMux()
	if mw == nil {
		mw = func(h http.Handler) http.Handler { return h }
	}
	for _, rt := range s.Routes {
		mux.Handle(rt.Template, mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rd := &Reads{Params: map[string]string{}, First: map[string]string{}, Cookies: map[string]string{}}
			for _, name := range rt.Params {
				rd.Params[name] = r.PathValue(name)
			}
			rd.Query = r.URL.Query()
			for k := range rd.Query {
				rd.First[k] = rd.Query.Get(k)
			}
			for _, c := range r.Cookies() {
				rd.Cookies[c.Name] = c.Value
			}
			rd.ReadRequest(r)
			rd.Path = stripped + rd.Path
			Reply(w, rd)
		})))
	}
	return mux
}

// refResult is the reference's result of a row on one way, run once for
// the test binary and shared by every target's run of it.
type refResult struct {
	once sync.Once
	res  *result
	err  error
}

var refResults sync.Map // table, row, way -> *refResult

// reference returns the reference's result of rw, run by run.
func reference(key string, run func() (*result, error)) (*result, error) {
	v, _ := refResults.LoadOrStore(key, &refResult{})
	rr := v.(*refResult)
	rr.once.Do(func() {
		rr.err = errReferenceDidNotRun
		rr.res, rr.err = run()
	})
	return rr.res, rr.err
}
