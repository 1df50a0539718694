package middleware

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
)

// TestLogLine: given rejections, expect one JSON line each with every
// field of the schema, its values exact, and nothing for clean requests.
func TestLogLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		r      func() *http.Request
		fields map[string]any
	}{
		{"query sample", func() *http.Request { return req("GET", "/api/echo?a=1&q=ab%C0%AEcd", "", nil) }, map[string]any{
			"reason": "overlong", "location": "query", "field": "q", "offset": 2.0, "sample": `ab\xc0\xaecd`,
			"method": "GET", "route": rEcho, "mode": "enforce", "remote_ip": "192.0.2.1",
		}},
		{"path param route template", func() *http.Request { return req("DELETE", "/api/users/%ed%a0%80", "", nil) }, map[string]any{
			"reason": "surrogate", "location": "path", "field": "", "offset": 11.0, "sample": `i/users/\xed\xa0\x80`,
			"method": "DELETE", "route": rUser,
		}},
		{"forbidden class", func() *http.Request { return req("GET", "/api/echo?q=x%E2%80%AEy", "", nil) }, map[string]any{
			"reason": "forbidden_char", "class": "bidi_control", "location": "query", "field": "q", "offset": 1.0, "sample": `x\xe2\x80\xaey`,
		}},
		{"json pointer", func() *http.Request {
			return req("POST", "/api/echo", ctJSON, strings.NewReader(`{"a":[{"b~/":"\udc00"}]}`))
		}, map[string]any{
			"reason": "surrogate", "location": "json", "field": "/a/0/b~0~1", "offset": 14.0, "sample": `{"b~/":"\x5cudc00"}`,
		}},
		{"backslash escaped in sample", func() *http.Request { return req("GET", "/api/echo?q=a%5C%FF", "", nil) }, map[string]any{
			"sample": `a\x5c\xff`, "offset": 2.0,
		}},
		{"key is the attack", func() *http.Request { return req("GET", "/api/echo?%FF%00=1", "", nil) }, map[string]any{
			"field": "%FF%00", "reason": "invalid_byte",
		}},
		{"text body", func() *http.Request { return req("PUT", "/api/echo", ctText, strings.NewReader("héllo\xC0")) }, map[string]any{
			"field": "", "offset": 6.0, "sample": `h\xc3\xa9llo\xc0`, "method": "PUT",
		}},
		{"client request id", func() *http.Request {
			r := req("GET", "/api/echo?q=%FF", "", nil)
			r.Header.Set("X-Request-Id", "client-id-1")
			return r
		}, map[string]any{"request_id": "client-id-1"}},
		{"forwarded ip", func() *http.Request {
			r := req("GET", "/api/echo?q=%FF", "", nil)
			r.Header.Set("X-Real-Ip", "203.0.113.9")
			return r
		}, map[string]any{"remote_ip": "203.0.113.9"}},
	}
	for _, m := range mounts {
		for _, tc := range cases {
			t.Run(m.String()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, m), &recorder{})
				ev.do(req("GET", "/api/users/%C3%A9?q=%C3%A9", "", nil))
				if l := ev.logs.lines(t); len(l) != 0 {
					t.Fatalf("clean request logged: %v", l)
				}
				r := tc.r()
				w := ev.do(r)
				l := checkOneLog(t, ev.logs, wantLog{reason: str(tc.fields["reason"]), location: str(tc.fields["location"]), offset: -1}, "enforce", "", "")
				if _, ok := tc.fields["request_id"]; !ok {
					if id := w.Header().Get("X-Request-Id"); id == "" || l["request_id"] != id {
						t.Errorf("request_id %v, X-Request-Id %q", l["request_id"], id)
					}
				}
				for k, v := range tc.fields {
					if l[k] != v {
						t.Errorf("%s = %#v, want %#v", k, l[k], v)
					}
				}
				if _, ok := l["class"]; ok != (l["reason"] == "forbidden_char") {
					t.Errorf("class field present = %v for reason %v", ok, l["reason"])
				}
				// one more of the same: one more line, no more
				ev.do(tc.r())
				if n := len(ev.logs.lines(t)); n != 2 {
					t.Errorf("after two rejections: %d lines", n)
				}
			})
		}
	}
}

// TestLogContextLogger: a zerolog logger in the request's context (as
// hlog sets it) receives the line, with its own fields; LogAccepted adds a
// debug line for clean requests.
func TestLogContextLogger(t *testing.T) {
	t.Parallel()
	ctxLogs := &logBuf{}
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: ptr(rules.Strict()), LogAccepted: true},
		routes: []string{"/x"}, methods: []string{http.MethodGet},
		before: []echo.MiddlewareFunc{func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				l := zerolog.New(ctxLogs).With().Str("svc", "api").Logger()
				c.SetRequest(c.Request().WithContext(l.WithContext(c.Request().Context())))
				return next(c)
			}
		}}}, &recorder{})
	cfgLogs := srv.logs
	srv.do(req("GET", "/x?q=%FF", "", nil))
	if l := ctxLogs.lines(t); len(l) != 1 || l[0]["svc"] != "api" || l[0]["reason"] != "invalid_byte" {
		t.Errorf("context logger got %v", l)
	}
	if l := cfgLogs.lines(t); len(l) != 0 {
		t.Errorf("configured logger got %v", l)
	}
	ctxLogs.reset()
	srv.do(req("GET", "/x?q=ok", "", nil))
	if l := ctxLogs.lines(t); len(l) != 1 || l[0]["level"] != "debug" || l[0]["message"] != "utf8guard: request accepted" || l[0]["route"] != "/x" {
		t.Errorf("LogAccepted: %v", l)
	}
}

// vecHostile holds what must never reach a log raw: CR, LF, an ANSI escape,
// a quote, a backslash, invalid octets and a bidi control.
const vecHostile = "a\r\n\x1b[31m\"\\\xff\xc0\xaf\xe2\x80\xaeX"

// vecLogSafetyCases are requests that put vecHostile in every place that
// ends up in a rejection's log line: values, keys, names, the method, the
// request ID and the forwarded address. They are built directly, not
// parsed, so that nothing a server's parser would refuse is spared.
func vecLogSafetyCases() map[string]func() *http.Request {
	post := func(ct, body string) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, vecPrefix+"x", strings.NewReader(body))
			r.Header.Set("Content-Type", ct)
			return r
		}
	}
	get := func(edit func(r *http.Request)) func() *http.Request {
		return func() *http.Request {
			r := httptest.NewRequest(http.MethodGet, vecPrefix+"x", nil)
			edit(r)
			return r
		}
	}
	mp := func(disp, data string) func() *http.Request {
		return post("multipart/form-data; boundary="+vecBoundary,
			"--"+vecBoundary+"\r\nContent-Disposition: "+disp+"\r\n\r\n"+data+"\r\n--"+vecBoundary+"--\r\n")
	}
	esc := vecPercentAll([]byte(vecHostile))
	return map[string]func() *http.Request{
		"path-raw":          get(func(r *http.Request) { r.URL.Path, r.URL.RawPath = vecPrefix+vecHostile, "" }),
		"path-escaped":      get(func(r *http.Request) { r.URL.Path, r.URL.RawPath = vecPrefix+vecHostile, vecPrefix+esc }),
		"query-value":       get(func(r *http.Request) { r.URL.RawQuery = "k=" + esc }),
		"query-value-raw":   get(func(r *http.Request) { r.URL.RawQuery = "k=" + vecHostile }),
		"query-key":         get(func(r *http.Request) { r.URL.RawQuery = esc + "=v" }),
		"query-key-raw":     get(func(r *http.Request) { r.URL.RawQuery = vecHostile + "=v" }),
		"query-key-invalid": get(func(r *http.Request) { r.URL.RawQuery = "\xff\x1b[31m\r\n%C0%AF=v" }),
		"form-value":        post("application/x-www-form-urlencoded", "k="+vecHostile),
		"form-key":          post("application/x-www-form-urlencoded", vecHostile+"=v"),
		"form-key-escaped":  post("application/x-www-form-urlencoded", esc+"=v"),
		"json-value":        post("application/json", `{"k":"\r\n\u001b[31m\"\\`+"\xff"+`"}`),
		"json-key":          post("application/json", `{"\r\n\"\\`+"\x1b[31m\xff"+`":"v"}`),
		"json-key-escape":   post("application/json", `{"\r\n\"\\\u001b[31m\u00ff":"v"}`),
		"json-key-invalid":  post("application/json", `{"a":{"\r\n\"`+"\xff\xfe"+`":1}}`),
		// Part headers with a raw control octet do not parse (NextPart
		// fails, for the handler too): the controls come escaped, RFC 2231.
		"multipart-name":        mp(`form-data; name*=UTF-8''%0D%0A%1B%5B31m%22%5C%FF`, "v"),
		"multipart-name-quoted": mp(`form-data; name="a\\\"`+"\xff\xc0\xaf\xe2\x80\xae"+`"`, "v"),
		"multipart-file":        mp(`form-data; name="f"; filename*=UTF-8''%1B%5B31m%0D%0A%FF.txt`, "v"),
		"multipart-header":      mp("form-data; name=\"k\"\r\nX-Evil: \"\\\xff\xc0\xaf", "v"),
		"multipart-value":       mp(`form-data; name="k"`, vecHostile),
		"text-body":             post("text/plain; charset=utf-8", vecHostile),
		"header-value":          get(func(r *http.Request) { r.Header.Set(vecHeader, vecHostile) }),
		"hostile-metadata": get(func(r *http.Request) {
			r.Method = "G\x1b[31mET\r\n\xff"
			r.URL.RawQuery = "k=%00"
			r.Header.Set(echo.HeaderXRequestID, vecHostile)
			r.Header.Set(echo.HeaderXForwardedFor, vecHostile)
			r.Header.Set(echo.HeaderXRealIP, vecHostile)
		}),
	}
}

// vecLogSafe checks one log output: exactly one line, one valid JSON
// object, no raw control or non-ASCII octet in the output, none in any
// decoded value either (a log viewer prints those), and a bounded sample.
func vecLogSafe(t *testing.T, out []byte) {
	t.Helper()
	if bytes.Count(out, []byte("\n")) != 1 || !bytes.HasSuffix(out, []byte("\n")) {
		t.Fatalf("want exactly one log line, got %q", out)
	}
	line := bytes.TrimSuffix(out, []byte("\n"))
	if !json.Valid(line) {
		t.Fatalf("the log line is not valid JSON: %q", line)
	}
	for i, c := range line {
		if c < 0x20 || c >= 0x7F {
			t.Errorf("raw octet %#x at %d of the log line %q", c, i, line)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("the log line is not a JSON object: %v", err)
	}
	for k, v := range m {
		if s, ok := v.(string); ok && !vecPrintable(s) {
			t.Errorf("log field %s decodes to %q: not printable ASCII", k, s)
		}
	}
	if s, _ := m["sample"].(string); len(s) > 4*17 {
		t.Errorf("sample of %d octets, want at most %d: %q", len(s), 4*17, s)
	}
	if s, _ := m["field"].(string); len(s) > 4*64 {
		t.Errorf("field of %d octets: %q", len(s), s)
	}
	if m["reason"] == nil || m["reason"] == "" {
		t.Errorf("no reason in %s", line)
	}
}

func TestLogSafety(t *testing.T) {
	t.Parallel()
	for name, build := range vecLogSafetyCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec, seen, logs := vecServe(t, vecPolicy("header"), build())
			if seen.ran || rec.Code < 400 {
				t.Fatalf("status %d, handler ran %v: the hostile request was not rejected", rec.Code, seen.ran)
			}
			vecLogSafe(t, logs.Bytes())
			if bytes.Contains(rec.Body.Bytes(), []byte("\x1b")) || bytes.Contains(rec.Body.Bytes(), []byte("\xff")) {
				t.Errorf("the response echoes raw octets: %q", rec.Body)
			}
		})
	}
}

// TestLogSafetySampling floods the middleware with rejections through a
// logger with a BurstSampler (5 a second): the log holds a handful of
// lines, while OnReject, which is not sampled, sees every rejection.
func TestLogSafetySampling(t *testing.T) {
	t.Parallel()
	const (
		flood  = 1000
		burst  = 5
		period = time.Second
	)
	var logs bytes.Buffer
	logger := zerolog.New(&logs).Sample(&zerolog.BurstSampler{Burst: burst, Period: period})
	pol := rules.Strict()
	rejected := 0
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &pol, Logger: &logger,
		OnReject: func(echo.Context, *Rejection) { rejected++ }}, routes: []string{vecRoute}},
		onEcho(func(c echo.Context) error { return c.NoContent(http.StatusOK) }))
	start := time.Now()
	for range flood {
		rec := srv.do(httptest.NewRequest(http.MethodGet, vecPrefix+"x?k=%C0%AF%1B", nil))
		if rec.Code != http.StatusBadRequest {
			t.Fatalf("status %d, want 400", rec.Code)
		}
	}
	windows := int(time.Since(start)/period) + 1
	if rejected != flood {
		t.Errorf("OnReject saw %d rejections, want %d", rejected, flood)
	}
	lines := bytes.Count(logs.Bytes(), []byte("\n"))
	if lines < burst || lines > burst*windows {
		t.Errorf("%d log lines for %d rejections in %d sampling period(s), want %d to %d",
			lines, flood, windows, burst, burst*windows)
	}
	for line := range bytes.SplitSeq(bytes.TrimSuffix(logs.Bytes(), []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("log line is not valid JSON: %q", line)
		}
	}
}
