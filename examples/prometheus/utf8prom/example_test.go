package utf8prom_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/prometheus/utf8prom"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// Metrics' Observe is the adapter's Observe hook.
func Example() {
	reg := prometheus.NewRegistry()
	m := utf8prom.New(reg)

	nop := zerolog.Nop()
	e := echo.New()
	e.Use(echov5.WithConfig(echov5.Config{Rules: rules.Strict(), Logger: &nop, Observe: m.Observe}))
	e.GET("/users/:id", func(c *echo.Context) error { return c.String(http.StatusOK, c.Param("id")) })
	for _, target := range []string{"/users/alice", "/users/%C0%AE", "/users/bob?q=%00"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}

	n, err := testutil.GatherAndCount(reg, "utf8guard_requests_total", "utf8guard_rejections_total")
	fmt.Println(n, "series", err)
	families, _ := reg.Gather()
	for _, f := range families {
		for _, s := range f.GetMetric() {
			fmt.Print(f.GetName())
			for _, l := range s.GetLabel() {
				fmt.Printf(" %s=%q", l.GetName(), l.GetValue())
			}
			fmt.Println(" ", s.GetCounter().GetValue())
		}
	}
	// Output:
	// 4 series <nil>
	// utf8guard_rejections_total class="" location="path" reason="overlong" route="/users/:id"  1
	// utf8guard_rejections_total class="nul" location="query" reason="forbidden_char" route="/users/:id"  1
	// utf8guard_requests_total outcome="accepted" route="/users/:id"  1
	// utf8guard_requests_total outcome="rejected" route="/users/:id"  2
}
