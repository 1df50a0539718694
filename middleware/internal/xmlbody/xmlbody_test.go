package xmlbody

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// xmlCheckCase is one body for Check and what must come of it.
type xmlCheckCase struct {
	class, name string
	body        string
	forbid      sanitize.Class // 0: strictXML, or for class "char" no class at all
	noRefuse    bool           // refuseCharsets off
	reason      string         // "": accepted
	at          string         // the violation is at the first occurrence of at in body ("": offset 0)
	field       string
	cl          sanitize.Class // the rejection's class, for forbidden_char
	// decodes: without Check, encoding/xml would hand the handler a
	// text the policy refuses (xmlOracle finds it): the case is an attack
	// on a real decoder, not only on the XML grammar.
	decodes bool
}

var xmlCheckCases = []xmlCheckCase{
	// The raw octets, anywhere.
	{class: "raw", name: "bidi in text", body: "<a>x\u202Ey</a>", reason: "forbidden_char", at: "\u202E", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "raw", name: "C1 in an attribute", body: "<a b=\"\u0085\"/>", reason: "forbidden_char", at: "\u0085", field: "/a/@b", cl: sanitize.C1, decodes: true},
	{class: "raw", name: "NUL in a name", body: "<a\x00b/>", reason: "forbidden_char", at: "\x00", field: "/a", cl: sanitize.NUL},
	{class: "raw", name: "bidi in an element name", body: "<r><a\u202E/></r>", reason: "forbidden_char", at: "\u202E", field: `/r/a\xe2\x80\xae`, cl: sanitize.BidiControl},
	{class: "raw", name: "bidi in an end tag", body: "<r><a>x</a\u202E></r>", reason: "forbidden_char", at: "\u202E", field: "/r/a", cl: sanitize.BidiControl},
	{class: "raw", name: "overlong in a comment", body: "<a><!-- \xC0\xAF --></a>", reason: "overlong", at: "\xC0", field: "/a"},
	{class: "raw", name: "invalid octet in CDATA", body: "<a><![CDATA[\xFF]]></a>", reason: "invalid_byte", at: "\xFF", field: "/a"},
	{class: "raw", name: "encoded surrogate", body: "<a>\xED\xA0\x80</a>", reason: "surrogate", at: "\xED", field: "/a"},
	{class: "raw", name: "bidi in a processing instruction", body: "<?pi \u202E?><a/>", reason: "forbidden_char", at: "\u202E", field: "", cl: sanitize.BidiControl, decodes: true},
	{class: "raw", name: "bidi in the DTD", body: "<!DOCTYPE a [<!ENTITY x \"\u202E\">]><a/>", reason: "forbidden_char", at: "\u202E", field: "", cl: sanitize.BidiControl, decodes: true},
	{class: "raw", name: "C1 after the root", body: "<r/>\u0085", reason: "forbidden_char", at: "\u0085", field: "", cl: sanitize.C1, decodes: true},
	{class: "raw", name: "U+FFFE is no XML Char", body: "<a>\uFFFE</a>", reason: "forbidden_char", at: "\uFFFE", field: "/a", cl: sanitize.Noncharacter},
	{class: "raw", name: "U+FFFF in a comment is no XML Char", body: "<a><!--\uFFFF--></a>", reason: "forbidden_char", at: "\uFFFF", field: "/a", cl: sanitize.Noncharacter},
	{class: "raw", name: "C0 is no XML Char under any policy", body: "<a><!--\x01--></a>", forbid: sanitize.NUL, reason: "forbidden_char", at: "\x01", field: "/a", cl: sanitize.C0},
	{class: "raw", name: "noncharacters that are XML Chars", body: "<a>\uFDD0 \U0001FFFE \U0010FFFF</a>"},
	{class: "raw", name: "a forbidden noncharacter", body: "<a>\uFDD0</a>", forbid: strictXML | sanitize.Noncharacter, reason: "forbidden_char", at: "\uFDD0", field: "/a", cl: sanitize.Noncharacter},
	{class: "raw", name: "TAB LF CR", body: "<a>\t\n\r</a>\r\n"},

	// Character references in character data and attribute values.
	{class: "reference", name: "hex bidi", body: "<a>x&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "lower-case hex digits", body: "<a>&#x202e;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "decimal bidi", body: "<a>&#8238;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "hex C1", body: "<a>&#x85;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.C1, decodes: true},
	{class: "reference", name: "leading zeros, hex", body: "<a>&#x0000000000202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "leading zeros, decimal", body: "<a>&#0000000000000000000000133;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.C1, decodes: true},
	{class: "reference", name: "in an attribute", body: "<a b=\"ok\" c='&#x202E;'/>", reason: "forbidden_char", at: "&#", field: "/a/@c", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "in a namespace declaration", body: "<p:a xmlns:p=\"urn:&#x85;\"/>", reason: "forbidden_char", at: "&#", field: "/p:a/@xmlns:p", cl: sanitize.C1, decodes: true},
	{class: "reference", name: "nested elements", body: "<o:order xmlns:o=\"urn:x\"><item name=\"a\"><sub>&#x85;</sub></item></o:order>", reason: "forbidden_char", at: "&#", field: "/o:order/item/sub", cl: sanitize.C1, decodes: true},
	{class: "reference", name: "after closed siblings", body: "<r><a/><b></b><c>x</c><d>&#x202E;</d></r>", reason: "forbidden_char", at: "&#", field: "/r/d", cl: sanitize.BidiControl, decodes: true},
	{class: "reference", name: "after the root", body: "<r/>&#x85;", reason: "forbidden_char", at: "&#", field: "", cl: sanitize.C1, decodes: true},
	{class: "reference", name: "TAB LF CR", body: "<a b=\"&#9;&#xA;&#13;\">&#x9;&#10;&#xD;</a>"},
	{class: "reference", name: "TAB refused where the policy refuses it", body: "<a>&#9;</a>", forbid: strictXML | sanitize.TabNewline, reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.TabNewline},
	{class: "reference", name: "letters, emoji, private use, U+10FFFF", body: "<a>&#65;&#x42;&#x1F600;&#xE000;&#x10FFFF;&#xFFFD;</a>"},

	// XML's Char production, whatever the policy.
	{class: "char", name: "NUL", body: "<a>&#0;</a>", forbid: 0, reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.NUL},
	{class: "char", name: "C0", body: "<a>&#1;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.C0},
	{class: "char", name: "C0 under a policy that allows it", body: "<a>&#x1F;</a>", forbid: sanitize.NUL, reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.C0},
	{class: "char", name: "U+FFFE", body: "<a>&#xFFFE;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.Noncharacter},
	{class: "char", name: "U+FFFF", body: "<a>&#65535;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.Noncharacter},
	{class: "char", name: "high surrogate", body: "<a>&#xD800;</a>", reason: "surrogate", at: "&#", field: "/a", decodes: true},
	{class: "char", name: "low surrogate in an attribute", body: "<a b=\"&#57343;\"/>", reason: "surrogate", at: "&#", field: "/a/@b", decodes: true},
	{class: "char", name: "above U+10FFFF", body: "<a>&#x110000;</a>", reason: "out_of_range", at: "&#", field: "/a"},
	{class: "char", name: "above U+10FFFF, decimal", body: "<a>&#1114112;</a>", reason: "out_of_range", at: "&#", field: "/a"},
	{class: "char", name: "more digits than 64 bits", body: "<a>&#99999999999999999999999999;</a>", reason: "out_of_range", at: "&#", field: "/a"},

	// Malformed references, and entities other than the five.
	{class: "malformed", name: "no digits", body: "<a>&#;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "no hex digits", body: "<a>&#x;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "letter after decimal digits", body: "<a>&#12a;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "capital X", body: "<a>&#X41;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "no semicolon", body: "<a>&#x202E</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "sign", body: "<a>&#-1;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "space", body: "<a>&# 65;</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "at the end of the body", body: "<a>&#x2", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "malformed", name: "bare ampersand", body: "<a>Tom & Jerry</a>", reason: "bad_escape", at: "&", field: "/a"},
	{class: "malformed", name: "predefined entity without semicolon", body: "<a>&amp</a>", reason: "bad_escape", at: "&", field: "/a"},
	{class: "malformed", name: "capitalized predefined entity", body: "<a>&AMP;</a>", reason: "bad_escape", at: "&", field: "/a"},
	{class: "malformed", name: "HTML entity a lenient decoder maps to bidi", body: "<a>x&rlm;</a>", reason: "bad_escape", at: "&", field: "/a", decodes: true},
	{class: "malformed", name: "HTML entity in an attribute", body: "<a b=\"&lrm;\"/>", reason: "bad_escape", at: "&", field: "/a/@b", decodes: true},
	{class: "malformed", name: "entity declared in the DTD", body: "<!DOCTYPE a [<!ENTITY x \"ok\">]><a>&x;</a>", reason: "bad_escape", at: "&x", field: "/a"},
	{class: "malformed", name: "the five predefined entities", body: "<a b=\"&quot;&apos;&lt;\">&lt;&gt;&amp;&apos;&quot;</a>"},

	// Where references are decoded, and where not.
	{class: "context", name: "CDATA is literal", body: "<a><![CDATA[&#x202E; &#0; & &nbsp;]]></a>"},
	{class: "context", name: "comments are literal", body: "<a><!-- &#x202E; &#0; & --></a>"},
	{class: "context", name: "processing instructions are literal", body: "<?pi &#x202E; &?><a/>"},
	{class: "context", name: "character reference in an entity value", body: "<!DOCTYPE a [<!ENTITY x \"&#x202E;\">]><a/>", reason: "forbidden_char", at: "&#", field: "", cl: sanitize.BidiControl},
	{class: "context", name: "malformed reference in the DTD", body: "<!DOCTYPE a [<!ENTITY x \"&#xZZ;\">]><a/>", reason: "bad_escape", at: "&#", field: ""},
	{class: "context", name: "DTD with safe references and entity references", body: "<!DOCTYPE a [<!ENTITY y \"&#169;\"><!ENTITY x \"&y; &amp; &\">]><a/>"},
	{class: "context", name: "DTD with '>' in quotes and a comment", body: "<!DOCTYPE a [<!-- > \" --><!ENTITY x \"a>b\">]><a>&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "context", name: "instruction ends at the first ?>, quoted or not", body: "<?pi \"?>\"&#x202E;\"?><a/>", reason: "forbidden_char", at: "&#", field: "", cl: sanitize.BidiControl, decodes: true},
	{class: "context", name: "comment opener inside an attribute", body: "<a b=\"<!--\">&#x202E;-->", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "comment closer inside an attribute", body: "<a b=\"-->\">&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "context", name: "CDATA opener inside an attribute", body: "<a b='<![CDATA['>&#x202E;]]></a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "double dash inside a comment", body: "<a><!-- -- -->&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "unterminated comment", body: "<a><!--&#x202E;", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "unterminated CDATA", body: "<a><![CDATA[&#x202E;", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "CDATA not closed by ]] >", body: "<a><![CDATA[ ]] > ]]>&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "context", name: "unquoted attribute (Strict off)", body: "<a b=c>&#x202E;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl, decodes: true},
	{class: "context", name: "attribute without a value (Strict off)", body: "<a b>&#x85;</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.C1, decodes: true},
	{class: "context", name: "reference where an attribute value should be", body: "<a b=&#x202E;>x</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "context", name: "'<' at the end", body: "<a>x</a><", reason: ""},

	// BOM: at the start of a value only, where the policy refuses it.
	{class: "bom", name: "signature", body: "\uFEFF<a/>", forbid: strictXML | sanitize.BOM},
	{class: "bom", name: "after the signature", body: "\uFEFF\uFEFF<a/>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF<", field: "", cl: sanitize.BOM},
	{class: "bom", name: "reference after the signature", body: "\uFEFF&#xFEFF;<a/>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "&#", field: "", cl: sanitize.BOM},
	{class: "bom", name: "text start", body: "<a>\uFEFFx</a>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF", field: "/a", cl: sanitize.BOM},
	{class: "bom", name: "text start after a comment", body: "<a>x<!---->\uFEFF</a>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF", field: "/a", cl: sanitize.BOM},
	{class: "bom", name: "attribute start", body: "<a b=\"\uFEFF\"/>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF", field: "/a/@b", cl: sanitize.BOM},
	{class: "bom", name: "reference at the start", body: "<a>&#xFEFF;x</a>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BOM},
	{class: "bom", name: "CDATA start", body: "<a><![CDATA[\uFEFF]]></a>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF", field: "/a", cl: sanitize.BOM},
	{class: "bom", name: "inside text", body: "<a>x\uFEFF&#xFEFF;</a>", forbid: strictXML | sanitize.BOM},
	{class: "bom", name: "signature, BOM not refused", body: "\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>"},
	{class: "bom", name: "anywhere, as default ignorable", body: "<a>x\uFEFF</a>", forbid: strictXML | sanitize.DefaultIgnorable, reason: "forbidden_char", at: "\uFEFF", field: "/a", cl: sanitize.DefaultIgnorable},

	// Encodings.
	{class: "charset", name: "Latin-1", body: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", reason: "bad_charset", at: "ISO", field: ""},
	{class: "charset", name: "UTF-8 names", body: "<?xml version=\"1.0\" encoding=\"utf8\"?><?xml encoding='UTF-8'?><a>\u00e9</a>"},
	{class: "charset", name: "empty name", body: "<?xml version=\"1.0\" encoding=\"\"?><a>\u00e9</a>"},
	{class: "charset", name: "US-ASCII with ASCII", body: "<?xml version=\"1.0\" encoding=\"US-ASCII\"?><a>&#233;</a>"},
	{class: "charset", name: "US-ASCII with other octets", body: "<?xml version=\"1.0\" encoding=\"us-ascii\"?><a>\u0441</a>", reason: "bad_charset", at: "us-", field: "", decodes: true},
	{class: "charset", name: "spaces around =", body: "<?xml version=\"1.0\" encoding = 'UTF-16' ?><a/>", reason: "bad_charset", at: "UTF-16", field: ""},
	{class: "charset", name: "inside another value", body: "<?xml version=\"1.0\" x=\"encoding='utf-16'\"?><a/>", reason: "bad_charset", at: "utf-16", field: ""},
	{class: "charset", name: "second encoding", body: "<?xml version=\"1.0\" encoding=\"UTF-8\" encoding=\"UTF-7\"?><a/>", reason: "bad_charset", at: "UTF-7", field: ""},
	{class: "charset", name: "after a UTF-8 BOM", body: "\uFEFF<?xml version=\"1.0\" encoding=\"windows-1252\"?><a/>", reason: "bad_charset", at: "windows", field: ""},
	{class: "charset", name: "capital target", body: "<?XML version=\"1.0\" encoding=\"latin1\"?><a/>", reason: "bad_charset", at: "latin1", field: ""},
	{class: "charset", name: "capital target, charsets allowed", body: "<?Xml version=\"1.0\" encoding=\"latin1\"?><a>\xE9</a>", noRefuse: true, reason: "bad_charset", at: "latin1", field: ""},
	{class: "charset", name: "spaces around =, charsets allowed", body: "<?xml encoding= 'latin1'?><a>\xE9</a>", noRefuse: true, reason: "bad_charset", at: "latin1", field: ""},
	{class: "charset", name: "second encoding, charsets allowed", body: "<?xml version=\"1.0\" encoding=\"UTF-8\" encoding=\"UTF-7\"?><a>+ICI-</a>", noRefuse: true, reason: "bad_charset", at: "UTF-7", field: ""},
	{class: "charset", name: "other target", body: "<?xml-stylesheet type=\"text/xsl\" encoding=\"latin1\" href=\"s.xsl\"?><a/>"},
	{class: "charset", name: "in CDATA", body: "<a><![CDATA[<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>]]></a>"},
	{class: "charset", name: "UTF-16 BOM", body: "\xFF\xFE<\x00a\x00/\x00>\x00", reason: "bad_charset", at: "", field: ""},
	{class: "charset", name: "UTF-16 BOM, charsets allowed", body: "\xFE\xFF\x00<\x00a\x00/\x00>", noRefuse: true, reason: "invalid_byte", at: "", field: ""},
	{class: "charset", name: "declared Latin-1, charsets allowed", body: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xE9 \x85</a>", noRefuse: true},
	{class: "charset", name: "in the document, charsets allowed", body: "<a>x<?xml version=\"1.0\" encoding=\"latin1\"?>\u0441</a>", noRefuse: true, reason: "bad_charset", at: "latin1", field: "/a", decodes: true},
	{class: "charset", name: "after white space, charsets allowed", body: "\n<?xml version=\"1.0\" encoding=\"latin1\"?><a>\u0441</a>", noRefuse: true, reason: "bad_charset", at: "latin1", field: "", decodes: true},
	{class: "charset", name: "second declaration, charsets allowed", body: "<?xml version=\"1.0\"?><?xml encoding=\"latin1\"?><a>\u0441</a>", noRefuse: true, reason: "bad_charset", at: "latin1", field: "", decodes: true},

	// The first violation in the body wins.
	{class: "order", name: "reference before a raw violation", body: "<a>&#x202E;\xFF</a>", reason: "forbidden_char", at: "&#", field: "/a", cl: sanitize.BidiControl},
	{class: "order", name: "raw violation before a reference", body: "<a>\xFF&#x202E;</a>", reason: "invalid_byte", at: "\xFF", field: "/a"},
	{class: "order", name: "raw class before a malformed reference", body: "<a>\u0085&#;</a>", reason: "forbidden_char", at: "\u0085", field: "/a", cl: sanitize.C1},
	{class: "order", name: "malformed reference before a raw class", body: "<a>&#;\u0085</a>", reason: "bad_escape", at: "&#", field: "/a"},
	{class: "order", name: "BOM at a value before a raw class", body: "<a b=\"\uFEFF\">\u0085</a>", forbid: strictXML | sanitize.BOM, reason: "forbidden_char", at: "\uFEFF", field: "/a/@b", cl: sanitize.BOM},
}

// TestCheckXML runs xmlCheckCases: reason, offset, field and class of each
// rejection, and nil for each body that must pass.
func TestCheckXML(t *testing.T) {
	t.Parallel()
	for _, tc := range xmlCheckCases {
		t.Run(tc.class+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			forbid := tc.forbid
			if forbid == 0 && tc.class != "char" {
				forbid = strictXML
			}
			body := []byte(tc.body)
			rj := Check(body, &rules.Check{On: true, Forbid: forbid}, !tc.noRefuse)
			if string(body) != tc.body {
				t.Fatalf("body changed")
			}
			if tc.reason == "" {
				if rj != nil {
					t.Fatalf("rejected: %v (field %q, class %v)", rj, rj.Field, rj.Class)
				}
				return
			}
			if rj == nil {
				t.Fatalf("accepted, want %s", tc.reason)
			}
			off := strings.Index(tc.body, tc.at)
			if rj.Reason.String() != tc.reason || rj.Offset != off || rj.Field != tc.field || rj.Class != tc.cl ||
				rj.Location != rules.XML {
				t.Fatalf("got %s at %d field %q class %v in %v; want %s at %d field %q class %v in xml",
					rj.Reason, rj.Offset, rj.Field, rj.Class, rj.Location, tc.reason, off, tc.field, tc.cl)
			}
			if !errors.Is(rj, rj.Reason.Sentinel()) || rj.Sample != finding.Sample(body, off) {
				t.Errorf("Err %v, sample %q", rj.Err, rj.Sample)
			}
		})
	}
}

// TestXMLAttacksDecode proves the attack cases real: without Check,
// encoding/xml would yield a text the strict classes refuse (xmlOracle),
// and each body the cases accept yields none.
func TestXMLAttacksDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range xmlCheckCases {
		if !tc.decodes && tc.reason != "" {
			continue
		}
		forbid := tc.forbid
		if forbid == 0 && tc.class != "char" {
			forbid = strictXML
		}
		err := xmlOracle([]byte(tc.body), forbid, true)
		if tc.decodes && err == nil {
			t.Errorf("%s/%s: encoding/xml yields nothing the policy refuses", tc.class, tc.name)
		}
		if tc.reason == "" && err != nil && !tc.noRefuse {
			t.Errorf("%s/%s: accepted, but %v", tc.class, tc.name, err)
		}
	}
}

// xmlCleanCases are bodies as clients send them, which must pass the
// strict preset unchanged, and Canon under NFC.
var xmlCleanCases = []struct{ name, body string }{
	{"SOAP envelope", `<?xml version="1.0" encoding="UTF-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:m="https://www.example.org/stock">
  <soap:Header/>
  <soap:Body>
    <m:GetStockPrice>
      <m:StockName>Société Générale &amp; Cie</m:StockName>
      <m:Note xml:lang="ja">株価を教えてください 😀</m:Note>
    </m:GetStockPrice>
  </soap:Body>
</soap:Envelope>`},
	{"RSS with HTML in CDATA", `<?xml version="1.0" encoding="utf-8"?>
<?xml-stylesheet type="text/xsl" href="/rss.xsl"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
<title>Новости — Ελληνικά — עברית — العربية</title>
<link>https://example.org/?a=1&amp;b=2</link>
<item>
<title>Caf&#233; &#x1F600; na&#xEF;ve</title>
<description><![CDATA[<p>Tom &amp; Jerry&nbsp;&mdash; <b>bold</b> & more</p>]]></description>
<dc:creator>Zoë Ætherington</dc:creator>
<pubDate>Mon, 06 Sep 2021 16:45:00 +0000</pubDate>
</item>
</channel>
</rss>`},
	{"Atom with international text", "\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"vi\">\r\n\t<title type=\"text\">Tiếng Việt có dấu — ệ ử ỗ</title>\r\n\t<entry><title>한국어 日本語 中文 ไทย हिन्दी</title><summary>👩‍👩‍👧 🇫🇷 q\u0307 x\u0323\u0302 \u01df</summary>\r\n\t<author><name>José &lt;jose@example.org&gt;</name></author></entry>\r\n</feed>\r\n"},
	{"attributes with references", `<person name="Ren&#233;e" city='S&#xE3;o Paulo' note="line&#10;break &quot;quoted&quot; &apos;x&apos;" emoji="&#128512;"/>`},
	{"plist with a DOCTYPE", `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict><key>Name</key><string>Müller</string><key>Count</key><integer>3</integer></dict></plist>`},
	{"DTD internal subset", `<?xml version="1.0"?>
<!DOCTYPE note [
  <!ELEMENT note (#PCDATA)>
  <!ATTLIST note lang CDATA "fr">
  <!ENTITY copy "&#169;">
  <!-- a comment > with "quotes" -->
]>
<note lang="fr">&#169; 2024 — Français</note>`},
	{"SVG", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Ω &#x3A9;</title><text x="1" y="2">Größe</text><!-- généré --></svg>`},
	{"sitemap", `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/caf%C3%A9?x=1&amp;y=2</loc><lastmod>2024-01-01</lastmod></url></urlset>`},
	{"US-ASCII with references", `<?xml version='1.0' encoding='us-ascii'?><doc>&#x4E2D;&#25991; &#xE9;</doc>`},
	{"combining marks precomposed and not", "<w><v>Việt</v><d>ḍ̇</d><k>क्षि</k><h>한글 가</h></w>"},
}

// TestXMLClean: real-world XML passes Check under the strict classes
// unchanged (encoding/xml reads each whole), Canon under NFC, and
// xmlOracle finds nothing in it.
func TestXMLClean(t *testing.T) {
	t.Parallel()
	nfc := compiled.Compile(rules.Policy{XML: rules.Check{On: true}, Normalization: normalize.NFC})
	for _, tc := range xmlCleanCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body := []byte(tc.body)
			if rj := Check(body, &rules.Check{On: true, Forbid: strictXML}, true); rj != nil {
				t.Fatalf("Check: %v (field %q, sample %q)", rj, rj.Field, rj.Sample)
			}
			if string(body) != tc.body {
				t.Fatal("body changed")
			}
			if rj := Canon(nfc, body); rj != nil {
				t.Fatalf("Canon: %v (field %q, sample %q)", rj, rj.Field, rj.Sample)
			}
			d := xml.NewDecoder(bytes.NewReader(body))
			d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // US-ASCII
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("not XML: %v", err)
				}
			}
			if err := xmlOracle(body, strictXML, true); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// xmlCanonCase is one body for Canon: rejected (at the first
// occurrence of at, in field) or not, under NFC and under NFKC.
type xmlCanonCase struct {
	name      string
	body      string
	nfc, nfkc bool // rejected under each
	at, field string
}

var xmlCanonCases = []xmlCanonCase{
	{name: "precomposed", body: "<a b=\"\u00e9\">\u00e9</a>"},
	{name: "decomposed text", body: "<a>caf e\u0301</a>", nfc: true, nfkc: true, at: "e\u0301", field: "/a"},
	{name: "reference after a base", body: "<a>cafe&#x301;</a>", nfc: true, nfkc: true, at: "e&", field: "/a"},
	{name: "reference after a base, decimal", body: "<a>cafe&#769;</a>", nfc: true, nfkc: true, at: "e&", field: "/a"},
	{name: "predefined entity composes", body: "<a>&lt;\u0338</a>", nfc: true, nfkc: true, at: "&lt;", field: "/a"},
	{name: "markup does not compose", body: "<a>\u0338</a><b x=\"\u0338\"/>"},
	{name: "joined across a comment", body: "<a>e<!---->&#x301;</a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "joined across CDATA", body: "<a>e<![CDATA[\u0301]]></a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "joined across an instruction", body: "<a>e<?p x?>\u0301</a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "joined across a child element", body: "<r><a>e<b>x</b>\u0301</a></r>", nfc: true, nfkc: true, at: "e<", field: "/r/a"},
	{name: "joined across an empty CDATA", body: "<a>e<![CDATA[]]>&#x301;</a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "joined across an auto-closed element", body: "<a>e<br>\u0301</a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "joined under HTML auto-close only", body: "<a>e<br><i>.</i>\u0301</br></a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "HTML auto-close name in any case, with a prefix", body: "<a>e<h:BR><i>.</i>&#x301;</h:BR></a>", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "HTML auto-close element closed by its end tag", body: "<a>e<br></br>.<br/>\u0301</a>"},
	{name: "Hangul jamo joined", body: "<a>&#x1100;<b/>&#x1161;</a>", nfc: true, nfkc: true, at: "&", field: "/a"},
	{name: "separate elements", body: "<r><a>e</a><b>\u0301</b><c>x\u0301</c></r>"},
	{name: "attribute value decoded", body: "<a b=\"e&#x301;\"/>", nfc: true, nfkc: true, at: "e&", field: "/a/@b"},
	{name: "attribute value", body: "<r><a b=\"x\" c=\"A\u030a\"/></r>", nfc: true, nfkc: true, at: "A\u030a", field: "/r/a/@c"},
	{name: "element name", body: "<r><e\u0301/></r>", nfc: true, nfkc: true, at: "e\u0301", field: `/r/e\xcc\x81`},
	{name: "attribute name", body: "<r a\u0301=\"1\"/>", nfc: true, nfkc: true, at: "a\u0301", field: `/r/@a\xcc\x81`},
	{name: "end tag name", body: "<r><e\u0301></e\u0301></r>", nfc: true, nfkc: true, at: "e\u0301", field: `/r/e\xcc\x81`},
	{name: "comment", body: "<a><!--e\u0301--></a>", nfc: true, nfkc: true, at: "e\u0301", field: "/a"},
	{name: "comments joined", body: "<a><!--e--><b/><!--\u0301--></a>", nfc: true, nfkc: true, at: "e-", field: "/a"},
	{name: "instruction", body: "<?p A\u030a?><a/>", nfc: true, nfkc: true, at: "A\u030a", field: ""},
	{name: "directive", body: "<!DOCTYPE a [<!ENTITY x \"A\u030a\">]><a/>", nfc: true, nfkc: true, at: "A\u030a", field: ""},
	{name: "compatibility ligature", body: "<a>\uFB01</a>", nfkc: true, at: "\uFB01", field: "/a"},
	{name: "compatibility ligature by reference", body: "<a>x&#xFB01;</a>", nfkc: true, at: "&#", field: "/a"},
	{name: "fullwidth element name", body: "<ｎａｍｅ>x</ｎａｍｅ>", nfkc: true, at: "ｎ", field: "/\\xef\\xbd\\x8e\\xef\\xbd\\x81\\xef\\xbd\\x8d\\xef\\xbd\\x85"},
	{name: "superscript in an attribute", body: "<a b=\"m\u00b2\"/>", nfkc: true, at: "\u00b2", field: "/a/@b"},
	{name: "CR LF", body: "<a>e\r\n\u00e9\r</a>"},
	{name: "unclosed elements, texts apart", body: "<a>e<b>\u0301"},
	{name: "unclosed element, texts joined", body: "<a>e<b/>\u0301", nfc: true, nfkc: true, at: "e<", field: "/a"},
	{name: "decomposed after a syntax error", body: "<a><!-- -- -->e&#x301;</a>", nfc: true, nfkc: true, at: "e&", field: "/a"},
}

// TestCanonXML runs xmlCanonCases under NFC and NFKC policies, in Enforce,
// RejectUnnormalized and Monitor modes alike (XML is never rewritten).
func TestCanonXML(t *testing.T) {
	t.Parallel()
	for _, tc := range xmlCanonCases {
		for _, form := range []normalize.Form{normalize.NFC, normalize.NFKC} {
			for _, mode := range []string{"enforce", "reject", "monitor"} {
				t.Run(fmt.Sprintf("%s/%v/%s", tc.name, form, mode), func(t *testing.T) {
					t.Parallel()
					pol := rules.Policy{XML: rules.Check{On: true, Forbid: strictXML}, Normalization: form}
					switch mode {
					case "reject":
						pol.RejectUnnormalized = true
					case "monitor":
						pol.Mode = rules.Monitor
					}
					p := compiled.Compile(pol)
					body := []byte(tc.body)
					rj := Canon(p, body)
					if string(body) != tc.body {
						t.Fatal("body changed")
					}
					want := tc.nfc
					if form == normalize.NFKC {
						want = tc.nfkc
					}
					if !want {
						if rj != nil {
							t.Fatalf("rejected: %v (field %q, sample %q)", rj, rj.Field, rj.Sample)
						}
						return
					}
					off := strings.Index(tc.body, tc.at)
					if rj == nil {
						t.Fatalf("accepted, want not_normalized at %d", off)
					}
					if rj.Reason != sanitize.NotNormalized || rj.Location != rules.XML || rj.Offset != off || rj.Field != tc.field {
						t.Fatalf("got %s in %v at %d field %q; want not_normalized in xml at %d field %q",
							rj.Reason, rj.Location, rj.Offset, rj.Field, off, tc.field)
					}
					if !errors.Is(rj, sanitize.ErrNotNormalized) || rj.Sample != finding.Sample(body, off) {
						t.Errorf("Err %v, sample %q", rj.Err, rj.Sample)
					}
				})
			}
		}
	}
}

// TestCanonXMLNotOurs: no normalization, or a body in another charset,
// is never looked at.
func TestCanonXMLNotOurs(t *testing.T) {
	t.Parallel()
	none := compiled.Compile(rules.Policy{XML: rules.Check{On: true}})
	nfc := compiled.Compile(rules.Policy{XML: rules.Check{On: true}, Normalization: normalize.NFC})
	decomposed := []byte("<a>e\u0301</a>")
	if rj := Canon(none, decomposed); rj != nil {
		t.Errorf("no normalization: %v", rj)
	}
	if rj := Canon(nfc, decomposed); rj == nil {
		t.Errorf("NFC accepted %q", decomposed)
	}
	latin1 := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>e\xcc\x81</a>")
	if rj := Canon(nfc, latin1); rj != nil {
		t.Errorf("another charset: %v", rj)
	}
}

// xmlBenchBody returns a clean XML document of about size octets: items
// with international text and, by kind, nothing else ("plain": the SIMD
// check alone), character references and predefined entities ("refs": a
// look at each '&'), or those and a comment ("lexer": the lexer).
func xmlBenchBody(size int, kind string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if kind == "lexer" {
		b.WriteString("<!-- généré -->\n")
	}
	b.WriteString("<order xmlns=\"urn:example:order\">\n")
	for i := 0; b.Len() < size-64; i++ {
		if kind == "plain" {
			fmt.Fprintf(&b, "  <item id=\"%d\" name=\"Café Crème\"><note>Zoë ok 株式会社 😀 Ελληνικά</note></item>\n", i)
		} else {
			fmt.Fprintf(&b, "  <item id=\"%d\" name=\"Caf&#233; &amp; Cr&#xE8;me\"><note>Zoë &lt;ok&gt; 株式会社 😀</note></item>\n", i)
		}
	}
	b.WriteString("</order>\n")
	return b.Bytes()
}

// BenchmarkCheckXML: clean bodies of 1 KiB and 64 KiB, of each kind of
// xmlBenchBody.
func BenchmarkCheckXML(b *testing.B) {
	c := &rules.Check{On: true, Forbid: strictXML}
	for _, size := range []int{1 << 10, 64 << 10} {
		for _, kind := range []string{"plain", "refs", "lexer"} {
			body := xmlBenchBody(size, kind)
			b.Run(fmt.Sprintf("%dKiB/%s", size>>10, kind), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if rj := Check(body, c, true); rj != nil {
						b.Fatal(rj)
					}
				}
			})
		}
	}
}
