package utf8gin_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	utf8gin "github.com/utf8guard/utf8guard/middleware/gin"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
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
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(utf8gin.New()) // logs to os.Stderr
	e.GET("/files/:name", func(c *gin.Context) { c.String(http.StatusOK, "file "+c.Param("name")) })

	serve(e, "/files/caf%C3%A9.txt")
	serve(e, "/files/..%C0%AFetc%C0%AFpasswd")
	serve(e, "/files/a?q=%00")
	// Output:
	// 200 file café.txt
	// 400 {"location":"path","reason":"overlong"}
	// 400 {"location":"query","reason":"forbidden_char"}
}

// WithConfig with a rules.Table gives each route its own policy, keyed by
// Gin's templates: strict by default, NFC on a route whose handler
// compares names (c.Param returns the NFC form), log-only on a route being
// rolled out. Engine lets the middleware read the engine's path settings
// and meet the table's keys with its routes at the first request; with
// SetTrustedProxies(nil), the log's remote_ip is the connection's.
func ExampleWithConfig() {
	gin.SetMode(gin.ReleaseMode)
	logger := zerolog.New(os.Stdout)
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	refused := map[string]int{}

	e := gin.New()
	_ = e.SetTrustedProxies(nil)
	e.UseRawPath = true // "%2F" stays in its parameter
	e.Use(utf8gin.WithConfig(utf8gin.Config{
		Logger: &logger,
		Engine: e,
		Rules: &rules.Table{
			Default: rules.Strict(),
			Routes: map[string]rules.Policy{
				"/users/:name": nfc,
				"/beta/*rest":  rules.Strict().AsMonitor(),
			},
		},
		OnReject: func(c *gin.Context, rj *middleware.Rejection) { refused[rj.Reason.String()]++ },
	}))
	e.GET("/users/:name", func(c *gin.Context) { c.String(http.StatusOK, "user %q", c.Param("name")) })
	e.GET("/beta/*rest", func(c *gin.Context) { c.String(http.StatusOK, "beta "+c.Request.URL.RawQuery) })

	serve(e, "/users/Zoe%CC%88")            // decomposed: the handler sees NFC
	serve(e, "/users/Zo%C3%AB?q=%ED%A0%80") // a lone surrogate: refused
	serve(e, "/beta/search?q=%ED%A0%80")    // monitored: flagged, passed on
	fmt.Println(refused)
	// Output:
	// 200 user "Zoë"
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/users/:name","request_id":"","remote_ip":"192.0.2.1","mode":"enforce","message":"utf8guard: request rejected"}
	// 400 {"location":"query","reason":"surrogate"}
	// {"level":"warn","reason":"surrogate","location":"query","field":"q","offset":0,"sample":"\\xed\\xa0\\x80","method":"GET","route":"/beta/*rest","request_id":"","remote_ip":"192.0.2.1","mode":"monitor","message":"utf8guard: request flagged"}
	// 200 beta q=%ED%A0%80
	// map[surrogate:2]
}

// CheckRoutes, at start-up, finds a key of the table that names no route.
func ExampleCheckRoutes() {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.GET("/users/:id", func(c *gin.Context) {})
	err := utf8gin.CheckRoutes(e, &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/user/:id": rules.Strict()}})
	fmt.Println(err)
	// Output:
	// utf8guard: the policy table's route "/user/:id" (did you mean "/users/:id"?) names no registered route: its requests would get the default policy
}
