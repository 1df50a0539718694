package middleware_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

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
		"v4": echov4.CheckRoutes(e4, rtTable()),
		"v5": echov5.CheckRoutes(e5, rtTable()),
	} {
		var ue *middleware.UnknownRoutesError
		if !errors.As(err, &ue) || err.Error() != rtWant || len(ue.Keys) != 2 || ue.Near["/proxy"] != "/proxy/*" {
			t.Errorf("%s: %v\nwant %s", name, err, rtWant)
		}
	}
	good := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/monitor/*": rules.Unchecked(), "/health": rules.Default()}}
	for name, err := range map[string]error{
		"v4": echov4.CheckRoutes(e4, good), "v5": echov5.CheckRoutes(e5, good),
		"v4 policy": echov4.CheckRoutes(e4, rules.Strict()), "v5 policy": echov5.CheckRoutes(e5, rules.Strict()),
		"v4 nil": echov4.CheckRoutes(e4, nil), "v5 nil": echov5.CheckRoutes(e5, nil),
	} {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An invalid configuration is ToMiddleware's error.
	bad := rules.Strict()
	bad.Header.On = true
	for name, err := range map[string]error{
		"v4": echov4.CheckRoutes(e4, bad), "v5": echov5.CheckRoutes(e5, bad),
	} {
		if err == nil || !strings.HasPrefix(err.Error(), "rules: Header.On") {
			t.Errorf("%s, invalid policy: %v", name, err)
		}
	}
	curly := rules.Table{Routes: map[string]rules.Policy{"/users/{id}": rules.Strict()}}
	for name, err := range map[string]error{
		"v4": echov4.CheckRoutes(e4, curly), "v5": echov5.CheckRoutes(e5, curly),
	} {
		if err == nil || !strings.Contains(err.Error(), `"{id}" is another router's syntax`) {
			t.Errorf("%s, {id}: %v", name, err)
		}
	}
	// Echo v4's host routers count.
	e4.Host("api.example.com").GET("/only/on/api", func(c echo4.Context) error { return nil })
	host := rules.Table{Routes: map[string]rules.Policy{"/only/on/api": rules.Strict()}}
	if err := echov4.CheckRoutes(e4, host); err != nil {
		t.Errorf("a host router's route: %v", err)
	}
}

// TestRoutesFirstRequest: without the start-up check, each Echo adapter
// compares the keys with the routes at its first request, wherever it is
// mounted, and logs one error-level line per unknown key, once; requests
// are served as before.
func TestRoutesFirstRequest(t *testing.T) {
	t.Parallel()
	ok := handlerFunc(func(_ echoCtx, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	for _, adapter := range []string{"v4", "v5"} {
		for _, mount := range []string{"use", "pre", "group"} {
			t.Run(adapter+"/"+mount, func(t *testing.T) {
				t.Parallel()
				s := newServer(t, mounting{adapter: adapter, how: mount, cfg: middleware.HTTPConfig{Rules: rtTable()},
					routes: rtRoutes, methods: []string{http.MethodGet}}, ok)
				var wg sync.WaitGroup
				for i := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						w := s.Do(httptest.NewRequest(http.MethodGet, fmt.Sprintf("/users/%d", i), nil))
						if w.Code != http.StatusOK {
							t.Errorf("status %d", w.Code)
						}
					}()
				}
				wg.Wait()
				lines := linesAt(t, s.Logs(), "error")
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
	}
	// Every key names a route: nothing is logged.
	s := newServer(t, mounting{adapter: "v4", how: "use",
		cfg:    middleware.HTTPConfig{Rules: rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/x": rules.Unchecked()}}},
		routes: []string{"/x"}, methods: []string{http.MethodGet}}, ok)
	s.Do(httptest.NewRequest(http.MethodGet, "/x", nil))
	if lines := linesAt(t, s.Logs(), "error"); len(lines) != 0 {
		t.Errorf("logged %v", lines)
	}
}

// TestPipelineReportRoutes: the pipeline's first-request check, for an
// adapter of another router.
func TestPipelineReportRoutes(t *testing.T) {
	t.Parallel()
	l := &middleware.LogBuf{}
	pl, err := middleware.NewPipeline(middleware.PipelineConfig{Rules: rtTable(), Logger: l.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	if pl.RoutesChecked() {
		t.Fatal("RoutesChecked before ReportRoutes")
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	pl.ReportRoutes(r, rtRoutes)
	pl.ReportRoutes(r, nil) // only the first call reports
	if !pl.RoutesChecked() || len(linesAt(t, l, "error")) != 2 {
		t.Errorf("RoutesChecked %v, lines %v", pl.RoutesChecked(), linesAt(t, l, "error"))
	}
	pl, _ = middleware.NewPipeline(middleware.PipelineConfig{Rules: rules.Strict(), Logger: l.Logger()})
	if !pl.RoutesChecked() {
		t.Error("a policy without a table has nothing to check")
	}
	if err := middleware.CheckTableRoutes(rtTable(), []string{"/monitr/*", "/proxy", "/users/:id"}); err != nil {
		t.Error(err)
	}
}

func ExampleCheckRoutes() {
	cfg := echov4.Config{
		Rules: rules.Table{
			Default: rules.Strict(),
			Routes:  map[string]rules.Policy{"/monitr/*": rules.Strict().AsMonitor()},
		},
		Logger: func() *zerolog.Logger { l := zerolog.New(io.Discard); return &l }(),
	}
	e := echo4.New()
	e.Use(echov4.WithConfig(cfg))
	e.GET("/monitor/*", func(c echo4.Context) error { return c.NoContent(http.StatusOK) })
	// At start-up, after the routes are registered:
	if err := echov4.CheckRoutes(e, cfg.Rules); err != nil {
		fmt.Println(err)
	}
	// Output:
	// utf8guard: the policy table's route "/monitr/*" (did you mean "/monitor/*"?) names no registered route: its requests would get the default policy
}

// TestCheckRoutesHoldsDefaultPathFieldsToTheirRoutes: the default policy
// has no key, so the start-up checks hold its PRECIS path fields to the
// registered routes no key names; a field that is a parameter of none of
// them would check nothing.
func TestCheckRoutesHoldsDefaultPathFieldsToTheirRoutes(t *testing.T) {
	t.Parallel()
	e4, e5 := echo4.New(), echo5.New()
	for _, r := range []string{"/users/:username", "/health", "/files/*"} {
		e4.GET(r, func(c echo4.Context) error { return nil })
		e5.GET(r, func(c *echo5.Context) error { return nil })
	}
	withField := func(field string, routes map[string]rules.Policy) rules.Table {
		p := rules.Strict()
		p.Precis = []rules.PrecisField{{Location: rules.Path, Field: field, Profile: normalize.UsernameCaseMapped}}
		return rules.Table{Default: p, Routes: routes}
	}
	const typo = `rules: default policy: Precis[0].Field: "user" is a parameter of none of the 3 routes the policy applies to: their parameters are "*", "username"; the profile would never apply`
	for _, tc := range []struct {
		name  string
		table rules.Table
		want  string
	}{
		{"a parameter of one route", withField("username", nil), ""},
		{"a typo", withField("user", nil), typo},
		{"a parameter only of a keyed route", withField("username", map[string]rules.Policy{"/users/:username": rules.Strict()}),
			`"username" is a parameter of none of the 2 routes the policy applies to: their parameter is "*"`},
	} {
		for name, err := range map[string]error{
			"v4": echov4.CheckRoutes(e4, tc.table), "v5": echov5.CheckRoutes(e5, tc.table),
			"mux": middleware.CheckMuxRoutes(muxKeys(tc.table), []string{"GET /users/{username}", "/health", "/files/{rest...}"}),
		} {
			want := tc.want
			if name == "mux" {
				want = strings.ReplaceAll(want, `"*"`, `"rest"`)
			}
			switch {
			case want == "" && err != nil:
				t.Errorf("%s, %s: %v", tc.name, name, err)
			case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("%s, %s: %v\nwant %s", tc.name, name, err, want)
			}
		}
	}
	// A policy alone is the default of every route; its error names none.
	if err := echov4.CheckRoutes(e4, withField("user", nil).Default); err == nil || !strings.HasPrefix(err.Error(), `rules: Precis[0].Field: "user" is a parameter of none`) {
		t.Errorf("a policy alone: %v", err)
	}
}

// muxKeys returns t with its keys in the ServeMux syntax.
func muxKeys(t rules.Table) rules.Table {
	out := rules.Table{Default: t.Default, Routes: map[string]rules.Policy{}}
	for k, p := range t.Routes {
		out.Routes[strings.ReplaceAll(strings.ReplaceAll(k, ":username", "{username}"), "*", "{rest...}")] = p
	}
	return out
}

// TestEchoAdaptersJudgeFileKeysInEchoTerms: the policy file takes the
// ServeMux keys a net/http table holds; given to an Echo adapter, such a
// key is refused in Echo's terms.
func TestEchoAdaptersJudgeFileKeysInEchoTerms(t *testing.T) {
	t.Parallel()
	e4, e5 := echo4.New(), echo5.New()
	e4.GET("/users/:id", func(c echo4.Context) error { return nil })
	e5.GET("/users/:id", func(c *echo5.Context) error { return nil })
	for key, msg := range map[string]string{
		"GET /users/:id": `a ServeMux method prefix is no part of an Echo route template: the key is the path alone, "/users/:id"`,
		"/users/{id}":    `"{id}" is another router's syntax (net/http, chi); Echo names a parameter ":id"`,
		"users/:id":      `an Echo route template starts with "/"`,
	} {
		table, err := rules.Parse([]byte(`{"routes": {` + strconv.Quote(key) + `: {"preset": "strict"}}}`))
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		for name, err := range map[string]error{
			"v4": echov4.CheckRoutes(e4, table), "v5": echov5.CheckRoutes(e5, table),
		} {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%s, %q: %v\nwant %s", name, key, err, msg)
			}
		}
	}
}

// TestCheckMuxRoutesNamesUnknownKeys: the net/http start-up check, with
// the patterns a ServeMux registers or chi walks (method and route), meets
// keys as the adapter applies them.
func TestCheckMuxRoutesNamesUnknownKeys(t *testing.T) {
	t.Parallel()
	mux := []string{"GET /users/{id}", "/files/", "POST example.com/notes"}
	chi := []string{"GET /users/{id}", "POST /users/{id}", "GET /files/*"}
	for _, tc := range []struct {
		name     string
		keys     string // separated by commas
		patterns []string
		want     string
	}{
		{"mux patterns as registered", "GET /users/{id},/files/,POST example.com/notes", mux, ""},
		{"mux, a key for every method of a GET pattern", "/users/{id}", mux, ""},
		{"mux, a GET key of a pattern of every method", "GET /files/", mux, ""},
		{"chi, a key per method", "GET /users/{id},POST /users/{id}", chi, ""},
		{"chi, a key for every method", "/users/{id}", chi, ""},
		{"a typo", "GET /user/{id}", mux, `route "GET /user/{id}" (did you mean "GET /users/{id}"?) names no registered route`},
		{"another method", "DELETE /users/{id}", chi, `route "DELETE /users/{id}" names no registered route`},
		{"another host", "POST /notes", mux, `route "POST /notes" names no registered route`},
		{"a missing slash", "/files", mux, `route "/files" (did you mean "/files/"?) names no registered route`},
		{"Echo's syntax", "/users/:id", mux, `":id" is Echo's syntax, which a ServeMux takes literally`},
	} {
		table := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{}}
		for k := range strings.SplitSeq(tc.keys, ",") {
			table.Routes[k] = rules.Strict()
		}
		err := middleware.CheckMuxRoutes(table, tc.patterns)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
	if err := middleware.CheckMuxRoutes(rules.Strict(), nil); err != nil {
		t.Errorf("a policy alone: %v", err)
	}
}
