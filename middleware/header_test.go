package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// TestCookies: the strict preset checks every cookie's name and value as
// text, without percent-decoding, and names the cookie in the log.
func TestCookies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cookie string
		repair       bool
		status       int
		reason       string
		field        string
		offset       float64
		seen         string // the Cookie header the handler sees
	}{
		{name: "clean", cookie: "session=abc123; theme=dark", status: 200, seen: "session=abc123; theme=dark"},
		{name: "utf-8 value", cookie: "name=caf\xc3\xa9", status: 200, seen: "name=caf\xc3\xa9"},
		{name: "escapes not decoded", cookie: "q=%C0%AE%00", status: 200, seen: "q=%C0%AE%00"},
		{name: "overlong value", cookie: "a=1; path=\xc0\xae\xc0\xae", status: 400, reason: "overlong", field: "Cookie:path", offset: 0},
		{name: "surrogate name", cookie: "x\xed\xa0\x80=1", status: 400, reason: "surrogate", field: `Cookie:x\xed\xa0\x80`, offset: 1},
		{name: "bidi value", cookie: "n=ab\xe2\x80\xaecd", status: 400, reason: "forbidden_char", field: "Cookie:n", offset: 2},
		{name: "repaired", cookie: "a=1; b=x\xffy", repair: true, status: 200, seen: "a=1; b=x\uFFFDy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := rules.Strict()
			p.Header.Repair = tt.repair
			seen, ran := "", false
			srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &p}, routes: []string{"/c"}, methods: []string{http.MethodGet}},
				onEcho(func(c echo.Context) error {
					ran, seen = true, c.Request().Header.Get("Cookie")
					return c.NoContent(http.StatusOK)
				}))
			logs := srv.logs
			req := httptest.NewRequest(http.MethodGet, "/c", nil)
			req.Header.Set("Cookie", tt.cookie)
			rec := srv.do(req)
			if rec.Code != tt.status || ran != (tt.status == 200) {
				t.Fatalf("status %d, handler ran %v; want %d", rec.Code, ran, tt.status)
			}
			if tt.status == 200 {
				if seen != tt.seen {
					t.Errorf("handler saw Cookie %q, want %q", seen, tt.seen)
				}
				return
			}
			lines := logs.lines(t)
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1", len(lines))
			}
			l := lines[0]
			if l["reason"] != tt.reason || l["location"] != "header" || l["field"] != tt.field || l["offset"] != tt.offset {
				t.Errorf("log %v; want reason %s, location header, field %s, offset %v", l, tt.reason, tt.field, tt.offset)
			}
		})
	}
}

// headerCases: headers the policy lists.
func headerCases() []locCase {
	hdr := func() rules.Policy {
		p := rules.Strict()
		p.Header.On = true
		p.Headers = []string{"x-name", "User-Agent"}
		p.Limits.FieldBytes = 32
		return p
	}
	c := []locCase{
		{name: "clean", header: [][2]string{{"X-Name", "été"}}, status: 200},
		{name: "overlong", header: [][2]string{{"X-Name", "ab\xC0\xAE"}}, want: rej("overlong", "header", "X-Name", 2)},
		{name: "second value", header: [][2]string{{"X-Name", "ok"}, {"X-Name", "\xFF"}}, want: rej("invalid_byte", "header", "X-Name", 0)},
		{name: "user agent bidi", header: [][2]string{{"User-Agent", "a\u202Eb"}}, want: forb("header", "User-Agent", 1, "bidi_control")},
		{name: "unlisted header passes", header: [][2]string{{"X-Other", "\xC0\xAE"}}, status: 200},
		{name: "too long", header: [][2]string{{"X-Name", strings.Repeat("a", 33)}}, want: rej("too_large", "header", "X-Name", 0)},
		{name: "off by default", pol: strict, header: [][2]string{{"X-Name", "\xC0\xAE"}}, status: 200},
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].pol == nil {
			c[i].pol = hdr
		}
	}
	return c
}
