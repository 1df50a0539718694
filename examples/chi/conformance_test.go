package main

// The conformance kit (middleware/adaptertest) on chi: chiGuard, the
// pipeline mounted with r.With behind chi's RequestID. The README recipe
// (the net/http adapter) does not pass it with a handler that reads
// chi.URLParam: TestRecipeURLParamIsWhatChiCut says why.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/adaptertest"
	"github.com/utf8guard/utf8guard/rules"
)

// TestConformance runs every row of the kit on each chi mount.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, tg := range chiTargets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			var opts []adaptertest.Option
			if testing.Short() {
				opts = append(opts, adaptertest.InProcess())
			}
			adaptertest.Run(t, tg, opts...)
		})
	}
}

// chiTargets are the chi mounts. chi's RequestID, mounted first with
// r.Use, gives a request without X-Request-Id an id of its own
// (OwnRequestID); chi cuts parameters from URL.RawPath when it is set and
// hands them on raw, which Monitor mode keeps (RawParams).
func chiTargets() []adaptertest.Target {
	can := []adaptertest.Capability{adaptertest.PathParams, adaptertest.ParamsChecked, adaptertest.WholePath}
	diffs := []adaptertest.Difference{adaptertest.OwnRequestID, adaptertest.RawParams}
	return []adaptertest.Target{
		{Name: "chi/chiGuard r.With", Template: chiTemplate, Can: can, Differs: diffs,
			Serve: func(t testing.TB, s adaptertest.Server) http.Handler {
				guard, err := chiGuard(s.Rules, middleware.PipelineConfig{Logger: s.Logger}, s.OnReject)
				if err != nil {
					t.Fatal(err)
				}
				return serveChi(s, guard)
			}},
	}
}

// chiTemplate maps a kit pattern to chi's syntax: "{id}" stays, a last
// "{rest...}" is "*".
func chiTemplate(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "...}") {
			segs[i] = "*"
		}
	}
	return strings.Join(segs, "/")
}

// serveChi builds a chi router: RequestID with r.Use, guard with r.With
// on every route, and a handler that answers what it read through chi's
// API (chi.URLParam; "*" for a catch-all).
func serveChi(s adaptertest.Server, guard func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(chimw.RequestID)
	for _, rt := range s.Routes {
		for _, method := range adaptertest.Methods() {
			r.With(guard).Method(method, rt.Template, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				rd := &adaptertest.Reads{Params: map[string]string{}, First: map[string]string{}, Cookies: map[string]string{}}
				for _, name := range rt.Params {
					key := name
					if strings.HasSuffix(rt.Template, "/*") && name == rt.Params[len(rt.Params)-1] {
						key = "*"
					}
					rd.Params[name] = chi.URLParam(req, key)
				}
				rd.Query = req.URL.Query()
				for k := range rd.Query {
					rd.First[k] = rd.Query.Get(k)
				}
				for _, c := range req.Cookies() {
					rd.Cookies[c.Name] = c.Value
				}
				rd.ReadRequest(req)
				adaptertest.Reply(w, rd)
			}))
		}
	}
	return r
}

// TestRecipeURLParamIsWhatChiCut pins why the README recipe, the net/http
// adapter mounted with r.With, fails the kit's rows on parameters when the
// handler reads chi.URLParam, and chiGuard passes them: the net/http
// adapter hands the canonical or PRECIS-enforced value back through
// r.SetPathValue, which chi.URLParam does not read (it reads
// chi.RouteContext's URLParams), and it takes the values chi cut from
// URL.RawPath for decoded text: the strict preset then refuses a value
// that holds an escape (double_encoding), and a looser one hands it on
// escaped. chiGuard writes the pipeline's values into URLParams and the
// path values alike, decoded.
func TestRecipeURLParamIsWhatChiCut(t *testing.T) {
	t.Parallel()
	users := policies()
	recipe, err := middleware.HTTPConfig{Rules: users, Logger: ptr(zerolog.Nop())}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	tbl := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/users/{id}": users.Routes["GET /users/{id}"]}}
	guard, err := chiGuard(tbl, middleware.PipelineConfig{Logger: ptr(zerolog.Nop())}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, target string
		mw           func(http.Handler) http.Handler
		want         string
	}{
		{"recipe: PRECIS", "/users/MIKE", recipe, "MIKE mike"},
		{"recipe: escaped", "/users/%c3%a9%2Fx", recipe, ""}, // refused: an escape in a value (double_encoding)
		{"chiGuard: PRECIS", "/users/MIKE", guard, "mike mike"},
		{"chiGuard: escaped", "/users/%c3%a9%2Fx", guard, "é/x é/x"},
	} {
		r := chi.NewRouter()
		r.With(tc.mw).Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(chi.URLParam(r, "id") + " " + r.PathValue("id")))
		})
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", tc.target, nil))
		status := http.StatusOK
		if tc.want == "" {
			status = http.StatusBadRequest
		}
		if w.Code != status || status == http.StatusOK && w.Body.String() != tc.want {
			t.Errorf("%s: %d %q, want chi.URLParam, r.PathValue %q", tc.name, w.Code, w.Body.String(), tc.want)
		}
	}
}

// TestChiGuardBeforeRouting: with r.Use, chiGuard runs before chi routes,
// sees no pattern, and checks under the default policy; chi.URLParam is
// what chi cuts after it, raw where chi routed RawPath.
func TestChiGuardBeforeRouting(t *testing.T) {
	t.Parallel()
	var routes []string
	logger := zerolog.Nop()
	guard, err := chiGuard(rules.Strict(), middleware.PipelineConfig{Logger: &logger,
		Observe: func(_ *http.Request, o middleware.Observation) { routes = append(routes, o.Route) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(guard)
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(chi.URLParam(r, "id"))) })
	for _, tc := range []struct {
		target string
		status int
		want   string
	}{
		{"/users/%c3%a9", 200, "%c3%a9"},
		{"/users/%C0%AE", 400, ""},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", tc.target, nil))
		if w.Code != tc.status || tc.status == 200 && w.Body.String() != tc.want {
			t.Errorf("%s: %d %q, want %d %q", tc.target, w.Code, w.Body.String(), tc.status, tc.want)
		}
	}
	if len(routes) != 2 || routes[0] != "" || routes[1] != "" {
		t.Errorf("routes observed: %q, want the default's", routes)
	}
}

func ptr[T any](v T) *T { return &v }
