package echov5

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
)

// BenchmarkEchoV5 serves clean requests through Echo v5's ServeHTTP
// without the middleware (impl=none) and with it under rules.Strict()
// (impl=utf8guard, mounted with e.Use; impl=utf8guard-pre with e.Pre), on
// the same routes and handlers: the difference is the middleware's cost
// per request. impl=unchecked mounts it with rules.Unchecked(), which
// checks nothing: the adapter's own cost, without the pipeline's checks. req=get is the clean GET of the allocation test; req=json1k
// a POST of a 1 KiB JSON document that the handler reads whole in every
// variant. Run them as
//
//	go test -run '^$' -bench EchoV5 -benchmem -cpu=1 -count=5 ./middleware/echov5
//
// The goals: req=get at most 100 ns and no allocation over
// impl=none; req=json1k at most 400 ns over it.
func BenchmarkEchoV5(b *testing.B) {
	impls := []struct{ name, mount string }{{"none", "none"}, {"utf8guard", "use"}, {"utf8guard-pre", "pre"}, {"unchecked", "unchecked"}}
	b.Run("req=get", func(b *testing.B) {
		for _, impl := range impls {
			b.Run("impl="+impl.name, func(b *testing.B) {
				e := benchServer(impl.mount)
				r := httptest.NewRequest(http.MethodGet, cleanTarget, nil)
				w := &discard{h: http.Header{}}
				serveOK(b, e, w, r)
				b.ReportAllocs()
				for b.Loop() {
					e.ServeHTTP(w, r)
				}
			})
		}
	})
	b.Run("req=json1k", func(b *testing.B) {
		if len(json1K) != 1024 {
			b.Fatalf("the JSON document is %d octets", len(json1K))
		}
		for _, impl := range impls[:2] {
			b.Run("impl="+impl.name, func(b *testing.B) {
				e := benchServer(impl.mount)
				r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
				r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
				w := &discard{h: http.Header{}}
				// A fresh body for every request, made the same way in
				// every variant: the middleware replaces r.Body.
				body := bytes.NewReader(json1K)
				reset := func() {
					body.Reset(json1K)
					r.Body = io.NopCloser(body)
					r.ContentLength = int64(len(json1K))
				}
				reset()
				serveOK(b, e, w, r)
				b.SetBytes(int64(len(json1K)))
				b.ReportAllocs()
				for b.Loop() {
					reset()
					e.ServeHTTP(w, r)
				}
			})
		}
	})
}

// benchServer is cleanServer with the POST route, logging nowhere.
func benchServer(mount string) *echo.Echo {
	e := echo.New()
	if mount != "none" {
		pol := rules.Strict()
		if mount == "unchecked" {
			pol = rules.Unchecked()
		}
		nop := zerolog.Nop()
		mw := WithConfig(Config{Rules: &pol, Logger: &nop})
		if mount == "pre" {
			e.Pre(mw)
		} else {
			e.Use(mw)
		}
	}
	e.GET("/api/users/:id", cleanHandler)
	e.POST("/api/items", func(c *echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil || len(body) != len(json1K) {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	})
	return e
}

func serveOK(b *testing.B, e *echo.Echo, w *discard, r *http.Request) {
	b.Helper()
	w.code = 0
	e.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		b.Fatalf("status %d", w.code)
	}
}

// json1K is a clean JSON document of exactly 1 KiB, with the non-ASCII
// text an API receives: accents, Cyrillic, CJK, an emoji.
var json1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","tags":["café","日本語","😀"],"note":"`)
	const filler = "été, straße, Привет, 你好; "
	for b.Len()+len(filler) <= 1024-2 {
		b.WriteString(filler)
	}
	b.WriteString(strings.Repeat(".", 1024-2-b.Len()))
	b.WriteString(`"}`)
	return []byte(b.String())
}()
