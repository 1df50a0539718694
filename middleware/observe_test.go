package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
)

// observed is what an observer saw: one line per call.
type observed struct {
	mu    sync.Mutex
	lines []string
}

func (o *observed) observe(_ *http.Request, v middleware.Observation) {
	line := v.Outcome.String() + " " + v.Route
	if rj := v.Rejection; rj != nil {
		line += " " + rj.Location.String() + " " + rj.Reason.String()
		if rj.Class != 0 {
			line += " " + rj.Class.String()
		}
	}
	o.mu.Lock()
	o.lines = append(o.lines, line)
	o.mu.Unlock()
}

func (o *observed) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.lines
	o.lines = nil
	return l
}

// TestObserveEveryVerdict: an observer hears of every request each
// adapter checks, once, with its outcome, its route template (never the
// raw path), and the location, reason and class of its rejection.
func TestObserveEveryVerdict(t *testing.T) {
	monitor := rules.Strict()
	monitor.Mode = rules.Monitor
	table := func(mon, open string) rules.Table {
		return rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{mon: monitor, open: rules.Unchecked()}}
	}
	// On net/http the adapter wraps the catch-all pattern "/" too: the
	// ServeMux's not-found handler there.
	ok := handlerFunc(func(_ echoCtx, w http.ResponseWriter, r *http.Request) {
		if r.Pattern == "/" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "ok")
	})
	type server struct {
		name, adapter, how string
		strict, mon, open  string   // the route templates, in the adapter's syntax
		more               []string // more routes
		unmatched          string   // the Route of a request no route matches
	}
	servers := []server{
		{name: "nethttp", adapter: "nethttp", how: "handler", strict: "GET /s/{id}", mon: "GET /m/{id}", open: "GET /o/{id}", more: []string{"/"}, unmatched: "/"},
		{name: "echov4", adapter: "v4", how: "use", strict: "/s/:id", mon: "/m/:id", open: "/o/:id", unmatched: ""},
		{name: "echov5", adapter: "v5", how: "use", strict: "/s/:id", mon: "/m/:id", open: "/o/:id", unmatched: ""},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			var o observed
			srv := newServer(t, mounting{adapter: s.adapter, how: s.how, cfg: middleware.HTTPConfig{Rules: table(s.mon, s.open), Observe: o.observe},
				routes: append([]string{s.strict, s.mon, s.open}, s.more...), methods: []string{http.MethodGet}}, ok)
			for _, tc := range []struct {
				target string
				status int
				want   string
			}{
				{"/s/caf%C3%A9?q=1", 200, "accepted " + s.strict},
				{"/s/%C0%AE", 400, "rejected " + s.strict + " path overlong"},
				{"/s/x?q=a%00", 400, "rejected " + s.strict + " query forbidden_char nul"},
				{"/m/%C0%AE", 200, "flagged " + s.mon + " path overlong"},
				{"/m/x", 200, "accepted " + s.mon},
				{"/o/%C0%AE", 200, "unchecked " + s.open},
				{"/nowhere/%ED%A0%80", 0, "rejected " + s.unmatched + " path surrogate"},
			} {
				w := srv.Do(httptest.NewRequest(http.MethodGet, tc.target, nil))
				if tc.status != 0 && w.Code != tc.status {
					t.Errorf("GET %s: status %d, want %d", tc.target, w.Code, tc.status)
				}
				got := o.take()
				if !slices.Equal(got, []string{tc.want}) {
					t.Errorf("GET %s: observed %q, want [%q]", tc.target, got, tc.want)
				}
				for _, l := range got {
					if strings.Contains(l, "%") || strings.Contains(l, "nowhere") {
						t.Errorf("GET %s: the observation %q holds the raw path", tc.target, l)
					}
				}
			}
		})
	}
}

// TestObserveCost: an observer costs a clean request one allocation (its
// route, handed to the observer), and nothing when none is set.
func TestObserveCost(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	nop := zerolog.Nop()
	allocs := func(observe func(*http.Request, middleware.Observation)) float64 {
		h := newServer(t, mounting{adapter: "v5", how: "use", cfg: middleware.HTTPConfig{Rules: rules.Strict(), Logger: &nop, Observe: observe},
			routes: []string{"/users/:id"}, methods: []string{http.MethodGet}},
			handlerFunc(func(_ echoCtx, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })).Handler()
		r := httptest.NewRequest(http.MethodGet, "/users/42?name=alice", nil)
		w := httptest.NewRecorder()
		return testing.AllocsPerRun(200, func() {
			h.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d", w.Code)
			}
		})
	}
	n := 0
	unobserved, observed := allocs(nil), allocs(func(*http.Request, middleware.Observation) { n++ })
	if unobserved != 0 || observed != 1 {
		t.Errorf("a clean GET: %v allocations unobserved, %v observed; want 0 and 1", unobserved, observed)
	}
	if n == 0 {
		t.Error("the observer was not called")
	}
}
