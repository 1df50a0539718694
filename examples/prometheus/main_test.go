package main

import (
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/prometheus/utf8prom"
)

// service is the example running on 127.0.0.1: the Echo service and its
// /metrics, each behind a real http.Server, as main starts them.
type service struct {
	app, metrics string // base URLs
	routes       []string
}

// startService starts the service on ports of 127.0.0.1 the kernel picks;
// the servers are closed when the test ends.
func startService(t *testing.T) *service {
	t.Helper()
	reg := prometheus.NewRegistry()
	e, err := newServer(utf8prom.New(reg), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	s := &service{}
	for _, r := range e.Router().Routes() {
		s.routes = append(s.routes, r.Path)
	}
	for _, h := range []struct {
		handler http.Handler
		url     *string
	}{{e, &s.app}, {metricsHandler(reg), &s.metrics}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: h.handler, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		*h.url = "http://" + ln.Addr().String()
	}
	return s
}

var client = &http.Client{Timeout: 5 * time.Second}

// get sends GET target (as escaped, the raw path kept) to the service and
// returns the status.
func (s *service) get(t *testing.T, method, target string) int {
	t.Helper()
	req, err := http.NewRequest(method, s.app+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// scrape reads /metrics over HTTP and returns utf8guard's series, keyed
// `name{label="value",...}` with the labels in order, and their values.
func (s *service) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := client.Get(s.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: status %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]float64{}
	for name, f := range families {
		if !strings.HasPrefix(name, "utf8guard_") {
			continue
		}
		if f.GetType() != dto.MetricType_COUNTER {
			t.Errorf("%s is a %v, want a counter", name, f.GetType())
		}
		for _, m := range f.GetMetric() {
			series[seriesKey(name, m.GetLabel())] = m.GetCounter().GetValue()
		}
	}
	return series
}

func seriesKey(name string, labels []*dto.LabelPair) string {
	var l []string
	for _, lp := range labels {
		l = append(l, lp.GetName()+"="+strconv.Quote(lp.GetValue()))
	}
	sort.Strings(l)
	return name + "{" + strings.Join(l, ",") + "}"
}

// traffic is the requests of TestMetricsCountEveryVerdict, with the
// status each gets.
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

// TestMetricsCountEveryVerdict: after a few clean and refused requests,
// /metrics holds exactly one request count per route and outcome and one
// rejection count per route, location, reason and class.
func TestMetricsCountEveryVerdict(t *testing.T) {
	t.Parallel()
	s := startService(t)
	if got := s.scrape(t); len(got) != 0 {
		t.Errorf("before any request: %v", got)
	}
	for _, tc := range traffic {
		if got := s.get(t, http.MethodGet, tc.target); got != tc.status {
			t.Errorf("GET %s: status %d, want %d", tc.target, got, tc.status)
		}
	}
	want := map[string]float64{
		`utf8guard_requests_total{outcome="accepted",route="/users/:id"}`:                                     2,
		`utf8guard_requests_total{outcome="rejected",route="/users/:id"}`:                                     2,
		`utf8guard_requests_total{outcome="flagged",route="/legacy/:id"}`:                                     1,
		`utf8guard_requests_total{outcome="accepted",route="/legacy/:id"}`:                                    1,
		`utf8guard_requests_total{outcome="unchecked",route="/proxy/*"}`:                                      1,
		`utf8guard_requests_total{outcome="accepted",route="/health"}`:                                        1,
		`utf8guard_requests_total{outcome="rejected",route="unmatched"}`:                                      1,
		`utf8guard_rejections_total{class="",location="path",reason="overlong",route="/users/:id"}`:           1,
		`utf8guard_rejections_total{class="nul",location="query",reason="forbidden_char",route="/users/:id"}`: 1,
		`utf8guard_rejections_total{class="",location="path",reason="overlong",route="/legacy/:id"}`:          1,
		`utf8guard_rejections_total{class="",location="path",reason="surrogate",route="unmatched"}`:           1,
	}
	got := s.scrape(t)
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

// TestLabelsHoldNoRawPath: whatever path a client sends, a label holds a
// registered route template or "unmatched", an outcome, or a name of the
// taxonomy; never a byte of the path.
func TestLabelsHoldNoRawPath(t *testing.T) {
	t.Parallel()
	s := startService(t)
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
		s.get(t, r.method, r.target)
	}
	taxonomy := regexp.MustCompile(`^[a-z][a-z0-9_|]*$`)
	allowed := map[string]func(string) bool{
		"route": func(v string) bool { return v == utf8prom.Unmatched || slices.Contains(s.routes, v) },
		"outcome": func(v string) bool {
			return slices.Contains([]string{"accepted", "rejected", "flagged", "unchecked"}, v)
		},
		"location": func(v string) bool {
			return slices.Contains([]string{"path", "query", "form", "json", "multipart", "body", "header", "xml"}, v)
		},
		"reason": taxonomy.MatchString,
		"class":  func(v string) bool { return v == "" || taxonomy.MatchString(v) },
	}
	got := s.scrape(t)
	if len(got) == 0 {
		t.Fatal("no utf8guard series")
	}
	for k := range got {
		for _, m := range regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(k, -1) {
			name, value := m[1], m[2]
			ok := allowed[name]
			if ok == nil || !ok(value) || strings.Contains(value, "attacker") {
				t.Errorf("%s: label %s=%q", k, name, value)
			}
		}
	}
}

// TestRefusalRatioQuery: the queries of utf8prom's package doc name the
// metric and labels the service exports, and give the share of refused
// (or flagged) requests per route. The test evaluates them on one scrape,
// the counters' values standing for their increase since they were 0:
// rate's window cancels out of the ratio.
func TestRefusalRatioQuery(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("utf8prom/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	queries := map[string]string{} // by the outcome of the numerator
	shape := regexp.MustCompile(`^sum by \(route\) \(rate\((\w+)\{([^}]*)\}\[5m\]\)\) / sum by \(route\) \(rate\((\w+)\{([^}]*)\}\[5m\]\)\)$`)
	for _, line := range strings.Split(string(doc), "\n") {
		if q, ok := strings.CutPrefix(line, "//\tsum by (route) "); ok {
			q = "sum by (route) " + q
			m := shape.FindStringSubmatch(q)
			if m == nil {
				t.Fatalf("the query %q has not the shape this test evaluates", q)
			}
			queries[m[2]] = q
		}
	}
	s := startService(t)
	for _, tc := range traffic {
		s.get(t, http.MethodGet, tc.target)
	}
	got := s.scrape(t)
	for numerator, want := range map[string]map[string]float64{
		`outcome="rejected"`: {"/users/:id": 0.5, "unmatched": 1},
		`outcome="flagged"`:  {"/legacy/:id": 0.5},
	} {
		q, ok := queries[numerator]
		if !ok {
			t.Errorf("utf8prom's doc has no ratio query of %s", numerator)
			continue
		}
		m := shape.FindStringSubmatch(q)
		num, den := sumByRoute(t, got, m[1], m[2]), sumByRoute(t, got, m[3], m[4])
		ratio := map[string]float64{}
		for route, n := range num {
			if d, ok := den[route]; ok && d != 0 {
				ratio[route] = n / d
			}
		}
		if len(ratio) != len(want) {
			t.Errorf("%s = %v, want %v", q, ratio, want)
		}
		for route, w := range want {
			if ratio[route] != w {
				t.Errorf("%s: route %q = %v, want %v", q, route, ratio[route], w)
			}
		}
	}
}

// sumByRoute is PromQL's sum by (route) (name{matchers}) over series,
// for matchers label="v" and label!="v" joined by commas.
func sumByRoute(t *testing.T, series map[string]float64, name, matchers string) map[string]float64 {
	t.Helper()
	type matcher struct {
		label string
		neg   bool
		value string
	}
	var ms []matcher
	for _, m := range strings.Split(matchers, ",") {
		p := regexp.MustCompile(`^(\w+)(!?=)"([^"]*)"$`).FindStringSubmatch(strings.TrimSpace(m))
		if p == nil {
			t.Fatalf("the matcher %q is not label=\"v\" or label!=\"v\"", m)
		}
		ms = append(ms, matcher{p[1], p[2] == "!=", p[3]})
	}
	label := regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)
	sums := map[string]float64{}
	found := false
	for k, v := range series {
		n, ls, _ := strings.Cut(k, "{")
		if n != name {
			continue
		}
		found = true
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(ls, -1) {
			labels[l[1]] = l[2]
		}
		match := true
		for _, m := range ms {
			if _, ok := labels[m.label]; !ok {
				t.Fatalf("%s has no label %s", name, m.label)
			}
			if (labels[m.label] == m.value) == m.neg {
				match = false
			}
		}
		if match {
			sums[labels["route"]] += v
		}
	}
	if !found {
		t.Fatalf("the service exports no %s", name)
	}
	return sums
}
