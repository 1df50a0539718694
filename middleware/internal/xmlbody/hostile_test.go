package xmlbody

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/xmllex"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// xmlHostileBody returns a body of about n octets built to be slow for
// Check's scan, by kind: the constructions of bench/'s xml-* cases,
// and the densest markup of every sort, each repeated (a comment and a
// reference up front make the scan decide, not the SIMD check alone).
func xmlHostileBody(n int, kind string) []byte {
	var b bytes.Buffer
	b.WriteString("<!-- c --><x>&amp;</x>") // the lexer decides
	switch kind {
	case "deep":
		depth := (n - 64) / len("<a></a>&#xE9;")
		for range depth {
			b.WriteString("<a>&#xE9;")
		}
		for range depth {
			b.WriteString("</a>")
		}
	case "attrs":
		b.WriteString("<a")
		for i := 0; b.Len() < n-64; i++ {
			fmt.Fprintf(&b, ` a%x="&#xE9;"`, i)
		}
		b.WriteString(">x</a>")
	case "refs":
		b.WriteString("<a>")
		for b.Len() < n-64 {
			b.WriteString("&#xE9;&#233;&amp;")
		}
		b.WriteString("</a>")
	case "empty":
		b.WriteString("<r>")
		for b.Len() < n-64 {
			b.WriteString("<a/>")
		}
		b.WriteString("</r>")
	case "nest":
		depth := (n - 64) / len("<a></a>")
		for range depth {
			b.WriteString("<a>")
		}
		for range depth {
			b.WriteString("</a>")
		}
	case "bare":
		b.WriteString("<a")
		for b.Len() < n-64 {
			b.WriteString(" b")
		}
		b.WriteString("/>")
	case "quoted":
		b.WriteString("<a")
		for b.Len() < n-64 {
			b.WriteString(" b=''")
		}
		b.WriteString("/>")
	case "mixed":
		// The constructions above in a random order, for the branch
		// predictor to miss.
		rng := rand.New(rand.NewPCG(1, 4))
		pieces := []string{"<a/>", "<a>x</a>", "<!---->", "<?a?>", "<a b c/>", "<a>&lt;</a>", "<a b=''/>", "</a>", "<a>", "x"}
		b.WriteString("<r>")
		for b.Len() < n-64 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString("</r>")
	case "names":
		// Elements and attributes with names of random lengths.
		rng := rand.New(rand.NewPCG(1, 5))
		b.WriteString("<r>")
		for b.Len() < n-64 {
			name := "abcdefgh"[:1+rng.IntN(4)]
			b.WriteString("<" + name + " " + name + "=''>x</" + name + ">")
		}
		b.WriteString("</r>")
	case "text":
		b.WriteString("<r>")
		for b.Len() < n-64 {
			b.WriteString("<a>x</a>")
		}
		b.WriteString("</r>")
	case "lt":
		b.WriteString("<a>")
		for b.Len() < n-64 {
			b.WriteString("&lt;")
		}
		b.WriteString("</a>")
	case "comments":
		b.WriteString("<a>")
		for b.Len() < n-64 {
			b.WriteString("<!---->")
		}
		b.WriteString("</a>")
	case "pis":
		b.WriteString("<a>")
		for b.Len() < n-64 {
			b.WriteString("<?a?>")
		}
		b.WriteString("</a>")
	case "cdata":
		b.WriteString("<a>")
		for b.Len() < n-64 {
			b.WriteString("<![CDATA[]]>")
		}
		b.WriteString("</a>")
	case "dtd":
		b.Reset()
		b.WriteString(`<!DOCTYPE a [<!ENTITY e "`)
		for b.Len() < n-64 {
			b.WriteString("&#xE9;")
		}
		b.WriteString(`">]><a/>`)
	}
	return b.Bytes()
}

// xmlHostileKinds are the kinds of xmlHostileBody, after xmlBenchBody's
// "lexer", a benign body that needs the lexer.
var xmlHostileKinds = []string{"lexer", "deep", "attrs", "refs", "dtd", "empty", "nest", "bare", "quoted", "text", "lt", "comments", "pis", "cdata", "mixed", "names"}

// BenchmarkCheckXMLHostile: the bodies of xmlHostileBody beside
// xmlBenchBody's "lexer" kind, at 16 KiB and 1 MiB.
func BenchmarkCheckXMLHostile(b *testing.B) {
	c := &rules.Check{On: true, Forbid: strictXML}
	for _, size := range []int{16 << 10, 1 << 20} {
		for _, kind := range xmlHostileKinds {
			var body []byte
			if kind == "lexer" {
				body = xmlBenchBody(size, kind)
			} else {
				body = xmlHostileBody(size, kind)
			}
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

// xmlRefReference is xmlRef as first written, digit by digit and entity
// by entity: the independent reference TestXMLRefReference holds the fast
// one to.
func xmlRefReference(p []byte) (rune, int) {
	if len(p) < 2 || p[1] != '#' {
		for _, e := range [...]struct {
			name string
			r    rune
		}{{"&lt", '<'}, {"&gt", '>'}, {"&amp", '&'}, {"&apos", '\''}, {"&quot", '"'}} {
			if len(p) > len(e.name) && p[len(e.name)] == ';' && string(p[1:len(e.name)]) == e.name[1:] {
				return e.r, len(e.name) + 1
			}
		}
		return 0, 0
	}
	j, base := 2, rune(10)
	if j < len(p) && p[j] == 'x' {
		j, base = 3, 16
	}
	digit := func(c byte) rune {
		switch {
		case '0' <= c && c <= '9':
			return rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			return rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			return rune(c-'A') + 10
		}
		return -1
	}
	var r rune
	digits := j
	for ; j < len(p); j++ {
		d := digit(p[j])
		if d < 0 {
			break
		}
		if r <= utf8.MaxRune {
			r = r*base + d
		}
	}
	if j == digits || j >= len(p) || p[j] != ';' {
		return 0, 0
	}
	return min(r, utf8.MaxRune+1), j + 1
}

// TestXMLRefReference holds xmlRef to xmlRefReference on every string of
// up to four octets from an alphabet of the octets that matter, on the
// references of the tests, and on random strings of them.
func TestXMLRefReference(t *testing.T) {
	t.Parallel()
	alphabet := []byte("&#x;0179aAfFgGltmpoqusX:<\xff")
	check := func(p []byte) {
		r, n := xmllex.Ref(p)
		wr, wn := xmlRefReference(p)
		if r != wr || n != wn {
			t.Fatalf("xmlRef(%q) = %U, %d; want %U, %d", p, r, n, wr, wn)
		}
	}
	var rec func(p []byte, depth int)
	rec = func(p []byte, depth int) {
		check(p)
		if depth == 0 {
			return
		}
		for _, c := range alphabet {
			rec(append(p, c), depth-1)
		}
	}
	rec([]byte("&"), 4)
	rec([]byte("&#"), 3)
	rec([]byte("&#x"), 3)
	for _, s := range []string{"&lt;", "&gt;", "&amp;", "&apos;", "&quot;", "&#x10FFFF;", "&#x110000;", "&#1114111;",
		"&#1114112;", "&#0000000000000065;", "&#x00000000000000041;", "&#99999999999999999999;", "&#xFFFFFFFFFFFFFFFFFF;",
		"&#xD800;", "&#55296;", "&#X41;", "&#x;", "&#;", "&Lt;", "&lt", "&amp", "&apos", "&quot"} {
		check([]byte(s))
		check([]byte(s + "x"))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		p := []byte{'&'}
		if rng.IntN(2) == 0 {
			p = append(p, '#')
		}
		for range rng.IntN(12) {
			p = append(p, alphabet[rng.IntN(len(alphabet))])
		}
		check(p)
	}
}

// xmlScanTokens is xmlScan as first written, over the lexer's tokens: the
// reference TestXMLScanTokens and FuzzXML hold xmlScan to. It looks for
// the violations the raw check cannot see, in the tokens that start before
// stop: references, BOMs at the start of values, and processing
// instructions naming another encoding, and returns the first with an
// offset before stop, or nil.
func xmlScanTokens(body []byte, forbid sanitize.Class, stop int) *sanitize.Error {
	lx := xmllex.Lexer{P: body}
	ascii := -1 // whether body is all ASCII, once known
	for {
		t := lx.Next()
		if t.Kind == xmllex.EOF || t.From >= stop {
			return nil
		}
		var e *sanitize.Error
		switch t.Kind {
		case xmllex.Text, xmllex.Broken:
			e = xmlCheckValue(body, t.Val, true, forbid)
		case xmllex.Attr:
			e = xmlCheckValue(body, t.Val, t.Refs, forbid)
		case xmllex.CDATA:
			e = xmlCheckValue(body, t.Val, false, forbid)
		case xmllex.Directive:
			e = xmlCheckDTD(body, t.Val, forbid)
		case xmllex.PI:
			if xmllex.DeclTarget(body[t.Name[0]:t.Name[1]]) {
				if off := xmllex.ForeignEncoding(body, t.Val, &ascii); off >= 0 {
					e = &sanitize.Error{Reason: sanitize.BadCharset, Offset: off}
				}
			}
		}
		if e != nil && e.Offset < stop {
			return e
		}
		if e != nil {
			return nil
		}
	}
}

// xmlScanFragments are pieces of markup that TestXMLScanTokens strings
// together besides xmlFragments: the parts of tags, spaces and quotes
// where xmlScan and the lexer each decide on their own where a token ends.
var xmlScanFragments = []string{
	"<a", "<a ", "</a", "</a ", " ", "\t", "\n", "b", " b", "b ", "=", " = ", "'", "\"", "'x'", "\"&amp;\"", "'&#x202E;'",
	"c-d:e.f", "1", "/", "/>", ">", "<", "&", "&lt;", "\uFEFF", "\xEF\xBB\xBF", "&#xFEFF;", "é", "\x80",
}

// TestXMLScanTokens holds xmlScan to xmlScanTokens on the tests' bodies,
// FuzzXML's seeds and random strings of xmlFragments and
// xmlScanFragments, under classes with and without BOM, with stop at the
// end and anywhere before.
func TestXMLScanTokens(t *testing.T) {
	t.Parallel()
	forbids := []sanitize.Class{strictXML, strictXML | sanitize.BOM, 0, sanitize.BOM | sanitize.DefaultIgnorable}
	rng := rand.New(rand.NewPCG(14, 1))
	check := func(body []byte) {
		for _, forbid := range forbids {
			for _, stop := range []int{len(body), rng.IntN(len(body) + 1)} {
				got, want := xmlScan(body, forbid, stop), xmlScanTokens(body, forbid, stop)
				if (got == nil) != (want == nil) || got != nil && *got != *want {
					t.Fatalf("xmlScan(%q, %v, %d) = %v; xmlScanTokens: %v", body, forbid, stop, got, want)
				}
			}
		}
	}
	var bodies []string
	for _, tc := range xmlCheckCases {
		bodies = append(bodies, tc.body)
	}
	for _, tc := range xmlCleanCases {
		bodies = append(bodies, tc.body)
	}
	for _, tc := range xmlCanonCases {
		bodies = append(bodies, tc.body)
	}
	for _, kind := range xmlHostileKinds[1:] {
		bodies = append(bodies, string(xmlHostileBody(1<<10, kind)))
	}
	for _, b := range bodies {
		check([]byte(b))
	}
	frags := append(append([]string(nil), xmlFragments...), xmlScanFragments...)
	n := 50000
	if testing.Short() {
		n = 5000
	}
	var body []byte
	for range n {
		body = body[:0]
		for range 1 + rng.IntN(16) {
			body = append(body, frags[rng.IntN(len(frags))]...)
		}
		check(body)
	}
}
