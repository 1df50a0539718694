package utf8otel

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/utf8guard/utf8guard/middleware"
)

// Unmatched is the route attribute of a request that matched no route.
const Unmatched = "unmatched"

// The attribute keys.
const (
	RouteKey    = attribute.Key("route")
	OutcomeKey  = attribute.Key("outcome")
	LocationKey = attribute.Key("location")
	ReasonKey   = attribute.Key("reason")
	ClassKey    = attribute.Key("class")
)

// Metrics holds utf8guard's two counters.
type Metrics struct {
	requests   metric.Int64Counter
	rejections metric.Int64Counter
}

// New creates the counters with meter, as a MeterProvider's
// Meter("github.com/utf8guard/utf8guard") returns it. It returns the
// error of the first instrument the meter refuses.
func New(meter metric.Meter) (*Metrics, error) {
	requests, err := meter.Int64Counter("utf8guard.requests",
		metric.WithUnit("{request}"),
		metric.WithDescription("Requests utf8guard checked, by route template and outcome (accepted, rejected, flagged, unchecked)."))
	if err != nil {
		return nil, err
	}
	rejections, err := meter.Int64Counter("utf8guard.rejections",
		metric.WithUnit("{request}"),
		metric.WithDescription("Requests utf8guard rejected or flagged, by route template, location, reason and character class (forbidden_char only)."))
	if err != nil {
		return nil, err
	}
	return &Metrics{requests: requests, rejections: rejections}, nil
}

// Observe counts one verdict. Its signature is that of the adapters'
// Observe hook: set Observe: m.Observe. It is safe for concurrent use.
func (m *Metrics) Observe(r *http.Request, o middleware.Observation) {
	ctx := r.Context()
	route := RouteKey.String(RouteLabel(o.Route))
	m.requests.Add(ctx, 1, metric.WithAttributes(route, OutcomeKey.String(o.Outcome.String())))
	if rj := o.Rejection; rj != nil && (o.Outcome == middleware.Rejected || o.Outcome == middleware.Flagged) {
		m.rejections.Add(ctx, 1, metric.WithAttributes(route,
			LocationKey.String(rj.Location.String()),
			ReasonKey.String(rj.Reason.String()),
			ClassKey.String(ClassLabel(rj))))
	}
}

// RouteLabel returns the route attribute of a route template: the
// template itself, or Unmatched for "".
func RouteLabel(route string) string {
	if route == "" {
		return Unmatched
	}
	return route
}

// ClassLabel returns the class attribute of a rejection: the name of its
// character class for forbidden_char ("nul", "bidi_control"), "" for
// every other reason.
func ClassLabel(rj *middleware.Rejection) string {
	if rj.Class == 0 {
		return ""
	}
	return rj.Class.String()
}
