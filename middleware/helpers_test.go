package middleware

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
)

// logBuf collects zerolog output; safe for concurrent writers (a real
// server logs from its own goroutines).
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines parses every log line as JSON; a line that is not JSON fails t.
func (l *logBuf) lines(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	raw := l.buf.String()
	l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(raw, "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v: %q", err, line)
		}
		out = append(out, m)
	}
	return out
}

// String returns everything logged so far.
func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuf) reset() {
	l.mu.Lock()
	l.buf.Reset()
	l.mu.Unlock()
}

func (l *logBuf) logger() *zerolog.Logger {
	lg := zerolog.New(l).Level(zerolog.DebugLevel)
	return &lg
}

// strictUpload is the strict preset on a route that takes binary uploads:
// application/octet-stream bodies pass unread, bounded by the body limit.
func strictUpload() rules.Policy {
	p := rules.Strict()
	p.BinaryTypes = []string{"application/octet-stream"}
	return p
}

// seen is what the handler saw of a request.
type seen struct {
	Method        string
	Route         string
	Path, RawPath string
	RawQuery      string
	Query         url.Values
	Params        map[string]string
	ParamNames    []string
	ParamValues   []string
	Body          []byte
	ContentLength int64
	Header        http.Header
	BodyErr       error
}

// recorder is a handler that records what it saw and counts its calls.
type recorder struct {
	calls atomic.Int32
	mu    sync.Mutex
	last  *seen
}

// serve records what the handler saw: on Echo through Echo's API (the
// route template, c.QueryParams, c.Param), on net/http through its own
// (the ServeMux pattern, URL.Query, r.PathValue("id")).
func (rec *recorder) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	s := &seen{
		Method:        r.Method,
		Route:         r.Pattern,
		Path:          r.URL.Path,
		RawPath:       r.URL.RawPath,
		RawQuery:      r.URL.RawQuery,
		Params:        map[string]string{},
		ContentLength: r.ContentLength,
		Header:        r.Header.Clone(),
	}
	if c != nil {
		s.Route, s.Query = c.Path(), c.QueryParams()
		s.ParamNames = append([]string(nil), c.ParamNames()...)
		s.ParamValues = append([]string(nil), c.ParamValues()...)
		for _, n := range c.ParamNames() {
			s.Params[n] = c.Param(n)
		}
	} else {
		s.Query = r.URL.Query()
		if v := r.PathValue("id"); v != "" {
			s.Params["id"] = v
		}
	}
	if r.Body != nil {
		s.Body, s.BodyErr = io.ReadAll(r.Body)
	}
	rec.calls.Add(1)
	rec.mu.Lock()
	rec.last = s
	rec.mu.Unlock()
	if c != nil {
		return c.String(http.StatusOK, "ok")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "ok")
	return nil
}

func (rec *recorder) seen() *seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.last
}

// testRoutes are the routes of the recording servers (recSetup), below
// /api so that a group can hold them.
var testRoutes = []string{"/api/users/:id", "/api/files/*", "/api/echo", "/api/users/:id/posts/:post"}

// testMethods are the methods every test route answers.
var testMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete}

// recSetup is the setup of most tests: the Echo v4 adapter configured by
// cfg on mount m, behind Echo's RequestID middleware, serving testRoutes
// for testMethods (net/http mounts: the ServeMux patterns of testRoutes).
// Its handler is a recorder.
func recSetup(cfg Config, m mount) setup {
	return setup{mount: m, echo: cfg, routes: testRoutes, methods: testMethods, requestID: true}
}

// req builds a request for target (a raw request-target, parsed as the
// server would), with a body and a Content-Type when ct is not empty.
func req(method, target, ct string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

// countingReader counts the octets read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// failingReader returns the first n octets of data and then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// infiniteReader yields 'a' for ever.
type infiniteReader struct{}

func (infiniteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

var errBroken = errors.New("broken body")

// wantLog is the part of a log line a test checks; empty strings and a
// negative offset are not checked.
type wantLog struct {
	reason, location, field, class string
	offset                         int
}

// checkOneLog asserts that the log holds exactly one rejection line and
// that it carries every field of the documented schema, with the given
// values.
func checkOneLog(t testing.TB, logs *logBuf, want wantLog, mode, method, route string) map[string]any {
	t.Helper()
	lines := logs.lines(t)
	if len(lines) != 1 {
		t.Fatalf("log lines = %d, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	for _, k := range []string{"reason", "location", "field", "offset", "sample", "method", "route", "request_id", "remote_ip", "mode", "level", "message"} {
		if _, ok := l[k]; !ok {
			t.Errorf("log line lacks %q: %v", k, l)
		}
	}
	str := func(k string) string { s, _ := l[k].(string); return s }
	if str("level") != "warn" {
		t.Errorf("level = %q, want warn", str("level"))
	}
	if want.reason != "" && str("reason") != want.reason {
		t.Errorf("reason = %q, want %q", str("reason"), want.reason)
	}
	if want.location != "" && str("location") != want.location {
		t.Errorf("location = %q, want %q", str("location"), want.location)
	}
	if want.field != "" || want.location == "path" || want.location == "body" {
		if str("field") != want.field {
			t.Errorf("field = %q, want %q", str("field"), want.field)
		}
	}
	if want.offset >= 0 {
		if off, _ := l["offset"].(float64); int(off) != want.offset {
			t.Errorf("offset = %v, want %d", l["offset"], want.offset)
		}
	}
	if want.class != "" && str("class") != want.class {
		t.Errorf("class = %q, want %q", str("class"), want.class)
	}
	if s := str("sample"); !printableASCII(s) {
		t.Errorf("sample %q is not hex-escaped printable ASCII", s)
	}
	for k, v := range l {
		if s, ok := v.(string); ok && !printableASCII(s) {
			t.Errorf("log field %s = %q holds a raw non-ASCII or control octet", k, s)
		}
	}
	if str("mode") != mode {
		t.Errorf("mode = %q, want %q", str("mode"), mode)
	}
	if method != "" && str("method") != method {
		t.Errorf("method = %q, want %q", str("method"), method)
	}
	if route != "" && str("route") != route {
		t.Errorf("route = %q, want %q", str("route"), route)
	}
	return l
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7F {
			return false
		}
	}
	return true
}

// errorBody decodes a JSON error response body.
func errorBody(t testing.TB, body []byte) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("error body is not a JSON object of strings: %v: %q", err, body)
	}
	return m
}

const (
	ctForm = "application/x-www-form-urlencoded"
	ctJSON = "application/json"
	ctText = "text/plain; charset=utf-8"
	ctMP   = "multipart/form-data; boundary=XBOUNDARYX"
)

const (
	rFiles = "/api/files/*"
	rEcho  = "/api/echo"
	rUser  = "/api/users/:id"
)

func strict() rules.Policy { return rules.Strict() }
func deflt() rules.Policy  { return rules.Default() }
func withLimits(f func(l *rules.Limits)) func() rules.Policy {
	return func() rules.Policy { p := rules.Strict(); f(&p.Limits); return p }
}

func rej(reason, loc, field string, off int) wantLog {
	return wantLog{reason: reason, location: loc, field: field, offset: off}
}

func forb(loc, field string, off int, class string) wantLog {
	return wantLog{reason: "forbidden_char", location: loc, field: field, offset: off, class: class}
}

// mpPart is one part of a multipart body: the raw Content-Disposition
// parameters after "form-data; ", an optional Content-Type, and the data.
type mpPart struct{ disp, ct, data string }

// multipartBody builds a multipart/form-data body with boundary XBOUNDARYX
// from raw octets: no escaping, so tests control every byte.
func multipartBody(parts ...mpPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--XBOUNDARYX\r\nContent-Disposition: form-data; " + p.disp + "\r\n")
		if p.ct != "" {
			b.WriteString("Content-Type: " + p.ct + "\r\n")
		}
		b.WriteString("\r\n" + p.data + "\r\n")
	}
	b.WriteString("--XBOUNDARYX--\r\n")
	return b.String()
}

// repairing is Strict with Repair on at every location.
func repairing() rules.Policy {
	p := rules.Strict()
	for l := range rules.Location(rules.NumLocations) {
		p.Location(l).Repair = true
	}
	return p
}

const fffd = "\uFFFD"

func ptr[T any](v T) *T { return &v }

func str(v any) string { s, _ := v.(string); return s }

// ptrLogger is a logger that discards, for tests that do not read logs.
func ptrLogger() *zerolog.Logger {
	l := zerolog.Nop()
	return &l
}

// esc percent-encodes every octet of s, as a client may.
func esc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[s[i]>>4])+string("0123456789abcdef"[s[i]&15])))
	}
	return b.String()
}

// chunked writes p in HTTP/1.1 chunked encoding with chunks of the given
// sizes in turn, so that characters straddle chunks.
func chunked(p []byte, sizes ...int) io.Reader {
	var b bytes.Buffer
	for i := 0; len(p) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(p))
		fmt.Fprintf(&b, "%x\r\n", n)
		b.Write(p[:n])
		b.WriteString("\r\n")
		p = p[n:]
	}
	b.WriteString("0\r\n\r\n")
	return &b
}

// mixedText returns exactly n octets of valid UTF-8 cycling through 1-,
// 2-, 3- and 4-octet characters, so that with any chunking some characters
// straddle read boundaries. It holds no '"', '\', '&', '=', '+' or '%', so
// that it is also a JSON string's contents and a form value as is.
func mixedText(n int) []byte {
	chars := []string{"a", "é", "€", "😀", "ж", " ", "中", "ü", "𝄞", "z", "\n"}
	b := make([]byte, 0, n)
	for i := 0; ; i++ {
		c := chars[i%len(chars)]
		if len(b)+len(c) > n {
			break
		}
		b = append(b, c...)
	}
	for len(b) < n {
		b = append(b, 'x')
	}
	return b
}

func describe(rj *Rejection) string {
	if rj == nil {
		return "accepted"
	}
	return fmt.Sprintf("%v at %d class %v field %q", rj.Reason, rj.Offset, rj.Class, rj.Field)
}
