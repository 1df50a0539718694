package rules

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Live is a Ruleset that a running server can be given anew, without a
// restart: pass it as the Rules of an adapter (or of several), and call
// Set with the new rules, for instance when the policy file changed:
//
//	live, err := rules.NewLive(table)
//	e.Use(echov5.WithConfig(echov5.Config{Rules: live}))
//	...
//	// on SIGHUP:
//	if t, err := rules.LoadFile(path); err != nil {
//		log.Print(err) // the rules in force stay
//	} else if err := live.Set(t); err != nil {
//		log.Print(err) // the rules in force stay
//	}
//
// An adapter built on a Live checks each request by the rules in force
// when the request came, from start to end: by the old rules or by the new
// ones, never by some of each.
type Live struct {
	cur atomic.Pointer[Table]

	mu       sync.Mutex // held by Set, Require and Watch
	checks   []func(Table) error
	watchers []func(Table)
}

// NewLive returns live rules that start as rs, or the error that makes rs
// invalid (Table.Validate).
func NewLive(rs Ruleset) (*Live, error) {
	t, err := validRuleset(rs)
	if err != nil {
		return nil, err
	}
	l := &Live{}
	l.cur.Store(&t)
	return l, nil
}

// Table returns the rules in force.
func (l *Live) Table() Table { return *l.cur.Load() }

func (*Live) ruleset() {}

// Set makes rs the rules in force, once they pass every check: they must
// be valid (Table.Validate), and pass the checks the adapters built on l
// added (Require): the syntax of their routers' keys, and that every key
// names a registered route once the adapters know their routes. On an
// error the rules in force stay, and the error says why. Set returns once
// every adapter built on l checks new requests by rs.
func (l *Live) Set(rs Ruleset) error {
	if live, ok := rs.(*Live); ok {
		rs = live.Table()
	}
	t, err := validRuleset(rs)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, check := range l.checks {
		if err := check(t); err != nil {
			return err
		}
	}
	l.cur.Store(&t)
	for _, w := range l.watchers {
		w(t)
	}
	return nil
}

// Require adds a check that Set makes of new rules from now on, which the
// rules in force pass already. It is for adapters: the syntax of their
// routers' keys, the routes registered on their routers.
func (l *Live) Require(check func(Table) error) {
	l.mu.Lock()
	l.checks = append(l.checks, check)
	l.mu.Unlock()
}

// Watch calls f with the rules in force now, and then with new rules
// each time Set takes them, before Set returns. It is for adapters, which
// compile the rules they check requests by.
func (l *Live) Watch(f func(Table)) {
	l.mu.Lock()
	f(l.Table())
	l.watchers = append(l.watchers, f)
	l.mu.Unlock()
}

// validRuleset returns the table of rs, or the first mistake in it: a
// policy alone is validated as a policy, so that its errors name no
// route.
func validRuleset(rs Ruleset) (Table, error) {
	switch v := rs.(type) {
	case nil:
		return Table{Default: Default()}, nil
	case Policy:
		return v.Table(), v.Validate()
	case *Policy:
		if v == nil {
			return Table{}, errNilRuleset
		}
		return v.Table(), v.Validate()
	case *Table:
		if v == nil {
			return Table{}, errNilRuleset
		}
	}
	t := rs.Table()
	return t, t.Validate()
}

// errNilRuleset is the error of a nil *Policy or *Table.
var errNilRuleset = errors.New("rules: the ruleset is a nil pointer")
