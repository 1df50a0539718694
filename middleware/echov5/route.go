package echov5

import (
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/utf8guard/utf8guard/rules"
)

// preRouted is what the middleware found under e.Pre, before Echo routes.
type preRouted struct {
	// path and rawPath are the request's URL.Path and URL.RawPath as the
	// route was found on them: Echo routes the request elsewhere if the
	// check rewrites either.
	path, rawPath string
	// clearRaw says that an accepted request has its RawPath cleared, so
	// that Echo routes on the decoded path, as the route was found.
	clearRaw bool
}

// preRoute finds, under e.Pre, the route Echo will dispatch the request of
// c to once the middleware has run, and leaves it, its template and its
// parameters, on c. Echo's router matches URL.RawPath when it is set:
// "/%61dmin/x" matches no "/admin/:id" as sent. A request the middleware
// accepts in Enforce mode has RawPath cleared (clearRaw) where that moves
// no segment boundary (no "%2F"), and Echo then routes on the decoded
// URL.Path: so the route is the one the decoded path matches, when its
// policy enforces. Otherwise (its route checks nothing, or only monitors,
// and the request passes on as it came) Echo routes on RawPath, and so
// does the middleware.
func (m *guard) preRoute(c *echo.Context) preRouted {
	u := c.Request().URL
	raw := u.RawPath
	if raw == "" || !hasEncodedSlash(raw) {
		u.RawPath = ""
		route := m.find(c)
		u.RawPath = raw
		checks, mode := m.pl.Route(route)
		if enforce := checks && mode == rules.Enforce; raw == "" || enforce {
			return preRouted{path: u.Path, clearRaw: enforce}
		}
	}
	m.find(c)
	return preRouted{path: u.Path, rawPath: raw}
}

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

// hasEncodedSlash reports whether an escaped path holds "%2F" in either
// case: decoding it would move a segment boundary.
func hasEncodedSlash(raw string) bool {
	for {
		i := strings.IndexByte(raw, '%')
		if i < 0 || i+2 >= len(raw) {
			return false
		}
		if raw[i+1] == '2' && (raw[i+2] == 'f' || raw[i+2] == 'F') {
			return true
		}
		raw = raw[i+1:]
	}
}
