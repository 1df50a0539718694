package echov4_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

func ExampleCheckRoutes() {
	logger := zerolog.New(io.Discard)
	cfg := echov4.Config{
		Rules: rules.Table{
			Default: rules.Strict(),
			Routes:  map[string]rules.Policy{"/proxy": rules.Unchecked()},
		},
		Logger: &logger,
	}
	e := echo.New()
	e.Use(echov4.WithConfig(cfg))
	e.Any("/proxy/*", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	// At start-up, after the routes are registered:
	if err := echov4.CheckRoutes(e, cfg.Rules); err != nil {
		fmt.Println(err)
	}
	// Output:
	// utf8guard: the policy table's route "/proxy" (did you mean "/proxy/*"?) names no registered route: its requests would get the default policy
}

// TestCheckRoutes: a table key that names no registered route is an
// *middleware.UnknownRoutesError, a key registered on a host's router
// (Echo.Host) or in a group names one, and a configuration ToMiddleware
// refuses (an invalid policy, a key not in Echo's route syntax) is an
// error too.
func TestCheckRoutes(t *testing.T) {
	noHeaders := rules.Strict()
	noHeaders.Header.On = true
	for _, tt := range []struct {
		name    string
		rules   rules.Ruleset
		unknown bool // want an *UnknownRoutesError
		ok      bool
	}{
		{"registered keys", &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/users/:id": rules.Strict(), "/api/items": rules.Strict(), "/host/:id": rules.Strict(),
		}}, false, true},
		{"typo key", &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/user/:id": rules.Strict(),
		}}, true, false},
		{"a parameter renamed", &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/users/:name": rules.Strict(),
		}}, true, false},
		{"one policy", rules.Strict(), false, true},
		{"invalid policy", noHeaders, false, false},
		{"not Echo's syntax", &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"/users/{id}": rules.Strict(),
		}}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := echo.New()
			ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
			e.GET("/users/:id", ok)
			e.Group("/api").POST("/items", ok)
			e.Host("api.example.com").GET("/host/:id", ok)
			err := echov4.CheckRoutes(e, tt.rules)
			var unknown *middleware.UnknownRoutesError
			switch {
			case tt.ok && err != nil:
				t.Errorf("error %v, want none", err)
			case !tt.ok && err == nil:
				t.Errorf("no error")
			case tt.unknown != errors.As(err, &unknown):
				t.Errorf("error %T %v; want an *UnknownRoutesError: %v", err, err, tt.unknown)
			}
		})
	}
}

// TestUnknownRouteLoggedOnce: without CheckRoutes, the middleware logs one
// error-level line per unknown table key at its first request, and none
// at the later ones; the requests get the default policy.
func TestUnknownRouteLoggedOnce(t *testing.T) {
	var log bytes.Buffer
	logger := zerolog.New(&log)
	e := echo.New()
	e.Use(echov4.WithConfig(echov4.Config{Logger: &logger, Rules: &rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/user/:id": rules.Unchecked()},
	}}))
	e.GET("/users/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	for i := 0; i < 3; i++ {
		if w := do(e, http.MethodGet, "/users/1"); w.Code != http.StatusOK {
			t.Fatalf("request %d: status %d", i, w.Code)
		}
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %s", len(lines), log.String())
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil || line["level"] != "error" || !strings.Contains(lines[0], "/user/:id") {
		t.Errorf("log line %s, want an error naming /user/:id", lines[0])
	}
	if w := do(e, http.MethodGet, "/users/%C0%AE"); w.Code != http.StatusBadRequest {
		t.Errorf("under the default policy: status %d, want 400", w.Code)
	}
}
