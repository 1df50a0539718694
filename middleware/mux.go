package middleware

import (
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// The net/http adapter's keys are ServeMux patterns, "[METHOD ][HOST]/PATH",
// and a request's route is the pattern its router matched
// (Request.Pattern). A ServeMux reports the pattern as registered, method
// included ("GET /users/{id}"); chi reports its route pattern, which
// carries no method ("/users/{id}"). So that one table means the same on
// both, a key meets a pattern as the ServeMux grammar reads them: a key
// without a method holds for every method of its path, a key with one for
// that method (GET for HEAD too, as a ServeMux routes HEAD to GET
// patterns), and the most specific key wins.

// CheckMuxRoutes returns an error if rs is not a valid configuration for
// the net/http adapter with its keys matched against Request.Pattern
// (HTTPConfig.ToHandler's error when Route is nil), or an
// *UnknownRoutesError if a key of its table names none of patterns, the
// routes the program registers, in the ServeMux pattern grammar: call it at
// start-up, after registering the routes, and refuse to start on an
// error.
//
// With a ServeMux, patterns are the patterns the program passes to
// Handle and HandleFunc. With chi, they are what chi.Walk reports, each
// with its method: method + " " + route ("GET /users/{id}"). A key names a
// pattern of the same path (host included) when either has no method or
// both have the same one: "/users/{id}" names "GET /users/{id}", and
// "GET /users/{id}" names "/users/{id}" (the GET requests of a route of
// every method) and "GET /users/{id}" but not "POST /users/{id}". The
// adapter applies the keys to requests by the same rule.
//
// CheckMuxRoutes also holds the default policy's PRECIS path fields to the
// patterns no key covers: a field that is a parameter of none of them is
// a *rules.ValidationError (rules.Policy.CheckPathFields). Where rs is a
// *rules.Live that passes, its Set holds new rules to the same patterns
// from then on.
func CheckMuxRoutes(rs rules.Ruleset, patterns []string) error {
	if _, err := validateRules(rs); err != nil {
		return err
	}
	if err := validateMuxPatterns(rs); err != nil {
		return err
	}
	return checkLiveRoutes(rs, patterns, muxRoutes)
}

// muxRoutes is the match of ServeMux patterns (see above).
var muxRoutes = routeMatch{
	names: func(k, r string) bool {
		km, kp := cutMethod(k)
		rm, rp := cutMethod(r)
		return kp == rp && (km == "" || rm == "" || km == rm || km == http.MethodGet && rm == http.MethodHead)
	},
	covers: func(k, r string) bool {
		km, kp := cutMethod(k)
		_, rp := cutMethod(r)
		return k == r || km == "" && kp == rp
	},
}

// cutMethod splits a ServeMux pattern into its method ("" for none) and
// the rest, [HOST]/PATH.
func cutMethod(pattern string) (method, rest string) {
	i := strings.IndexAny(pattern, " \t")
	if i <= 0 || strings.Contains(pattern[:i], "/") {
		return "", pattern
	}
	return pattern[:i], strings.TrimLeft(pattern[i:], " \t")
}
