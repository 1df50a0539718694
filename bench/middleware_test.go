package bench

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	guardv5 "github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// The middleware benchmarks serve clean requests through the ServeHTTP of
// Echo v4 (on=echo4), Echo v5 (on=echo5) and a net/http ServeMux
// (on=nethttp), without the middleware (impl=none) and with it under
// rules.Strict() (impl=utf8guard: the Echo v4 middleware, the one of
// middleware/echov5, the net/http adapter), on the same routes and
// handlers; the difference is the middleware's cost per request:
//
//	BenchmarkMiddleware/req=get/on=echo4/impl=none
//	BenchmarkMiddleware/req=get/on=echo4/impl=utf8guard
//	...
//	BenchmarkMiddleware/req=json1k/on=nethttp/impl=utf8guard
//
// req=get is GET /api/users/42 with four query parameters; req=json1k is a
// POST of a 1 KiB JSON document, which the handler reads with io.ReadAll
// in both variants. Run them with
//
//	go test -run '^$' -bench Middleware -benchmem -cpu=1 -count=5 ./bench/
//
// Each also reports cpu-ns/op, the process's CPU time per request (the
// collector's included), which a busy machine inflates less than ns/op.
//
// The goals, at -cpu=1: req=get at most +100 ns and no
// allocation over impl=none on Echo v5, at most +150 ns and exactly one
// allocation (the closure Echo v4 asks every middleware for per request)
// on Echo v4; req=json1k at most +400 ns on both.

// mwGetTarget is the clean GET: a three-segment path, four query fields.
const mwGetTarget = "/api/users/42?name=alice&sort=desc&page=2&limit=50"

// mwJSON1K is a clean JSON document of exactly 1 KiB with some non-ASCII
// text, as an API might receive.
var mwJSON1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","email":"zoe@example.com","tags":["café","naïve","日本語","emoji 😀"],"bio":"`)
	filler := "Lorem ipsum dolor sit amet, été über straße, Привет мир, 你好世界. "
	for b.Len() < 1024-2 {
		b.WriteString(filler)
	}
	s := b.String()
	for len(s) > 1024-2 || !validEnd(s) {
		s = s[:len(s)-1]
	}
	s += strings.Repeat(" ", 1024-2-len(s)) + `"}`
	return []byte(s)
}()

func validEnd(s string) bool { return s != "" && s[len(s)-1] < 0x80 }

// mwWriter is a ResponseWriter that discards the body and reuses its
// header map, so that the benchmark measures the server side only.
type mwWriter struct {
	h    http.Header
	code int
}

func (w *mwWriter) Header() http.Header         { return w.h }
func (w *mwWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *mwWriter) WriteHeader(code int)        { w.code = code }

// mwEcho returns Echo v4 with the benchmark routes, with the middleware
// mounted globally or not at all.
func mwEcho(b *testing.B, guarded bool) http.Handler {
	e := echo.New()
	if guarded {
		pol := rules.Strict()
		nop := zerolog.Nop()
		mw, err := echov4.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
		if err != nil {
			b.Fatal(err)
		}
		e.Use(mw)
	}
	e.GET("/api/users/:id", func(c echo.Context) error {
		return c.NoContent(http.StatusOK)
	})
	e.POST("/api/items", func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil || len(body) != len(mwJSON1K) {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	})
	return e
}

// mwEchoV5 is mwEcho on Echo v5, with the middleware of middleware/echov5.
func mwEchoV5(b *testing.B, guarded bool) http.Handler {
	e := echo5.New()
	if guarded {
		pol := rules.Strict()
		nop := zerolog.Nop()
		mw, err := guardv5.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
		if err != nil {
			b.Fatal(err)
		}
		e.Use(mw)
	}
	e.GET("/api/users/:id", func(c *echo5.Context) error {
		return c.NoContent(http.StatusOK)
	})
	e.POST("/api/items", func(c *echo5.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil || len(body) != len(mwJSON1K) {
			return echo5.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	})
	return e
}

// mwMux is mwEcho on a net/http ServeMux, with the net/http adapter
// wrapped around each handler (so that it sees the pattern as the route).
func mwMux(b *testing.B, guarded bool) http.Handler {
	wrap := func(h http.Handler) http.Handler { return h }
	if guarded {
		pol := rules.Strict()
		nop := zerolog.Nop()
		g, err := middleware.HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
		if err != nil {
			b.Fatal(err)
		}
		wrap = g
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/users/{id}", wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	})))
	mux.Handle("POST /api/items", wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || len(body) != len(mwJSON1K) {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	})))
	return mux
}

// mwServers are the servers the benchmarks run on, each without the
// middleware (impl=none) and with it (impl=utf8guard).
var mwServers = []struct {
	name  string
	build func(b *testing.B, guarded bool) http.Handler
}{{"echo4", mwEcho}, {"echo5", mwEchoV5}, {"nethttp", mwMux}}

var mwImpls = []struct {
	name    string
	guarded bool
}{{"none", false}, {"utf8guard", true}}

func BenchmarkMiddleware(b *testing.B) {
	b.Run("req=get", func(b *testing.B) {
		for _, srv := range mwServers {
			b.Run("on="+srv.name, func(b *testing.B) {
				for _, impl := range mwImpls {
					b.Run("impl="+impl.name, func(b *testing.B) {
						h := srv.build(b, impl.guarded)
						r := httptest.NewRequest(http.MethodGet, mwGetTarget, nil)
						w := &mwWriter{h: http.Header{}}
						h.ServeHTTP(w, r)
						if w.code != http.StatusOK {
							b.Fatalf("status %d", w.code)
						}
						b.ReportAllocs()
						b.ResetTimer()
						reportCPU(b, func() {
							for b.Loop() {
								h.ServeHTTP(w, r)
							}
						})
					})
				}
			})
		}
	})
	b.Run("req=json1k", func(b *testing.B) {
		if len(mwJSON1K) != 1024 {
			b.Fatalf("the JSON body is %d octets", len(mwJSON1K))
		}
		for _, srv := range mwServers {
			b.Run("on="+srv.name, func(b *testing.B) {
				for _, impl := range mwImpls {
					b.Run("impl="+impl.name, func(b *testing.B) {
						mwServeJSON(b, srv.build(b, impl.guarded), mwJSON1K)
					})
				}
			})
		}
	})
}

// mwServeJSON posts body to h's /api/items in a loop, as serveJSONLoop
// does on Echo v4; the answer must be 200.
func mwServeJSON(b *testing.B, h http.Handler, body []byte) {
	r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
	r.Header.Set("Content-Type", "application/json")
	w := &mwWriter{h: http.Header{}}
	reset := func() {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = nil
		// A ServeMux sets the pattern and the path values on the request
		// it is handed: start each request afresh, as net/http does.
		r.Pattern = ""
	}
	reset()
	h.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		b.Fatalf("status %d", w.code)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	reportCPU(b, func() {
		for b.Loop() {
			reset()
			h.ServeHTTP(w, r)
		}
	})
}
