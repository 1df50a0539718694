package utf8otel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/utf8guard/utf8guard/examples/otel/utf8otel"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// Metrics' Observe is the adapter's Observe hook; a manual reader shows
// what an exporter would be handed.
func Example() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := utf8otel.New(mp.Meter("github.com/utf8guard/utf8guard"))
	if err != nil {
		panic(err)
	}

	nop := zerolog.Nop()
	e := echo.New()
	e.Use(echov5.WithConfig(echov5.Config{Rules: rules.Strict(), Logger: &nop, Observe: m.Observe}))
	e.GET("/users/:id", func(c *echo.Context) error { return c.String(http.StatusOK, c.Param("id")) })
	for _, target := range []string{"/users/alice", "/users/%C0%AE", "/users/bob?q=%00"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, metric := range sm.Metrics {
			for _, dp := range metric.Data.(metricdata.Sum[int64]).DataPoints {
				fmt.Print(metric.Name)
				for _, kv := range dp.Attributes.ToSlice() { // sorted by key
					fmt.Printf(" %s=%q", kv.Key, kv.Value.AsString())
				}
				fmt.Println(" ", dp.Value)
			}
		}
	}
	// Unordered output:
	// utf8guard.requests outcome="accepted" route="/users/:id"  1
	// utf8guard.requests outcome="rejected" route="/users/:id"  2
	// utf8guard.rejections class="" location="path" reason="overlong" route="/users/:id"  1
	// utf8guard.rejections class="nul" location="query" reason="forbidden_char" route="/users/:id"  1
}
