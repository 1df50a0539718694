package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Config says what Run replays recordings through.
type Config struct {
	// Policy is the policy under test; PolicyName is what the report
	// calls it (its file's name).
	Policy     rules.Ruleset
	PolicyName string
	// Against, when not nil, is the policy Policy is compared with (the
	// one deployed): the report then says which requests Policy refuses
	// and Against does not, and the reverse. AgainstName is what the
	// report calls it.
	Against     rules.Ruleset
	AgainstName string
	// Router routes the requests as the service does, so that each gets
	// its route's policy.
	Router Router
	// MaxErrors bounds the read errors the report keeps (it counts them
	// all). Zero means 100.
	MaxErrors int
}

// Report is what Run found: how many requests the policy refuses and
// flags, grouped by route, location, reason and class, with one example
// each; and, with Config.Against, the difference between the two
// policies, grouped the same way.
type Report struct {
	Policy  string   `json:"policy"`
	Against string   `json:"against,omitempty"`
	Files   []string `json:"files"`
	// Requests is the number of requests replayed; Unreadable the number
	// of those the recordings could not give whole (Errors says why),
	// which were not replayed.
	Requests   int      `json:"requests"`
	Unreadable int      `json:"unreadable"`
	Errors     []string `json:"errors,omitempty"`
	// Refused are the requests Policy refuses (Enforce), Flagged those
	// it flags and passes on (Monitor).
	Refused []Group `json:"refused"`
	Flagged []Group `json:"flagged"`
	// With Against: AgainstRefused is the number of requests it refuses;
	// NewlyRefused are the requests Policy refuses and Against does not,
	// grouped by Policy's rejection; NoLongerRefused those Against
	// refuses and Policy does not, grouped by Against's rejection.
	AgainstRefused  int     `json:"against_refused,omitempty"`
	NewlyRefused    []Group `json:"newly_refused,omitempty"`
	NoLongerRefused []Group `json:"no_longer_refused,omitempty"`
}

// Group is the requests refused (or flagged) for one kind of rejection on
// one route.
type Group struct {
	Route    string `json:"route"`
	Location string `json:"location"`
	Reason   string `json:"reason"`
	// Class is the character class matched, for forbidden_char.
	Class string `json:"class,omitempty"`
	Count int    `json:"count"`
	// Example is the first request of the group.
	Example Example `json:"example"`
}

// Example is one request of a Group, as the report shows it: never a raw
// octet of the request outside printable ASCII (URL, Field and Sample
// hex-escape the others as \xNN, as the rejection log does).
type Example struct {
	Source string    `json:"source"`
	Time   time.Time `json:"time,omitzero"`
	Method string    `json:"method"`
	// URL is the request target (path and query) as sent, its path cut
	// to MaxPath octets and its query to MaxQuery ("..." marks a cut).
	URL    string `json:"url"`
	Field  string `json:"field"`
	Offset int    `json:"offset"`
	Sample string `json:"sample"`
	Status int    `json:"status"`
}

// MaxQuery and MaxPath are the numbers of octets of an example's query
// and path that a report keeps.
const (
	MaxQuery = 200
	MaxPath  = 100
)

// groupKey identifies a Group.
type groupKey struct{ route, location, reason, class string }

func keyOf(rj *middleware.Rejection) groupKey {
	k := groupKey{route: rj.Route, location: rj.Location.String(), reason: rj.Reason.String()}
	if rj.Reason == sanitize.ForbiddenChar {
		k.class = rj.Class.String()
	}
	return k
}

// groups accumulates Groups in the order their keys are first met.
type groups map[groupKey]*Group

func (g groups) add(k groupKey, ex Example) {
	if gr := g[k]; gr != nil {
		gr.Count++
		return
	}
	g[k] = &Group{Route: k.route, Location: k.location, Reason: k.reason, Class: k.class, Count: 1, Example: ex}
}

// sorted returns the groups, most requests first, then by route,
// location, reason and class; never nil.
func (g groups) sorted() []Group {
	out := make([]Group, 0, len(g))
	for _, gr := range g {
		out = append(out, *gr)
	}
	slices.SortFunc(out, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Route, b.Route),
			cmp.Compare(a.Location, b.Location), cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Class, b.Class))
	})
	return out
}

// Run replays the requests of the recordings (files Open reads) through
// cfg.Policy, and through cfg.Against when it is set, and reports what
// they refuse and flag. Each file is read once per policy, so that no
// body is held: with Against, twice. A request a recording cannot give
// whole is counted as unreadable, never replayed; an error of Run itself
// (a policy the router refuses, a file that cannot be opened) ends it.
func Run(cfg Config, recordings ...string) (*Report, error) {
	if cfg.Policy == nil {
		return nil, errors.New("replay: Config.Policy is nil")
	}
	if len(recordings) == 0 {
		return nil, errors.New("replay: no recording to replay")
	}
	rp, err := New(cfg.Policy, cfg.Router)
	if err != nil {
		return nil, err
	}
	var old *Replayer
	if cfg.Against != nil {
		if old, err = New(cfg.Against, cfg.Router); err != nil {
			return nil, err
		}
	}
	maxErrors := cfg.MaxErrors
	if maxErrors <= 0 {
		maxErrors = 100
	}
	rep := &Report{Policy: cfg.PolicyName, Against: cfg.AgainstName, Files: recordings}
	refused, flagged := groups{}, groups{}
	// The requests Policy refuses, by their index in the recordings, for
	// the second pass to compare with.
	type refusal struct {
		key groupKey
		ex  Example
	}
	byIndex := map[int]refusal{}
	err = replayAll(recordings, rp, func(i int, req *Request, o Outcome, rerr error) {
		if rerr != nil {
			rep.Unreadable++
			if len(rep.Errors) < maxErrors {
				rep.Errors = append(rep.Errors, rerr.Error())
			}
			return
		}
		rep.Requests++
		if o.Rejection == nil {
			return
		}
		k, ex := keyOf(o.Rejection), example(req, o)
		switch {
		case o.Refused():
			refused.add(k, ex)
			byIndex[i] = refusal{k, ex}
		case o.Flagged():
			flagged.add(k, ex)
		}
	})
	if err != nil {
		return nil, err
	}
	rep.Refused, rep.Flagged = refused.sorted(), flagged.sorted()
	if old == nil {
		return rep, nil
	}
	newly, noLonger := groups{}, groups{}
	err = replayAll(recordings, old, func(i int, req *Request, o Outcome, rerr error) {
		if rerr != nil {
			return // counted in the first pass
		}
		nr, isNew := byIndex[i]
		if o.Refused() {
			rep.AgainstRefused++
			if !isNew {
				noLonger.add(keyOf(o.Rejection), example(req, o))
			}
		}
		if isNew {
			if !o.Refused() {
				newly.add(nr.key, nr.ex)
			}
			delete(byIndex, i)
		}
	})
	if err != nil {
		return nil, err
	}
	rep.NewlyRefused, rep.NoLongerRefused = newly.sorted(), noLonger.sorted()
	return rep, nil
}

// replayAll replays each request of the recordings through rp and calls
// fn with its index (counting unreadable requests too), the request and
// its outcome, or with the error that made it unreadable.
func replayAll(recordings []string, rp *Replayer, fn func(int, *Request, Outcome, error)) error {
	i := 0
	for _, name := range recordings {
		rec, err := Open(name)
		if err != nil {
			return err
		}
		for {
			req, err := rec.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				fn(i, nil, Outcome{}, err)
				i++
				continue
			}
			o := rp.Replay(req.HTTP)
			if err := req.Finish(); err != nil {
				fn(i, req, Outcome{}, err)
			} else {
				fn(i, req, o, nil)
			}
			i++
		}
		if err := rec.Close(); err != nil {
			return err
		}
	}
	return nil
}

// example is what a report shows of req and its outcome.
func example(req *Request, o Outcome) Example {
	rj := o.Rejection
	return Example{
		Source: req.Source,
		Time:   req.Time,
		Method: escape(req.HTTP.Method),
		URL:    exampleURL(req.HTTP.RequestURI),
		Field:  escapeField(rj.Field),
		Offset: rj.Offset,
		Sample: rj.Sample,
		Status: o.Status,
	}
}

// exampleURL returns target with its path cut to MaxPath octets and
// its query to MaxQuery, hex-escaped.
func exampleURL(target string) string {
	path, query, ok := strings.Cut(target, "?")
	if !ok {
		return cut(path, MaxPath)
	}
	return cut(path, MaxPath) + "?" + cut(query, MaxQuery)
}

// cut returns s cut to n octets, hex-escaped.
func cut(s string, n int) string {
	if len(s) > n {
		return escape(s[:n]) + "..."
	}
	return escape(s)
}

// escapeField returns a Rejection's Field with every octet outside
// printable ASCII as \xNN. A field the middleware escaped already (a key
// that is itself the violation) holds none, and keeps its backslashes.
func escapeField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}

// escape returns s with every octet outside printable ASCII, and '\',
// as \xNN: what the rejection log's samples do.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}
