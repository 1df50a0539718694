package middleware

import "net/http"

// Outcome is what the pipeline decided of a request.
type Outcome uint8

const (
	// Accepted: the request passed every check of its route's policy
	// (rewritten to its canonical form where the policy asks).
	Accepted Outcome = iota
	// Rejected: the request was refused (Enforce mode); the handler did
	// not run.
	Rejected
	// Flagged: the request broke its policy in Monitor mode; the handler
	// ran with the request as it came.
	Flagged
	// Unchecked: the route's policy checks nothing (rules.Unchecked).
	Unchecked
)

// String returns "accepted", "rejected", "flagged" or "unchecked": stable
// values, fit for a metric's label.
func (o Outcome) String() string {
	switch o {
	case Accepted:
		return "accepted"
	case Rejected:
		return "rejected"
	case Flagged:
		return "flagged"
	case Unchecked:
		return "unchecked"
	}
	return "unknown"
}

// Observation is what an observer (PipelineConfig.Observe and the
// adapters' Observe) is told of one request's verdict. Its values are
// bounded, fit for metric labels: the route is the route template, never
// the raw path, and the rest are names of the taxonomy.
type Observation struct {
	// Outcome is the verdict.
	Outcome Outcome
	// Route is the route template the policy was looked up by ("/users/:id",
	// "GET /users/{id}"); "" when the request matched no route, which an
	// observer labels with a fixed value of its own ("unmatched").
	Route string
	// Rejection is the violation, for Rejected and Flagged: its Location,
	// Reason and, for forbidden_char, Class are the labels to count by.
	// Its Field and Sample come from the request: keep them out of labels.
	// Nil otherwise. The observer must not keep or change it.
	Rejection *Rejection
}

// observe tells g's observer, if there is one, the verdict of r.
func (g *guard) observe(r *http.Request, o Observation) {
	if g.observer != nil {
		g.observer(r, o)
	}
}
