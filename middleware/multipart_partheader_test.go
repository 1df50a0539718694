package middleware

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

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
	p := compile(rules.Strict())
	rj := checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), []byte(body), p)
	if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Field != "X-Note" || rj.Class != sanitize.BidiControl {
		t.Fatalf("%+v; want forbidden_char (bidi_control) in X-Note", rj)
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
	p := compile(pol)
	for _, v := range []string{"\\u202e", "&#x202e;", "\u202e"} {
		body := []byte(phBody("BB", "Content-Disposition: form-data; name=\"f\"\r\n"+
			"Content-Transfer-Encoding: quoted-printable\r\nContent-Transfer-Encoding: "+v+"\r\n\r\n1"))
		rj := checkMultipart(req(http.MethodPost, "/", "multipart/form-data; boundary=BB", nil), body, p)
		if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Field != "Content-Transfer-Encoding" {
			t.Errorf("%+q: %+v; want forbidden_char in Content-Transfer-Encoding", v, rj)
		}
	}
}
