// Command otel is an Echo v5 service whose utf8guard verdicts are
// OpenTelemetry counters (package utf8otel): every request it checks, by
// route and outcome, and every rejected or flagged one, by route,
// location, reason and class. Here the SDK's MeterProvider hands them to
// OpenTelemetry's Prometheus exporter, served at /metrics on an address of
// its own, for operators only: they name the routes and what is refused
// there. To push them to a collector over OTLP instead, give the provider
// a periodic reader of an OTLP exporter
// (go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp):
//
//	exp, err := otlpmetrichttp.New(ctx) // OTEL_EXPORTER_OTLP_ENDPOINT
//	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
//
// It is a module of its own, so that utf8guard does not depend on
// OpenTelemetry: run it with
//
//	(cd examples/otel && go run .)
//	curl -s '127.0.0.1:8080/users/%C0%AE'
//	curl -s 127.0.0.1:9090/metrics | grep utf8guard
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/utf8guard/utf8guard/examples/otel/utf8otel"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// meterName is the instrumentation scope of utf8guard's counters.
const meterName = "github.com/utf8guard/utf8guard"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the service's `address`")
	metricsAddr := flag.String("metrics", "127.0.0.1:9090", "the `address` of /metrics, for operators only")
	flag.Parse()

	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		log.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	defer mp.Shutdown(context.Background())
	m, err := utf8otel.New(mp.Meter(meterName))
	if err != nil {
		log.Fatal(err)
	}
	e, err := newServer(m, zerolog.New(os.Stderr).With().Timestamp().Logger())
	if err != nil {
		log.Fatal(err)
	}
	metrics := http.NewServeMux()
	metrics.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	errc := make(chan error, 2)
	for _, srv := range []*http.Server{
		{Addr: *addr, Handler: e, ReadHeaderTimeout: 10 * time.Second},
		{Addr: *metricsAddr, Handler: metrics, ReadHeaderTimeout: 10 * time.Second},
	} {
		go func() { errc <- srv.ListenAndServe() }()
	}
	log.Print(<-errc)
}

// policies is the table: the default preset for most routes, the strict
// one for user names, monitor mode on a legacy route whose clients are
// being fixed, and nothing checked on a pass-through proxy.
func policies() rules.Table {
	return rules.Table{
		Default: rules.Default(),
		Routes: map[string]rules.Policy{
			"/users/:id":  rules.Strict(),
			"/legacy/:id": rules.Strict().AsMonitor(),
			"/proxy/*":    rules.Unchecked(),
		},
	}
}

// newServer returns the service, its utf8guard verdicts counted in m.
func newServer(m *utf8otel.Metrics, logger zerolog.Logger) (*echo.Echo, error) {
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	table := policies()
	e.Use(echov5.WithConfig(echov5.Config{
		Rules:   table,
		Logger:  &logger,
		Observe: m.Observe,
	}))
	e.GET("/users/:id", func(c *echo.Context) error {
		return c.String(http.StatusOK, c.Param("id"))
	})
	e.GET("/legacy/:id", func(c *echo.Context) error {
		return c.String(http.StatusOK, c.Param("id"))
	})
	e.GET("/health", func(c *echo.Context) error {
		return c.String(http.StatusOK, "ok")
	})
	e.Any("/proxy/*", func(c *echo.Context) error {
		return c.String(http.StatusOK, "passed on as sent")
	})
	return e, echov5.CheckRoutes(e, table)
}
