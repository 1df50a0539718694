package middleware

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
)

// A key of a policy table that names no route is a silent bypass: its
// requests get the table's Default. "/monitr/*" for "/monitor/*" turns a
// monitor roll-out into enforce; "/proxy" for "/proxy/*" checks what was
// meant to pass. The routes are usually registered after the middleware is
// made, so the Echo adapters compare the keys with the registered routes
// at the first request (one error-level log line per unknown key, once),
// and CheckRoutes makes the same comparison at start-up, as an error.

// UnknownRoutesError is the error of CheckRoutes and CheckTableRoutes:
// keys of a policy table that name no registered route.
type UnknownRoutesError struct {
	// Keys are the keys that name no route, sorted.
	Keys []string
	// Near holds, for a key that resembles a registered route (a typo, a
	// missing "/*"), that route.
	Near map[string]string
}

// Error returns a message such as
//
//	utf8guard: the policy table's route "/monitr/*" names no registered route (did you mean "/monitor/*"?): its requests would get the default policy
func (e *UnknownRoutesError) Error() string {
	var b strings.Builder
	b.WriteString("utf8guard: the policy table's route")
	if len(e.Keys) > 1 {
		b.WriteString("s")
	}
	for i, k := range e.Keys {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + strconv.Quote(k))
		if near, ok := e.Near[k]; ok {
			b.WriteString(" (did you mean " + strconv.Quote(near) + "?)")
		}
	}
	if len(e.Keys) > 1 {
		b.WriteString(" name no registered route: their requests would get the default policy")
	} else {
		b.WriteString(" names no registered route: its requests would get the default policy")
	}
	return b.String()
}

// CheckTableRoutes compares the keys of rs's table with registered, the
// route templates a router has, and returns an *UnknownRoutesError that
// names every key that is none of them. It then holds the PRECIS path
// fields of the default policy to the registered routes that no key
// names, the routes it applies to: a field that is a parameter of none of
// them is a *rules.ValidationError (rules.Policy.CheckPathFields), as a
// route's own field that is no parameter of its key is one at
// rules.Table.Validate. echov4.CheckRoutes and echov5.CheckRoutes call it; an
// adapter for another router whose keys are its templates can too.
//
// Where rs is a *rules.Live that passes, its Set holds new rules to the
// same routes from then on.
func CheckTableRoutes(rs rules.Ruleset, registered []string) error {
	return checkLiveRoutes(rs, registered, exactRoutes)
}

// checkLiveRoutes is checkTableRoutes, which a *rules.Live that passes it
// makes again of every new table (rules.Live.Require).
func checkLiveRoutes(rs rules.Ruleset, registered []string, m routeMatch) error {
	if err := checkTableRoutes(rs, registered, m); err != nil {
		return err
	}
	if live, ok := rs.(*rules.Live); ok {
		registered = slices.Clone(registered)
		live.Require(func(t rules.Table) error { return checkTableRoutes(t, registered, m) })
	}
	return nil
}

// routeMatch says how the keys of a table meet a router's routes.
type routeMatch struct {
	// names reports whether the key k names the registered route r: k is
	// no typo while it names one.
	names func(k, r string) bool
	// covers reports whether every request of the route r gets k's policy:
	// r gets the default policy while no key covers it.
	covers func(k, r string) bool
}

// exactRoutes is the match of route templates: a key is the template.
var exactRoutes = routeMatch{
	names:  func(k, r string) bool { return k == r },
	covers: func(k, r string) bool { return k == r },
}

func checkTableRoutes(rs rules.Ruleset, registered []string, m routeMatch) error {
	t, err := tableOf(rs)
	if err != nil {
		return err
	}
	keys := sortedKeys(t.Routes)
	if err := unknownRoutes(keys, registered, m.names); err != nil {
		return err
	}
	var defaulted []string
	for _, r := range registered {
		if !slices.Contains(defaulted, r) && !slices.ContainsFunc(keys, func(k string) bool { return m.covers(k, r) }) {
			defaulted = append(defaulted, r)
		}
	}
	if err := t.Default.CheckPathFields(defaulted); err != nil {
		if ve, ok := err.(*rules.ValidationError); ok && !isPolicy(rs) {
			ve.Default = true
		}
		return err
	}
	return nil
}

// isPolicy reports whether rs is a policy alone, whose errors name no
// default.
func isPolicy(rs rules.Ruleset) bool {
	switch rs.(type) {
	case rules.Policy, *rules.Policy:
		return true
	}
	return false
}

func unknownRoutes(keys, registered []string, names func(k, r string) bool) error {
	var e *UnknownRoutesError
	for _, k := range keys {
		if slices.ContainsFunc(registered, func(r string) bool { return names(k, r) }) {
			continue
		}
		if e == nil {
			e = &UnknownRoutesError{Near: map[string]string{}}
		}
		e.Keys = append(e.Keys, k)
		if near := nearest(k, registered); near != "" {
			e.Near[k] = near
		}
	}
	if e == nil {
		return nil
	}
	return e
}

// nearest returns the registered route closest to k by edit distance,
// if it is close enough to be what k meant (at most 3 edits, and at
// most a third of k's length), or "".
func nearest(k string, registered []string) string {
	maxD := min(3, max(1, len(k)/3))
	best, bestD := "", maxD+1
	for _, r := range registered {
		if d := editDistance(k, r, maxD+1); d < bestD || d == bestD && r < best {
			best, bestD = r, d
		}
	}
	if bestD > maxD {
		return ""
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b in octets, or
// some value >= limit when it is at least limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// routeCheck is the state of the first request's comparison of a table's
// keys with the router's routes.
type routeCheck struct{ done atomic.Bool }

// RoutesChecked reports whether the pipeline has compared its table's
// keys with the router's routes (ReportRoutes), or has no keys to
// compare: an adapter calls ReportRoutes at its first request, while it
// is false.
func (pl *Pipeline) RoutesChecked() bool {
	return pl.g.policies().routes == nil && pl.g.live == nil || pl.g.checked.done.Load()
}

// ReportRoutes compares the table's keys with registered, the route
// templates of the router the adapter serves, and logs one error-level
// line for each key that names none of them (log fields route and, where
// a registered route resembles the key, did_you_mean), through the
// logger of r's context or the configured one. Only its first call does
// anything: an adapter calls it at its first request, as the Echo adapters
// do, when the routes are registered.
func (pl *Pipeline) ReportRoutes(r *http.Request, registered []string) {
	pl.g.reportRoutes(r, registered)
}

func (g *guard) reportRoutes(r *http.Request, registered []string) {
	if !g.checked.done.CompareAndSwap(false, true) {
		return
	}
	// rules.Live.Set holds new keys to the routes.
	g.require(func(rs rules.Ruleset) error { return checkTableRoutes(rs, registered, exactRoutes) })
	routes := g.policies().routes
	if routes == nil {
		return
	}
	keys := make([]string, 0, len(routes))
	for k := range routes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e, _ := unknownRoutes(keys, registered, exactRoutes.names).(*UnknownRoutesError)
	if e == nil {
		return
	}
	l := g.loggerFor(r.Context())
	for _, k := range e.Keys {
		ev := l.Error().Str("route", finding.SafeField(k))
		if near, ok := e.Near[k]; ok {
			ev = ev.Str("did_you_mean", finding.SafeField(near))
		}
		ev.Msg("utf8guard: a route of the policy table names no registered route: its requests get the default policy; fix the key (CheckRoutes at start-up finds this)")
	}
}
