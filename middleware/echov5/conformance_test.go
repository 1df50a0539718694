package echov5_test

// The conformance kit (middleware/adaptertest) on the Echo v5 middleware,
// mounted each way Echo takes one: e.Use, e.Pre, a group and a route.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	emw "github.com/labstack/echo/v5/middleware"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/adaptertest"
	"github.com/utf8guard/utf8guard/middleware/echov5"
)

// TestConformance runs every row of the kit on each mount.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, tg := range targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			adaptertest.Run(t, tg)
		})
	}
}

// targets are the Echo v5 middleware mounted each way. On every mount,
// Echo's RequestID middleware runs first and sets an id of its own when
// the client sends none, c.RealIP takes the connection's address,
// Echo's HTTPErrorHandler writes the refusal, and the router hands on
// parameters cut from URL.RawPath raw.
func targets() []adaptertest.Target {
	common := []adaptertest.Difference{adaptertest.RawParams, adaptertest.OwnRequestID, adaptertest.NoNosniff}
	can := []adaptertest.Capability{adaptertest.PathParams, adaptertest.ParamsChecked, adaptertest.WholePath}
	var out []adaptertest.Target
	for _, mount := range []string{"e.Use", "e.Pre", "group", "route"} {
		tg := adaptertest.Target{
			Name:     "echov5/" + mount,
			Template: adaptertest.EchoTemplate,
			Serve:    func(t testing.TB, s adaptertest.Server) http.Handler { return serveConformance(t, s, mount) },
			Can:      can,
			Differs:  common,
		}
		if mount == "e.Pre" {
			// Before routing: a rewrite can move the request to another
			// route; Echo routes again after e.Pre and cuts the
			// parameters from the path, raw where %2F keeps RawPath.
			tg.Can = append(can, adaptertest.Reroute)
			tg.Differs = append(common, adaptertest.ParamsCutAfter, adaptertest.SlashKeepsRawPath)
		}
		out = append(out, tg)
	}
	return out
}

// serveConformance builds an Echo v5 server with the middleware mounted as mount
// says, and a handler on every route that answers what it read through
// Echo's API.
func serveConformance(t testing.TB, s adaptertest.Server, mount string) http.Handler {
	t.Helper()
	mw, err := echov5.Config{Rules: s.Rules, Logger: s.Logger,
		OnReject: func(c *echo.Context, rj *middleware.Rejection) { s.OnReject(c.Request(), rj) }}.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	var routeMW []echo.MiddlewareFunc
	add := func(add func(method, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) echo.RouteInfo, prefix string) {
		for _, rt := range s.Routes {
			for _, method := range adaptertest.Methods() {
				add(method, strings.TrimPrefix(rt.Template, prefix), readsHandler(rt), routeMW...)
			}
		}
	}
	switch mount {
	case "e.Use":
		e.Use(emw.RequestID(), mw)
		add(e.Add, "")
	case "e.Pre":
		e.Pre(emw.RequestID(), mw)
		add(e.Add, "")
	case "group":
		e.Use(emw.RequestID())
		add(e.Group("/api", mw).Add, "/api")
	case "route":
		e.Use(emw.RequestID())
		routeMW = []echo.MiddlewareFunc{mw}
		add(e.Add, "")
	}
	return e
}

// readsHandler answers what it read of the request through Echo's API.
func readsHandler(rt adaptertest.Route) echo.HandlerFunc {
	return func(c *echo.Context) error {
		rd := &adaptertest.Reads{Params: map[string]string{}, First: map[string]string{}, Cookies: map[string]string{}}
		for i, p := range c.PathValues() {
			rd.Params[rt.Params[i]] = p.Value
		}
		rd.Query = c.QueryParams()
		for k := range rd.Query {
			rd.First[k] = c.QueryParam(k)
		}
		for _, ck := range c.Cookies() {
			rd.Cookies[ck.Name] = ck.Value
		}
		rd.ReadRequest(c.Request())
		return c.JSON(http.StatusOK, rd)
	}
}
