package middleware

import (
	"net/http"

	"github.com/utf8guard/utf8guard/rules"
)

// The request pipeline, once for every adapter: check the request under
// the route's policy, hand the handler the request it may read, log what
// was refused or flagged. It knows only net/http; an adapter finds the
// route and its parameters in its framework's terms, calls run, and then
// does in those terms what the verdict says: call the hooks, answer the
// refusal, hand the rewritten parameters back, call the handler.

// verdict is what run decided for one request.
type verdict struct {
	// r is the request to hand to the handler: the one given, or a copy
	// when its body was wrapped (detachBody), which the adapter installs.
	r *http.Request
	// params are the path parameter values the handler must see, in the
	// order of the names given, or nil when they stay as they are.
	params []string
	// rj is the violation found, logged already: refused in Enforce mode,
	// flagged in Monitor mode.
	rj *Rejection
	// readErr is a body that could not be read, logged already.
	readErr error
	// pass says whether the handler runs.
	pass bool
}

// identityFunc returns the log's identity fields for the request the
// framework value x stands for. It is called only when a line is logged,
// and, being a plain function of x, costs no allocation when it is not.
type identityFunc func(x any) requestIdentity

// run checks r, routed to route (whose policy p is on) with the path
// parameters names and values (nil where the framework cuts none before
// the handler runs), and decides. In Monitor mode the handler always runs
// and gets the request as it came; in Enforce mode it runs only for an
// accepted request, rewritten to its canonical form where the policy
// asks.
func (g *guard) run(r *http.Request, route string, p *policy, names, values []string, who identityFunc, x any) verdict {
	s := getScratch()
	params, rj, err := g.inspect(s, r, p, names, values)
	putScratch(s)
	v := verdict{r: detachBody(r), pass: p.Mode == rules.Monitor}
	switch {
	case err != nil:
		// In Monitor mode the body fails the handler's read as it failed
		// ours, after the same octets.
		g.logReadError(v.r, err, route, p.Mode, who(x))
		v.readErr = err
	case rj != nil:
		rj.Route, rj.Mode = route, p.Mode
		g.logRejection(v.r, rj, who(x))
		v.rj = rj
	default:
		v.pass = true
		if p.Mode == rules.Enforce {
			v.params = params
		}
		g.logAccept(v.r, route)
	}
	return v
}
