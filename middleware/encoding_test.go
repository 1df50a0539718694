package middleware_test

// Content codings (encoding.go) through the three adapters: what the
// handler sees of the headers, with Echo's Decompress mounted after
// utf8guard. The kit's encoding rows (middleware/adaptertest) hold the
// adapters to the checks of coded bodies.

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	emw4 "github.com/labstack/echo/v4/middleware"
	echo5 "github.com/labstack/echo/v5"
	emw5 "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// headerSeen is what a handler saw of a request's headers and body.
type headerSeen struct {
	encoding      []string // Content-Encoding
	length        []string // the Content-Length header
	contentLength int64
	body          string
	err           error
}

func (h *headerSeen) record(r *http.Request) {
	h.encoding, h.length, h.contentLength = r.Header.Values("Content-Encoding"), r.Header.Values("Content-Length"), r.ContentLength
	b, err := io.ReadAll(r.Body)
	h.body, h.err = string(b), err
}

// headerServers are the three adapters on one route, /e, each with its
// framework's Decompress middleware after utf8guard where decompress
// says so, and a handler that records what it saw.
func headerServers(t *testing.T, p rules.Policy, decompress bool, seen *headerSeen) map[string]http.Handler {
	t.Helper()
	logger := zerolog.Nop()
	e4 := echo4.New()
	mw4, err := echov4.Config{Rules: p, Logger: &logger}.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e4.Use(mw4)
	if decompress {
		e4.Use(emw4.Decompress())
	}
	e4.POST("/e", func(c echo4.Context) error { seen.record(c.Request()); return c.NoContent(200) })

	e5 := echo5.New()
	mw5, err := echov5.Config{Rules: p, Logger: &logger}.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e5.Use(mw5)
	if decompress {
		e5.Use(emw5.Decompress())
	}
	e5.POST("/e", func(c *echo5.Context) error { seen.record(c.Request()); return c.NoContent(200) })

	h, err := middleware.HTTPConfig{Rules: p, Logger: &logger}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /e", h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen.record(r) })))
	return map[string]http.Handler{"v4": e4, "v5": e5, "nethttp": mux}
}

// TestEncodingHeaders: in Enforce mode the handler gets the decoded body
// with Content-Encoding gone and its length, ContentLength and the
// Content-Length header (when one was sent), set; Echo's Decompress
// mounted after utf8guard then does nothing. In Monitor mode the request
// keeps its coding, and Decompress after utf8guard decodes it as it would
// alone.
func TestEncodingHeaders(t *testing.T) {
	t.Parallel()
	const doc = `{"a":"Zo\u00eb","b":[1,2,3]}`
	body := gzipOf(doc)
	for _, tc := range []struct {
		name       string
		monitor    bool
		decompress bool
		chunked    bool
		want       headerSeen
	}{
		{name: "enforce", want: headerSeen{length: []string{strconv.Itoa(len(doc))}, contentLength: int64(len(doc)), body: doc}},
		{name: "enforce, chunked", chunked: true, want: headerSeen{contentLength: int64(len(doc)), body: doc}},
		{name: "enforce, Decompress after", decompress: true,
			want: headerSeen{length: []string{strconv.Itoa(len(doc))}, contentLength: int64(len(doc)), body: doc}},
		{name: "monitor", monitor: true,
			want: headerSeen{encoding: []string{"gzip"}, length: []string{strconv.Itoa(len(body))}, contentLength: int64(len(body)), body: body}},
		{name: "monitor, Decompress after", monitor: true, decompress: true,
			want: headerSeen{encoding: []string{"gzip"}, length: []string{strconv.Itoa(len(body))}, body: doc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := rules.Strict()
			if tc.monitor {
				p = p.AsMonitor()
			}
			seen := &headerSeen{}
			for name, h := range headerServers(t, p, tc.decompress, seen) {
				*seen = headerSeen{}
				r := httptest.NewRequest("POST", "/e", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Content-Encoding", "gzip")
				r.Header.Set("Content-Length", strconv.Itoa(len(body)))
				if tc.chunked {
					r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
					r.Header.Del("Content-Length")
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				want := tc.want
				if tc.decompress && tc.monitor {
					// Each Decompress says its own of the length: Echo
					// v4's leaves it, v5's sets ContentLength to -1.
					want.contentLength = seen.contentLength
					if name == "nethttp" {
						// No Decompress on net/http: the body as sent.
						want.body, want.contentLength = body, int64(len(body))
					}
				}
				if w.Code != 200 || seen.err != nil || !equalSeen(*seen, want) {
					t.Errorf("%s: status %d; the handler saw %+v, want %+v", name, w.Code, *seen, want)
				}
			}
		})
	}
}

func equalSeen(a, b headerSeen) bool {
	return slicesEqual(a.encoding, b.encoding) && slicesEqual(a.length, b.length) &&
		a.contentLength == b.contentLength && a.body == b.body
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecompressBefore: Echo's Decompress mounted before utf8guard hands
// it a decoded body still marked gzip (Decompress leaves the header):
// utf8guard checks the decoded text, within its limit, and hands it on
// with Content-Encoding removed, as a body it decoded itself. A decoder it
// does not know (here one that replaces the body with a plain reader) and
// that leaves Content-Encoding is refused: the octets are no gzip stream.
func TestDecompressBefore(t *testing.T) {
	t.Parallel()
	var zeros bytes.Buffer
	zw := gzip.NewWriter(&zeros)
	_, _ = zw.Write(make([]byte, 4<<20))
	_ = zw.Close()
	unknownDecoder := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			b, _ := io.ReadAll(zr)
			r.Body = io.NopCloser(bytes.NewReader(b))
			next.ServeHTTP(w, r)
		})
	}
	for _, tc := range []struct {
		name, body string
		status     int
		reason     string
		reads      string
	}{
		{"clean", gzipOf(`{"a":"b"}`), 200, "", `{"a":"b"}`},
		{"lone surrogate", gzipOf(`{"a":"\ud800"}`), 400, "surrogate", ""},
		{"4 MiB of zeros", zeros.String(), 413, "too_large", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seen := &headerSeen{}
			logger := zerolog.Nop()
			p := rules.Strict()
			e4 := echo4.New()
			e4.Use(emw4.Decompress(), echov4.WithConfig(echov4.Config{Rules: p, Logger: &logger}))
			e4.POST("/e", func(c echo4.Context) error { seen.record(c.Request()); return c.NoContent(200) })
			e5 := echo5.New()
			e5.Use(emw5.Decompress(), echov5.WithConfig(echov5.Config{Rules: p, Logger: &logger}))
			e5.POST("/e", func(c *echo5.Context) error { seen.record(c.Request()); return c.NoContent(200) })
			mw := middleware.Handler(middleware.HTTPConfig{Rules: p, Logger: &logger})
			other := unknownDecoder(mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen.record(r) })))
			for name, h := range map[string]http.Handler{"v4": e4, "v5": e5, "unknown decoder": other} {
				*seen = headerSeen{}
				r := httptest.NewRequest("POST", "/e", strings.NewReader(tc.body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Content-Encoding", "gzip")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				status, reason := tc.status, tc.reason
				if name == "unknown decoder" && tc.status != 413 {
					status, reason = 400, "body_unreadable"
				}
				if w.Code != status || !strings.Contains(w.Body.String(), reason) {
					t.Errorf("%s: %d %s, want %d %s", name, w.Code, w.Body, status, reason)
				}
				if status == 200 && (seen.body != tc.reads || seen.encoding != nil || seen.err != nil) {
					t.Errorf("%s: the handler read %q (Content-Encoding %q, %v), want %q without Content-Encoding",
						name, seen.body, seen.encoding, seen.err, tc.reads)
				}
			}
		})
	}
}
