package xmlbody

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// strictXML is the strict preset's XML classes, which the XML tests check
// under.
const strictXML = sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi

// xmlDecoders are the decoders the oracles read a body with: encoding/xml
// in Strict mode, as Echo's c.Bind uses it, with Strict off alone (which
// closes mismatched elements), and with Strict off, the HTML auto-close
// list and the HTML entities (which map &rlm; to a bidi control
// and &nbsp; to U+00A0), the most lenient configuration the package
// documents. With charsets, both have a CharsetReader that reads every
// charset as Latin-1, byte for byte, as a lenient handler might: UTF-8
// octets read that way become C1 controls, so a body accepted under a
// declaration that is not UTF-8 shows. Without, they stop at such a
// declaration, as c.Bind does.
var xmlDecoders = []struct {
	name string
	make func(r io.Reader, charsets bool) *xml.Decoder
}{
	{"strict", func(r io.Reader, charsets bool) *xml.Decoder {
		d := xml.NewDecoder(r)
		if charsets {
			d.CharsetReader = latin1Reader
		}
		return d
	}},
	{"non-strict", func(r io.Reader, charsets bool) *xml.Decoder {
		d := xml.NewDecoder(r)
		d.Strict = false
		if charsets {
			d.CharsetReader = latin1Reader
		}
		return d
	}},
	{"lenient", func(r io.Reader, charsets bool) *xml.Decoder {
		d := xml.NewDecoder(r)
		d.Strict = false
		d.AutoClose = xml.HTMLAutoClose
		d.Entity = xml.HTMLEntity
		if charsets {
			d.CharsetReader = latin1Reader
		}
		return d
	}},
}

// latin1Reader reads every octet of r as the character of that number.
func latin1Reader(_ string, r io.Reader) (io.Reader, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return bytes.NewReader(out), nil
}

// xmlOracle decodes body token by token with each of xmlDecoders (with
// charsets or not), up to
// the end or the decoder's first error, and returns the first text it
// yields that is not valid UTF-8, holds a character outside XML's Char
// production or one of the classes in forbid (BOM: as the first character
// of a character-data token or an attribute value, but for the encoding
// signature at the start of the body): character data,
// attribute names and values, element names, comments, processing
// instructions and directives. A U+FFFD counts as a violation when the body
// holds none: encoding/xml decodes &#xD800; to it. It does not use the
// package under test.
func xmlOracle(body []byte, forbid sanitize.Class, charsets bool) error {
	rawFFFD := bytes.Contains(body, []byte("\uFFFD")) || fffdRef.Match(body)
	for _, dec := range xmlDecoders {
		d := dec.make(bytes.NewReader(body), charsets)
		for {
			start := d.InputOffset()
			tok, err := d.Token()
			if err != nil {
				break
			}
			if cd, ok := tok.(xml.CharData); ok && start == 0 && bytes.HasPrefix(cd, []byte("\uFEFF")) {
				// The body's first character: the encoding signature
				// (XML 1.0 section 4.3.3), not a value's first character.
				tok = cd[len("\uFEFF"):]
			}
			var texts []oracleText
			switch t := tok.(type) {
			case xml.StartElement:
				texts = append(texts, oracleText{"element name", t.Name.Space + t.Name.Local, false})
				for _, a := range t.Attr {
					texts = append(texts, oracleText{"attribute name", a.Name.Space + a.Name.Local, false},
						oracleText{"attribute value", a.Value, true})
				}
			case xml.EndElement:
				texts = append(texts, oracleText{"end element name", t.Name.Space + t.Name.Local, false})
			case xml.CharData:
				texts = append(texts, oracleText{"character data", string(t), true})
			case xml.Comment:
				texts = append(texts, oracleText{"comment", string(t), false})
			case xml.ProcInst:
				texts = append(texts, oracleText{"processing instruction", t.Target + string(t.Inst), false})
			case xml.Directive:
				texts = append(texts, oracleText{"directive", string(t), false})
			}
			for _, tx := range texts {
				if err := tx.check(forbid, rawFFFD); err != nil {
					return fmt.Errorf("%s decoder: %w", dec.name, err)
				}
			}
		}
	}
	return nil
}

// fffdRef matches a character reference to U+FFFD, which a decoder
// rightly decodes to it.
var fffdRef = regexp.MustCompile(`&#(x0*[fF]{3}[dD]|0*65533);`)

// oracleText is one text a decoder yielded; value says whether a BOM at its
// start counts.
type oracleText struct {
	what  string
	s     string
	value bool
}

func (tx oracleText) check(forbid sanitize.Class, rawFFFD bool) error {
	if !utf8.ValidString(tx.s) {
		return fmt.Errorf("%s %q is not UTF-8", tx.what, tx.s)
	}
	for i, r := range tx.s {
		cl := sanitize.ClassOf(r)
		if i == 0 && tx.value && r == 0xFEFF {
			cl |= sanitize.BOM
		}
		switch {
		case r == 0xFFFD && !rawFFFD:
			return fmt.Errorf("%s %q holds a U+FFFD the body did not (a surrogate reference?)", tx.what, tx.s)
		case !oracleChar(r):
			return fmt.Errorf("%s %q holds %U, not an XML Char", tx.what, tx.s, r)
		case cl&forbid != 0:
			return fmt.Errorf("%s %q holds %U (%v)", tx.what, tx.s, r, cl&forbid)
		}
	}
	return nil
}

// oracleChar is XML 1.0's Char production, written out from the
// specification.
func oracleChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		0x20 <= r && r <= 0xD7FF || 0xE000 <= r && r <= 0xFFFD || 0x10000 <= r && r <= 0x10FFFF
}

// xmlCanonOracle decodes body with each of xmlDecoders (the lenient one
// with xml.HTMLAutoClose: Canon does not cover other lists) and returns
// the first text that is not in form: each token's text, and each
// element's character data and comments joined, as Unmarshal joins them.
func xmlCanonOracle(body []byte, form normalize.Form) error {
	for _, dec := range xmlDecoders {
		d := dec.make(bytes.NewReader(body), false)
		name := dec.name
		var data, comments [][]byte // per open element
		check := func(what string, s []byte) error {
			if !form.IsNormal(s) {
				return fmt.Errorf("%s decoder: %s %q is not %s", name, what, s, form.Name())
			}
			return nil
		}
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			var err2 error
			switch t := tok.(type) {
			case xml.StartElement:
				data, comments = append(data, nil), append(comments, nil)
				err2 = check("name", []byte(t.Name.Space+":"+t.Name.Local))
				for _, a := range t.Attr {
					if err2 == nil {
						err2 = check("attribute value", []byte(a.Value))
					}
					if err2 == nil {
						err2 = check("attribute name", []byte(a.Name.Space+":"+a.Name.Local))
					}
				}
			case xml.EndElement:
				n := len(data) - 1
				if err2 = check("element text", data[n]); err2 == nil {
					err2 = check("element comments", comments[n])
				}
				data, comments = data[:n], comments[:n]
			case xml.CharData:
				if err2 = check("character data", t); err2 == nil && len(data) > 0 {
					data[len(data)-1] = append(data[len(data)-1], t...)
				}
			case xml.Comment:
				if err2 = check("comment", t); err2 == nil && len(comments) > 0 {
					comments[len(comments)-1] = append(comments[len(comments)-1], t...)
				}
			case xml.ProcInst:
				if err2 = check("target", []byte(t.Target)); err2 == nil {
					err2 = check("instruction", t.Inst)
				}
			case xml.Directive:
				err2 = check("directive", t)
			}
			if err2 != nil {
				return err2
			}
		}
	}
	return nil
}

// FuzzXML is the differential test of Check (and Canon) against
// encoding/xml: for any body that Check accepts under the strict
// preset's classes (refusing other charsets), every text that encoding/xml
// yields token by token, in Strict mode and with Strict off, the HTML
// auto-close list and entities, is valid UTF-8, holds only XML Chars and
// none of the classes (xmlOracle). With other charsets allowed, the same
// holds for decoders without a CharsetReader, which stop at a declaration
// of another charset, as c.Bind does: whatever comes before it was
// checked. A violation is a bug in Check, never in the oracle. For a
// body Canon accepts under NFC and under NFKC, no token and no
// element's joined character data is outside the form.
//
// xmlScan, the fast scan, must find what xmlScanTokens, the scan over
// the lexer's tokens, finds.
//
// The seeds are the tests' tables and testdata/fuzz/FuzzXML. For a longer
// run:
//
//	go test ./middleware/internal/xmlbody -run '^$' -fuzz '^FuzzXML$' -fuzztime 20s -parallel 1
func FuzzXML(f *testing.F) {
	for _, tc := range xmlCheckCases {
		f.Add([]byte(tc.body))
	}
	for _, tc := range xmlCleanCases {
		f.Add([]byte(tc.body))
	}
	for _, tc := range xmlCanonCases {
		f.Add([]byte(tc.body))
	}
	nfc := compiled.Compile(rules.Policy{XML: rules.Check{On: true}, Normalization: normalize.NFC})
	nfkc := compiled.Compile(rules.Policy{XML: rules.Check{On: true}, Normalization: normalize.NFKC})
	c := &rules.Check{On: true, Forbid: strictXML}
	f.Fuzz(func(t *testing.T, body []byte) {
		orig := bytes.Clone(body)
		for _, forbid := range []sanitize.Class{strictXML, strictXML | sanitize.BOM} {
			got, want := xmlScan(body, forbid, len(body)), xmlScanTokens(body, forbid, len(body))
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("xmlScan(%q, %v) = %v; xmlScanTokens: %v", body, forbid, got, want)
			}
		}
		// Without refuseCharsets, a body declared in another charset is
		// not checked: decoders without a CharsetReader stop there, and
		// everything before must have been checked.
		if rj := Check(body, c, false); rj == nil {
			if err := xmlOracle(body, strictXML, false); err != nil {
				t.Fatalf("Check (charsets allowed) accepted %q, but %v", body, err)
			}
		}
		rj := Check(body, c, true)
		if !bytes.Equal(body, orig) {
			t.Fatalf("Check changed the body")
		}
		if rj != nil {
			if rj.Location != rules.XML || rj.Offset < 0 || rj.Offset > len(body) {
				t.Fatalf("bad rejection %+v", rj)
			}
			// In Monitor mode a refused body is canonicalized all the
			// same: Canon must cope with anything.
			if rj := Canon(nfc, body); rj != nil && (rj.Offset < 0 || rj.Offset > len(body)) {
				t.Fatalf("bad rejection %+v", rj)
			}
			return
		}
		if err := xmlOracle(body, strictXML, true); err != nil {
			t.Fatalf("Check accepted %q, but %v", body, err)
		}
		for _, p := range []*compiled.Policy{nfc, nfkc} {
			xmlCanonWide(t, p.Norm, body)
			if rj := Canon(p, body); rj == nil {
				if err := xmlCanonOracle(body, p.Norm); err != nil {
					t.Fatalf("Canon accepted %q, but %v", body, err)
				}
			} else if rj.Reason != sanitize.NotNormalized || rj.Offset < 0 || rj.Offset > len(body) {
				t.Fatalf("bad rejection %+v", rj)
			}
		}
	})
}

// xmlFragments are pieces of XML, well-formed and not, that
// TestXMLFragments strings together: markup openers and closers out of
// place, quotes, references of every kind, characters that the strict
// classes refuse or that combine.
var xmlFragments = []string{
	"<a>", "</a>", "<b x='1'>", "</b>", "<i>", "</i>", "<h:BR>", "</h:BR>", "</br>", ".", "<b x=\"&#x202E;\">", "<br>", "<c/>", "<a b=c>", "<a b>", "<p:a xmlns:p='&#x85;'>",
	"<!--", "-->", "--", "<![CDATA[", "]]>", "]]", "<?pi ", "?>", "<?xml version='1.0' encoding='latin1'?>",
	"<?xml encoding=\"utf-8\"?>", "<?xml encoding= 'latin1'?>", "<?XML encoding='latin1'?>", "\x80", "\u00e9", "<!DOCTYPE a [", "<!ENTITY x \"", "\">", "]>", "<!", "<!-", "<![", "<?", "<",
	">", "/", "'", "\"", "=", " ", "\r\n", "x", "e", "&#x202E;", "&#x85;", "&#0;", "&#xD800;", "&#x110000;",
	"&amp;", "&lt;", "&rlm;", "&nbsp;", "&", "&#", "&#x", ";", "&#x301;", "&#xFEFF;", "&#x1100;", "&#x1161;",
	"\u0301", "\u0338", "\uFEFF", "\u202E", "\u0085", "\x00", "\xFF", "\u1100", "\u1161", "\uFB01",
}

// TestXMLFragments is a grammar-driven companion of FuzzXML, deterministic
// and quick: bodies made of random xmlFragments, checked against
// xmlOracle and xmlCanonOracle as FuzzXML checks them. Byte-level
// mutation rarely builds a comment that holds an attribute's quote, or a
// DTD that holds a CDATA opener; this does it all the time.
func TestXMLFragments(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 6))
	c := &rules.Check{On: true, Forbid: strictXML}
	cb := &rules.Check{On: true, Forbid: strictXML | sanitize.BOM}
	nfc := compiled.Compile(rules.Policy{XML: rules.Check{On: true}, Normalization: normalize.NFC})
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var body []byte
	accepted, canon := 0, 0
	defer func() { t.Logf("%d bodies, %d accepted, %d checked for NFC", n, accepted, canon) }()
	for range n {
		body = body[:0]
		for range 1 + rng.IntN(14) {
			body = append(body, xmlFragments[rng.IntN(len(xmlFragments))]...)
		}
		for _, chk := range []*rules.Check{c, cb} {
			if rj := Check(body, chk, true); rj == nil {
				accepted++
				if err := xmlOracle(body, chk.Forbid, true); err != nil {
					t.Fatalf("Check(%v) accepted %q, but %v", chk.Forbid, body, err)
				}
			}
		}
		if Check(body, c, false) == nil {
			if err := xmlOracle(body, c.Forbid, false); err != nil {
				t.Fatalf("Check (charsets allowed) accepted %q, but %v", body, err)
			}
		}
		if Check(body, c, true) == nil && Canon(nfc, body) == nil {
			canon++
			if err := xmlCanonOracle(body, nfc.Norm); err != nil {
				t.Fatalf("Canon accepted %q, but %v", body, err)
			}
		}
	}
}
