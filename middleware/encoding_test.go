package middleware_test

// Content codings (encoding.go) through the three adapters: the
// conformance table's machinery on rows of its own, and what the handler
// sees of the headers, with Echo's Decompress mounted after utf8guard.

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// gzipOf is s compressed as one gzip member.
func gzipOf(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// zlibOf is s in the zlib format (RFC 1950), HTTP's "deflate".
func zlibOf(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// rawDeflateOf is s as a raw DEFLATE stream (RFC 1951), which some clients
// send as "deflate".
func rawDeflateOf(s string) string {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// badCRC is a gzip member of s whose CRC-32 is wrong.
func badCRC(s string) string {
	g := []byte(gzipOf(s))
	crc := binary.LittleEndian.Uint32(g[len(g)-8:])
	binary.LittleEndian.PutUint32(g[len(g)-8:], crc^1)
	return string(g)
}

func encodingCases() []confCase {
	rej := func(reason, location, field string, offset int) *confRej {
		return &confRej{reason: reason, location: location, field: field, offset: offset}
	}
	none := map[string]string{}
	reads := func(body string) *confReads { return &confReads{Path: "/api/e", Params: none, Body: body} }
	form := func(body string, kv ...string) *confReads {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return &confReads{Path: "/api/e", Params: none, Body: body, Form: v}
	}
	unreadable := func(loc, cause string) *confRej {
		return &confRej{reason: "body_unreadable", location: loc, field: "Content-Encoding", err: cause}
	}
	unsupported := func(loc string, offset int, sample string) *confRej {
		return &confRej{reason: "unsupported_encoding", location: loc, field: "Content-Encoding", offset: offset, sample: sample}
	}
	withLimit := func(r *confRej, limit int64) *confRej { r.limit = limit; return r }
	flagged := func(r *confRej) *confRej { r.mode = "monitor"; return r }
	const (
		ctJSON = "application/json"
		ctForm = "application/x-www-form-urlencoded"
		doc    = `{"name":"Zo` + composed + `","tags":["a","b"]}`
		fbody  = "name=Zo%C3%AB&x=1"
	)
	gz := []string{"Content-Encoding: gzip"}
	post := func(c confCase) confCase {
		c.method, c.target = "POST", "/api/e"
		if c.header == nil {
			c.header = gz
		}
		return c
	}
	mp := mpBody("name", "Zo\u00eb", "emoji", "\U0001F600")
	binary := with(func(p *rules.Policy) { p.BinaryTypes = []string{"application/octet-stream"} })
	jsonOff := with(func(p *rules.Policy) { p.JSON.On = false })
	charsets := with(func(p *rules.Policy) { p.RefuseCharsets = false })
	long := strings.Repeat("x", 1025)

	return []confCase{
		// Decoded, checked, handed on decoded with its length.
		post(confCase{name: "gzip JSON", ct: ctJSON, body: gzipOf(doc), status: 200, reads: reads(doc)}),
		post(confCase{name: "gzip JSON, chunked", ct: ctJSON, body: gzipOf(doc), trailer: []string{}, status: 200, reads: reads(doc)}),
		post(confCase{name: "x-gzip form", ct: ctForm, body: gzipOf(fbody), header: []string{"Content-Encoding: x-gzip"},
			status: 200, reads: form(fbody, "name", "Zo\u00eb", "x", "1")}),
		post(confCase{name: "gzip multipart", ct: ctMP, body: gzipOf(mp),
			status: 200, reads: form(mp, "name", "Zo\u00eb", "emoji", "\U0001F600")}),
		post(confCase{name: "gzip text", ct: "text/plain; charset=utf-8", body: gzipOf("line\r\n\tZo" + composed),
			status: 200, reads: reads("line\r\n\tZo" + composed)}),
		post(confCase{name: "deflate as zlib", ct: ctJSON, body: zlibOf(doc), header: []string{"Content-Encoding: deflate"},
			status: 200, reads: reads(doc)}),
		post(confCase{name: "deflate as raw DEFLATE", ct: ctJSON, body: rawDeflateOf(doc), header: []string{"Content-Encoding: deflate"},
			status: 200, reads: reads(doc)}),
		post(confCase{name: "names in any case, spaces and empty elements", ct: ctJSON, body: gzipOf(doc),
			header: []string{"Content-Encoding: , \tGZip ,identity"}, status: 200, reads: reads(doc)}),
		post(confCase{name: "identity alone", ct: ctJSON, body: doc, header: []string{"Content-Encoding: identity"},
			status: 200, reads: reads(doc)}),
		post(confCase{name: "two gzip members", ct: ctJSON, body: gzipOf(`{"a":`) + gzipOf(`"b"}`), status: 200, reads: reads(`{"a":"b"}`)}),
		post(confCase{name: "empty body", ct: ctJSON, status: 200, reads: reads("")}),
		post(confCase{name: "NFC on the decoded text", table: with(nfc), ct: ctJSON, body: gzipOf(`{"k":"` + decomposed + `"}`),
			status: 200, reads: reads(`{"k":"` + composed + `"}`)}),

		// The decoded text is the one checked; offsets are in it.
		post(confCase{name: "gzip JSON lone surrogate", ct: ctJSON, body: gzipOf(`{"a":["\ud800"]}`),
			status: 400, rej: rej("surrogate", "json", "/a/0", 7)}),
		post(confCase{name: "gzip form invalid octet", ct: ctForm, body: gzipOf("ok=1&q=%FF"),
			status: 400, rej: rej("invalid_byte", "form", "q", 0)}),
		post(confCase{name: "deflate text NUL", ct: "text/plain", body: zlibOf("a\x00b"), header: []string{"Content-Encoding: deflate"},
			status: 400, rej: &confRej{reason: "forbidden_char", location: "body", offset: 1, class: "nul"}}),
		post(confCase{name: "gzip multipart stray continuation", ct: ctMP, body: gzipOf(mpBody("ok", "1", "q", "\x80")),
			status: 400, rej: rej("unexpected_continuation", "multipart", "q", 0)}),

		// The limit holds for the decoded octets.
		post(confCase{name: "decoded over the limit", ct: "text/plain", body: gzipOf(long),
			status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)}),
		post(confCase{name: "decoded over the limit, chunked", ct: ctJSON, body: gzipOf(`"` + long + `"`), trailer: []string{},
			status: 413, rej: withLimit(rej("too_large", "json", "", 0), 1024)}),

		// Streams that do not decode.
		post(confCase{name: "gzip checksum", ct: ctJSON, body: badCRC(doc), status: 400, rej: unreadable("json", "gzip: invalid checksum")}),
		post(confCase{name: "gzip truncated", ct: ctJSON, body: gzipOf(doc)[:20], status: 400, rej: unreadable("json", "gzip: unexpected EOF")}),
		post(confCase{name: "gzip followed by garbage", ct: ctJSON, body: gzipOf(doc) + strings.Repeat("x", 12), status: 400, rej: unreadable("json", "gzip: invalid header")}),
		post(confCase{name: "gzip followed by zeros", ct: ctJSON, body: gzipOf(doc) + "\x00\x00\x00\x00", status: 400, rej: unreadable("json", "gzip: unexpected EOF")}),
		post(confCase{name: "not gzip at all", ct: ctJSON, body: doc, status: 400, rej: unreadable("json", "gzip: invalid header")}),
		post(confCase{name: "zlib followed by more", ct: ctJSON, body: zlibOf(doc) + "{}", header: []string{"Content-Encoding: deflate"},
			status: 400, rej: unreadable("json", "deflate: octets after the end of the stream")}),
		post(confCase{name: "raw DEFLATE corrupt", ct: ctJSON, body: "\xff\xff\xff", header: []string{"Content-Encoding: deflate"},
			status: 400, rej: unreadable("json", "deflate: corrupt input before offset 1")}),

		// Codings it does not decode.
		post(confCase{name: "br", ct: ctJSON, body: "\x1b\x00", header: []string{"Content-Encoding: br"},
			status: 415, rej: unsupported("json", 0, "br")}),
		post(confCase{name: "zstd", ct: ctForm, body: "\x28\xb5\x2f\xfd", header: []string{"Content-Encoding: zstd"},
			status: 415, rej: unsupported("form", 0, "zstd")}),
		post(confCase{name: "compress", ct: "text/plain", body: "\x1f\x9d", header: []string{"Content-Encoding: compress"},
			status: 415, rej: unsupported("body", 0, "compress")}),
		post(confCase{name: "unknown, with a parameter", ct: ctJSON, body: gzipOf(doc), header: []string{"Content-Encoding: gzip;q=1"},
			status: 415, rej: unsupported("json", 0, "gzip;q=1")}),
		post(confCase{name: "two codings", ct: ctJSON, body: gzipOf(gzipOf(doc)), header: []string{"Content-Encoding: gzip, gzip"},
			status: 415, rej: unsupported("json", 6, "gzip, gzip")}),
		post(confCase{name: "two Content-Encoding lines", ct: ctJSON, body: gzipOf(gzipOf(doc)),
			header: []string{"Content-Encoding: gzip", "Content-Encoding: deflate"}, status: 415, rej: unsupported("json", 6, "gzip, deflate")}),

		// What is not checked as text is not decoded.
		post(confCase{name: "binary body passed as it came", table: binary, ct: "application/octet-stream", body: gzipOf("\x00\x01"),
			status: 200, reads: reads(gzipOf("\x00\x01"))}),
		post(confCase{name: "br on a binary body", table: binary, ct: "application/octet-stream", body: "\x1b\x00",
			header: []string{"Content-Encoding: br"}, status: 200, reads: reads("\x1b\x00")}),
		post(confCase{name: "JSON unchecked", table: jsonOff, ct: ctJSON, body: gzipOf(`{"a":"\ud800"}`),
			status: 200, reads: reads(gzipOf(`{"a":"\ud800"}`))}),

		// Monitor: passed on as it came, coded; the decoded text flagged.
		post(confCase{name: "monitor gzip JSON", table: with(monitor), ct: ctJSON, body: gzipOf(doc), status: 200, reads: reads(gzipOf(doc))}),
		post(confCase{name: "monitor gzip lone surrogate", table: with(monitor), ct: ctJSON, body: gzipOf(`{"a":"\ud800"}`),
			status: 200, rej: flagged(rej("surrogate", "json", "/a", 6)), reads: reads(gzipOf(`{"a":"\ud800"}`))}),
		post(confCase{name: "monitor decoded over the limit", table: with(monitor), ct: "text/plain", body: gzipOf(long),
			status: 200, rej: flagged(withLimit(rej("too_large", "body", "", 0), 1024)), reads: reads(gzipOf(long))}),
		post(confCase{name: "monitor corrupt gzip", table: with(monitor), ct: ctJSON, body: badCRC(doc),
			status: 200, rej: flagged(unreadable("json", "gzip: invalid checksum")), reads: reads(badCRC(doc))}),
		post(confCase{name: "monitor br", table: with(monitor), ct: ctJSON, body: "\x1b\x00", header: []string{"Content-Encoding: br"},
			status: 200, rej: flagged(unsupported("json", 0, "br")), reads: reads("\x1b\x00")}),

		// A text body the route does not check, chunked, is read through
		// the limit: over it, refused and logged, never cut off.
		{name: "unchecked charset, chunked, over the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: long, trailer: []string{},
			status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)},
		{name: "unchecked charset, chunked, within the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: "\xc1\xc2", trailer: []string{}, status: 200, reads: reads("\xc1\xc2")},
		{name: "unchecked charset, declared over the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: long, status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)},
		{name: "JSON off, chunked, over the limit", table: jsonOff, method: "POST", target: "/api/e",
			ct: ctJSON, body: `"` + long + `"`, trailer: []string{}, status: 413, rej: withLimit(rej("too_large", "json", "", 0), 1024)},
		{name: "JSON off, chunked, within the limit", table: jsonOff, method: "POST", target: "/api/e",
			ct: ctJSON, body: `{"a":"\ud800"}`, trailer: []string{}, status: 200, reads: reads(`{"a":"\ud800"}`)},
		{name: "chunked trailer of an unchecked text body", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: "\xc1", trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status: 400, rej: &confRej{reason: "forbidden_char", location: "header", field: "Trailer:X-Name", offset: 1, class: "bidi_control"}},
	}
}

// TestEncodingConformance runs the content-coding rows on every target of
// the conformance table.
func TestEncodingConformance(t *testing.T) {
	t.Parallel()
	runConformance(t, encodingCases())
}

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
