package rules

// Table maps routes to policies. A route is a key in the syntax of the
// router the table is given to, exactly as the route was registered: an
// Echo route template ("/users/:id", "/files/*"), a ServeMux pattern
// ("GET /users/{id}") or whatever HTTPConfig.Route names; a request whose
// route is not in Routes gets Default.
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

// AsMonitor returns a copy of t in which every policy, Default and each of
// Routes, is in Monitor mode (Policy.AsMonitor): what t would reject is
// logged and passed on unchanged, so a roll-out switches a whole table
// with one line. The copy shares no map or slice with t.
func (t Table) AsMonitor() Table {
	out := Table{Default: t.Default.AsMonitor()}
	if t.Routes != nil {
		out.Routes = make(map[string]Policy, len(t.Routes))
		for k, p := range t.Routes {
			out.Routes[k] = p.AsMonitor()
		}
	}
	return out
}
