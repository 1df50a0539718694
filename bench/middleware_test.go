package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// The middleware benchmarks serve clean requests through Echo's ServeHTTP,
// without the middleware (impl=none) and with it under rules.Strict()
// (impl=utf8guard), on the same routes and handlers; the difference is the
// middleware's cost per request:
//
//	BenchmarkMiddleware/req=get/impl=none
//	BenchmarkMiddleware/req=get/impl=utf8guard
//	BenchmarkMiddleware/req=json1k/impl=none
//	BenchmarkMiddleware/req=json1k/impl=utf8guard
//
// req=get is GET /api/users/42 with four query parameters; req=json1k is a
// POST of a 1 KiB JSON document, which the handler reads with io.ReadAll
// in both variants. Run them with
//
//	go test -run '^$' -bench Middleware -benchmem -cpu=1 -count=5 ./bench/
//
// The targets (issue 3): under 1 µs and at most 2 allocations of overhead
// for req=get, under 2 µs for req=json1k.

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

// mwEcho returns Echo with the benchmark routes, with the middleware
// mounted globally or not at all.
func mwEcho(b *testing.B, guarded bool) *echo.Echo {
	e := echo.New()
	if guarded {
		pol := rules.Strict()
		nop := zerolog.Nop()
		mw, err := middleware.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
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

var mwImpls = []struct {
	name    string
	guarded bool
}{{"none", false}, {"utf8guard", true}}

func BenchmarkMiddleware(b *testing.B) {
	b.Run("req=get", func(b *testing.B) {
		for _, impl := range mwImpls {
			b.Run("impl="+impl.name, func(b *testing.B) {
				e := mwEcho(b, impl.guarded)
				r := httptest.NewRequest(http.MethodGet, mwGetTarget, nil)
				w := &mwWriter{h: http.Header{}}
				e.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					b.Fatalf("status %d", w.code)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					e.ServeHTTP(w, r)
				}
			})
		}
	})
	b.Run("req=json1k", func(b *testing.B) {
		if len(mwJSON1K) != 1024 {
			b.Fatalf("the JSON body is %d octets", len(mwJSON1K))
		}
		for _, impl := range mwImpls {
			b.Run("impl="+impl.name, func(b *testing.B) {
				benchServeJSON(b, mwEcho(b, impl.guarded), mwJSON1K)
			})
		}
	})
}
