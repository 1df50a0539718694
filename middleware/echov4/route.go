package echov4

import (
	"github.com/labstack/echo/v4"
)

// finder returns the function that routes c's request as Echo does after
// e.Pre, on its URL as it stands, and returns the route template.
func finder(c echo.Context) func() string {
	return func() string {
		r := c.Request()
		findRoute(routerFor(c.Echo(), r.Host), r.Method, echo.GetPath(r), c)
		return c.Path()
	}
}

// findRoute routes path on c as Echo does after e.Pre, from the state
// Context.Reset leaves: Router.Find does not touch the context when
// nothing matches, so a route found before for another path would stay,
// and Echo's own Find after e.Pre would dispatch to it. Find also records
// the methods a path allows when it matches the path but not the method;
// findRoute takes that back, so that a request routed here first and
// rewritten after is not left with the first path's Allow.
func findRoute(rt *echo.Router, method, path string, c echo.Context) {
	c.SetHandler(echo.NotFoundHandler)
	c.SetPath("")
	c.SetParamNames()
	allow := c.Get(echo.ContextKeyHeaderAllow)
	rt.Find(method, path, c)
	if c.Get(echo.ContextKeyHeaderAllow) != allow {
		c.Set(echo.ContextKeyHeaderAllow, allow)
	}
}

// routerFor returns the router Echo uses for host, as Echo.ServeHTTP
// chooses it: the host's own (Echo.Host) or the default one.
func routerFor(e *echo.Echo, host string) *echo.Router {
	if rs := e.Routers(); len(rs) > 0 {
		if rt, ok := rs[host]; ok {
			return rt
		}
	}
	return e.Router()
}
