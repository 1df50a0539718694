// Command prometheus is an Echo v5 service whose utf8guard verdicts are
// Prometheus counters (package utf8prom): every request it checks, by
// route and outcome, and every rejected or flagged one, by route,
// location, reason and class. The metrics are served at /metrics on an
// address of their own, for operators only: they name the routes and
// what is refused there.
//
// It is a module of its own, so that utf8guard does not depend on the
// Prometheus client: run it with
//
//	(cd examples/prometheus && go run .)
//	curl -s '127.0.0.1:8080/users/%C0%AE'
//	curl -s 127.0.0.1:9090/metrics | grep utf8guard
//
// The refusal ratio per route, the query of a Grafana panel, is in
// utf8prom's package doc.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/prometheus/utf8prom"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the service's `address`")
	metricsAddr := flag.String("metrics", "127.0.0.1:9090", "the `address` of /metrics, for operators only")
	flag.Parse()

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e, err := newServer(utf8prom.New(reg), zerolog.New(os.Stderr).With().Timestamp().Logger())
	if err != nil {
		log.Fatal(err)
	}
	errc := make(chan error, 2)
	for _, srv := range []*http.Server{
		{Addr: *addr, Handler: e, ReadHeaderTimeout: 10 * time.Second},
		{Addr: *metricsAddr, Handler: metricsHandler(reg), ReadHeaderTimeout: 10 * time.Second},
	} {
		go func() { errc <- srv.ListenAndServe() }()
	}
	log.Fatal(<-errc)
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
func newServer(m *utf8prom.Metrics, logger zerolog.Logger) (*echo.Echo, error) {
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

// metricsHandler serves reg's metrics at /metrics.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}
