package adaptertest

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

var errReferenceDidNotRun = errors.New("adaptertest: the reference did not run")

// An Option changes how Run runs the rows.
type Option func(*options)

type options struct {
	inProcessOnly bool
}

// InProcess runs the rows in process only, not over HTTP/1.1, h2c and h2:
// for a quick run. The report counts the runs left out as skipped.
func InProcess() Option { return func(o *options) { o.inProcessOnly = true } }

// ways are the ways each row is run: in process, then over each wire.
var ways = []string{"in process", "http1", "h2c", "h2"}

// Run runs every row of the kit on tg, each in its own parallel subtest
// (table/row, and table/row/http1, h2c, h2 for the wires): in process
// through httptest, and over a real http.Server on 127.0.0.1 with
// HTTP/1.1, h2c and TLS h2 where a client can send the row. Each run is
// held to the row (status, the refusal's answer, the log line field for
// field, the OnReject call, what the handler read) and to the Reference's
// run of the row. A row that needs a Capability tg lacks is skipped with
// the reason. When every row is done, Run logs a report of the runs passed, failed and
// skipped, each skip with its reason, and the differences met.
func Run(t *testing.T, tg Target, opts ...Option) {
	t.Helper()
	if tg.Serve == nil {
		t.Fatalf("adaptertest: target %q has no Serve", tg.Name)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	rep := &report{target: tg.Name, skips: map[string]int{}, met: map[Difference]int{}}
	t.Cleanup(func() { t.Log("\n" + rep.String()) })
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			t.Parallel()
			rows, err := tb.rows()
			if err != nil {
				rep.skip(len(ways), "table "+tb.name+" not loaded (its rows uncounted): "+err.Error())
				t.Skipf("%s: %v", tb.name, err)
			}
			for _, rw := range rows {
				t.Run(rw.name, func(t *testing.T) {
					t.Parallel()
					runRow(t, tg, tb.name, rw, o, rep)
				})
			}
		})
	}
}

// runRow runs rw on tg in process, and then over every wire.
func runRow(t *testing.T, tg Target, table string, rw row, o options, rep *report) {
	rep.row()
	if rw.pending != "" {
		rep.skip(len(ways), "pending: "+rw.pending)
		t.Skip("pending: " + rw.pending)
	}
	for _, c := range rw.needs() {
		if !tg.can(c) {
			why := fmt.Sprintf("needs %s: %s", c, c.why())
			rep.skip(len(ways), why)
			t.Skip(why)
		}
	}
	if d := rw.diffFor(tg); d != nil {
		rep.meet(d.when)
	}
	if rw.status != 200 && tg.differs(NoNosniff) {
		rep.meet(NoNosniff)
	}
	if rw.status != 200 && tg.differs(FrameworkJSON) {
		rep.meet(FrameworkJSON)
	}
	key := table + "\x00" + rw.name + "\x00"
	inProcess := func(tg Target) (*result, error) {
		s := newServer(t, tg, rw)
		w := httptest.NewRecorder()
		r := rw.request()
		s.ServeHTTP(w, r)
		return s.result(r.Method, w.Code, w.Body.String(), w.Header())
	}
	rw.runOne(t, tg, key+ways[0], inProcess)
	rep.ran(t.Failed())
	if o.inProcessOnly {
		rep.skip(len(ways)-1, "in process only (adaptertest.InProcess)")
		return
	}
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			if why := rw.sendable(w); why != "" {
				rep.skip(1, "over "+w.name+": "+why)
				t.Skip(why)
			}
			rw.runOne(t, tg, key+w.name, func(tg Target) (*result, error) {
				res, err := rw.send(newServer(t, tg, rw), w)
				if err != nil && strings.Contains(err.Error(), "server sent GOAWAY") {
					// The connection this request shared with other rows'
					// went away under it (a server closes an HTTP/2
					// connection at another stream's error): once more, on
					// a new connection, to a server of its own, so that
					// nothing it logged the first time counts. A row that
					// makes the server go away itself fails again.
					res, err = rw.send(newServer(t, tg, rw), w)
				}
				return res, err
			})
			rep.ran(t.Failed())
		})
	}
}

// runsOn reports whether tg can run rw.
func (rw row) runsOn(tg Target) bool {
	for _, c := range rw.needs() {
		if !tg.can(c) {
			return false
		}
	}
	return true
}

// runOne runs rw on tg with run, holds the result to the row and to the
// reference's.
func (rw row) runOne(t *testing.T, tg Target, key string, run func(Target) (*result, error)) {
	t.Helper()
	res, err := run(tg)
	if err != nil {
		t.Errorf("%s: %v", tg.Name, err)
		return
	}
	rw.check(t, tg, res)
	if tg.reference || !rw.runsOn(Reference()) {
		return // the reference has none to compare with
	}
	ref, err := reference(key, func() (*result, error) { return run(Reference()) })
	if err != nil {
		t.Errorf("reference: %v", err)
		return
	}
	rw.compare(t, tg, res, ref)
}

// A report counts what Run did on one target: the runs (a row, one way),
// passed, failed and skipped, each skip with its reason, and the rows on
// which a Difference of the target's changed what it must do.
type report struct {
	target string

	mu                            sync.Mutex
	rows, passed, failed, skipped int
	skips                         map[string]int
	met                           map[Difference]int
}

func (r *report) row() {
	r.mu.Lock()
	r.rows++
	r.mu.Unlock()
}

func (r *report) ran(failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if failed {
		r.failed++
	} else {
		r.passed++
	}
}

func (r *report) skip(runs int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.skipped += runs
	r.skips[why] += runs
}

func (r *report) meet(d Difference) {
	r.mu.Lock()
	r.met[d]++
	r.mu.Unlock()
}

// String is the report as Run logs it.
func (r *report) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "adaptertest: %s: %d rows, %d runs (%s)\n", r.target, r.rows, r.passed+r.failed+r.skipped, strings.Join(ways, ", "))
	fmt.Fprintf(&b, "  passed %d, failed %d, skipped %d\n", r.passed, r.failed, r.skipped)
	if len(r.skips) > 0 {
		b.WriteString("  skipped:\n")
		whys := make([]string, 0, len(r.skips))
		for why := range r.skips {
			whys = append(whys, why)
		}
		sort.Slice(whys, func(i, j int) bool {
			if r.skips[whys[i]] != r.skips[whys[j]] {
				return r.skips[whys[i]] > r.skips[whys[j]]
			}
			return whys[i] < whys[j]
		})
		for _, why := range whys {
			fmt.Fprintf(&b, "    %4d  %s\n", r.skips[why], why)
		}
	}
	if len(r.met) > 0 {
		b.WriteString("  differences met (rows):")
		ds := make([]Difference, 0, len(r.met))
		for d := range r.met {
			ds = append(ds, d)
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		for _, d := range ds {
			fmt.Fprintf(&b, " %s %d;", d, r.met[d])
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
