package middleware_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

// serve sends one request to h and prints the status and the body.
func serve(h http.Handler, method, target, contentType, body string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
}

// New applies the default preset (every malformation and NUL refused) to
// every route. The handler sees the decoded, validated parameter; an
// overlong "/" never reaches it.
func ExampleNew() {
	e := echo.New()
	e.Use(middleware.New()) // logs to os.Stderr
	e.GET("/files/:name", func(c echo.Context) error {
		return c.String(http.StatusOK, "file "+c.Param("name"))
	})

	serve(e, http.MethodGet, "/files/caf%C3%A9.txt", "", "")
	serve(e, http.MethodGet, "/files/..%C0%AFetc%C0%AFpasswd", "", "")
	serve(e, http.MethodGet, "/files/a?q=%00", "", "")
	// Output:
	// 200 file café.txt
	// 400 {"location":"path","reason":"overlong"}
	// 400 {"location":"query","reason":"forbidden_char"}
}

// WithConfig with a rules.Table gives each route its own policy: strict by
// default, log-only on a route being rolled out, and no checks on a proxy
// that must pass raw octets. The log line goes to the Logger (here stdout,
// without a timestamp, so that it shows below).
func ExampleWithConfig() {
	logger := zerolog.New(os.Stdout)
	e := echo.New()
	e.Use(echov4.WithConfig(echov4.Config{
		Logger: &logger,
		Rules: &rules.Table{
			Default: rules.Strict(),
			Routes: map[string]rules.Policy{
				"/beta/*":  rules.Strict().AsMonitor(),
				"/proxy/*": rules.Unchecked(),
			},
		},
	}))
	handler := func(c echo.Context) error {
		return c.String(http.StatusOK, "ok "+c.Request().URL.RawQuery)
	}
	e.GET("/search", handler)
	e.GET("/beta/*", handler)
	e.GET("/proxy/*", handler)

	serve(e, http.MethodGet, "/search?q=%ED%A0%80", "", "")
	serve(e, http.MethodGet, "/beta/search?q=%ED%A0%80", "", "")
	serve(e, http.MethodGet, "/proxy/search?q=%ED%A0%80", "", "")
	// Output:
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/search","request_id":"","remote_ip":"192.0.2.1","mode":"enforce","message":"utf8guard: request rejected"}
	// 400 {"location":"query","reason":"surrogate"}
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/beta/*","request_id":"","remote_ip":"192.0.2.1","mode":"monitor","message":"utf8guard: request flagged"}
	// 200 ok q=%ED%A0%80
	// 200 ok q=%ED%A0%80
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
	serve(e, http.MethodPost, "/notes", "application/x-www-form-urlencoded", "text=hello%2C+world")
	serve(e, http.MethodPost, "/notes", "application/x-www-form-urlencoded", "text=hello%E2%80%AEdlrow") // U+202E RIGHT-TO-LEFT OVERRIDE
	// Output:
	// rules: Header.On: header checks are on, but Headers lists no header names
	// 200 saved hello, world
	// 400 {"location":"form","reason":"forbidden_char"}
}

// Handler is the net/http adapter. Wrapping each handler registered on the
// ServeMux lets it see the pattern the request matched as its route.
func ExampleHandler() {
	logger := zerolog.New(io.Discard)
	strict := rules.Strict()
	guard := middleware.Handler(middleware.HTTPConfig{Rules: &strict, Logger: &logger})

	mux := http.NewServeMux()
	mux.Handle("POST /api/users", guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "created %s", body)
	})))

	serve(mux, http.MethodPost, "/api/users", "application/json", `{"name":"Zoë"}`)
	serve(mux, http.MethodPost, "/api/users", "application/json", `{"name":"\ud800"}`)
	serve(mux, http.MethodPost, "/api/users", "application/json", "{\"name\":\"\xc0\xaf\"}")
	// Output:
	// 200 created {"name":"Zoë"}
	// 400 {"location":"json","reason":"surrogate"}
	// 400 {"location":"json","reason":"overlong"}
}

// CheckMuxRoutes is the net/http start-up check: every key of the table
// must name a pattern the program registers (with chi, the routes chi.Walk
// reports, each with its method), and the default policy's PRECIS path
// fields a parameter of the patterns it applies to.
func ExampleCheckMuxRoutes() {
	table := rules.Table{
		Default: rules.Strict(),
		Routes: map[string]rules.Policy{
			"GET /users/{id}": rules.Default(),
			"/proxi/":         rules.Unchecked(), // a typo
		},
	}
	mux := http.NewServeMux()
	patterns := []string{"GET /users/{id}", "/proxy/"}
	for _, p := range patterns {
		mux.Handle(p, http.NotFoundHandler()) // each wrapped by the adapter, in a real program
	}
	fmt.Println(middleware.CheckMuxRoutes(table, patterns))
	// Output:
	// utf8guard: the policy table's route "/proxi/" (did you mean "/proxy/"?) names no registered route: its requests would get the default policy
}

// HTTPConfig.RequestID gives the log line the id the server's own
// middleware gave the request, rather than the client's X-Request-Id.
func ExampleHTTPConfig_requestID() {
	logger := zerolog.New(os.Stdout)
	type ctxKey struct{}
	guard := middleware.Handler(middleware.HTTPConfig{
		Rules:  rules.Strict(),
		Logger: &logger,
		RequestID: func(r *http.Request) string {
			id, _ := r.Context().Value(ctxKey{}).(string)
			return id
		},
	})
	h := guard(http.NotFoundHandler())
	req := httptest.NewRequest(http.MethodGet, "/x/%C0%AE", nil)
	req = req.WithContext(context.WithValue(req.Context(), ctxKey{}, "req-0001"))
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output:
	// {"level":"warn","reason":"overlong","location":"path","field":"","offset":3,"sample":"/x/\\xc0\\xae","method":"GET","route":"","request_id":"req-0001","remote_ip":"192.0.2.1","mode":"enforce","message":"utf8guard: request rejected"}
}
