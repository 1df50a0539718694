package rules

// A Ruleset is what a middleware is configured with: a Policy, which
// applies to every route, or a Table, which chooses a policy per route.
// Only those two types implement it, so one configuration field holds
// either, and a policy and a table can never both be set.
type Ruleset interface {
	// Table returns the ruleset as a table: a Policy is the Default of a
	// table that names no route.
	Table() Table
	ruleset()
}

// Table returns a table whose Default is p and which names no route.
func (p Policy) Table() Table { return Table{Default: p} }

// Table returns t.
func (t Table) Table() Table { return t }

func (Policy) ruleset() {}
func (Table) ruleset()  {}
