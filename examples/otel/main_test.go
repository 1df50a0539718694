package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/utf8guard/utf8guard/examples/otel/utf8otel"
)

// startService returns the service, its counters read by reader.
func startService(t *testing.T, reader sdkmetric.Reader) *echo.Echo {
	t.Helper()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	m, err := utf8otel.New(mp.Meter(meterName))
	if err != nil {
		t.Fatal(err)
	}
	e, err := newServer(m, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// send sends method target to e and returns the status.
func send(e *echo.Echo, method, target string) int {
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w.Code
}

// collect reads the counters with reader: utf8guard's series, keyed
// `name{key="value",...}` with the keys in order, and their values.
func collect(t *testing.T, reader sdkmetric.Reader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	series := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != meterName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, meterName)
		}
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || !sum.IsMonotonic || sum.Temporality != metricdata.CumulativeTemporality {
				t.Errorf("%s is a %T (monotonic and cumulative: %v), want an Int64Counter", m.Name, m.Data, ok)
				continue
			}
			for _, dp := range sum.DataPoints {
				series[seriesKey(m.Name, dp.Attributes)] = dp.Value
			}
		}
	}
	return series
}

func seriesKey(name string, attrs attribute.Set) string {
	var l []string
	for _, kv := range attrs.ToSlice() {
		l = append(l, string(kv.Key)+"="+strconv.Quote(kv.Value.AsString()))
	}
	sort.Strings(l)
	return name + "{" + strings.Join(l, ",") + "}"
}

// traffic is a few clean and refused requests, with the status each gets.
var traffic = []struct {
	target string
	status int
}{
	{"/users/alice", 200},
	{"/users/caf%C3%A9", 200},
	{"/users/%C0%AE", 400},     // an overlong "."
	{"/users/bob?q=a%00", 400}, // a NUL in the query
	{"/legacy/%C0%AE", 200},    // monitor mode: flagged, passed on
	{"/legacy/x", 200},
	{"/proxy/%C0%AE", 200}, // unchecked
	{"/health", 200},
	{"/nowhere/%ED%A0%80", 400}, // no route, a surrogate
}

// TestCountersHoldEveryVerdict: after a few clean and refused requests,
// a manual reader finds exactly one request count per route and outcome
// and one rejection count per route, location, reason and class.
func TestCountersHoldEveryVerdict(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	e := startService(t, reader)
	if got := collect(t, reader); len(got) != 0 {
		t.Errorf("before any request: %v", got)
	}
	for _, tc := range traffic {
		if got := send(e, http.MethodGet, tc.target); got != tc.status {
			t.Errorf("GET %s: status %d, want %d", tc.target, got, tc.status)
		}
	}
	want := map[string]int64{
		`utf8guard.requests{outcome="accepted",route="/users/:id"}`:                                     2,
		`utf8guard.requests{outcome="rejected",route="/users/:id"}`:                                     2,
		`utf8guard.requests{outcome="flagged",route="/legacy/:id"}`:                                     1,
		`utf8guard.requests{outcome="accepted",route="/legacy/:id"}`:                                    1,
		`utf8guard.requests{outcome="unchecked",route="/proxy/*"}`:                                      1,
		`utf8guard.requests{outcome="accepted",route="/health"}`:                                        1,
		`utf8guard.requests{outcome="rejected",route="unmatched"}`:                                      1,
		`utf8guard.rejections{class="",location="path",reason="overlong",route="/users/:id"}`:           1,
		`utf8guard.rejections{class="nul",location="query",reason="forbidden_char",route="/users/:id"}`: 1,
		`utf8guard.rejections{class="",location="path",reason="overlong",route="/legacy/:id"}`:          1,
		`utf8guard.rejections{class="",location="path",reason="surrogate",route="unmatched"}`:           1,
	}
	got := collect(t, reader)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected series %s = %v", k, v)
		}
	}
}

// TestAttributesHoldNoRawPath: whatever path a client sends, an attribute
// holds a registered route template or "unmatched", an outcome, or a name
// of the taxonomy; never a byte of the path.
func TestAttributesHoldNoRawPath(t *testing.T) {
	t.Parallel()
	reader := sdkmetric.NewManualReader()
	e := startService(t, reader)
	var routes []string
	for _, r := range e.Router().Routes() {
		routes = append(routes, r.Path)
	}
	for _, r := range []struct{ method, target string }{
		{"GET", "/users/attacker"},
		{"GET", "/users/attacker%C0%AE"},
		{"GET", "/users/attacker?q=%00"},
		{"GET", "/users/attacker%E2%80%AE"}, // a bidi override
		{"POST", "/users/attacker"},         // a route without that method
		{"GET", "/legacy/attacker%ED%A0%80"},
		{"GET", "/proxy/attacker/%FF"},
		{"GET", "/attacker"},
		{"GET", "/attacker/%C0%AE"},
		{"GET", "/attacker/%2e%2e/%2e%2e/etc/passwd"},
		{"GET", "/" + strings.Repeat("attacker", 200)},
		{"DELETE", "/health/attacker"},
	} {
		send(e, r.method, r.target)
	}
	taxonomy := regexp.MustCompile(`^[a-z][a-z0-9_|]*$`)
	allowed := map[attribute.Key]func(string) bool{
		utf8otel.RouteKey: func(v string) bool { return v == utf8otel.Unmatched || slices.Contains(routes, v) },
		utf8otel.OutcomeKey: func(v string) bool {
			return slices.Contains([]string{"accepted", "rejected", "flagged", "unchecked"}, v)
		},
		utf8otel.LocationKey: func(v string) bool {
			return slices.Contains([]string{"path", "query", "form", "json", "multipart", "body", "header", "xml"}, v)
		},
		utf8otel.ReasonKey: taxonomy.MatchString,
		utf8otel.ClassKey:  func(v string) bool { return v == "" || taxonomy.MatchString(v) },
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				n++
				for _, kv := range dp.Attributes.ToSlice() {
					v := kv.Value.AsString()
					if ok := allowed[kv.Key]; ok == nil || !ok(v) || strings.Contains(v, "attacker") {
						t.Errorf("%s: attribute %s=%q", m.Name, kv.Key, v)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no utf8guard series")
	}
}

// TestPrometheusExporterNames: through OpenTelemetry's Prometheus exporter,
// main's, the counters are utf8guard_requests_total and
// utf8guard_rejections_total with the labels of utf8prom's, so that the
// same queries serve both (beside them, the exporter adds labels naming
// the meter: otel_scope_name and the like).
func TestPrometheusExporterNames(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		t.Fatal(err)
	}
	e := startService(t, exp)
	for _, tc := range traffic {
		send(e, http.MethodGet, tc.target)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var l []string
			for _, lp := range m.GetLabel() {
				if strings.HasPrefix(lp.GetName(), "otel_scope_") {
					continue // the exporter's labels of the meter, which sum by (route) drops
				}
				l = append(l, lp.GetName()+"="+strconv.Quote(lp.GetValue()))
			}
			sort.Strings(l)
			got[f.GetName()+"{"+strings.Join(l, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	for k, v := range map[string]float64{
		`utf8guard_requests_total{outcome="rejected",route="/users/:id"}`:                                     2,
		`utf8guard_requests_total{outcome="unchecked",route="/proxy/*"}`:                                      1,
		`utf8guard_rejections_total{class="nul",location="query",reason="forbidden_char",route="/users/:id"}`: 1,
		`utf8guard_rejections_total{class="",location="path",reason="surrogate",route="unmatched"}`:           1,
	} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
