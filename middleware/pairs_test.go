package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// queryCases: the query, per reason.
func queryCases() []locCase {
	c := []locCase{
		{name: "clean", target: "/api/echo?a=1&b=%C3%A9&c=x+y&d", status: 200, check: func(t *testing.T, s *seen) {
			if s.Query.Get("b") != "é" || s.Query.Get("c") != "x y" {
				t.Errorf("query = %v", s.Query)
			}
		}},
		{name: "key overlong", target: "/api/echo?%C0%AE=1", want: rej("overlong", "query", "%C0%AE", 0)},
		{name: "raw octets", target: "/api/echo?q=\xC0\xAE", want: rej("overlong", "query", "q", 0)},
		{name: "bad_escape", target: "/api/echo?q=%G1", want: rej("bad_escape", "query", "q", 0)},
		{name: "bad_escape short", target: "/api/echo?a=1&q=ab%4", want: rej("bad_escape", "query", "q", 2)},
		{name: "bad_escape percent-u", target: "/api/echo?q=%u002e", want: rej("bad_escape", "query", "q", 0)},
		{name: "bad_escape in key", target: "/api/echo?k%zz=1", want: rej("bad_escape", "query", "k%zz", 1)},
		{name: "double encoding allowed by Strict", target: "/api/echo?q=%252e", status: 200, check: func(t *testing.T, s *seen) {
			if s.Query.Get("q") != "%2e" {
				t.Errorf("q = %q", s.Query.Get("q"))
			}
		}},
		{name: "double_encoding refused", pol: func() rules.Policy {
			p := rules.Strict()
			p.Query.RefuseDoubleEncoding = true
			return p
		}, target: "/api/echo?q=%252e", want: rej("double_encoding", "query", "q", 0)},
		{name: "bom", target: "/api/echo?q=%EF%BB%BFx", want: forb("query", "q", 0, "bom")},
		{name: "bom not first passes", target: "/api/echo?q=x%EF%BB%BF", status: 200},
		{name: "default C0 passes", pol: deflt, target: "/api/echo?q=%01", status: 200},
		{name: "fields count", pol: withLimits(func(l *rules.Limits) { l.Fields = 3 }), target: "/api/echo?a=1&b=2&c=3&d=4", want: rej("too_large", "query", "", 0)},
		{name: "fields at the limit", pol: withLimits(func(l *rules.Limits) { l.Fields = 3 }), target: "/api/echo?a=1&b=2&c=3", status: 200},
		{name: "field length", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/api/echo?q=123456789", want: rej("too_large", "query", "q", 0)},
		{name: "field length decoded", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/api/echo?q=%C3%A9%C3%A9%C3%A9%C3%A9", status: 200},
		{name: "key length", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/api/echo?123456789=1", want: rej("too_large", "query", "123456789", 0)},
		{name: "escaped key names the value", target: "/api/echo?q%41=%C0%AE", want: rej("overlong", "query", "qA", 0)},
		{name: "first violation wins", target: "/api/echo?q=a%00%C0%AE", want: forb("query", "q", 1, "nul")},
		{name: "first violation wins in key", target: "/api/echo?%E2%80%AE%FF=1", want: forb("query", "%E2%80%AE%FF", 0, "bidi_control")},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, target: "/api/echo?a=1&q=ab" + e.esc, want: rej(e.reason, "query", "q", 2)})
	}
	for _, f := range append(urlForbidden, struct{ class, esc string }{"bidi_control", "%E2%81%A6"}) {
		c = append(c, locCase{name: "forbidden " + f.class, target: "/api/echo?q=" + f.esc, want: forb("query", "q", 0, f.class)})
	}
	for i := range c {
		c[i].route = rEcho
	}
	return c
}

// formCases: application/x-www-form-urlencoded bodies.
func formCases() []locCase {
	c := []locCase{
		{name: "clean", body: "a=1&b=%C3%A9&c=x+y", status: 200},
		{name: "raw octets", body: "a=1&q=\xED\xA0\x80", want: rej("surrogate", "form", "q", 0)},
		{name: "bad_escape", body: "q=a%", want: rej("bad_escape", "form", "q", 1)},
		{name: "tab allowed in bodies", body: "q=a%09b%0D%0A", status: 200},
		{name: "first violation wins", body: "q=a%01%ED%A0%80", want: forb("form", "q", 1, "c0")},
		{name: "fields count", pol: withLimits(func(l *rules.Limits) { l.Fields = 3 }), body: "a=1&b=2&c=3&d=4", status: 400, want: rej("too_large", "form", "", 0)},
		{name: "field length", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), body: "q=123456789", status: 400, want: rej("too_large", "form", "q", 0)},
		{name: "body too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: strings.Repeat("a", 17), status: 413, want: rej("too_large", "form", "", 0)},
		{name: "body at the limit", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: "q=" + strings.Repeat("a", 14), status: 200},
		{name: "charset latin1 strict", ct: ctForm + "; charset=iso-8859-1", body: "q=%E9", want: rej("bad_charset", "form", "iso-8859-1", 0)},
		// Go's form readers ignore the charset parameter and hand on the
		// octets as they are: checked as UTF-8 whatever it says.
		{name: "charset latin1 default is read as UTF-8", pol: deflt, ct: ctForm + "; charset=iso-8859-1", body: "q=%E9", want: rej("truncated", "form", "q", 0)},
		{name: "dotted capital I in the type", ct: "applİcation/x-www-form-urlencoded", body: "q=%FF", want: rej("invalid_byte", "form", "q", 0)},
		{name: "upper case type", ct: "Application/X-WWW-Form-URLEncoded", body: "q=%FF", want: rej("invalid_byte", "form", "q", 0)},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: "a=1&q=ab" + e.esc, want: rej(e.reason, "form", "q", 2)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: "q=" + sanitize.Escape(f.raw, sanitize.EscapeQuery), want: forb("form", "q", 0, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" {
			c[i].ct = ctForm
		}
	}
	return c
}
