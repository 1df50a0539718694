package echov5_test

import (
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

func ExampleCheckRoutes() {
	logger := zerolog.New(io.Discard)
	cfg := echov5.Config{
		Rules: rules.Table{
			Default: rules.Strict(),
			Routes:  map[string]rules.Policy{"/proxy": rules.Unchecked()},
		},
		Logger: &logger,
	}
	e := echo.New()
	e.Use(echov5.WithConfig(cfg))
	e.Any("/proxy/*", func(c *echo.Context) error { return c.NoContent(http.StatusOK) })
	// At start-up, after the routes are registered:
	if err := echov5.CheckRoutes(e, cfg.Rules); err != nil {
		fmt.Println(err)
	}
	// Output:
	// utf8guard: the policy table's route "/proxy" (did you mean "/proxy/*"?) names no registered route: its requests would get the default policy
}
