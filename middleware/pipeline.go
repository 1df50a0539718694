package middleware

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/form"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/rules"
)

// The request pipeline, once for every adapter: check the request under
// the route's policy, hand the handler the request it may read, log what
// was refused or flagged. It knows only net/http; an adapter finds the
// route and its parameters in its framework's terms, calls run, and then
// does in those terms what the verdict says: call the hooks, answer the
// refusal, hand the rewritten parameters back, call the handler.

// Pipeline is the framework-neutral core of every adapter, exported so
// that an adapter for a router (Echo v4 in middleware/echov4, Echo v5 in
// middleware/echov5, or Gin, chi, Fiber) is a few lines over it and
// behaves exactly as the net/http adapter does: same checks, same
// rewrites, same log lines. It knows only net/http. An adapter finds the request's route
// template and path parameters in its router's terms, calls Check, and
// does what the Verdict says.
type Pipeline struct{ g *guard }

// PipelineConfig configures a Pipeline: the policies and the log, as the
// adapters' Config and HTTPConfig do.
type PipelineConfig struct {
	// Rules is the policy of every route (a rules.Policy) or a table of
	// policies by route template (a rules.Table), or a *rules.Live, which
	// can be given new rules while the server runs. Nil means
	// rules.Default().
	Rules rules.Ruleset
	// Logger receives the log lines, unless the request's context carries
	// a zerolog logger. Default: JSON lines on os.Stderr with a timestamp.
	Logger *zerolog.Logger
	// LogAccepted writes a debug-level event for each accepted request.
	LogAccepted bool
	// TempDir is where a multipart body larger than 1 MiB is spooled
	// while it is checked and the handler reads it: one temporary file
	// per request, removed when the handler returns (Verdict.Release).
	// Default: os.TempDir().
	TempDir string
	// SpoolBytes bounds the octets that the spooled bodies of all the
	// requests the pipeline is checking hold in TempDir together. A
	// multipart body that would take them past it is refused with 503
	// Service Unavailable (spool_full), and a log line; the octets of a
	// body go back when its request is done, refused, abandoned by its
	// client, or its handler panicked (Verdict.Release). Default:
	// DefaultSpoolBytes; -1 for no bound.
	SpoolBytes int64
	// Identity returns the log's identity fields of a request from what
	// the adapter passed to Check as who (its framework's context, for
	// one); the pipeline calls it only when it logs a line. Default: who is
	// ignored, and the fields come from the request: the X-Request-Id the
	// client sent, marked as the client's, and the connection's address.
	Identity func(who any) Identity
	// Observe, when set, is called once for every request Check decides,
	// after its log line and before the handler runs, with the verdict:
	// for metrics of accepted, rejected and flagged requests by route,
	// location, reason and class. It runs on the request's goroutine and
	// must be quick. Unset, it costs nothing. Under Echo's e.Pre, a
	// request that a canonical rewrite moves to a route of another policy
	// is checked, and observed, under each route (Reroute); a body of
	// unknown length cut off while the handler reads it was observed as
	// Accepted, and its refusal comes later, to the adapter's OnReject and
	// the log.
	Observe func(r *http.Request, o Observation)
	// ValidateKeys, when set, checks the syntax of the table's keys for
	// the adapter's router (ValidateEchoRoutes for Echo's): NewPipeline
	// returns its error, and so does LiveRules.Set for new rules.
	ValidateKeys func(rs rules.Ruleset) error
}

// NewPipeline compiles cfg, or returns the error of an invalid one.
func NewPipeline(cfg PipelineConfig) (*Pipeline, error) {
	g, err := newGuard(cfg.Rules, cfg.Logger, cfg.LogAccepted)
	if err != nil {
		return nil, err
	}
	if cfg.ValidateKeys != nil {
		if err := cfg.ValidateKeys(cfg.Rules); err != nil {
			return nil, err
		}
		g.require(cfg.ValidateKeys)
	}
	if g.store, err = newSpoolStore(cfg.TempDir, cfg.SpoolBytes); err != nil {
		return nil, err
	}
	g.identity, g.observer = cfg.Identity, cfg.Observe
	return &Pipeline{g}, nil
}

// Route reports what the policy of route does: whether it checks
// anything at all (a route that checks nothing needs no Check), and its
// mode. An adapter that finds the route before its router does (as under
// Echo's e.Pre) uses it to tell which path the router will match.
func (pl *Pipeline) Route(route string) (checks bool, mode rules.Mode) {
	p := pl.g.lookup(route)
	return !p.ChecksNothing, p.Mode
}

// Identity is what the log says of who sent a request.
type Identity struct {
	// RequestID is the request's id, and RequestIDFromClient says whether
	// the client chose it (an X-Request-Id it sent, adopted).
	RequestID           string
	RequestIDFromClient bool
	// RemoteIP is the client's address, as the adapter can trust it.
	RemoteIP string
}

// Verdict is what Check decided.
type Verdict struct {
	// Request is the request to hand to the handler: the one given, or a
	// shallow copy whose body the pipeline wrapped, which the adapter
	// must install in its framework's context.
	Request *http.Request
	// Params are the path parameter values the handler must see, in the
	// order of the names given, or nil when they stay as they are.
	Params []string
	// Rejection is the violation found, logged already: refused in
	// Enforce mode (Pass is false), flagged in Monitor mode.
	Rejection *Rejection
	// Pass says whether the handler runs.
	Pass bool

	held held
}

// Release frees what the pipeline holds for the request: the temporary
// file a large multipart body was spooled to (the handler reads it as the
// request's body), and the pooled memory an accepted body was read into.
// An adapter calls it once the handler has returned, in a deferred call,
// so that it runs after a panic in the handler too:
//
//	v := pl.Check(r, m, who)
//	defer v.Release()
//
// After it, a read of a spooled body fails; a body held in memory gives
// the octets not read yet, from memory of their own. It is safe on any
// Verdict, and more than once. An adapter that never calls it leaves the
// file to be removed by nothing, and the memory to the collector.
func (v *Verdict) Release() { v.held.release() }

// Match is where a router put a request.
type Match struct {
	// Route is the route template ("/users/:id"), the key of the policy
	// table.
	Route string
	// Names and Values are the path parameters the router cut, nil where
	// it cuts none before the handler runs.
	Names, Values []string
	// Pre is where an adapter that runs before its router found the
	// route (PreRoute), nil after routing. Check then checks the request
	// by the rules PreRoute saw, and cuts Values as Pre says (Escaped is
	// not read).
	Pre *PreRouted
	// Escaped says that the router cut Values from the escaped path
	// (URL.RawPath, as Echo's routers do when it is set), so that they
	// still hold the escapes the pipeline decodes; false where they were
	// cut from the decoded URL.Path (a ServeMux, or a route found on the
	// decoded path under e.Pre). Decoding values twice would read
	// "%2541" as "A".
	Escaped bool
}

// Check runs r, routed as m says, through the policy of m.Route. who is
// what PipelineConfig.Identity takes to give the log's identity fields
// when a line is logged: pass a pointer the adapter holds anyway (its
// framework's context), and it costs no allocation. In Monitor mode the
// handler always runs and gets the request as it came; in Enforce mode it
// runs only for an accepted request, rewritten to its canonical form where
// the policy asks, with Verdict.Params as its parameters.
func (pl *Pipeline) Check(r *http.Request, m Match, who any) (v Verdict) {
	// Small enough to be inlined into the adapter, so that m is taken
	// apart in registers rather than copied through memory, and v is
	// filled where the adapter keeps it rather than copied out of each
	// call that makes it.
	pl.g.check(&v, r, m.Route, m.Names, m.Values, m.Escaped, m.Pre, who)
	return v
}

// check is Check with m's fields one by one, into v: it looks the policy
// of route up in the rules in force, or in those pre was found by.
func (g *guard) check(v *Verdict, r *http.Request, route string, names, values []string, escaped bool, pre *PreRouted, who any) {
	ps := g.policies()
	if pre != nil {
		ps, escaped = pre.tbl, pre.Escaped(r)
	}
	v.Request, v.Params, v.Rejection, v.Pass, v.held = g.run(r, route, names, values, escaped, ps.lookup(route), who)
}

// Refuse logs rj, a refusal an adapter found itself (under e.Pre, a
// request a rewrite moves to another route twice), under route, the route
// whose policy refuses it, as Check logs its own: it sets rj.Route and
// rj.Mode from route's policy, and, for a path rejection without a
// Sample, the sample of the request's path at rj.Offset. The adapter then
// calls its OnReject and ErrorHandler as for Check's.
func (pl *Pipeline) Refuse(r *http.Request, route string, rj *Rejection, who any) {
	pl.g.refuse(r, route, pl.g.policies(), rj, who)
}

// refuse is Refuse by the rules ps.
func (g *guard) refuse(r *http.Request, route string, ps *policies, rj *Rejection, who any) {
	rj.Route, rj.Mode = route, ps.lookup(route).Mode
	if rj.Sample == "" && rj.Location == rules.Path {
		rj.Sample = finding.Sample(r.URL.Path, rj.Offset)
	}
	g.logRejection(r, rj, who)
	outcome := Rejected
	if rj.Mode == rules.Monitor {
		outcome = Flagged
	}
	g.observe(r, Observation{Outcome: outcome, Route: rj.Route, Rejection: rj})
}

// SamePolicy reports whether routes a and b have one policy, so that an
// adapter whose rewrite moved a request from a to b knows whether b's
// policy must run too.
func (pl *Pipeline) SamePolicy(a, b string) bool { return pl.g.lookup(a) == pl.g.lookup(b) }

// run checks r, routed to route (whose policy p is on) with the path
// parameters names and values, escaped or not (see Match), and decides.
// It is the one way into the pipeline, for Check and for the net/http
// adapter, which finds p by its own lookup; a route that checks nothing
// passes at once. It returns the request to hand to the handler (r, or a
// copy when its body was wrapped: detachBody), the path parameter values the handler
// must see (in the order of names, or nil when they stay as they are),
// the violation found, logged already (refused in Enforce mode, flagged in
// Monitor mode), whether the handler runs, and the spool of a spooled
// body, which the adapter releases after the handler (sp.release, nil
// too). In Monitor mode the handler always runs and gets the request as it
// came; in Enforce mode it runs only for an accepted request, rewritten to
// its canonical form where the policy asks.
//
// (Match's fields are passed one by one: escape analysis, which does not
// tell a struct's fields apart, would otherwise move an adapter's
// parameter arrays to the heap with the route string the log keeps. The
// results are several, not a struct, so that they come back in
// registers: a struct this large lives in memory, copied with moves that
// stall on the stores before them.)
func (g *guard) run(r *http.Request, route string, names, values []string, escaped bool, p *compiled.Policy, who any) (
	hand *http.Request, params []string, rj *Rejection, pass bool, h held) {
	if p.ChecksNothing {
		if g.observer != nil {
			g.observer(r, Observation{Outcome: Unchecked, Route: strings.Clone(route)}) // cloned as below
		}
		return r, nil, nil, true, held{}
	}
	ls := lazyScratch{store: g.store}
	params, rj = g.inspectWith(&ls, r, p, names, values, escaped)
	if rj == nil && ls.s != nil && ls.s.rewroteURL && r.RequestURI != "" {
		// The path or the query was rewritten (repaired, canonical): the
		// request line says so too. Echo's Rewrite middleware builds a
		// new URL from RequestURI, and a log prints it; either would
		// otherwise bring back the request as sent. (Monitor mode
		// rewrites nothing.)
		r.RequestURI = r.URL.RequestURI()
	}
	var lb *binaryLimit
	if ls.s != nil {
		h.sp, lb = ls.s.spool, ls.s.limited
		// Lent memory goes back after the handler only when the handler
		// gets it: the request accepted, its body what handOn set. A body
		// a later step replaced, or a refused request's, is the
		// collector's (lentBody).
		if lent := ls.s.lent; lent != nil && rj == nil && r.Body == io.ReadCloser(lent) {
			h.lent = lent
		}
		// A refused request's body memory goes back at once.
		if rj != nil && p.Mode == rules.Enforce {
			ls.s.reclaim(r, rj)
		}
	}
	ls.release()
	hand = detachBody(r)
	if lb != nil {
		g.reportLimit(lb, hand, route, p.Mode, who)
	}
	if rj != nil {
		// Cloned, so that route does not escape: an adapter's Match, whose
		// parameter slices may be on its stack, stays there.
		rj.Route, rj.Mode = strings.Clone(route), p.Mode
		g.logRejection(hand, rj, who)
		if p.Mode == rules.Monitor {
			g.observe(hand, Observation{Outcome: Flagged, Route: rj.Route, Rejection: rj})
			return hand, nil, rj, true, h
		}
		g.observe(hand, Observation{Outcome: Rejected, Route: rj.Route, Rejection: rj})
		return hand, nil, rj, false, h
	}
	if p.Mode != rules.Enforce {
		params = nil
	}
	g.logAccept(hand, route)
	if g.observer != nil {
		// Cloned, so that route does not escape (above): one allocation
		// for an observed request, none when nothing observes.
		g.observer(hand, Observation{Outcome: Accepted, Route: strings.Clone(route)})
	}
	return hand, params, nil, true, h
}

// held is what run hands an adapter to release once the handler has
// returned (in a deferred call, so after a panic too): the spool of a
// spooled multipart body, and the lent memory of an accepted body.
type held struct {
	sp   *upload.Spool
	lent *bodyio.LentBody
}

// release frees what h holds; a read of the body after it still gets the
// octets the handler had not read (lentBody.giveBack), a read of a spooled
// body fails. Safe on the zero held, and more than once.
func (h held) release() {
	h.sp.Release()
	h.lent.GiveBack()
}

// guard is the compiled configuration of a Pipeline, which the net/http
// adapter uses directly.
type guard struct {
	cur         *atomic.Pointer[policies] // the rules in force
	live        *rules.Live               // where they come from, when they are live
	logger      zerolog.Logger
	logAccepted bool
	store       *upload.Store                        // where spooled bodies spill, and their budget
	identity    func(who any) Identity               // PipelineConfig.Identity
	observer    func(r *http.Request, o Observation) // PipelineConfig.Observe
	checked     routeCheck                           // routes.go: the table's keys against the router's routes
}

// reportLimit makes lb, the reader that cuts off an unread body of
// unknown length past its limit, log a too_large line for r when it does:
// the handler runs by then, and its read fails (binaryLimit).
func (g *guard) reportLimit(lb *binaryLimit, r *http.Request, route string, mode rules.Mode, who any) {
	rt := strings.Clone(route) // so that route does not escape (run)
	lb.report = func() *Rejection {
		rj := finding.TooLarge(rules.Body, "", lb.limit)
		rj.Route, rj.Mode = rt, mode
		g.logRejection(r, rj, who)
		return rj
	}
}

func newGuard(rs rules.Ruleset, logger *zerolog.Logger, logAccepted bool) (*guard, error) {
	table, err := validateRules(rs) // validate.go
	if err != nil {
		return nil, err
	}
	g := &guard{logAccepted: logAccepted}
	if live, ok := rs.(*rules.Live); ok {
		g.live, g.cur = live, livePolicies(live)
	} else {
		g.cur = new(atomic.Pointer[policies])
		g.cur.Store(compileTable(table))
	}
	if logger != nil {
		g.logger = *logger
	} else {
		g.logger = zerolog.New(os.Stderr).With().Timestamp().Logger()
	}
	return g, nil
}

// policies returns the rules in force: a request loads them once.
func (g *guard) policies() *policies { return g.cur.Load() }

// require makes rules.Live.Set hold new rules to check, where the rules
// are live.
func (g *guard) require(check func(rs rules.Ruleset) error) {
	if g.live != nil {
		g.live.Require(func(t rules.Table) error { return check(t) })
	}
}

// lookup returns the policy of route in the rules in force.
func (g *guard) lookup(route string) *compiled.Policy { return g.policies().lookup(route) }

// inspectWith is inspect with the scratch taken from the pool only when
// something needs it: a clean request with a plain path and query and no
// body needs none.
func (g *guard) inspectWith(ls *lazyScratch, r *http.Request, p *compiled.Policy, names, values []string, escaped bool) (params []string, rj *Rejection) {
	if rj = preparsed(r, p); rj != nil { // preparsed.go
		return nil, rj
	}
	if p.Path.On {
		if rj = checkTarget(r, p); rj != nil { // target.go
			return nil, rj
		}
		routedRaw := escaped // as the router saw it
		var repaired bool
		// A plain path (plainPath: nothing decoded, no character of any
		// class, no escape) within the limit passes checkPath unchanged,
		// and no segment of it starts with U+FEFF.
		plain := r.URL.RawPath == "" && (p.Limits.PathBytes < 0 || len(r.URL.Path) <= p.Limits.PathBytes/3) &&
			octets.PlainPath(r.URL.Path)
		if !plain {
			if rj, repaired = ls.get().checkPath(r, p); rj != nil {
				return nil, rj
			}
		}
		if params, rj = checkParams(names, values, p, routedRaw, repaired); rj != nil {
			return nil, rj
		}
		if names == nil && r.Pattern != "" {
			if rj = checkPathValues(r, p); rj != nil {
				return nil, rj
			}
		}
		// The parameters a router has not cut yet (the net/http adapter
		// wrapped around a ServeMux) or that no one named.
		if !plain {
			if rj = segmentBOM(r, p); rj != nil {
				return nil, rj
			}
		}
	}
	if p.Query.On && r.URL.RawQuery != "" && !form.Plain(r.URL.RawQuery, &p.Limits) {
		fixed, changed, rj := ls.get().pairs.CheckPairs(r.URL.RawQuery, rules.Query, &p.Query, p.QueryMode, &p.Limits)
		if rj != nil {
			return nil, rj
		}
		if changed {
			r.URL.RawQuery, ls.s.rewroteURL = fixed, true
		}
	}
	if p.Header.On {
		if rj = checkHeaders(r, p); rj != nil {
			return nil, rj
		}
	}
	if p.Cookies && len(r.Header["Cookie"]) > 0 {
		if rj = checkCookies(r, p); rj != nil {
			return nil, rj
		}
	}
	if checksBody(r, p) {
		if rj = ls.get().checkBody(r, p); rj != nil {
			return params, rj
		}
	} else {
		if ls.s != nil {
			ls.s.body = nil // no body read: none to canonicalize
		}
		switch {
		case r.Body == http.NoBody:
			// hasBody may have read a body that held nothing to its
			// end: its trailers, if any, are in.
			if rj = checkTrailers(r, p); rj != nil {
				return params, rj
			}
		case mayTrail(r) && p.ChecksTrailers():
			// A body the route does not read is the handler's, and so
			// are the trailers of a chunked or HTTP/2 one: guarded as
			// passUnread guards those of a body passed on unread.
			if rj = ls.get().passUnread(r, p, -1); rj != nil {
				return params, rj
			}
		}
	}
	if p.Canon {
		if params, rj = ls.get().canonicalize(r, p, names, values, params); rj != nil {
			return params, rj
		}
	}
	if p.Path.On && (ls.s == nil || !ls.s.rewroteURL) {
		// A request line a rewrite before utf8guard left behind (one
		// this pipeline rewrote is set from the URL by run).
		rj = checkRequestLine(ls, r, p) // target.go
	}
	return params, rj
}

// lazyScratch takes a scratch from the pool the first time one is needed.
type lazyScratch struct {
	s     *scratch
	lent  bool          // s is the caller's: release leaves it alone
	store *upload.Store // for the scratch taken (scratch.store)
}

func (ls *lazyScratch) get() *scratch {
	if ls.s == nil {
		ls.s = getScratch()
		ls.s.store = ls.store
	}
	return ls.s
}

// release puts the scratch back in the pool, if one was taken.
func (ls *lazyScratch) release() {
	if ls.s != nil && !ls.lent {
		putScratch(ls.s)
		ls.s = nil
	}
}

// scratch is the per-request working memory, pooled. Nothing in it is
// ever handed to a handler: what a handler reads is memory of its own
// (readBody, setBody), so no handler, goroutine or timeout wrapper that
// outlives the middleware can see another request's octets.
type scratch struct {
	buf   []byte       // a decoded path
	pairs form.Scratch // the query and form checks' working memory
	// The body checkBody accepted and handed to the handler, and its
	// location, for canonicalization; nil when no body was read. Cleared
	// before the scratch goes back to the pool.
	body    []byte
	bodyLoc rules.Location
	work    bodyio.Work // where bodies are read before their size is known (body.go)
	// mem is the pooled memory readBody read the body whole into, until
	// handOn lends it to the handler as lent, which run hands the adapter
	// to give back after the handler (lentBody). Neither is reused: they
	// are cleared before the scratch goes back to the pool.
	mem  []byte
	lent *bodyio.LentBody
	// rewroteURL says that the path or the query of the request was
	// rewritten (repaired, canonical), so that run sets RequestURI.
	rewroteURL bool
	// spool is the spool of a multipart body (package upload), which run
	// hands the adapter to release after the handler; store is where it
	// spills, and its budget (guard.store). limited is the reader that cuts
	// off an unread body of unknown length, which the pipeline makes log
	// when it does.
	spool   *upload.Spool
	store   *upload.Store
	limited *binaryLimit
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{buf: make([]byte, 0, 1024), pairs: form.Scratch{Buf: make([]byte, 0, 1024)}}
}}

// maxPooledScratch keeps one huge request from pinning a huge buffer.
const maxPooledScratch = 64 << 10

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	s.body, s.spool, s.limited, s.mem, s.lent, s.rewroteURL = nil, nil, nil, nil, nil, false
	if cap(s.buf) <= maxPooledScratch && cap(s.pairs.Buf) <= maxPooledScratch {
		s.buf, s.pairs.Buf = s.buf[:0], s.pairs.Buf[:0]
		scratchPool.Put(s)
	}
}

// DefaultSpoolBytes is the default budget of the octets that the spooled
// bodies of one pipeline's requests hold on disk together: 1 GiB, room for
// 32 uploads at the default data limit (rules.DefaultBinaryBodyBytes) on
// a small server's temporary file system.
const DefaultSpoolBytes = 1 << 30

// newSpoolStore returns the store of dir with the budget limit (0: the
// default; -1: none), or the error of a limit below -1.
func newSpoolStore(dir string, limit int64) (*upload.Store, error) {
	switch {
	case limit == 0:
		limit = DefaultSpoolBytes
	case limit < -1:
		return nil, fmt.Errorf("utf8guard: SpoolBytes %d: want a positive number of octets, 0 for the default or -1 for no bound", limit)
	}
	return upload.NewStore(dir, limit), nil
}
