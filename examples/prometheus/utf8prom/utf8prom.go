package utf8prom

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/utf8guard/utf8guard/middleware"
)

// Unmatched is the route label of a request that matched no route.
const Unmatched = "unmatched"

// Metrics holds utf8guard's two counters.
type Metrics struct {
	requests   *prometheus.CounterVec
	rejections *prometheus.CounterVec
}

// New returns the counters, registered with reg. Like promauto, it panics
// if reg already holds metrics of these names; a nil reg registers nothing
// (the counters still count, for a Registerer set up later).
func New(reg prometheus.Registerer) *Metrics {
	f := promauto.With(reg)
	return &Metrics{
		requests: f.NewCounterVec(prometheus.CounterOpts{
			Name: "utf8guard_requests_total",
			Help: "Requests utf8guard checked, by route template and outcome (accepted, rejected, flagged, unchecked).",
		}, []string{"route", "outcome"}),
		rejections: f.NewCounterVec(prometheus.CounterOpts{
			Name: "utf8guard_rejections_total",
			Help: "Requests utf8guard rejected or flagged, by route template, location, reason and character class (forbidden_char only).",
		}, []string{"route", "location", "reason", "class"}),
	}
}

// Observe counts one verdict. Its signature is that of the adapters'
// Observe hook: set Observe: m.Observe. It is safe for concurrent use.
func (m *Metrics) Observe(_ *http.Request, o middleware.Observation) {
	route := RouteLabel(o.Route)
	m.requests.WithLabelValues(route, o.Outcome.String()).Inc()
	if rj := o.Rejection; rj != nil && (o.Outcome == middleware.Rejected || o.Outcome == middleware.Flagged) {
		m.rejections.WithLabelValues(route, rj.Location.String(), rj.Reason.String(), ClassLabel(rj)).Inc()
	}
}

// RouteLabel returns the route label of a route template: the template
// itself, or Unmatched for "".
func RouteLabel(route string) string {
	if route == "" {
		return Unmatched
	}
	return route
}

// ClassLabel returns the class label of a rejection: the name of its
// character class for forbidden_char ("nul", "bidi_control"), "" for
// every other reason.
func ClassLabel(rj *middleware.Rejection) string {
	if rj.Class == 0 {
		return ""
	}
	return rj.Class.String()
}
