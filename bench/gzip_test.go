package bench

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

// The gzip benchmarks serve a POST of mwJSON1K (1 KiB of JSON) compressed
// with gzip (Content-Encoding: gzip) through Echo v4's ServeHTTP, and
// compare what it costs to decompress it with and without utf8guard:
//
//	BenchmarkGzipJSON/impl=self        no middleware; the handler
//	                                   decompresses the body itself
//	                                   (gzip.NewReader, io.ReadAll)
//	BenchmarkGzipJSON/impl=self-pooled the same with a pooled gzip.Reader
//	                                   (gzip.Reader.Reset), as a careful
//	                                   handler does
//	BenchmarkGzipJSON/impl=decompress  Echo's Decompress middleware; the
//	                                   handler reads the body
//	BenchmarkGzipJSON/impl=utf8guard   utf8guard under rules.Strict()
//	                                   decodes and checks the body; the
//	                                   handler reads the decoded body
//
// In every variant the handler ends up with the decoded 1 KiB and checks
// its length. Beside ns/op each reports cpu-ns/op, the process's CPU time
// per request (the collector's included), which a machine busy with other
// work inflates less. utf8guard's cost over decompression alone is
// impl=utf8guard less impl=self (the issue-16 target: at most +500 ns),
// or less impl=self-pooled for a handler that pools its reader. Run them
// with
//
//	go test -run '^$' -bench GzipJSON -benchmem -cpu=1 -count=5 ./bench/

// mwGzipJSON1K is mwJSON1K compressed with gzip at the default level.
var mwGzipJSON1K = func() []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write(mwJSON1K)
	_ = w.Close()
	return b.Bytes()
}()

// gzipReaders is the pool of impl=self-pooled.
var gzipReaders = sync.Pool{New: func() any { return new(gzip.Reader) }}

// gzipEcho returns Echo with the POST route of impl.
func gzipEcho(b *testing.B, impl string) *echo.Echo {
	e := echo.New()
	read := func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil || len(body) != len(mwJSON1K) {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	}
	h := read
	switch impl {
	case "self":
		h = func(c echo.Context) error {
			zr, err := gzip.NewReader(c.Request().Body)
			if err != nil {
				return echo.ErrBadRequest
			}
			body, err := io.ReadAll(zr)
			if err != nil || len(body) != len(mwJSON1K) {
				return echo.ErrBadRequest
			}
			return c.NoContent(http.StatusOK)
		}
	case "self-pooled":
		h = func(c echo.Context) error {
			zr := gzipReaders.Get().(*gzip.Reader)
			defer gzipReaders.Put(zr)
			if err := zr.Reset(c.Request().Body); err != nil {
				return echo.ErrBadRequest
			}
			body, err := io.ReadAll(zr)
			if err != nil || len(body) != len(mwJSON1K) {
				return echo.ErrBadRequest
			}
			return c.NoContent(http.StatusOK)
		}
	case "decompress":
		e.Use(emw.Decompress())
	case "utf8guard":
		pol := rules.Strict()
		nop := zerolog.Nop()
		mw, err := echov4.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
		if err != nil {
			b.Fatal(err)
		}
		e.Use(mw)
	default:
		b.Fatalf("no impl %q", impl)
	}
	e.POST("/api/items", h)
	return e
}

func BenchmarkGzipJSON(b *testing.B) {
	for _, impl := range []string{"self", "self-pooled", "decompress", "utf8guard"} {
		b.Run("impl="+impl, func(b *testing.B) {
			e := gzipEcho(b, impl)
			r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
			w := &mwWriter{h: http.Header{}}
			body := mwGzipJSON1K
			ce := []string{"gzip"}
			ct := []string{echo.MIMEApplicationJSON}
			reset := func() {
				// utf8guard removes Content-Encoding from the request it
				// decodes, and sets its length: both as sent, each time.
				r.Header["Content-Encoding"], r.Header["Content-Type"] = ce, ct
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
				r.GetBody = nil
			}
			reset()
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				b.Fatalf("status %d", w.code)
			}
			b.SetBytes(int64(len(mwJSON1K)))
			b.ReportAllocs()
			b.ResetTimer()
			reportCPU(b, func() {
				for b.Loop() {
					reset()
					e.ServeHTTP(w, r)
				}
			})
		})
	}
}
