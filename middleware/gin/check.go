package utf8gin

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// CheckRoutes returns an error if rs is not a valid configuration for the
// middleware (Config.ToMiddleware's error), or a
// *middleware.UnknownRoutesError if a key of its table names no route
// registered on engine: call it at start-up, after registering the
// routes, with the Rules given to the middleware, and refuse to start on
// an error.
//
//	if err := utf8gin.CheckRoutes(engine, cfg.Rules); err != nil {
//		log.Fatal(err)
//	}
//
// A key is a Gin route template exactly as engine.Routes() gives it
// ("/users/:id", "/files/*path"), for every method; a table's keys must
// each name one. CheckRoutes also holds the default policy's PRECIS path
// fields to the routes it applies to (middleware.CheckTableRoutes), where
// a catch-all's parameter has its name ("/files/*path": "path"). Without this call, a middleware
// whose Config.Engine is set makes the same comparison at its first
// request and logs one error-level line per unknown key, once; requests
// still get the default policy then.
func CheckRoutes(engine *gin.Engine, rs rules.Ruleset) error {
	if err := middleware.ValidateRules(rs); err != nil {
		return err
	}
	if err := validateKeys(rs); err != nil {
		return err
	}
	return middleware.CheckTableRoutes(rs, routePaths(engine))
}

// routePaths returns the templates of every route registered on engine,
// each once, sorted.
func routePaths(engine *gin.Engine) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range engine.Routes() {
		if !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	sort.Strings(out)
	return out
}

// checkRoutes compares, at the first request the middleware sees, the
// table's keys with the routes registered on Config.Engine, and logs one
// error-level line per key that names none (middleware.Pipeline's
// ReportRoutes). It costs one atomic load on every later request, and
// nothing without an Engine.
func (m *guard) checkRoutes(c *gin.Context) {
	if m.engine != nil && !m.pl.RoutesChecked() {
		m.pl.ReportRoutes(c.Request, routePaths(m.engine))
	}
}

// validateKeys returns a *rules.ValidationError for the first key of rs's
// table, in sorted order, that cannot be a Gin route template: one that
// does not start with "/" (Gin panics on such a route), one with a
// ServeMux method ("GET /users": Gin's templates hold no method), or one
// in the syntax of net/http or chi ("/users/{id}", which Gin takes
// literally).
func validateKeys(rs rules.Ruleset) error {
	if rs == nil {
		return nil
	}
	var t rules.Table
	switch v := rs.(type) {
	case rules.Table:
		t = v
	case *rules.Table:
		if v == nil {
			return nil // NewPipeline refuses it
		}
		t = *v
	case *rules.Live:
		t = v.Table() // NewPipeline holds the tables Set gives to this too
	default:
		return nil // a policy: no keys
	}
	keys := make([]string, 0, len(t.Routes))
	for k := range t.Routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if msg := keyProblem(k); msg != "" {
			return &rules.ValidationError{Route: k, InRoutes: true, Err: errors.New(msg)}
		}
	}
	return nil
}

// keyProblem returns why k cannot be a Gin route template, or "".
func keyProblem(k string) string {
	if m, path, ok := strings.Cut(k, " "); ok && m != "" && strings.HasPrefix(path, "/") && strings.ToUpper(m) == m {
		return `a ServeMux method prefix is no part of a Gin route template: the key is the path alone, "` + path + `", for every method`
	}
	if k == "" || k[0] != '/' {
		return `a Gin route template starts with "/"`
	}
	for seg := range strings.SplitSeq(k, "/") {
		if strings.Contains(seg, "{") || strings.Contains(seg, "}") {
			name := strings.Trim(seg, "{}.$")
			return strconv.Quote(seg) + ` is another router's syntax (net/http, chi); Gin names a parameter ":` + name + `" and matches the rest of a path with "*` + name + `"`
		}
	}
	return ""
}
