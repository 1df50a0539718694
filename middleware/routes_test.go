package middleware_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// rtLog is a concurrency-safe log sink that reads back JSON lines.
type rtLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *rtLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *rtLog) logger() *zerolog.Logger {
	z := zerolog.New(l)
	return &z
}

// lines returns the log lines of level, decoded.
func (l *rtLog) lines(t *testing.T, level string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["level"] == level {
			out = append(out, m)
		}
	}
	return out
}

// rtTable has two keys that name no route: a typo and a missing "/*".
func rtTable() rules.Table {
	return rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
		"/monitr/*":  rules.Strict().AsMonitor(),
		"/proxy":     rules.Unchecked(),
		"/users/:id": rules.Default(),
	}}
}

// rtRoutes are the routes registered on the test servers.
var rtRoutes = []string{"/monitor/*", "/proxy/*", "/users/:id", "/health"}

const rtWant = `utf8guard: the policy table's routes "/monitr/*" (did you mean "/monitor/*"?), "/proxy" (did you mean "/proxy/*"?) name no registered route: their requests would get the default policy`

// TestCheckRoutes: the start-up check of both Echo adapters names every
// key that no registered route has, with the route it resembles.
func TestCheckRoutes(t *testing.T) {
	t.Parallel()
	e4 := echo4.New()
	e5 := echo5.New()
	for _, r := range rtRoutes {
		e4.GET(r, func(c echo4.Context) error { return nil })
		e5.GET(r, func(c *echo5.Context) error { return nil })
	}
	for name, err := range map[string]error{
		"v4": middleware.CheckRoutes(e4, rtTable()),
		"v5": echov5.CheckRoutes(e5, rtTable()),
	} {
		var ue *middleware.UnknownRoutesError
		if !errors.As(err, &ue) || err.Error() != rtWant || len(ue.Keys) != 2 || ue.Near["/proxy"] != "/proxy/*" {
			t.Errorf("%s: %v\nwant %s", name, err, rtWant)
		}
	}
	good := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/monitor/*": rules.Unchecked(), "/health": rules.Default()}}
	for name, err := range map[string]error{
		"v4": middleware.CheckRoutes(e4, good), "v5": echov5.CheckRoutes(e5, good),
		"v4 policy": middleware.CheckRoutes(e4, rules.Strict()), "v5 policy": echov5.CheckRoutes(e5, rules.Strict()),
		"v4 nil": middleware.CheckRoutes(e4, nil), "v5 nil": echov5.CheckRoutes(e5, nil),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An invalid configuration is ToMiddleware's error.
	bad := rules.Strict()
	bad.Header.On = true
	for name, err := range map[string]error{
		"v4": middleware.CheckRoutes(e4, bad), "v5": echov5.CheckRoutes(e5, bad),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "rules: Header.On") {
			t.Errorf("%s, invalid policy: %v", name, err)
		}
	}
	curly := rules.Table{Routes: map[string]rules.Policy{"/users/{id}": rules.Strict()}}
	for name, err := range map[string]error{
		"v4": middleware.CheckRoutes(e4, curly), "v5": echov5.CheckRoutes(e5, curly),
	} {
		if err == nil || !strings.Contains(err.Error(), `"{id}" is another router's syntax`) {
			t.Errorf("%s, {id}: %v", name, err)
		}
	}
	// Echo v4's host routers count.
	e4.Host("api.example.com").GET("/only/on/api", func(c echo4.Context) error { return nil })
	host := rules.Table{Routes: map[string]rules.Policy{"/only/on/api": rules.Strict()}}
	if err := middleware.CheckRoutes(e4, host); err != nil {
		t.Errorf("a host router's route: %v", err)
	}
}

// TestRoutesFirstRequest: without the start-up check, each Echo adapter
// compares the keys with the routes at its first request, wherever it is
// mounted, and logs one error-level line per unknown key, once; requests
// are served as before.
func TestRoutesFirstRequest(t *testing.T) {
	t.Parallel()
	type server struct {
		h   http.Handler
		log *rtLog
	}
	var servers = map[string]func() server{}
	for _, mount := range []string{"use", "pre", "group"} {
		servers["v4/"+mount] = func() server {
			l := &rtLog{}
			e := echo4.New()
			mw := middleware.WithConfig(middleware.Config{Rules: rtTable(), Logger: l.logger()})
			var g *echo4.Group
			switch mount {
			case "use":
				e.Use(mw)
			case "pre":
				e.Pre(mw)
			case "group":
				g = e.Group("", mw)
			}
			for _, r := range rtRoutes {
				h := func(c echo4.Context) error { return c.String(http.StatusOK, "ok") }
				if g != nil {
					g.GET(r, h)
				} else {
					e.GET(r, h)
				}
			}
			return server{e, l}
		}
		servers["v5/"+mount] = func() server {
			l := &rtLog{}
			e := echo5.New()
			mw := echov5.WithConfig(echov5.Config{Rules: rtTable(), Logger: l.logger()})
			var g *echo5.Group
			switch mount {
			case "use":
				e.Use(mw)
			case "pre":
				e.Pre(mw)
			case "group":
				g = e.Group("", mw)
			}
			for _, r := range rtRoutes {
				h := func(c *echo5.Context) error { return c.String(http.StatusOK, "ok") }
				if g != nil {
					g.GET(r, h)
				} else {
					e.GET(r, h)
				}
			}
			return server{e, l}
		}
	}
	for name, mk := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mk()
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					w := httptest.NewRecorder()
					s.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/users/%d", i), nil))
					if w.Code != http.StatusOK {
						t.Errorf("status %d", w.Code)
					}
				}()
			}
			wg.Wait()
			lines := s.log.lines(t, "error")
			if len(lines) != 2 {
				t.Fatalf("%d error lines, want 2 (one per unknown key, once): %v", len(lines), lines)
			}
			for i, want := range [][2]string{{"/monitr/*", "/monitor/*"}, {"/proxy", "/proxy/*"}} {
				if lines[i]["route"] != want[0] || lines[i]["did_you_mean"] != want[1] ||
					!strings.HasPrefix(lines[i]["message"].(string), "utf8guard: a route of the policy table names no registered route") {
					t.Errorf("line %d: %v, want route %s, did_you_mean %s", i, lines[i], want[0], want[1])
				}
			}
		})
	}
	// Every key names a route: nothing is logged.
	l := &rtLog{}
	e := echo4.New()
	e.Use(middleware.WithConfig(middleware.Config{Logger: l.logger(),
		Rules: rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/x": rules.Unchecked()}}}))
	e.GET("/x", func(c echo4.Context) error { return nil })
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	if lines := l.lines(t, "error"); len(lines) != 0 {
		t.Errorf("logged %v", lines)
	}
}

// TestPipelineReportRoutes: the pipeline's first-request check, for an
// adapter of another router.
func TestPipelineReportRoutes(t *testing.T) {
	t.Parallel()
	l := &rtLog{}
	pl, err := middleware.NewPipeline(middleware.PipelineConfig{Rules: rtTable(), Logger: l.logger()})
	if err != nil {
		t.Fatal(err)
	}
	if pl.RoutesChecked() {
		t.Fatal("RoutesChecked before ReportRoutes")
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	pl.ReportRoutes(r, rtRoutes)
	pl.ReportRoutes(r, nil) // only the first call reports
	if !pl.RoutesChecked() || len(l.lines(t, "error")) != 2 {
		t.Errorf("RoutesChecked %v, lines %v", pl.RoutesChecked(), l.lines(t, "error"))
	}
	pl, _ = middleware.NewPipeline(middleware.PipelineConfig{Rules: rules.Strict(), Logger: l.logger()})
	if !pl.RoutesChecked() {
		t.Error("a policy without a table has nothing to check")
	}
	if err := middleware.CheckTableRoutes(rtTable(), []string{"/monitr/*", "/proxy", "/users/:id"}); err != nil {
		t.Error(err)
	}
}

func ExampleCheckRoutes() {
	cfg := middleware.Config{
		Rules: rules.Table{
			Default: rules.Strict(),
			Routes:  map[string]rules.Policy{"/monitr/*": rules.Strict().AsMonitor()},
		},
		Logger: func() *zerolog.Logger { l := zerolog.New(io.Discard); return &l }(),
	}
	e := echo4.New()
	e.Use(middleware.WithConfig(cfg))
	e.GET("/monitor/*", func(c echo4.Context) error { return c.NoContent(http.StatusOK) })
	// At start-up, after the routes are registered:
	if err := middleware.CheckRoutes(e, cfg.Rules); err != nil {
		fmt.Println(err)
	}
	// Output:
	// utf8guard: the policy table's route "/monitr/*" (did you mean "/monitor/*"?) names no registered route: its requests would get the default policy
}
