package middleware

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// locCase is one request against the test routes: given a policy and a
// request, expect a status and (for a rejection) a log line.
type locCase struct {
	name   string
	pol    func() rules.Policy // nil: rules.Strict
	method string              // "" is GET, or POST when body is set
	target string              // raw request-target
	ct     string
	body   string
	header [][2]string
	// expect
	status int     // 200 when accepted
	want   wantLog // want.reason == "": accepted, no log line
	route  string  // the route template in the log
	check  func(t *testing.T, s *seen)
}

// pathCases: the path, per reason.
func pathCases() []locCase {
	c := []locCase{
		{name: "clean", target: "/api/files/a/b.txt", status: 200, check: func(t *testing.T, s *seen) {
			if s.Params["*"] != "a/b.txt" {
				t.Errorf("param * = %q", s.Params["*"])
			}
		}},
		{name: "clean utf8 escaped", target: "/api/files/%C3%A9t%C3%A9", status: 200, check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/été" || s.Params["*"] != "été" {
				t.Errorf("path %q param %q", s.Path, s.Params["*"])
			}
		}},
		{name: "raw C0 AE in request line", target: "/api/files/\xC0\xAE", want: rej("overlong", "path", "", 11)},
		{name: "raw ED A0 80 in request line", target: "/api/files/x\xED\xA0\x80", want: rej("surrogate", "path", "", 12)},
		{name: "default double encoding passes", pol: deflt, target: "/api/files/%252e", status: 200, check: func(t *testing.T, s *seen) {
			if s.Params["*"] != "%2e" {
				t.Errorf("param * = %q, want %%2e", s.Params["*"])
			}
		}},
		{name: "double_encoding", target: "/api/files/%252e", want: rej("double_encoding", "path", "", 11)},
		{name: "double_encoding of escapes", target: "/api/files/%25%32%65", want: rej("double_encoding", "path", "", 11)},
		{name: "default C0 passes", pol: deflt, target: "/api/files/%01", status: 200},
		{name: "default nul", pol: deflt, target: "/api/files/%00", want: forb("path", "", 11, "nul")},
		{name: "too_large path", pol: withLimits(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/api/files/aaaaaaaaaaaa", want: rej("too_large", "path", "", 0)},
		{name: "path at the limit", pol: withLimits(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/api/files/aaaaa", status: 200},
		{name: "param overlong", target: "/api/users/%C0%AE", want: rej("overlong", "path", "", 11), route: rUser},
		{name: "first violation wins", target: "/api/files/%E2%80%AE%FF", want: forb("path", "", 11, "bidi")},
		{name: "first violation wins raw", target: "/api/files/%00\xC0\xAE", want: forb("path", "", 11, "nul")},
		// A parameter is a value of its own to the handler: a leading
		// BOM is refused there as at the start of a query value (issue
		// 12, point 10).
		{name: "bom leading a param", target: "/api/users/%EF%BB%BFa", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom leading a param lower", target: "/api/users/%ef%bb%bfa", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom leading a param mixed", target: "/api/users/%EF%BB%BF%61", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom inside a param", target: "/api/users/a%EF%BB%BF", status: 200, route: rUser},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, target: "/api/files/" + e.esc, want: rej(e.reason, "path", "", 11)})
	}
	for _, f := range urlForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, target: "/api/files/" + f.esc, want: forb("path", "", 11, f.class)})
	}
	for i := range c {
		if c[i].route == "" {
			c[i].route = rFiles
		}
	}
	return c
}

// encodingCases are the UTF-8 malformations, escaped, with the reason each
// must give; raw is the octets themselves.
var encodingCases = []struct{ reason, esc, raw string }{
	{"overlong", "%C0%AE", "\xC0\xAE"},
	{"overlong", "%E0%80%AF", "\xE0\x80\xAF"},
	{"surrogate", "%ED%A0%80", "\xED\xA0\x80"},
	{"surrogate", "%ED%B0%80", "\xED\xB0\x80"},
	{"out_of_range", "%F4%90%80%80", "\xF4\x90\x80\x80"},
	{"invalid_byte", "%FF", "\xFF"},
	{"invalid_byte", "%C0", "\xC0"},
	{"truncated", "%E2%82", "\xE2\x82"},
	{"unexpected_continuation", "%80", "\x80"},
}

// urlForbidden are characters Strict refuses in the path and the query.
var urlForbidden = []struct{ class, esc string }{
	{"nul", "%00"},
	{"c0", "%01"},
	{"tab_newline", "%0A"},
	{"c1", "%C2%85"},
	{"bidi", "%E2%80%AE"},
}

// bodyForbidden are characters Strict refuses in bodies, raw.
var bodyForbidden = []struct{ class, raw string }{
	{"nul", "\x00"},
	{"c0", "\x01"},
	{"c1", "\xC2\x85"},
	{"bidi", "\xE2\x80\xAE"},
}

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
		{name: "first violation wins in key", target: "/api/echo?%E2%80%AE%FF=1", want: forb("query", "%E2%80%AE%FF", 0, "bidi")},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, target: "/api/echo?a=1&q=ab" + e.esc, want: rej(e.reason, "query", "q", 2)})
	}
	for _, f := range append(urlForbidden, struct{ class, esc string }{"bidi", "%E2%81%A6"}) {
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

// jsonCases: JSON bodies.
func jsonCases() []locCase {
	c := []locCase{
		{name: "clean", body: `{"q":"été","n":[1,2,{"k":"\u00e9"}]}`, status: 200},
		{name: "well-formed pair", body: `{"q":"\ud83d\ude00"}`, status: 200},
		{name: "well-formed pair upper", body: `{"q":"\uD83D\uDE00"}`, status: 200},
		{name: "lone high", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "lone low", body: `{"q":"\udc00"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high then text", body: `{"q":"\ud800x"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high then non-low escape", body: `{"q":"\ud800\u0041"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high high", body: `{"q":"\ud800\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "low high", body: `{"q":"\ude00\ud83d"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "escaped nul", body: `{"q":"\u0000"}`, want: forb("json", "/q", 6, "nul")},
		{name: "escaped nul default", pol: deflt, body: `{"q":"\u0000"}`, want: forb("json", "/q", 6, "nul")},
		{name: "escaped bidi", body: `{"q":"\u202E"}`, want: forb("json", "/q", 6, "bidi")},
		{name: "escaped newline allowed", body: `{"q":"a\nb\tc"}`, status: 200},
		{name: "depth", pol: withLimits(func(l *rules.Limits) { l.JSONDepth = 3 }), body: `[[[[1]]]]`, want: rej("too_large", "json", "/0/0/0", 3)},
		{name: "depth at the limit", pol: withLimits(func(l *rules.Limits) { l.JSONDepth = 3 }), body: `[[[1]]]`, status: 200},
		{name: "body too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: `{"q":"` + strings.Repeat("a", 20) + `"}`, status: 413, want: rej("too_large", "json", "", 0)},
		{name: "+json type", ct: "application/vnd.api+json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json type upper case", ct: "Application/Problem+JSON", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "dotted capital I in the type", ct: "applİcation/json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json under another type", ct: "model/gltf+json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json without a subtype", ct: "AppliCAtion+json", body: "{\"q\":\"\xF0\"}", want: rej("truncated", "json", "/q", 6)},
		{name: "charset latin1 strict", ct: ctJSON + "; charset=latin1", body: `{"q":"\xE9"}`, want: rej("bad_charset", "json", "latin1", 0)},
		// encoding/json and Echo's binder ignore the charset parameter.
		{name: "charset latin1 default is read as UTF-8", pol: deflt, ct: ctJSON + "; charset=latin1", body: "{\"q\":\"\xE9\"}", want: rej("truncated", "json", "/q", 6)},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: `{"q":"ab` + e.raw + `"}`, want: rej(e.reason, "json", "/q", 8)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: `{"q":"` + f.raw + `"}`, want: forb("json", "/q", 6, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" {
			c[i].ct = ctJSON
		}
	}
	return c
}

// multipartCases: multipart/form-data bodies.
func multipartCases() []locCase {
	text := func(name, data string) mpPart { return mpPart{disp: `name="` + name + `"`, data: data} }
	file := func(disp, ct, data string) mpPart { return mpPart{disp: disp, ct: ct, data: data} }
	c := []locCase{
		{name: "clean", body: multipartBody(text("q", "été"), file(`name="f"; filename="été.txt"`, "text/plain", "héllo\n")), status: 200},
		{name: "field name", body: multipartBody(text("\xC0\xAE", "x")), want: rej("overlong", "multipart", `\xc0\xae`, 0)},
		{name: "field value", body: multipartBody(text("a", "1"), text("q", "ab\xED\xA0\x80")), want: rej("surrogate", "multipart", "q", 2)},
		{name: "filename raw", body: multipartBody(file("name=\"f\"; filename=\"\xC0\xAE.txt\"", "application/octet-stream", "x")), want: rej("overlong", "multipart", "f", 0)},
		{name: "filename* RFC 5987", body: multipartBody(file(`name="f"; filename*=UTF-8''%C0%AE.txt`, "application/octet-stream", "x")), want: rej("overlong", "multipart", "f", 0)},
		{name: "filename* clean", body: multipartBody(file(`name="f"; filename*=UTF-8''%C3%A9t%C3%A9.txt`, "application/octet-stream", "x")), status: 200},
		{name: "text file content", body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain", "ok\xFF")), want: rej("invalid_byte", "multipart", "f", 2)},
		{name: "binary file content passes", body: multipartBody(file(`name="f"; filename="a.png"`, "image/png", "\x89PNG\xC0\xAE\xFF\x00")), status: 200},
		{name: "text file latin1 strict", body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain; charset=iso-8859-1", "\xE9")), want: rej("bad_charset", "multipart", "f", 0)},
		{name: "text file latin1 default", pol: deflt, body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain; charset=iso-8859-1", "\xE9")), status: 200},
		{name: "parts count", pol: withLimits(func(l *rules.Limits) { l.MultipartParts = 2 }), body: multipartBody(text("a", "1"), text("b", "2"), text("c", "3")), status: 400, want: rej("too_large", "multipart", "", 0)},
		{name: "parts at the limit", pol: withLimits(func(l *rules.Limits) { l.MultipartParts = 2 }), body: multipartBody(text("a", "1"), text("b", "2")), status: 200},
		{name: "field length", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), body: multipartBody(text("q", "123456789")), status: 400, want: rej("too_large", "multipart", "q", 0)},
		{name: "body too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 64 }), body: multipartBody(text("q", strings.Repeat("a", 100))), status: 413, want: rej("too_large", "multipart", "", 0)},
		{name: "fields count", pol: withLimits(func(l *rules.Limits) { l.Fields = 2 }), body: multipartBody(text("a", "1"), file(`name="f"; filename="a.png"`, "image/png", "x"), text("b", "2"), text("c", "3")), status: 400, want: rej("too_large", "multipart", "", 0)},
		{name: "files do not count as fields", pol: withLimits(func(l *rules.Limits) { l.Fields = 2 }), body: multipartBody(text("a", "1"), file(`name="f"; filename="a.png"`, "image/png", "x"), text("b", "2")), status: 200},
		{name: "empty filename is a value", body: multipartBody(file(`name="f"; filename=""`, "", "\xC0\xAE")), want: rej("overlong", "multipart", "f", 0)},
		{name: "field named filename", body: multipartBody(text("filename", "\xFF")), want: rej("invalid_byte", "multipart", "filename", 0)},
		{name: "part without disposition", body: "--XBOUNDARYX\r\nContent-Type: text/plain\r\n\r\nok\xFF\r\n--XBOUNDARYX--\r\n", want: rej("invalid_byte", "multipart", "", 2)},
		{name: "part with a broken disposition", body: "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"a\r\n\r\n\xE2\x82\r\n--XBOUNDARYX--\r\n", want: rej("truncated", "multipart", "", 0)},
		{name: "unterminated last part", body: "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nab\xC0\xAE", want: rej("overlong", "multipart", "q", 2)},
		{name: "dotted capital I in the type", ct: "multİpart/form-data; boundary=XBOUNDARYX", body: multipartBody(text("q", "\x80")), want: rej("unexpected_continuation", "multipart", "q", 0)},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: multipartBody(text("q", "ab"+e.raw)), want: rej(e.reason, "multipart", "q", 2)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: multipartBody(text("q", f.raw)), want: forb("multipart", "q", 0, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" {
			c[i].ct = ctMP
		}
	}
	return c
}

// textCases: text/* and listed bodies.
func textCases() []locCase {
	xml := func() rules.Policy { p := rules.Strict(); p.BodyTypes = []string{"application/xml"}; return p }
	binary := func() rules.Policy { p := rules.Strict(); p.BinaryTypes = []string{"image/*"}; return p }
	c := []locCase{
		{name: "clean", body: "héllo\r\n\twörld", status: 200},
		{name: "bad_charset strict", ct: "text/plain; charset=iso-8859-1", body: "caf\xE9", want: rej("bad_charset", "body", "iso-8859-1", 0)},
		{name: "bad_charset quoted", ct: `text/plain; charset="windows-1252"`, body: "caf\xE9", want: rej("bad_charset", "body", "windows-1252", 0)},
		{name: "bad_charset default passes unchecked", pol: deflt, ct: "text/plain; charset=iso-8859-1", body: "caf\xE9", status: 200, check: func(t *testing.T, s *seen) {
			if string(s.Body) != "caf\xE9" {
				t.Errorf("body = %q", s.Body)
			}
		}},
		{name: "us-ascii", ct: "text/plain; charset=US-ASCII", body: "ab\xFF", want: rej("invalid_byte", "body", "", 2)},
		{name: "upper case type and charset", ct: "TEXT/Plain; CHARSET=UTF-8", body: "ab\xFF", want: rej("invalid_byte", "body", "", 2)},
		{name: "charset param upper case", ct: "text/plain; CharSet=latin1", body: "ab\xFF", want: rej("bad_charset", "body", "latin1", 0)},
		// mime.ParseMediaType refuses the parameter name (not a token):
		// a Content-Type that does not parse is refused on a route that
		// checks bodies, in every preset (issue 12, point 4).
		{name: "long s is not charset", pol: deflt, ct: "text/plain; charſet=latin1", body: "ab\xFF", want: rej("bad_media_type", "body", "Content-Type", 0)},
		{name: "charset* is the charset", ct: "text/plain; charset*=utf-8''utf-16", body: "\x00a\x00b", want: rej("bad_charset", "body", "utf-16", 0)},
		{name: "charset behind a quoted semicolon", ct: `text/plain; charset=utf-16; x="a;charset=utf-8"`, body: "\x00a", want: rej("bad_charset", "body", "utf-16", 0)},
		{name: "duplicate parameter", ct: "text/plain; charset=utf-8; charset=utf-16", body: "ab", want: rej("bad_media_type", "body", "Content-Type", 0)},
		{name: "too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: strings.Repeat("a", 17), status: 413, want: rej("too_large", "body", "", 0)},
		{name: "at the limit", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: strings.Repeat("a", 16), status: 200},
		{name: "text/html", ct: "text/html", body: "<p>\xC0\xAE</p>", want: rej("overlong", "body", "", 3)},
		{name: "listed xml", pol: xml, ct: "application/xml", body: "<a>\xFF</a>", want: rej("invalid_byte", "xml", "", 3)},
		{name: "xml strict", ct: "text/xml", body: "<a>\xFF</a>", want: rej("invalid_byte", "xml", "", 3)},
		{name: "xml by binder prefix", ct: "application/xmlish", body: "<a>\xFF</a>", want: rej("invalid_byte", "xml", "", 3)},
		{name: "json by binder prefix", ct: "application/jsonx", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "binder and suffix disagree", ct: "application/xml+json", body: `{}`, want: rej("bad_media_type", "body", "Content-Type", 0)},
		{name: "unlisted type passes default", pol: deflt, ct: "application/octet-stream", body: "\xFF\x00\xC0\xAE", status: 200},
		{name: "no content type passes default", pol: deflt, ct: "", body: "\xFF\x00\xC0\xAE", status: 200},
		// The strict preset keeps a positive list (issue 12, point 5).
		{name: "unlisted type refused strict", ct: "application/octet-stream", body: `{"q":"\ud800"}`, status: 415, want: rej("unsupported_media_type", "body", "Content-Type", 0)},
		{name: "no content type refused strict", ct: "", body: `{"q":"\ud800"}`, status: 415, want: rej("unsupported_media_type", "body", "Content-Type", 0)},
		{name: "listed binary type passes strict", pol: binary, ct: "image/png", body: "\xFF\x00\xC0\xAE", status: 200},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: "ab" + e.raw + "cd", want: rej(e.reason, "body", "", 2)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: "ab" + f.raw, want: forb("body", "", 2, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" && !strings.HasPrefix(c[i].name, "no content type") {
			c[i].ct = ctText
		}
		if c[i].method == "" {
			c[i].method = "POST"
		}
	}
	return c
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
		{name: "user agent bidi", header: [][2]string{{"User-Agent", "a\u202Eb"}}, want: forb("header", "User-Agent", 1, "bidi")},
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

var locationTables = []struct {
	name  string
	cases func() []locCase
}{
	{"path", pathCases},
	{"query", queryCases},
	{"form", formCases},
	{"json", jsonCases},
	{"multipart", multipartCases},
	{"body", textCases},
	{"header", headerCases},
}

// TestLocations runs every location's cases through e.ServeHTTP, with the
// middleware mounted globally, on a group, on the route and with e.Pre.
func TestLocations(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			for _, tab := range locationTables {
				t.Run(tab.name, func(t *testing.T) {
					t.Parallel()
					names := map[string]int{}
					for _, tc := range tab.cases() {
						name := tc.name
						if n := names[name]; n > 0 {
							name = fmt.Sprintf("%s#%d", name, n)
						}
						names[tc.name]++
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							runLocCase(t, m, tc)
						})
					}
				})
			}
		})
	}
}

func runLocCase(t *testing.T, m mount, tc locCase) {
	t.Helper()
	// given
	pol := rules.Strict()
	if tc.pol != nil {
		pol = tc.pol()
	}
	ev := newEnv(t, Config{Rules: &pol}, m)
	method := tc.method
	if method == "" {
		method = http.MethodGet
		if tc.body != "" {
			method = http.MethodPost
		}
	}
	var body *strings.Reader
	if tc.body != "" || method == http.MethodPost {
		body = strings.NewReader(tc.body)
	}
	var r *http.Request
	if body != nil {
		r = req(method, tc.target, tc.ct, body)
	} else {
		r = req(method, tc.target, tc.ct, nil)
	}
	for _, h := range tc.header {
		r.Header.Add(h[0], h[1])
	}
	// when
	w := ev.do(r)
	// expect
	wantStatus := tc.status
	if wantStatus == 0 {
		wantStatus = http.StatusBadRequest
	}
	if w.Code != wantStatus {
		t.Fatalf("status = %d, want %d; body %q; log %v", w.Code, wantStatus, w.Body.Bytes(), ev.logs.lines(t))
	}
	if tc.want.reason == "" {
		if n := ev.rec.calls.Load(); n != 1 {
			t.Fatalf("handler ran %d times, want 1", n)
		}
		if l := ev.logs.lines(t); len(l) != 0 {
			t.Errorf("accepted request logged: %v", l)
		}
		s := ev.rec.seen()
		if tc.body != "" && string(s.Body) != tc.body {
			t.Errorf("handler body = %q, want %q", s.Body, tc.body)
		}
		if tc.body != "" && s.ContentLength != int64(len(tc.body)) {
			t.Errorf("ContentLength = %d, want %d", s.ContentLength, len(tc.body))
		}
		if tc.check != nil {
			tc.check(t, s)
		}
		return
	}
	if n := ev.rec.calls.Load(); n != 0 {
		t.Errorf("handler ran %d times on a rejection", n)
	}
	got := errorBody(t, w.Body.Bytes())
	if got["reason"] != tc.want.reason || got["location"] != tc.want.location || len(got) != 2 {
		t.Errorf("error body = %v, want reason %s location %s", got, tc.want.reason, tc.want.location)
	}
	if !printableASCII(strings.TrimSuffix(w.Body.String(), "\n")) {
		t.Errorf("error body echoes raw octets: %q", w.Body.String())
	}
	want := tc.want
	if want.reason == "too_large" || want.reason == "bad_charset" {
		want.offset = -1
	}
	l := checkOneLog(t, ev.logs, want, "enforce", method, tc.route)
	if id := w.Header().Get("X-Request-Id"); id == "" || l["request_id"] != id {
		t.Errorf("request_id = %v, response X-Request-Id = %q", l["request_id"], id)
	}
	if l["remote_ip"] != "192.0.2.1" {
		t.Errorf("remote_ip = %v", l["remote_ip"])
	}
}
