package utf8gin_test

// The conformance kit (middleware/adaptertest) on the Gin middleware,
// mounted each way Gin takes one: engine.Use, a group and a route. Gin
// runs every middleware after routing, so no mount can Reroute.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/adaptertest"
	utf8gin "github.com/utf8guard/utf8guard/middleware/gin"
)

func init() { gin.SetMode(gin.TestMode) } // no route listing on stdout

// TestConformance runs every row of the kit on each mount.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, tg := range targets() {
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

// targets are the Gin middleware mounted each way, on an engine with
// UseRawPath set, so that "%2F" stays within its segment as it does on a
// ServeMux (gin.New() routes the decoded path: TestEncodedSlash); and
// engine.Use once more on an engine that hands on raw parameter values
// (UnescapePathValues false), which the middleware decodes because
// Config.Engine says so (RawParams: in Monitor mode the handler gets them
// raw, as Gin alone hands them on). The first three answer refusals with
// DefaultErrorHandler, Gin's own JSON (FrameworkJSON: a charset, no final
// newline; NoNosniff), the last with HTTPErrorHandler, the net/http
// adapter's answer, octet for octet. engine.Use keeps
// Gin's default trusted proxies (every address), so that c.ClientIP()
// believes X-Forwarded-For; the others trust none.
func targets() []adaptertest.Target {
	can := []adaptertest.Capability{adaptertest.PathParams, adaptertest.ParamsChecked, adaptertest.WholePath}
	var out []adaptertest.Target
	for _, mount := range []string{"engine.Use", "group", "route", "raw values"} {
		tg := adaptertest.Target{
			Name:     "gin/" + mount,
			Template: GinTemplate,
			Serve:    func(t testing.TB, s adaptertest.Server) http.Handler { return serveConformance(t, s, mount) },
			Can:      can,
		}
		switch mount {
		case "engine.Use":
			tg.Differs = []adaptertest.Difference{adaptertest.ForwardedFor, adaptertest.FrameworkJSON, adaptertest.NoNosniff}
		case "raw values":
			tg.Differs = []adaptertest.Difference{adaptertest.RawParams}
		default:
			tg.Differs = []adaptertest.Difference{adaptertest.FrameworkJSON, adaptertest.NoNosniff}
		}
		out = append(out, tg)
	}
	return out
}

// GinTemplate maps a kit pattern to Gin's syntax: "{id}" is ":id", a last
// "{rest...}" is "*rest".
func GinTemplate(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "...}"):
			segs[i] = "*" + strings.TrimSuffix(strings.TrimPrefix(s, "{"), "...}")
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			segs[i] = ":" + strings.Trim(s, "{}")
		}
	}
	return strings.Join(segs, "/")
}

// serveConformance builds a Gin engine with the middleware mounted as
// mount says, and a handler on every route that answers what it read
// through Gin's API.
func serveConformance(t testing.TB, s adaptertest.Server, mount string) http.Handler {
	t.Helper()
	e := gin.New()
	e.UseRawPath = true
	e.UnescapePathValues = mount != "raw values"
	if mount != "engine.Use" {
		if err := e.SetTrustedProxies(nil); err != nil {
			t.Fatal(err)
		}
	}
	cfg := utf8gin.Config{Rules: s.Rules, Logger: s.Logger, Engine: e,
		OnReject: func(c *gin.Context, rj *middleware.Rejection) { s.OnReject(c.Request, rj) }}
	if mount == "raw values" {
		cfg.ErrorHandler = utf8gin.HTTPErrorHandler
	}
	mw, err := cfg.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	var routes gin.IRoutes = e
	prefix := ""
	var routeMW []gin.HandlerFunc
	switch mount {
	case "engine.Use", "raw values":
		e.Use(mw)
	case "group":
		routes, prefix = e.Group("/api", mw), "/api"
	case "route":
		routeMW = []gin.HandlerFunc{mw}
	}
	for _, rt := range s.Routes {
		for _, method := range adaptertest.Methods() {
			routes.Handle(method, strings.TrimPrefix(rt.Template, prefix), append(routeMW, readsHandler(rt))...)
		}
	}
	if err := utf8gin.CheckRoutes(e, s.Rules); err != nil {
		t.Fatal(err)
	}
	return e
}

// readsHandler answers what it read of the request through Gin's API:
// c.Param (a catch-all's value without the "/" Gin puts before it),
// c.QueryArray and c.Query for each key of the query (Gin has no call
// that lists them), and the cookies c.Request.Cookies() lists.
func readsHandler(rt adaptertest.Route) gin.HandlerFunc {
	return func(c *gin.Context) {
		rd := &adaptertest.Reads{Params: map[string]string{}, First: map[string]string{}, Cookies: map[string]string{}}
		for _, name := range rt.Params {
			v := c.Param(name)
			if strings.Contains(rt.Template, "*"+name) {
				v = strings.TrimPrefix(v, "/")
			}
			rd.Params[name] = v
		}
		rd.Query = map[string][]string{}
		for k := range c.Request.URL.Query() {
			rd.Query[k] = c.QueryArray(k)
			rd.First[k] = c.Query(k)
		}
		for _, ck := range c.Request.Cookies() {
			rd.Cookies[ck.Name] = ck.Value
		}
		rd.ReadRequest(c.Request)
		adaptertest.Reply(c.Writer, rd)
	}
}
