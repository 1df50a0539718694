package echov4

import (
	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// CheckRoutes returns an error if rs is not a valid configuration for the
// middleware (Config.ToMiddleware's error), or a
// *middleware.UnknownRoutesError if a key of its table names no route
// registered on e (on its default router or a host's, Echo.Host): call it
// at start-up, after registering the routes, with the Rules given to the
// middleware, and refuse to start on an error.
//
//	if err := echov4.CheckRoutes(e, cfg.Rules); err != nil {
//		log.Fatal(err)
//	}
//
// A key is an Echo route template exactly as registered ("/users/:id",
// "/files/*"); a table's keys must each name one. Without this call the
// middleware makes the same comparison at its first request and logs one
// error-level line per unknown key, once; requests still get the default
// policy then. CheckRoutes also holds the default policy's PRECIS path
// fields to the routes it applies to (middleware.CheckTableRoutes).
func CheckRoutes(e *echo.Echo, rs rules.Ruleset) error {
	if err := middleware.ValidateRules(rs); err != nil {
		return err
	}
	if err := middleware.ValidateEchoRoutes(rs); err != nil {
		return err
	}
	return middleware.CheckTableRoutes(rs, routePaths(e))
}

// routePaths returns the templates of every route registered on e.
func routePaths(e *echo.Echo) []string {
	var out []string
	for _, r := range e.Router().Routes() {
		out = append(out, r.Path)
	}
	for _, rt := range e.Routers() {
		for _, r := range rt.Routes() {
			out = append(out, r.Path)
		}
	}
	return out
}

// checkRoutes compares, at the first request the middleware sees, the
// table's keys with the routes registered on c's Echo instance, and logs
// one error-level line per key that names none. It costs one atomic load
// on every later request.
func (m *guard) checkRoutes(c echo.Context) {
	if !m.pl.RoutesChecked() {
		m.pl.ReportRoutes(c.Request(), routePaths(c.Echo()))
	}
}
