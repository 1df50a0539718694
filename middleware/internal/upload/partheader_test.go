package upload

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// phBody is a multipart body of raw parts (header lines, an empty line,
// content) with boundary b.
func phBody(b string, parts ...string) string {
	var s strings.Builder
	for _, p := range parts {
		s.WriteString("--" + b + "\r\n" + p + "\r\n")
	}
	s.WriteString("--" + b + "--\r\n")
	return s.String()
}

// TestXMLDecoderReadsAPartHeader: the text of a part's header block is
// what a stock XML decoder reads as an element's text when an element
// opens in one part and closes in the next, so a reference in it is a
// character a handler reads. The body is refused.
func TestXMLDecoderReadsAPartHeader(t *testing.T) {
	t.Parallel()
	body := phBody("BB",
		"Content-Disposition: form-data; name=\"x\"\r\n\r\n<a>",
		"Content-Disposition: form-data; name=\"y\"\r\nX-Note: &#x202e;&#x85;\r\n\r\n</a>")
	var v struct {
		Text string `xml:",chardata"`
	}
	if err := xml.NewDecoder(strings.NewReader(body)).Decode(&v); err != nil || !strings.Contains(v.Text, "\u202e\u0085") {
		t.Fatalf("the XML decoder reads %+q, %v: want U+202E U+0085 in it", v.Text, err)
	}
	p := compiled.Compile(rules.Strict())
	rj := checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), []byte(body), p)
	if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Field != "X-Note" || rj.Class != sanitize.BidiControl {
		t.Fatalf("%+v; want forbidden_char (bidi_control) in X-Note", rj)
	}
}

// TestPartHeaderChecksHoldInEveryWalk: each check of a part's header
// block refuses the part alike in the walk of a body as it streams in
// (every top-level body), in the walk of a body in memory (a nested body,
// a rebuilt body read back) and as a part of a nested body, on a route
// that takes file contents as text and on one that takes them as data.
func TestPartHeaderChecksHoldInEveryWalk(t *testing.T) {
	t.Parallel()
	cd := "Content-Disposition: form-data; name=\"f\""
	cases := []struct {
		name, part string
		reason     sanitize.Reason
	}{
		{"XML reference in a header value", cd + "\r\nX-Note: &#x202e;\r\n\r\n1", sanitize.ForbiddenChar},
		{"XML reference in a parameter", "Content-Disposition: form-data; name=\"b&#x202e;\"\r\n\r\n1", sanitize.ForbiddenChar},
		{"JSON escape in a dropped Content-Transfer-Encoding", cd + "\r\nContent-Transfer-Encoding: quoted-printable\r\n" +
			"Content-Transfer-Encoding: \\u202e\r\n\r\n1", sanitize.AmbiguousHeader},
		{"XML reference in a data file part's header", cd + "; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n" +
			"X-Note: &#x85;\r\n\r\n\xff", sanitize.ForbiddenChar},
		{"two Content-Disposition fields", cd + "\r\ncontent-disposition: form-data; name=\"g\"\r\n\r\n1", sanitize.AmbiguousHeader},
		{"a parameter twice", cd + "; name=\"f\"\r\n\r\n1", sanitize.AmbiguousHeader},
		{"filename beside a filename* that reads otherwise", cd + "; filename=\"a.txt\"; filename*=UTF-8''a.exe\r\n\r\n1", sanitize.AmbiguousHeader},
		{"filename* with %u", cd + "; filename*=UTF-8''%u202E\r\n\r\n1", sanitize.BadEscape},
		{"filename* in another charset", cd + "; filename*=x-bogus''%E2%80%AE\r\n\r\n1", sanitize.BadCharset},
		{"a field in UTF-7", cd + "\r\nContent-Type: text/plain; charset=utf-7\r\n\r\n+IC4-", sanitize.BadCharset},
	}
	data := rules.Strict()
	data.FileContents = rules.DataFiles
	pols := map[string]*compiled.Policy{"text files": compiled.Compile(rules.Strict()), "data files": compiled.Compile(data)}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := []byte(phBody("BB", tc.part))
			outer := []byte(phBody("AA", "Content-Disposition: form-data; name=\"n\"; filename=\"all\"\r\n"+
				"Content-Type: multipart/mixed; boundary=BB\r\n\r\n"+string(body)))
			for pn, p := range pols {
				walks := map[string]*finding.Rejection{
					"streaming": checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), body, p),
					"in memory": checkLevel(p, body, "BB", 0, &mpCounts{}),
					"nested":    checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=AA", nil), outer, p),
				}
				for wn, rj := range walks {
					if rj == nil || rj.Reason != tc.reason || rj.Location != rules.Multipart {
						t.Errorf("%s, %s: %+v; want %s", pn, wn, rj, tc.reason)
					}
				}
			}
		})
	}
}

// TestDroppedTransferEncodingIsChecked: NextPart drops every
// Content-Transfer-Encoding of a quoted-printable part, the first of
// which decides; the others are text of the body all the same, and
// checked, where the policy lets a field be given twice.
func TestDroppedTransferEncodingIsChecked(t *testing.T) {
	t.Parallel()
	pol := rules.Strict()
	pol.RefuseAmbiguousParts = false
	p := compiled.Compile(pol)
	for _, v := range []string{`"\u202e"`, "&#x202e;", "\u202e"} {
		body := []byte(phBody("BB", "Content-Disposition: form-data; name=\"f\"\r\n"+
			"Content-Transfer-Encoding: quoted-printable\r\nContent-Transfer-Encoding: "+v+"\r\n\r\n1"))
		rj := checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), body, p)
		if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Field != "Content-Transfer-Encoding" {
			t.Errorf("%+q: %+v; want forbidden_char in Content-Transfer-Encoding", v, rj)
		}
	}
}

// TestPartHeaderChecksPassCleanHeaders: headers as browsers, curl and
// .NET's HttpClient write them pass: references of allowed characters,
// a filename* alone, and a filename and a filename* that read alike.
func TestPartHeaderChecksPassCleanHeaders(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(rules.Strict())
	for _, part := range []string{
		"Content-Disposition: form-data; name=\"a\"\r\nX-Note: caf&#233; &amp; \\u00e9\r\n\r\n1",
		"Content-Disposition: form-data; name=\"f\"; filename*=utf-8''caf%C3%A9.txt\r\n\r\n1",
		"Content-Disposition: form-data; name=f; filename=a.txt; filename*=utf-8''a.txt\r\n\r\n1",
		"Content-Disposition: form-data; name=\"f\"; filename*0=\"a\"; filename*1*=%C3%A9\r\n\r\n1",
		"Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset=US-ASCII\r\n\r\n1",
	} {
		body := []byte(phBody("BB", part))
		if rj := checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), body, p); rj != nil {
			t.Errorf("%q: %+v", part, rj)
		}
		if rj := checkLevel(p, body, "BB", 0, &mpCounts{}); rj != nil {
			t.Errorf("%q, in memory: %+v", part, rj)
		}
	}
}

// TestAmbiguousParam: the parameters ambiguousParam finds given twice, a
// few values on either side of the line: a name twice (in any case), a
// continuation Go does not join, a plain value that reads otherwise than
// Go's reading.
func TestAmbiguousParam(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v    string
		want string
	}{
		{`form-data; name="a"`, ""},
		{`form-data; name="a"; NAME="a"`, "name"},
		{`form-data; filename*0=a; filename*1=b`, ""},
		{`form-data; filename*0=a; filename*01=b`, "filename*0"},
		{`form-data; filename*1=a`, "filename*1"},
		{`form-data; filename*0=a; filename*0*=b`, "filename*0"},
		{`form-data; filename=ab; filename*0=a; filename*1=b`, ""},
		{`form-data; filename=a; filename*0=a; filename*1=b`, "filename"},
		{`form-data; x*y=1`, "x*y"},
	} {
		_, params, _ := media.Read(tc.v)
		if got := ambiguousParam(tc.v, params); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.v, got, tc.want)
		}
	}
	// Many parameters go through a map: the same answers.
	many := "form-data"
	for i := range 20 {
		many += "; p" + string(rune('a'+i)) + "=1"
	}
	if got := ambiguousParam(many, nil); got != "" {
		t.Errorf("20 parameters: %q", got)
	}
	if got := ambiguousParam(many+"; pa=2", nil); got != "pa" {
		t.Errorf("20 parameters, one twice: %q", got)
	}
}
