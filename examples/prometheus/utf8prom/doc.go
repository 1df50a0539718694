// Package utf8prom counts utf8guard's verdicts in Prometheus counters: a
// *Metrics' Observe method is the Observe hook of any utf8guard adapter
// (echov5.Config, echov4.Config, middleware.HTTPConfig).
//
// # The metrics
//
//	utf8guard_requests_total{route, outcome}
//	utf8guard_rejections_total{route, location, reason, class}
//
// The first counts every request the middleware checks, with its outcome:
// "accepted", "rejected", "flagged" (a violation on a route in Monitor mode,
// passed on) or "unchecked" (a route whose policy checks nothing). The
// second counts the rejected and flagged ones by where the violation was
// found and what it was.
//
// # Bounded labels
//
// A label value that an attacker can choose is a series per request: it
// fills the server's memory and Prometheus's. No label here holds a byte of
// the request. The route is the route template the policy was looked up by
// ("/users/:id"), so there are as many as the service has routes, and
// "unmatched" for a request that matched none; the outcome, location,
// reason and class are names of utf8guard's taxonomy (class is the
// character class for forbidden_char, "nul" say, and "" for every other
// reason). The rejection's Field and Sample come from the request and are
// never labels: they are in utf8guard's log line, hex-escaped.
//
// # Queries
//
// The share of checked requests each route refuses, for a Grafana panel
// (routes with no refusal in the window have no series in the numerator
// and so none in the result):
//
//	sum by (route) (rate(utf8guard_requests_total{outcome="rejected"}[5m])) / sum by (route) (rate(utf8guard_requests_total{outcome!="unchecked"}[5m]))
//
// The share a route in Monitor mode would refuse once enforced:
//
//	sum by (route) (rate(utf8guard_requests_total{outcome="flagged"}[5m])) / sum by (route) (rate(utf8guard_requests_total{outcome!="unchecked"}[5m]))
//
// What is refused, and why:
//
//	topk(10, sum by (route, location, reason, class) (rate(utf8guard_rejections_total[5m])))
package utf8prom
