package middleware

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

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
		// checks bodies, in every preset.
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
		{name: "csp report clean", ct: "application/csp-report", body: `{"csp-report":{"document-uri":"https://example.com/שלום","violated-directive":"img-src 'none'"}}`, status: 200},
		{name: "csp report is JSON", ct: "application/csp-report", body: `{"csp-report":{"document-uri":"https://example.com/\ud800"}}`, want: rej("surrogate", "json", "/csp-report/document-uri", 51)},
		{name: "binder and suffix disagree", ct: "application/xml+json", body: `{}`, want: rej("bad_media_type", "body", "Content-Type", 0)},
		{name: "unlisted type passes default", pol: deflt, ct: "application/octet-stream", body: "\xFF\x00\xC0\xAE", status: 200},
		{name: "no content type passes default", pol: deflt, ct: "", body: "\xFF\x00\xC0\xAE", status: 200},
		// The strict preset keeps a positive list.
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

// TestTextWithoutSubtype: "text" without a subtype (which
// mime.ParseMediaType reads, "teXt" as "text") is not text/*: unlisted
// under the strict preset (415), passed unread like any unknown type where
// unlisted types are allowed. FuzzOracle found it.
func TestTextWithoutSubtype(t *testing.T) {
	for _, ct := range []string{"text", "teXt", "text; charset=utf-8"} {
		strict := compiled.Compile(rules.Strict())
		typ, sub, _ := media.ContentType(ct)
		if loc, ok := mediaLocation(strict, typ, sub); ok {
			t.Errorf("%q: location %v, want none", ct, loc)
		}
		r := httptest.NewRequest("POST", "/", strings.NewReader("a\xffb"))
		r.Header.Set("Content-Type", ct)
		s := getScratch()
		rj := s.checkBody(r, strict)
		putScratch(s)
		if rj == nil || rj.Reason != sanitize.UnsupportedMediaType {
			t.Errorf("%q under the strict preset: %v, want unsupported_media_type", ct, rj)
		}
	}
	if loc, ok := mediaLocation(compiled.Compile(rules.Strict()), "text", "plain"); !ok || loc != rules.Body {
		t.Errorf("text/plain: %v %v, want body", loc, ok)
	}
}
