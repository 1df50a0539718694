package middleware

import (
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Before routing: an adapter that runs before its router has chosen the
// route (Echo's e.Pre) must find the route itself, exactly as the router
// will once the pipeline has run, and must find it again when the
// pipeline's rewrite moved the request to another path. PreRoute and
// Reroute hold that logic once, for every such adapter.

// PreRouted is where an adapter mounted before its router found a
// request's route: on which path, and whether the accepted request's
// URL.RawPath is to be cleared so that the router matches the decoded
// path. Its zero value is not used; PreRoute and Reroute make them.
type PreRouted struct {
	// Route is the route template found, "" for none.
	Route string

	path, rawPath string
	clearRaw      bool
	again         bool      // found again after a rewrite moved the request
	tbl           *policies // the rules the request is checked by, from start to end
}

// PreRoute finds the route r will be dispatched to, for an adapter that
// runs before its router. find must route r as the router will, on r.URL
// as it stands when find is called (URL.RawPath when it is set, as Echo's
// routers do, else URL.Path), and return the route template it found,
// "" for none. It returns where the route was found; the adapter checks
// the request under its Route.
//
// A router that matches URL.RawPath would route "/%61dmin/x" to no
// "/admin/:id". The request the pipeline accepts in Enforce mode has its
// RawPath cleared (Reroute) where that moves no segment boundary (no
// "%2F"), and the router then routes the decoded path: so the route is
// the one the decoded path matches when its policy enforces. Otherwise
// (its route checks nothing or only monitors, and the request passes on
// as it came) the router routes RawPath, and so does the policy.
func (pl *Pipeline) PreRoute(r *http.Request, find func() string) PreRouted {
	u := r.URL
	raw := u.RawPath
	ps := pl.g.policies()
	if raw == "" || !HasEncodedSlash(raw) {
		u.RawPath = ""
		route := find()
		u.RawPath = raw
		p := ps.lookup(route)
		if enforce := !p.ChecksNothing && p.Mode == rules.Enforce; raw == "" || enforce {
			return PreRouted{Route: route, path: u.Path, clearRaw: enforce, tbl: ps}
		}
	}
	return PreRouted{Route: find(), path: u.Path, rawPath: raw, tbl: ps}
}

// Escaped reports whether the path parameters the router cut for pr were
// cut from the escaped path (Match.Escaped): r.URL.RawPath is set and the
// route was found on it.
func (pr *PreRouted) Escaped(r *http.Request) bool {
	return r.URL.RawPath != "" && pr.rawPath == r.URL.RawPath
}

// Reroute is what an adapter before routing does once Check has accepted
// r (Verdict.Pass, no Rejection) under pr.Route, found as pr says. It clears
// URL.RawPath where PreRoute decided so, and then, if the pipeline's
// rewrite (a repair, a canonical form) changed the path, finds the route
// again with find: "/cafe%CC%81" is "/café" in NFC, which can be another
// route.
//
// When the request moved to a route of another policy, again is true and
// next is where it is now: the adapter runs Check again under next.Route,
// and then Reroute with next. A request that a second rewrite moves again
// is refused: rj is then that refusal (canonical_syntax, under pr.Route),
// logged already, which the adapter passes to its OnReject and answers as
// any other. Otherwise the router dispatches the request where it is.
func (pl *Pipeline) Reroute(r *http.Request, pr *PreRouted, find func() string, who any) (next PreRouted, again bool, rj *Rejection) {
	u := r.URL
	if pr.clearRaw && u.RawPath != "" && !HasEncodedSlash(u.RawPath) {
		u.RawPath = ""
	}
	if u.Path == pr.path && u.RawPath == pr.rawPath {
		return next, false, nil
	}
	moved := find()
	if moved == pr.Route || pr.tbl.lookup(moved) == pr.tbl.lookup(pr.Route) {
		return next, false, nil
	}
	if pr.again {
		rj = &Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Path, Err: sanitize.ErrCanonicalSyntax}
		pl.g.refuse(r, pr.Route, pr.tbl, rj, who)
		return next, false, rj
	}
	return PreRouted{Route: moved, path: u.Path, rawPath: u.RawPath, again: true, tbl: pr.tbl}, true, nil
}

// HasEncodedSlash reports whether an escaped path holds "%2F" in either
// case: decoding it would move a segment boundary, so a router that
// matches URL.RawPath must keep matching it.
func HasEncodedSlash(raw string) bool {
	for {
		i := strings.IndexByte(raw, '%')
		if i < 0 || i+2 >= len(raw) {
			return false
		}
		if raw[i+1] == '2' && (raw[i+2] == 'f' || raw[i+2] == 'F') {
			return true
		}
		raw = raw[i+1:]
	}
}
