package xmlbody

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// xmlWellFormed reports the first error a Strict encoding/xml decoder
// meets reading body to its end, or nil.
func xmlWellFormed(body string) error {
	d := xml.NewDecoder(strings.NewReader(body))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// xml5NameChar reports whether r is a NameChar of XML 1.0, fifth edition
// (section 2.3), the independent reference for which names are XML.
func xml5NameChar(r rune) bool {
	for _, rg := range [...][2]rune{
		{':', ':'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x2FF},
		{0x370, 0x37D}, {0x37F, 0x1FFF}, {0x200C, 0x200D}, {0x2070, 0x218F}, {0x2C00, 0x2FEF},
		{0x3001, 0xD7FF}, {0xF900, 0xFDCF}, {0xFDF0, 0xFFFD}, {0x10000, 0xEFFFF},
		{'-', '-'}, {'.', '.'}, {'0', '9'}, {0xB7, 0xB7}, {0x300, 0x36F}, {0x203F, 0x2040},
	} {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	return false
}

// xml5WellFormed reports whether body, whose names hold U+061C (ALM),
// is well-formed XML 1.0, fifth edition, under which ALM is a name
// character ([#x37F-#x1FFF]): it is when ALM is such a character and
// encoding/xml reads the body with every ALM made a letter (U+0628 BEH).
// encoding/xml cannot read the body as it is: its name tables are those
// of the fourth edition (Appendix B, Unicode 2.0), which leave ALM out;
// a decoder of the fifth edition (libxml2, Xerces, .NET's) reads it.
func xml5WellFormed(body string) error {
	if !xml5NameChar(0x61C) {
		return errors.New("U+061C is no XML 1.0 NameChar")
	}
	return xmlWellFormed(strings.ReplaceAll(body, "\u061c", "\u0628"))
}

// xmlNameCases have a bidi mark in a name: the strict preset refuses
// them at offset, class bidi_mark. Those marked wellFormed are XML 1.0,
// fifth edition (xml5WellFormed); U+200E and U+200F are name characters
// in no edition, so a name that holds them is malformed as well.
var xmlNameCases = []struct {
	name       string
	body       string
	offset     int
	wellFormed bool
}{
	{"ALM in an element name", "<a\u061c>x</a\u061c>", 2, true},
	{"ALM in a closing tag name only", "<a>x</a\u061c>", 7, false},
	{"ALM in an attribute name", "<r a\u061cb=\"1\"/>", 4, true},
	{"ALM in an attribute without a value", "<r a\u061c/>", 4, false},
	{"ALM in a namespace prefix", "<p\u061c:a xmlns:p\u061c=\"urn:x\"/>", 2, true},
	{"ALM in a namespace declaration", "<r xmlns:p\u061c=\"urn:x\"/>", 10, true},
	{"ALM in a processing-instruction target", "<?p\u061c x?><r/>", 3, true},
	{"ALM in a nested element name", "<r><s/><a\u061c/></r>", 9, true},
	{"ALM in a name after marks in text", "<r>\u200f\u061c<a\u061c/></r>", 10, true},
	{"ALM in a name after a mark in an attribute value", "<r a=\"\u061c\" b\u061c=\"\"/>", 11, true},
	{"LRM in an element name", "<a\u200e/>", 2, false},
	{"RLM in an attribute name", "<r a\u200f=\"1\"/>", 4, false},
	{"ALM in a name before a bidi control in text", "<a\u061c>&#x202e;\u202e</a\u061c>", 2, true},
}

func TestXMLNamesRefuseBidiMarksUnderStrict(t *testing.T) {
	t.Parallel()
	c := rules.Strict().XML
	for _, tc := range xmlNameCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := xml5WellFormed(tc.body); (err == nil) != tc.wellFormed {
				t.Fatalf("%q: well-formed XML 1.0 (fifth edition) %v (%v), want %v", tc.body, err == nil, err, tc.wellFormed)
			}
			rj := Check([]byte(tc.body), &c, true)
			if rj == nil {
				t.Fatalf("Check(%q) = nil, want forbidden_char bidi_mark at %d", tc.body, tc.offset)
			}
			if rj.Reason != sanitize.ForbiddenChar || rj.Location != rules.XML || rj.Class != sanitize.BidiMark || rj.Offset != tc.offset {
				t.Errorf("Check(%q) = %v (%v, class %v, offset %d), want forbidden_char bidi_mark at %d",
					tc.body, rj, rj.Reason, rj.Class, rj.Offset, tc.offset)
			}
		})
	}
}

// TestXMLNamesWithoutNamesPassMarks: the well-formed bodies of
// xmlNameCases pass the strict preset without Names: it is Names alone
// that refuses them.
func TestXMLNamesWithoutNamesPassMarks(t *testing.T) {
	t.Parallel()
	c := rules.Strict().XML
	c.Names = 0
	for _, tc := range xmlNameCases {
		if !tc.wellFormed || bytes.Contains([]byte(tc.body), []byte("&#x202e;")) {
			continue
		}
		if rj := Check([]byte(tc.body), &c, true); rj != nil {
			t.Errorf("%s: Check(%q) without Names = %v, want nil", tc.name, tc.body, rj)
		}
	}
}

// TestXMLMarksInValuesPassUnderStrict: LRM, RLM and ALM in text, in
// attribute values, in comments, CDATA sections and instruction content,
// raw or as character references, are right-to-left text: the strict
// preset passes them. They cost one allocation, the error sanitize.Check
// makes for the first mark, which the raw check passes over. (Not
// parallel: AllocsPerRun.)
func TestXMLMarksInValuesPassUnderStrict(t *testing.T) {
	c := rules.Strict().XML
	for _, body := range []string{
		"<r>\u200e\u200f\u061c</r>",
		"<r>\u05d1-10:00\u200f</r>",
		"<r a=\"\u061c\u200f\" b='\u200e'/>",
		"<r>&#x200F;&#x200e;&#1564;&#x61C;&#8207;</r>",
		"<r a=\"&#x200F;\" b='&#1564;'>x</r>",
		"<r><!-- \u061c --><![CDATA[\u200f]]></r>",
		"<?p \u061c?><r>\u061c</r>",
		"<?xml version=\"1.0\"?>\n<كتاب عنوان=\"\u200fنص\">نص\u061c</كتاب>",
		"<r a=\"\u061c\">\u061c<s b=\"&#x61c;\">&#x200f;</s><!---->\u200e</r>",
	} {
		if err := xmlWellFormed(body); err != nil {
			t.Fatalf("%q is not well-formed: %v", body, err)
		}
		p := []byte(body)
		if rj := Check(p, &c, true); rj != nil {
			t.Errorf("Check(%q) = %v, want nil", body, rj)
			continue
		}
		if n := testing.AllocsPerRun(20, func() { _ = Check(p, &c, true) }); n > 1 {
			t.Errorf("Check(%q): %v allocations, want at most 1", body, n)
		}
	}
}

// TestXMLNamesClassesOfAnyKind: Names is not tied to the marks. A class in
// Names is refused in a name and passes elsewhere; one in Forbid and
// Names is refused everywhere, as Forbid's.
func TestXMLNamesClassesOfAnyKind(t *testing.T) {
	t.Parallel()
	c := rules.Check{On: true, Forbid: sanitize.NUL, Names: sanitize.PrivateUse | sanitize.DefaultIgnorable}
	for _, tc := range []struct {
		body   string
		offset int // -1: passes
		class  sanitize.Class
	}{
		{"<a\ue000/>", 2, sanitize.PrivateUse},
		{"<r>\ue000</r>", -1, 0},
		{"<r a=\"\u00ad\"/>", -1, 0},
		{"<r a\u00ad=\"x\"/>", 4, sanitize.DefaultIgnorable},
		{"<r>\u00ad<a\u00ad/></r>", 7, sanitize.DefaultIgnorable},
	} {
		rj := Check([]byte(tc.body), &c, true)
		switch {
		case tc.offset < 0 && rj != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.body, rj)
		case tc.offset >= 0 && (rj == nil || rj.Offset != tc.offset || rj.Class != tc.class):
			t.Errorf("Check(%q) = %v, want forbidden_char %v at %d", tc.body, rj, tc.class, tc.offset)
		}
	}
}
