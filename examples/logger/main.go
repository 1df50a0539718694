// Command logger shows a request-scoped zerolog logger on Echo v4: a
// middleware mounted before utf8guard puts a logger with the request's own
// fields into the request's context, and utf8guard writes its line there
// (zerolog.Ctx), so that line carries those fields. Without one in the
// context, utf8guard writes to Config.Logger; a global
// zerolog.DefaultContextLogger never replaces it.
//
//	go run ./examples/logger
package main

import (
	"log"
	"os"

	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	base := zerolog.New(os.Stdout).With().Timestamp().Logger()
	log.Fatal(newServer(base).Start("127.0.0.1:8080"))
}

func newServer(base zerolog.Logger) *echo.Echo {
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(echomw.RequestID())
	e.Use(requestLogger(base)) // before utf8guard
	e.Use(echov4.WithConfig(echov4.Config{Rules: rules.Strict(), Logger: &base}))
	e.GET("/hello", func(c echo.Context) error { return c.String(200, "hello") })
	return e
}

// README:begin
// requestLogger puts a logger with the request's fields into its context,
// where utf8guard (and zerolog.Ctx anywhere after it) finds it.
func requestLogger(base zerolog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			l := base.With().Str("trace", r.Header.Get("Traceparent")).Logger()
			c.SetRequest(r.WithContext(l.WithContext(r.Context())))
			return next(c)
		}
	}
}

// README:end
