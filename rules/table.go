package rules

// Table maps routes to policies. A route is an Echo route template exactly
// as it was registered ("/users/:id", "/files/*"); a request whose route is
// not in Routes gets Default. With net/http, where there are no templates,
// the route is the ServeMux pattern or whatever the adapter is told.
type Table struct {
	// Default is the policy of every route not in Routes.
	Default Policy
	// Routes holds the policies of particular routes.
	Routes map[string]Policy
}

// Lookup returns the policy for route and whether Routes holds it.
func (t *Table) Lookup(route string) (Policy, bool) {
	if p, ok := t.Routes[route]; ok {
		return p, true
	}
	return t.Default, false
}
