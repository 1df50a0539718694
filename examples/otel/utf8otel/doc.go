// Package utf8otel counts utf8guard's verdicts with OpenTelemetry metrics:
// a *Metrics' Observe method is the Observe hook of any utf8guard adapter
// (echov5.Config, echov4.Config, middleware.HTTPConfig).
//
// # The instruments
//
// Two Int64Counters, with the attributes of utf8prom's Prometheus counters
// (package github.com/utf8guard/utf8guard/examples/prometheus/utf8prom):
//
//	utf8guard.requests   {route, outcome}
//	utf8guard.rejections {route, location, reason, class}
//
// The first counts every request the middleware checks, with its outcome:
// "accepted", "rejected", "flagged" (a violation on a route in Monitor mode,
// passed on) or "unchecked" (a route whose policy checks nothing). The
// second counts the rejected and flagged ones by where the violation was
// found and what it was. OpenTelemetry's Prometheus exporter names them
// utf8guard_requests_total and utf8guard_rejections_total, so the queries
// of utf8prom's doc work on either.
//
// # Bounded attributes
//
// An attribute value that an attacker can choose is a time series per
// request, in the SDK's memory and in the backend. No attribute here holds a
// byte of the request: the route is the route template the policy was
// looked up by ("/users/:id"), or "unmatched" for a request that matched
// none; the outcome, location, reason and class are names of utf8guard's
// taxonomy (class is the character class for forbidden_char, "nul" say,
// and "" for every other reason). The rejection's Field and Sample come
// from the request and are never attributes: they are in utf8guard's log
// line, hex-escaped.
package utf8otel
