// Command metrics counts, without a metrics library, every request and
// every rejection that utf8guard logs, by route, location and reason, with
// the standard library's expvar; GET /debug/vars shows them, with the
// share of requests rejected (or flagged, in monitor mode):
//
//	"utf8guard_requests": {"/users/:id": 120, ...},
//	"utf8guard_rejections": {"/users/:id query invalid_byte enforce": 3, ...},
//	"utf8guard_rejection_ratio": 0.025
//
//	go run ./examples/metrics
//
// Serve /debug/vars where only operators reach it: here it shares the
// server's address for brevity.
package main

import (
	"expvar"
	"log"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

var (
	requests   = expvar.NewMap("utf8guard_requests")   // by route
	rejections = expvar.NewMap("utf8guard_rejections") // by "route location reason mode"
)

func init() {
	expvar.Publish("utf8guard_rejection_ratio", expvar.Func(func() any {
		return ratio(sum(rejections), sum(requests))
	}))
}

func main() {
	log.Fatal(newServer().Start("127.0.0.1:8080"))
}

func newServer() *echo.Echo {
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(countRequests) // before utf8guard, so that it counts the rejected too
	e.Use(echov4.WithConfig(echov4.Config{
		Rules: rules.Strict(),
		OnReject: func(c echo.Context, rj *middleware.Rejection) {
			rejections.Add(rj.Route+" "+rj.Location.String()+" "+rj.Reason.String()+" "+rj.Mode.String(), 1)
		},
	}))
	e.GET("/users/:id", func(c echo.Context) error { return c.String(http.StatusOK, c.Param("id")) })
	e.GET("/debug/vars", echo.WrapHandler(expvar.Handler()))
	return e
}

// countRequests counts every request by its route template (Echo has
// routed it when e.Use middleware runs), or "" when no route matched.
func countRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		requests.Add(c.Path(), 1)
		return next(c)
	}
}

func sum(m *expvar.Map) int64 {
	var n int64
	m.Do(func(kv expvar.KeyValue) {
		if v, ok := kv.Value.(*expvar.Int); ok {
			n += v.Value()
		}
	})
	return n
}

func ratio(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
