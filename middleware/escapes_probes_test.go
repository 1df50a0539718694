package middleware

// Escapes a decoder reads in the
// content of a multipart part, and HTML's named references, which
// checkEscapes did not see. Each request must be refused, and a handler
// that runs must read nothing the policy refuses.

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestMultipartPartEscapesAreScanned: an XML decoder handed the whole of a
// multipart body skips the delimiter and the part header (text before the
// first element) and decodes the references in the part; a JSON decoder
// handed a text file part decodes its \u escapes. The parts' octets are
// harmless ASCII, so only the escape scan over each text part sees them.
func TestMultipartPartEscapesAreScanned(t *testing.T) {
	pol := rules.Strict()
	// The bidi marks refused in the parts' text too: &rlm;, the one
	// bidi character HTML names, is then a character to refuse.
	pol.Multipart.Forbid |= sanitize.BidiMark
	pol.XML.Forbid |= sanitize.BidiMark
	const ct = "multipart/form-data; boundary=b"
	part := func(head, content string) string {
		return "--b\r\nContent-Disposition: form-data; " + head + "\r\n\r\n" + content + "\r\n--b--\r\n"
	}
	type doc struct {
		V string `xml:",chardata"`
		A string `xml:"v,attr"`
	}
	for _, tc := range []struct{ name, body string }{
		{"reference in a field", part(`name="x"`, "<a>&#x202E;&#x85;</a>")},
		{"reference in an attribute", part(`name="x"`, `<a v="&#x2066;">ok</a>`)},
		{"named reference in a field", part(`name="x"`, "<a>x&rlm;</a>")},
		{"reference in a text file", part(`name="f"; filename="a.xml"`+"\r\nContent-Type: text/xml", "<a>&#x202E;</a>")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := rvServe(t, pol, rvPost(ct, tc.body), func(c echo.Context) error {
				var v doc
				_ = xml.NewDecoder(c.Request().Body).Decode(&v)
				rvBad(t, "xml.Decode", v.V+v.A, pol.XML)
				return nil
			}); code != http.StatusBadRequest {
				t.Errorf("Echo v4: status %d, want 400", code)
			}
			if code := rvHTTP(t, pol, rvPost(ct, tc.body), func(w http.ResponseWriter, r *http.Request) {
				d := xml.NewDecoder(r.Body)
				d.Strict, d.Entity = false, xml.HTMLEntity
				var v doc
				_ = d.Decode(&v)
				rvBad(t, "xml.Decode (HTML entities)", v.V+v.A, pol.XML)
			}); code != http.StatusBadRequest {
				t.Errorf("net/http: status %d, want 400", code)
			}
		})
	}
	t.Run("JSON escape in a text file", func(t *testing.T) {
		body := part(`name="f"; filename="doc.json"`+"\r\nContent-Type: text/plain", `{"a":"\u202e\u0000"}`)
		if code := rvServe(t, pol, rvPost(ct, body), func(c echo.Context) error {
			fh, err := c.FormFile("f")
			if err != nil {
				return err
			}
			f, err := fh.Open()
			if err != nil {
				return err
			}
			defer f.Close()
			var m map[string]string
			_ = json.NewDecoder(f).Decode(&m)
			rvBad(t, "c.FormFile + json.Decode a", m["a"], pol.JSON)
			return nil
		}); code != http.StatusBadRequest {
			t.Errorf("status %d, want 400", code)
		}
	})
	t.Run("allowed escapes pass", func(t *testing.T) {
		body := part(`name="x"`, `<a>&#233;&eacute;&amp;</a> {"a":"\u00e9"}`)
		if code := rvHTTP(t, pol, rvPost(ct, body), func(w http.ResponseWriter, r *http.Request) {
			if got := r.FormValue("x"); got != `<a>&#233;&eacute;&amp;</a> {"a":"\u00e9"}` {
				t.Errorf("r.FormValue(x) = %q", got)
			}
		}); code != http.StatusOK {
			t.Errorf("status %d, want 200", code)
		}
	})
}

// TestHTMLEntitiesScannedInOtherBodies: a body of another type read by an XML
// decoder set up with xml.HTMLEntity, as xmlbody.Check already assumes one may
// be, decodes &rlm; to a bidi mark: it is refused where the location
// refuses the marks in its text. (Strict allows them there: see
// TestHTMLMarkEntityPassesStrict.)
func TestHTMLEntitiesScannedInOtherBodies(t *testing.T) {
	pol := rules.Strict()
	for _, l := range []rules.Location{rules.Body, rules.JSON, rules.Form, rules.XML} {
		pol.Location(l).Forbid |= sanitize.BidiMark
	}
	for ct, body := range map[string]string{
		"text/plain":                        "<a>x&rlm;&lrm;</a>",
		"application/json":                  `["<a>x&rlm;</a>"]`,
		"application/x-www-form-urlencoded": "a=<a>&rlm;</a>",
	} {
		t.Run(ct, func(t *testing.T) {
			if code := rvHTTP(t, pol, rvPost(ct, body), func(w http.ResponseWriter, r *http.Request) {
				d := xml.NewDecoder(r.Body)
				d.Strict, d.Entity = false, xml.HTMLEntity
				var v struct {
					V string `xml:",chardata"`
				}
				_ = d.Decode(&v)
				rvBad(t, "xml chardata (HTML entities)", v.V, pol.XML)
			}); code != http.StatusBadRequest {
				t.Errorf("status %d, want 400", code)
			}
		})
	}
}

// TestHTMLMarkEntityPassesStrict: under Strict, &rlm; and &lrm; in the text
// of a body stand for the bidi marks of right-to-left text, which values
// may hold: the escape scan passes them as it passes the raw marks.
func TestHTMLMarkEntityPassesStrict(t *testing.T) {
	pol := rules.Strict()
	for ct, body := range map[string]string{
		"text/plain":                        "<a>x&rlm;&lrm;</a>",
		"application/json":                  `["<a>x&rlm;</a>"]`,
		"application/x-www-form-urlencoded": "a=<a>&rlm;</a>",
	} {
		t.Run(ct, func(t *testing.T) {
			if code := rvHTTP(t, pol, rvPost(ct, body), func(w http.ResponseWriter, r *http.Request) {}); code != http.StatusOK {
				t.Errorf("status %d, want 200", code)
			}
		})
	}
}
