package echov4_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// serve sends one request to h and prints the status and the body.
func serve(h http.Handler, method, target, contentType, body string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set(echo.HeaderContentType, contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
}

// New applies the default preset (every malformation and NUL refused) to
// every route. The handler sees the decoded, validated parameter, also
// where Echo routed on the escaped path ("%63" is "c"); an overlong "/"
// never reaches it.
func ExampleNew() {
	e := echo.New()
	e.Use(echov4.New()) // logs to os.Stderr
	e.GET("/files/:name", func(c echo.Context) error {
		return c.String(http.StatusOK, "file "+c.Param("name"))
	})

	serve(e, http.MethodGet, "/files/%63af%C3%A9.txt", "", "")
	serve(e, http.MethodGet, "/files/..%C0%AFetc%C0%AFpasswd", "", "")
	serve(e, http.MethodGet, "/files/a?q=%00", "", "")
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
	e.Use(echov4.WithConfig(echov4.Config{
		Logger: &logger,
		Rules: &rules.Table{
			Default: rules.Strict(),
			Routes: map[string]rules.Policy{
				"/users/:name": nfc,
				"/beta/*":      rules.Strict().AsMonitor(),
			},
		},
		OnReject: func(c echo.Context, rj *middleware.Rejection) { refused[rj.Reason.String()]++ },
	}))
	e.GET("/users/:name", func(c echo.Context) error {
		return c.String(http.StatusOK, fmt.Sprintf("user %q", c.Param("name")))
	})
	e.GET("/beta/*", func(c echo.Context) error {
		return c.String(http.StatusOK, "beta "+c.Request().URL.RawQuery)
	})

	serve(e, http.MethodGet, "/users/Zoe%CC%88", "", "")            // decomposed: the handler sees NFC
	serve(e, http.MethodGet, "/users/Zo%C3%AB?q=%ED%A0%80", "", "") // a lone surrogate: refused
	serve(e, http.MethodGet, "/beta/search?q=%ED%A0%80", "", "")    // monitored: flagged, passed on
	fmt.Println(refused)
	// Output:
	// 200 user "Zoë"
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/users/:name","request_id":"req-2","remote_ip":"192.0.2.1","mode":"enforce","message":"utf8guard: request rejected"}
	// 400 {"location":"query","reason":"surrogate"}
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/beta/*","request_id":"req-3","remote_ip":"192.0.2.1","mode":"monitor","message":"utf8guard: request flagged"}
	// 200 beta q=%ED%A0%80
	// map[surrogate:2]
}

// Config.ToMiddleware returns an invalid configuration as an error, where
// WithConfig would panic: for configurations read at start-up.
func ExampleConfig_ToMiddleware() {
	strict := rules.Strict()
	strict.Header.On = true // but no Headers
	_, err := echov4.Config{Rules: strict}.ToMiddleware()
	fmt.Println(err)

	strict = rules.Strict()
	logger := zerolog.New(io.Discard)
	guard, err := echov4.Config{Rules: &strict, Logger: &logger}.ToMiddleware()
	if err != nil {
		fmt.Println(err)
		return
	}
	e := echo.New()
	e.Use(guard)
	e.POST("/notes", func(c echo.Context) error {
		return c.String(http.StatusOK, "saved "+c.FormValue("text"))
	})
	serve(e, http.MethodPost, "/notes", echo.MIMEApplicationForm, "text=hello%2C+world")
	serve(e, http.MethodPost, "/notes", echo.MIMEApplicationForm, "text=hello%E2%80%AEdlrow") // U+202E RIGHT-TO-LEFT OVERRIDE
	// Output:
	// rules: Header.On: header checks are on, but Headers lists no header names
	// 200 saved hello, world
	// 400 {"location":"form","reason":"forbidden_char"}
}

// An ErrorHandler decides the answer; the *middleware.Rejection says why,
// and DefaultErrorHandler's *echo.HTTPError holds it as its Internal
// error, for errors.As and errors.Is.
func ExampleConfig_errorHandler() {
	logger := zerolog.Nop()
	e := echo.New()
	e.Use(echov4.WithConfig(echov4.Config{
		Logger: &logger,
		ErrorHandler: func(c echo.Context, rj *middleware.Rejection) error {
			err := echov4.DefaultErrorHandler(c, rj)
			var he *echo.HTTPError
			var got *middleware.Rejection
			fmt.Println(errors.As(err, &he), he.Code, errors.As(err, &got), errors.Is(err, sanitize.ErrOverlong))
			return c.String(he.Code, "refused: "+rj.Reason.String()+" in "+rj.Location.String())
		},
	}))
	e.GET("/*", func(c echo.Context) error { return c.NoContent(http.StatusOK) })

	serve(e, http.MethodGet, "/a%C0%AFb", "", "")
	// Output:
	// true 400 true true
	// 400 refused: overlong in path
}

// Mounted with e.Pre, the middleware runs before Echo routes: Echo then
// routes the decoded, canonical path, so a decomposed "é" reaches the route
// registered in NFC, and an escaped letter the route it names.
func ExampleWithConfig_pre() {
	logger := zerolog.Nop()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	e := echo.New()
	e.Pre(echov4.WithConfig(echov4.Config{Rules: &nfc, Logger: &logger}))
	e.GET("/café/:id", func(c echo.Context) error {
		return c.String(http.StatusOK, c.Path()+" "+c.Param("id"))
	})

	serve(e, http.MethodGet, "/cafe%CC%81/%61b", "", "")
	serve(e, http.MethodGet, "/caf%C3%A9/x%C0%AE", "", "")
	// Output:
	// 200 /café/:id ab
	// 400 {"location":"path","reason":"overlong"}
}
