// Command quickstart-v4 is the README's quick start on Echo v4.
package main

import (
	"log"
	"net/http"

	"github.com/labstack/echo/v4"
	echomw "github.com/labstack/echo/v4/middleware"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	e, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(e.Start("127.0.0.1:8080"))
}

// README:begin
func newServer() (*echo.Echo, error) {
	e := echo.New()
	// The log's remote_ip: the connection's address. Behind a proxy, use
	// echo.ExtractIPFromXFFHeader with its ranges; without an IPExtractor,
	// Echo v4 believes any X-Forwarded-For a client sends.
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(echomw.Recover())
	e.Use(echomw.RequestID()) // before utf8guard: its log lines carry request_id
	policies := rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/proxy/*": rules.Unchecked()},
	}
	e.Use(echov4.WithConfig(echov4.Config{Rules: policies}))

	e.GET("/users/:id", func(c echo.Context) error {
		return c.String(http.StatusOK, c.Param("id")) // decoded and validated
	})
	e.Any("/proxy/*", func(c echo.Context) error {
		return c.String(http.StatusOK, "passed on as sent") // a reverse proxy, say
	})
	// Every route of the table must be registered: a typo ("/proxy")
	// is an error here, not a route that silently gets the default.
	return e, echov4.CheckRoutes(e, policies)
}

// README:end
