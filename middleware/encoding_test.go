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

	"github.com/utf8guard/utf8guard/middleware"
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

// serve records what the handler saw.
func (h *headerSeen) serve(_ echoCtx, w http.ResponseWriter, r *http.Request) {
	h.record(r)
	w.WriteHeader(http.StatusOK)
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
			// The three adapters on one route, POST /e, each with its
			// framework's Decompress middleware after utf8guard where
			// the case says so.
			for _, name := range []string{"v4", "v5", "nethttp"} {
				m := mounting{adapter: name, how: "use", cfg: middleware.HTTPConfig{Rules: p}, routes: []string{"/e"}, methods: []string{http.MethodPost}}
				if name == "nethttp" {
					m.how, m.routes = "handler", []string{"POST /e"}
				}
				if tc.decompress {
					m.after = []echoMW{decompress()}
				}
				h := newServer(t, m, seen)
				*seen = headerSeen{}
				r := httptest.NewRequest("POST", "/e", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Content-Encoding", "gzip")
				r.Header.Set("Content-Length", strconv.Itoa(len(body)))
				if tc.chunked {
					r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
					r.Header.Del("Content-Length")
				}
				w := h.Do(r)
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
			cfg := middleware.HTTPConfig{Rules: rules.Strict()}
			for _, name := range []string{"v4", "v5", "unknown decoder"} {
				m := mounting{adapter: name, how: "use", cfg: cfg, before: []echoMW{decompress()}, routes: []string{"/e"}, methods: []string{http.MethodPost}}
				if name == "unknown decoder" {
					m = mounting{adapter: "nethttp", how: "bare", cfg: cfg, wrap: unknownDecoder}
				}
				h := newServer(t, m, seen)
				*seen = headerSeen{}
				r := httptest.NewRequest("POST", "/e", strings.NewReader(tc.body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Content-Encoding", "gzip")
				w := h.Do(r)
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
