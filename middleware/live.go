package middleware

import (
	"net/http"
	"sync/atomic"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/rules"
)

// Changing the rules of a running server (rules.Live): a pipeline reads
// its compiled policies through one atomic pointer, loaded once per
// request, so that a request is checked from start to end by one table,
// the old or the new.

// policies is a compiled policy table.
type policies struct {
	table  rules.Table
	def    *compiled.Policy
	routes map[string]*compiled.Policy
	// byMethod holds the keys that are ServeMux patterns with a method,
	// by the rest of the key and then the method: the keys a pattern
	// without a method (chi's, or a ServeMux pattern for every method)
	// meets through the request's method (lookupMux). Nil when no key has
	// a method.
	byMethod map[string]map[string]*compiled.Policy
}

// compileTable compiles t, which is valid.
func compileTable(t rules.Table) *policies {
	ps := &policies{table: t, def: compiled.Compile(t.Default)}
	if len(t.Routes) == 0 {
		return ps
	}
	ps.routes = make(map[string]*compiled.Policy, len(t.Routes))
	for k, p := range t.Routes {
		cp := compiled.Compile(p)
		ps.routes[k] = cp
		m, rest := cutMethod(k)
		if m == "" {
			continue
		}
		if ps.byMethod == nil {
			ps.byMethod = make(map[string]map[string]*compiled.Policy)
		}
		if ps.byMethod[rest] == nil {
			ps.byMethod[rest] = make(map[string]*compiled.Policy)
		}
		ps.byMethod[rest][m] = cp
	}
	return ps
}

// lookup returns the policy of route, a key of the table exactly, or the
// default.
func (ps *policies) lookup(route string) *compiled.Policy {
	if p, ok := ps.routes[route]; ok {
		return p
	}
	return ps.def
}

// lookupMux returns the policy of a request of method routed by pattern,
// as CheckMuxRoutes matches keys: the key of its pattern and method
// first, then the key of its pattern for every method, then the default.
func (ps *policies) lookupMux(pattern, method string) *compiled.Policy {
	m, rest := cutMethod(pattern)
	if m == "" && ps.byMethod != nil {
		if ms, ok := ps.byMethod[pattern]; ok {
			if p, ok := ms[method]; ok {
				return p
			}
			if p, ok := ms[http.MethodGet]; ok && method == http.MethodHead {
				return p
			}
		}
	}
	if p, ok := ps.routes[pattern]; ok {
		return p
	}
	if m != "" {
		if p, ok := ps.routes[rest]; ok {
			return p
		}
	}
	return ps.def
}

// livePolicies returns the compiled rules of live, kept current: live
// calls back with each new table it takes (rules.Live.Set), and the
// pipeline loads the result once per request.
func livePolicies(live *rules.Live) *atomic.Pointer[policies] {
	var cur atomic.Pointer[policies]
	live.Watch(func(t rules.Table) { cur.Store(compileTable(t)) })
	return &cur
}
