package rules_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

func TestTableLookup(t *testing.T) {
	t.Parallel()
	strict, open := rules.Strict(), rules.Unchecked()
	table := &rules.Table{
		Default: rules.Default(),
		Routes: map[string]rules.Policy{
			"/users/:id": strict,
			"/files/*":   open,
		},
	}
	tests := []struct {
		route  string
		want   rules.Policy
		wantOK bool
	}{
		{"/users/:id", strict, true},
		{"/files/*", open, true},
		// Routes are templates, matched exactly: no pattern matching.
		{"/users/42", rules.Default(), false},
		{"/files/a/b", rules.Default(), false},
		{"/users/:id/", rules.Default(), false},
		{"/USERS/:id", rules.Default(), false},
		{"", rules.Default(), false},
	}
	for _, tt := range tests {
		got, ok := table.Lookup(tt.route)
		if ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", tt.route, got, ok, tt.want, tt.wantOK)
		}
	}

	// A Table without routes gives its default.
	var empty rules.Table
	if got, ok := empty.Lookup("/x"); ok || !reflect.DeepEqual(got, rules.Policy{}) {
		t.Errorf("zero Table: Lookup = %+v, %v; want the zero Policy, false", got, ok)
	}
}

// TestRuleset: a Policy is a table without routes; a Table is itself.
func TestRuleset(t *testing.T) {
	p := rules.Strict()
	got := p.Table()
	if len(got.Routes) != 0 || !reflect.DeepEqual(got.Default, p) {
		t.Errorf("Policy.Table() = %+v", got)
	}
	tb := rules.Table{Default: rules.Default(), Routes: map[string]rules.Policy{"/x": rules.Unchecked()}}
	var rs rules.Ruleset = tb
	if got := rs.Table(); !reflect.DeepEqual(got, tb) {
		t.Errorf("Table.Table() = %+v", got)
	}
	rs = &p // a *Policy is a Ruleset too
	if got := rs.Table(); !reflect.DeepEqual(got.Default, p) {
		t.Errorf("(*Policy).Table() = %+v", got)
	}
}

// TestTableAsMonitorIsADeepCopy: every policy of the copy monitors, and
// editing the copy leaves the table as it was.
func TestTableAsMonitorIsADeepCopy(t *testing.T) {
	t.Parallel()
	users := rules.Strict()
	users.Header.On, users.Headers = true, []string{"User-Agent"}
	tbl := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/users/:id": users, "/open/*": rules.Unchecked()}}
	m := tbl.AsMonitor()
	if m.Default.Mode != rules.Monitor || len(m.Routes) != 2 {
		t.Fatalf("AsMonitor() = %+v", m)
	}
	for k, p := range m.Routes {
		if p.Mode != rules.Monitor {
			t.Errorf("route %q: mode %v", k, p.Mode)
		}
	}
	m.Routes["/users/:id"].Headers[0] = "X-Changed"
	m.Routes["/new"] = rules.Strict()
	if tbl.Routes["/users/:id"].Headers[0] != "User-Agent" || len(tbl.Routes) != 2 || tbl.Routes["/users/:id"].Mode != rules.Enforce {
		t.Errorf("AsMonitor shares state with the table: %+v", tbl)
	}
	if z := (rules.Table{}).AsMonitor(); z.Routes != nil || z.Default.Mode != rules.Monitor {
		t.Errorf("zero Table: %+v", z)
	}
}

func ExampleTable_AsMonitor() {
	table := rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/users/:id": rules.Strict(), "/open/*": rules.Unchecked()},
	}
	rollout := table.AsMonitor() // log what would be rejected; reject nothing
	fmt.Println(rollout.Default.Mode, rollout.Routes["/users/:id"].Mode, table.Routes["/users/:id"].Mode)
	// Output: monitor monitor enforce
}
