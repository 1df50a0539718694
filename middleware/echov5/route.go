package echov5

import (
	"github.com/labstack/echo/v5"
)

// find routes c with Echo's router, as Echo will after e.Pre, and returns
// the route template found ("" for none). Router.Route sets the template,
// the parameters and the request's Pattern on c, all of which Echo sets
// again when it routes; it also records the methods a path allows when it
// matches the path but not the method, which find takes back, so that a
// request routed here first and rewritten after is not left with the
// first path's Allow.
func (m *guard) find(c *echo.Context) string {
	allow := c.Get(echo.ContextKeyHeaderAllow)
	c.Echo().Router().Route(c)
	if c.Get(echo.ContextKeyHeaderAllow) != allow {
		c.Set(echo.ContextKeyHeaderAllow, allow)
	}
	return c.Path()
}
