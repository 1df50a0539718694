package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
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
	nop := zerolog.Nop()
	ok := func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }
	type server struct {
		name              string
		strict, mon, open string // the route templates, in the adapter's syntax
		unmatched         string // the Route of a request no route matches
		build             func(o *observed) http.Handler
	}
	servers := []server{
		{name: "nethttp", strict: "GET /s/{id}", mon: "GET /m/{id}", open: "GET /o/{id}", unmatched: "/", build: func(o *observed) http.Handler {
			mw := middleware.Handler(middleware.HTTPConfig{Rules: table("GET /m/{id}", "GET /o/{id}"), Logger: &nop, Observe: o.observe})
			mux := http.NewServeMux()
			for _, p := range []string{"GET /s/{id}", "GET /m/{id}", "GET /o/{id}"} {
				mux.Handle(p, mw(http.HandlerFunc(ok)))
			}
			mux.Handle("/", mw(http.NotFoundHandler()))
			return mux
		}},
		{name: "echov4", strict: "/s/:id", mon: "/m/:id", open: "/o/:id", unmatched: "", build: func(o *observed) http.Handler {
			e := echo4.New()
			e.Use(echov4.WithConfig(echov4.Config{Rules: table("/m/:id", "/o/:id"), Logger: &nop, Observe: o.observe}))
			for _, p := range []string{"/s/:id", "/m/:id", "/o/:id"} {
				e.GET(p, func(c echo4.Context) error { return c.String(http.StatusOK, "ok") })
			}
			return e
		}},
		{name: "echov5", strict: "/s/:id", mon: "/m/:id", open: "/o/:id", unmatched: "", build: func(o *observed) http.Handler {
			e := echo5.New()
			e.Use(echov5.WithConfig(echov5.Config{Rules: table("/m/:id", "/o/:id"), Logger: &nop, Observe: o.observe}))
			for _, p := range []string{"/s/:id", "/m/:id", "/o/:id"} {
				e.GET(p, func(c *echo5.Context) error { return c.String(http.StatusOK, "ok") })
			}
			return e
		}},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			var o observed
			h := s.build(&o)
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
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
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
		e := echo5.New()
		e.Use(echov5.WithConfig(echov5.Config{Rules: rules.Strict(), Logger: &nop, Observe: observe}))
		e.GET("/users/:id", func(c *echo5.Context) error { return c.NoContent(http.StatusOK) })
		r := httptest.NewRequest(http.MethodGet, "/users/42?name=alice", nil)
		w := httptest.NewRecorder()
		return testing.AllocsPerRun(200, func() {
			e.ServeHTTP(w, r)
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
