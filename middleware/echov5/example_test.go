package echov5_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/labstack/echo/v5"
	emw "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// serve sends one request to h and prints the status and the body.
func serve(h http.Handler, target string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
}

// New applies the default preset (every malformation and NUL refused) to
// every route. The handler sees the decoded, validated parameter; an
// overlong "/" never reaches it.
func ExampleNew() {
	e := echo.New()
	e.Use(echov5.New()) // logs to os.Stderr
	e.GET("/files/:name", func(c *echo.Context) error {
		return c.String(http.StatusOK, "file "+c.Param("name"))
	})

	serve(e, "/files/caf%C3%A9.txt")
	serve(e, "/files/..%C0%AFetc%C0%AFpasswd")
	serve(e, "/files/a?q=%00")
	// Output:
	// 200 file café.txt
	// 400 {"location":"path","reason":"overlong"}
	// 400 {"location":"query","reason":"forbidden_char"}
}

// WithConfig with a rules.Table gives each route its own policy: strict by
// default, NFC on a route whose handler compares names, log-only on a route
// being rolled out. Echo's RequestID, mounted first, gives the log line its
// request_id; OnReject counts refusals by reason. The log goes to the
// Logger (here stdout, without a timestamp, so that it shows below).
func ExampleWithConfig() {
	logger := zerolog.New(os.Stdout)
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	refused := map[string]int{}
	ids := 0

	e := echo.New()
	e.Use(emw.RequestIDWithConfig(emw.RequestIDConfig{
		Generator: func() string { ids++; return fmt.Sprint("req-", ids) },
	}))
	e.Use(echov5.WithConfig(echov5.Config{
		Logger: &logger,
		Rules: &rules.Table{
			Default: rules.Strict(),
			Routes: map[string]rules.Policy{
				"/users/:name": nfc,
				"/beta/*":      rules.Strict().AsMonitor(),
			},
		},
		OnReject: func(c *echo.Context, rj *middleware.Rejection) { refused[rj.Reason.String()]++ },
	}))
	e.GET("/users/:name", func(c *echo.Context) error {
		return c.String(http.StatusOK, fmt.Sprintf("user %q", c.Param("name")))
	})
	e.GET("/beta/*", func(c *echo.Context) error {
		return c.String(http.StatusOK, "beta "+c.Request().URL.RawQuery)
	})

	serve(e, "/users/Zoe%CC%88")            // decomposed: the handler sees NFC
	serve(e, "/users/Zo%C3%AB?q=%ED%A0%80") // a lone surrogate: refused
	serve(e, "/beta/search?q=%ED%A0%80")    // monitored: flagged, passed on
	fmt.Println(refused)
	// Output:
	// 200 user "Zoë"
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/users/:name","request_id":"req-2","remote_ip":"192.0.2.1","mode":"enforce","message":"utf8guard: request rejected"}
	// 400 {"location":"query","reason":"surrogate"}
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/beta/*","request_id":"req-3","remote_ip":"192.0.2.1","mode":"monitor","message":"utf8guard: request flagged"}
	// 200 beta q=%ED%A0%80
	// map[surrogate:2]
}

// An ErrorHandler decides the answer; the *middleware.Rejection says why,
// and DefaultErrorHandler's *echov5.Error wraps it for errors.As and
// errors.Is.
func ExampleConfig_errorHandler() {
	e := echo.New()
	e.Use(echov5.WithConfig(echov5.Config{
		Logger: ptr(zerolog.Nop()),
		ErrorHandler: func(c *echo.Context, rj *middleware.Rejection) error {
			err := echov5.DefaultErrorHandler(c, rj)
			var got *middleware.Rejection
			fmt.Println(echo.StatusCode(err), errors.As(err, &got), errors.Is(err, sanitize.ErrOverlong))
			return c.String(err.(*echov5.Error).Code, "refused: "+rj.Reason.String()+" in "+rj.Location.String())
		},
	}))
	e.GET("/*", func(c *echo.Context) error { return c.NoContent(http.StatusOK) })

	serve(e, "/a%C0%AFb")
	// Output:
	// 400 true true
	// 400 refused: overlong in path
}

func ptr[T any](v T) *T { return &v }
