package xmlbody

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/xmllex"
	"github.com/utf8guard/utf8guard/sanitize"
)

// xmlTagsFragments are pieces of markup that TestXMLTags strings together
// besides xmlFragments and xmlScanFragments: the places where the tag
// machine hands a unit on (targets of three octets, "<!" that starts no
// comment, references in values, syntax errors) and markup of every kind
// two to seven octets long, for the units to fall at either octet of a
// pair.
var xmlTagsFragments = []string{
	"<?xml?>", "<?XmL encoding='x'?>", "<?xm?>", "<?xmlx?>", "<?abc?>", "<?ab?>", "<?abcd ?>", "<?a?>", "<?a??>", "<?a?",
	"<!---->", "<!--->", "<!--x-->", "<!-- - -->", "<!--", "<!-x", "<!x", "<![CDATA[&#0;]]>", "<!DOCTYPE a>",
	"<a/>", "<a>", "</a>", "</a >", "</ a>", "<a b c/>", "<a b=''/>", "<a b=\"&#233;&amp;\">", "<a b='&#0;'>", "<a b='&x;'>",
	"<a b='<'>", "<a b=x.c>", "<a b=x-y:z>", "<a b= \"\">", "<a b =c>", "<a b=>", "<a b=/>", "<a b/c>", "<a/b>",
	"<a \u00e9=\u00e9>", "<a.b>", "<-a>", "<a b='x'c='y'>", "&#xE9;&#233;&amp;", "&#xE9;x", "&#0;", "&bad;", "& ",
}

// TestXMLTags holds xmlTags, the tag machine, to xmlScanUnits and
// xmlScanTokens on random strings of fragments, each also after one octet
// more (so that every unit starts at the other octet of a pair), with stop
// at the end and anywhere before, under classes without BOM (xmlScan
// takes the machine for those alone).
func TestXMLTags(t *testing.T) {
	t.Parallel()
	forbids := []sanitize.Class{strictXML, 0, sanitize.DefaultIgnorable | sanitize.PrivateUse}
	rng := rand.New(rand.NewPCG(14, 2))
	check := func(body []byte) {
		for _, forbid := range forbids {
			for _, stop := range []int{len(body), rng.IntN(len(body) + 1)} {
				got := xmlTags(body, forbid, stop)
				for name, want := range map[string]*sanitize.Error{
					"xmlScanUnits":  xmlScanUnits(body, forbid, stop),
					"xmlScanTokens": xmlScanTokens(body, forbid, stop),
				} {
					if (got == nil) != (want == nil) || got != nil && *got != *want {
						t.Fatalf("xmlTags(%q, %v, %d) = %v; %s: %v", body, forbid, stop, got, name, want)
					}
				}
			}
		}
	}
	frags := append(append(append([]string(nil), xmlFragments...), xmlScanFragments...), xmlTagsFragments...)
	for _, f := range frags {
		check([]byte(f))
		check([]byte("x" + f))
	}
	n := 40000
	if testing.Short() {
		n = 4000
	}
	var body []byte
	for range n {
		body = body[:0]
		for range 1 + rng.IntN(24) {
			body = append(body, frags[rng.IntN(len(frags))]...)
		}
		check(body)
		check(append([]byte{'x'}, body...))
	}
}

// TestXMLTagsTables holds the tag machine's classes to the lexer's
// (xmlOctets) and its tables to their bounds: every next state is a
// state, every start of a unit one of xmMarkup0 and the others.
func TestXMLTagsTables(t *testing.T) {
	for c := range 256 {
		cl, o := xmllex.TagClass[c], xmllex.Octets[c]
		name := cl == xmllex.XtNameU || cl == xmllex.XtNameOnly || cl == xmllex.XtDash
		if name != (o&xmllex.NameOctet != 0) || (cl == xmllex.XtNameU || cl == xmllex.XtDash) != (o&xmllex.UnquotedOctet != 0) ||
			(cl == xmllex.XtSpace) != (o&xmllex.SpaceOctet != 0) || (cl == xmllex.XtLT || cl == xmllex.XtAmp) != (o&xmllex.TextOctet != 0) {
			t.Errorf("octet %#x: class %d, lexer's %#x", c, cl, o)
		}
		if want := strings.IndexByte("<>/?!=\"'&", byte(c)); want >= 0 && int(cl) != xmllex.XtLT+want {
			t.Errorf("octet %q: class %d, want %d", rune(c), cl, xmllex.XtLT+want)
		}
	}
	for x := range xmllex.TagNext {
		if s := int(xmllex.TagNext[x]); s&0xFF != 0 || s>>8 >= xmllex.XsStates {
			t.Fatalf("xmlTagNext[%#x] = %#x", x, s)
		}
		if a := xmllex.TagAct[x]; a&7 > xmllex.XmAttr1 || a>>4 > xmllex.XaTarget {
			t.Fatalf("xmllex.TagAct[%#x] = %#x", x, a)
		}
	}
}

// FuzzXMLTags holds xmlTags to xmlScanUnits, with stop taken from the
// input's first octet.
func FuzzXMLTags(f *testing.F) {
	for _, s := range xmlTagsFragments {
		f.Add([]byte(s))
	}
	for _, s := range xmlFragments {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		stop := len(body)
		if len(body) > 0 && body[0] < 0x20 {
			stop = int(body[0]) * len(body) / 0x20
		}
		for _, forbid := range []sanitize.Class{strictXML, 0} {
			got, want := xmlTags(body, forbid, stop), xmlScanUnits(body, forbid, stop)
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("xmlTags(%q, %v, %d) = %v; xmlScanUnits: %v", body, forbid, stop, got, want)
			}
		}
	})
}
