package middleware

import (
	"bytes"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// XML bodies (application/xml, text/xml and every +xml type) are checked as
// a handler's XML decoder reads them. The decoder that matters most is
// encoding/xml: Echo's c.Bind uses it in Strict mode; a handler may also set
// Strict = false, an AutoClose list and an Entity map, or a CharsetReader.
// What such a decoder yields that the raw octets do not show, and what is
// done about each:
//
//   - Character references, &#NNN; and &#xHHH;, in character data and in
//     attribute values, are decoded: each is decoded here and checked
//     against XML's Char production and the policy's classes (checkXML).
//   - Named references: encoding/xml decodes the five predefined ones
//     (&lt; &gt; &amp; &apos; &quot;), which are harmless, and any name in
//     the handler's Entity map, whose replacement text this package cannot
//     know (xml.HTMLEntity maps &rlm; to a bidi control). Every other named
//     reference is refused.
//   - An XML declaration, or any <?xml ...?> instruction, that names an
//     encoding makes encoding/xml hand the rest of the body to the
//     handler's CharsetReader: it is refused, or the body left alone as not
//     UTF-8 (refuseCharsets).
//   - Unmarshal joins an element's character data across comments, CDATA
//     sections, processing instructions and child elements, so normal
//     pieces can make a string that is not normal (canonXML).
//
// Comments, processing instructions and CDATA sections are taken literally
// by every decoder: a reference there is text, not a character, and is not
// decoded (the octets themselves are checked like all others).

// xmlNonChars are the classes that hold characters outside XML 1.0's Char
// production (section 2.2): NUL, the C0 controls but TAB, LF and CR, and,
// among the noncharacters, U+FFFE and U+FFFF. An XML body may not hold them
// raw or as references, whatever the policy.
const xmlNonChars = sanitize.NUL | sanitize.C0 | sanitize.Noncharacter

// xmlChar reports whether r matches XML 1.0's Char production:
// #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
func xmlChar(r rune) bool {
	switch {
	case r < 0x20:
		return r == 0x9 || r == 0xA || r == 0xD
	case r <= 0xD7FF:
		return true
	case r < 0xE000:
		return false
	case r <= 0xFFFD:
		return true
	}
	return 0x10000 <= r && r <= utf8.MaxRune
}

// checkXML checks an XML body under c, failing closed: it returns the first
// violation, or nil when the body may go to the handler. The Rejection's
// Location is rules.XML, its Offset an offset into the body, and its Field
// the element path of where the violation is: the names of the open
// elements as written, prefixes included, each after a '/' ("/order/item"),
// then "/@name" inside an attribute ("/order/item/@name"); an element's
// own path inside its start or end tag; "" outside the root element (the
// prolog: XML declaration, DTD). Field goes through safeField.
//
// Checked, first violation in body order:
//
//   - The octets: well-formed UTF-8 (the encoding reasons, as
//     sanitize.Validate reports them); no character outside XML's Char
//     production (NUL, C0 controls but TAB, LF and CR, U+FFFE, U+FFFF:
//     forbidden_char with the character's class, whatever c.Forbid); none
//     of c.Forbid's classes (forbidden_char). This covers names, comments,
//     processing instructions, CDATA sections and the DTD as well.
//   - c.Forbid's BOM class counts at the start of a value only, as in
//     JSON: U+FEFF, raw or as a reference, as the first character of a
//     character-data token (the text between two pieces of markup, or a
//     CDATA section's content) or of an attribute value. The body's own
//     first octets are not a value: a BOM there is the encoding signature
//     (XML 1.0 section 4.3.3), not part of the document's character data
//     (encoding/xml yields it as character data outside the root element,
//     which Unmarshal ignores); a second U+FEFF right after it counts.
//   - Every character reference in character data, in attribute values,
//     and anywhere in the DTD (<!DOCTYPE ...>, comments inside it included:
//     an entity value's references become text wherever the entity is
//     used), decimal &#NNN; or hex
//     &#xHHH; with any number of leading zeros, as encoding/xml reads them,
//     decoded and checked: surrogate for U+D800..U+DFFF (encoding/xml
//     would make it U+FFFD); out_of_range for a value above U+10FFFF,
//     however many digits; forbidden_char for a character outside XML's
//     Char production (&#0;, &#1;, &#xFFFE;), with its class from
//     sanitize.ClassOf; forbidden_char for a character of c.Forbid
//     (&#x202E; is bidi, &#x85; c1). The offset is that of the '&'.
//   - Malformed references are refused as bad_escape, at the '&': "&#"
//     not followed by digits and ';' (&#;, &#x;, &#12a;, &#X41; with a
//     capital X, which XML does not allow); in character data and
//     attribute values, any '&' that does not start a character reference
//     or one of the five predefined entities (a bare '&', &amp without its
//     ';', &nbsp;, or an entity declared in the DTD). A Strict decoder
//     refuses all of these anyway; a non-Strict one passes them on as
//     text, or decodes them through its Entity map into characters this
//     check never saw.
//   - An XML declaration (<?xml ...?>, at the start of the body, after an
//     optional UTF-8 BOM) naming an encoding other than UTF-8 ("UTF-8", "utf8") or
//     US-ASCII (and its IANA aliases, accepted only when every octet of the
//     body is ASCII: the WHATWG table maps "us-ascii" to windows-1252,
//     which reads UTF-8 octets as C1 controls): with refuseCharsets,
//     bad_charset at the encoding's name; without, the body is not UTF-8
//     and not ours to check, and checkXML returns nil, unread, provided
//     encoding/xml reads that encoding as well. Where it reads on in UTF-8
//     but a parser that follows the grammar would not (encoding = "x"
//     with spaces, a second encoding after a UTF-8 one), the declaration
//     is bad_charset whatever refuseCharsets says. A body that
//     starts with a UTF-16 or UTF-32 byte order mark is bad_charset with
//     refuseCharsets, and otherwise checked as UTF-8, which it is not.
//     Every encoding pseudo-attribute counts, with or without spaces
//     around '=', a second one or one inside another value: encoding/xml
//     reads the first "encoding=" followed by a quote, wherever it is.
//   - Any other <?xml ...?> processing instruction naming such an
//     encoding is bad_charset even without refuseCharsets: it is not a
//     declaration, but encoding/xml switches to the CharsetReader wherever
//     it meets one, so the octets after it would reach the handler in
//     another charset, unchecked. So is <?XML ...?> or <?Xml ...?>
//     anywhere, which encoding/xml reads as a processing instruction like
//     any other and another parser might take for a declaration.
//
// Not checked: references inside comments, processing instructions and
// CDATA sections, which every decoder yields as the literal text "&#...;"
// (refusing them would refuse HTML carried in CDATA); well-formedness,
// which is the decoder's to refuse. Where the body is not well-formed the
// scan follows encoding/xml as long as encoding/xml goes on (with Strict
// off: unquoted attribute values, attributes without a value); from the
// first error it notices (a missing name, an unterminated comment, a '<'
// in an attribute value, ...) it treats the rest of the body as character
// data and checks every reference in it. c.Repair does not apply: an XML
// body is never rewritten.
//
// checkXML runs in time linear in the body and allocates nothing when it
// returns nil. A body without '&', without a BOM the policy refuses and
// without processing instructions past the declaration is checked by the
// SIMD class check alone; one with references but no comment, CDATA
// section, DTD or instruction, by that and a look at each '&' (xmlShape);
// any other, by the lexer.
func checkXML(body []byte, c *rules.Check, refuseCharsets bool) *Rejection {
	if rj, foreign := xmlCharset(body, refuseCharsets); rj != nil || foreign {
		return rj
	}
	forbid := c.Forbid
	raw := xmlCheckRaw(body, forbid)
	stop := len(body)
	if raw != nil {
		stop = raw.Offset
	}
	var e *sanitize.Error
	switch shape, from := xmlShapeOf(body, forbid); shape {
	case xmlPlainShape:
	case xmlRefsShape:
		e = xmlCheckRefs(body, from, stop, forbid)
	default:
		e = xmlScan(body, forbid, stop)
	}
	if e == nil {
		e = raw
	}
	if e == nil {
		return nil
	}
	return xmlReject(body, e)
}

// xmlShape says how much of the lexer a body needs.
type xmlShape uint8

const (
	// xmlPlainShape: the raw check alone decides. There is no reference to
	// decode (no '&'), no U+FEFF where forbid refuses a BOM, and no
	// processing instruction but the one the body may start with, which
	// xmlCharset has read.
	xmlPlainShape xmlShape = iota
	// xmlRefsShape: there are references, but no markup other than tags
	// after the processing instruction the body may start with: no
	// comment, CDATA section, directive or other instruction, the only
	// places where '&' is literal. Every '&' from there on is then in
	// character data or an attribute value, where it is decoded, or where
	// encoding/xml stops with a syntax error: each can be checked as a
	// reference without the lexer (xmlCheckRefs). Not where forbid
	// refuses a BOM, which needs to know where values start.
	xmlRefsShape
	// xmlScanShape: the lexer decides (xmlScan).
	xmlScanShape
)

// xmlShapeOf returns the shape of body under forbid and, for
// xmlRefsShape, the offset after the processing instruction body starts
// with, if any. It looks for the rare octets '&', '?' and '!' rather than
// the frequent '<'.
func xmlShapeOf(body []byte, forbid sanitize.Class) (xmlShape, int) {
	decl := 0 // where the body's own "<?" may be
	if bytes.HasPrefix(body, xmlBOM) {
		decl = len(xmlBOM)
		if forbid&sanitize.BOM != 0 && bytes.Contains(body[decl:], xmlBOM) {
			return xmlScanShape, 0 // the signature aside
		}
	} else if forbid&sanitize.BOM != 0 && bytes.Contains(body, xmlBOM) {
		return xmlScanShape, 0
	}
	if xmlMarkupAfter(body, '?', decl) {
		return xmlScanShape, 0
	}
	if bytes.IndexByte(body, '&') < 0 {
		return xmlPlainShape, 0
	}
	if forbid&sanitize.BOM != 0 || xmlMarkupAfter(body, '!', -1) {
		return xmlScanShape, 0
	}
	from := 0
	if bytes.HasPrefix(body[decl:], piOpen) {
		lx := xmlLexer{p: body, i: decl}
		t := lx.next()
		if t.kind != xmlPI {
			return xmlScanShape, 0
		}
		from = t.to
	}
	return xmlRefsShape, from
}

// xmlMarkupAfter reports whether body holds '<' followed by c anywhere but
// at offset allow.
func xmlMarkupAfter(body []byte, c byte, allow int) bool {
	for j := 1; j < len(body); j++ {
		k := bytes.IndexByte(body[j:], c)
		if k < 0 {
			return false
		}
		if j += k; body[j-1] == '<' && j-1 != allow {
			return true
		}
	}
	return false
}

// xmlCheckRefs checks every '&' of body from offset from on, before stop,
// as a reference in character data (see xmlShape): it must be a character
// reference or one of the five predefined entities, and decode to an XML
// Char of no class in forbid, which holds no BOM here.
func xmlCheckRefs(body []byte, from, stop int, forbid sanitize.Class) *sanitize.Error {
	for j := from; j < stop; {
		k := bytes.IndexByte(body[j:stop], '&')
		if k < 0 {
			return nil
		}
		at := j + k
		r, n := xmlRef(body[at:])
		if n == 0 {
			return &sanitize.Error{Reason: sanitize.BadEscape, Offset: at}
		}
		if e := xmlCheckRune(r, at, false, forbid); e != nil {
			return e
		}
		j = at + n
	}
	return nil
}

var (
	xmlBOM = []byte(bom)
	piOpen = []byte("<?")
)

// xmlCheckRaw checks the octets of body: the first one that is not
// well-formed UTF-8, not an XML Char or of a class in forbid (BOM aside:
// it counts only where a value starts), as a *sanitize.Error, or nil. The
// SIMD check looks for forbid and xmlNonChars at once; a noncharacter that
// is an XML Char (U+FDD0, U+1FFFE, ...) and that forbid allows is passed
// over and the check resumes after it.
func xmlCheckRaw(body []byte, forbid sanitize.Class) *sanitize.Error {
	forbid &^= sanitize.BOM
	classes := forbid | xmlNonChars
	for from := 0; ; {
		err := sanitize.Check(body[from:], classes)
		if err == nil {
			return nil
		}
		e := err.(*sanitize.Error)
		off := from + e.Offset
		if e.Reason != sanitize.ForbiddenChar {
			return &sanitize.Error{Reason: e.Reason, Offset: off}
		}
		if e.Class&forbid != 0 {
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: off, Class: e.Class & forbid}
		}
		r, size := utf8.DecodeRune(body[off:])
		if !xmlChar(r) {
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: off, Class: sanitize.ClassOf(r)}
		}
		from = off + size
	}
}

// xmlReject is the Rejection of e, found in body.
func xmlReject(body []byte, e *sanitize.Error) *Rejection {
	return &Rejection{
		Reason:   e.Reason,
		Location: rules.XML,
		Field:    safeField(xmlPathAt(body, e.Offset)),
		Offset:   e.Offset,
		Sample:   sample(body, e.Offset),
		Class:    e.Class,
		Err:      e,
	}
}

// xmlScan looks for the violations the raw check cannot see, in the tokens
// that start before stop (the offset of the raw check's violation, or
// len(body)): references, BOMs at the start of values, and processing
// instructions naming another encoding. It returns the first with an
// offset before stop, or nil.
func xmlScan(body []byte, forbid sanitize.Class, stop int) *sanitize.Error {
	lx := xmlLexer{p: body}
	ascii := -1 // whether body is all ASCII, once known
	for {
		t := lx.next()
		if t.kind == xmlEOF || t.from >= stop {
			return nil
		}
		var e *sanitize.Error
		switch t.kind {
		case xmlText, xmlBroken:
			e = xmlCheckValue(body, t.val, true, forbid)
		case xmlAttr:
			e = xmlCheckValue(body, t.val, t.refs, forbid)
		case xmlCDATA:
			e = xmlCheckValue(body, t.val, false, forbid)
		case xmlDirective:
			e = xmlCheckDTD(body, t.val, forbid)
		case xmlPI:
			if xmlDeclTarget(body[t.name[0]:t.name[1]]) {
				if off := xmlForeignEncoding(body, t.val, &ascii); off >= 0 {
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

// xmlCheckValue checks the value p[v[0]:v[1]], character data or an
// attribute value: a BOM at its start, when forbid refuses one, and, when
// refs, its references, each of which must be a character reference or a
// predefined entity, decode to an XML Char and be of no class in forbid.
func xmlCheckValue(p []byte, v [2]int, refs bool, forbid sanitize.Class) *sanitize.Error {
	a, b := v[0], v[1]
	if a == 0 && bytes.HasPrefix(p[:b], xmlBOM) {
		a = len(xmlBOM) // the signature: the value starts after it
	}
	if forbid&sanitize.BOM != 0 && bytes.HasPrefix(p[a:b], xmlBOM) {
		return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: a,
			Class: forbid & (sanitize.BOM | sanitize.DefaultIgnorable)}
	}
	if !refs {
		return nil
	}
	for j := a; j < b; {
		k := bytes.IndexByte(p[j:b], '&')
		if k < 0 {
			return nil
		}
		at := j + k
		r, n := xmlRef(p[at:b])
		if n == 0 {
			return &sanitize.Error{Reason: sanitize.BadEscape, Offset: at}
		}
		if e := xmlCheckRune(r, at, at == a, forbid); e != nil {
			return e
		}
		j = at + n
	}
	return nil
}

// xmlCheckDTD checks the character references of a directive's text
// p[v[0]:v[1]] (a DOCTYPE and its internal subset). XML expands the
// character references of an entity value where the entity is declared,
// so <!ENTITY x "&#x202E;"> holds a bidi control. Named references and
// other uses of '&' are left alone: nothing decodes them there, and a
// reference to the entity in the document is refused (not predefined).
func xmlCheckDTD(p []byte, v [2]int, forbid sanitize.Class) *sanitize.Error {
	a, b := v[0], v[1]
	for j := a; j < b; {
		k := bytes.Index(p[j:b], charRefOpen)
		if k < 0 {
			return nil
		}
		at := j + k
		r, n := xmlRef(p[at:b])
		if n == 0 {
			return &sanitize.Error{Reason: sanitize.BadEscape, Offset: at}
		}
		if e := xmlCheckRune(r, at, false, forbid); e != nil {
			return e
		}
		j = at + n
	}
	return nil
}

var charRefOpen = []byte("&#")

// xmlCheckRune checks the character r that a reference at offset at
// decodes to (above utf8.MaxRune for any larger value): a surrogate, a
// value above U+10FFFF, a character outside XML's Char production, a
// character of a class in forbid, or, when first (the reference starts a
// value), U+FEFF where forbid refuses a BOM.
func xmlCheckRune(r rune, at int, first bool, forbid sanitize.Class) *sanitize.Error {
	switch {
	case 0x20 <= r && r < 0x7F:
		return nil // printable ASCII: in no class (the predefined entities)
	case r > utf8.MaxRune:
		return &sanitize.Error{Reason: sanitize.OutOfRange, Offset: at}
	case 0xD800 <= r && r <= 0xDFFF:
		return &sanitize.Error{Reason: sanitize.Surrogate, Offset: at}
	case !xmlChar(r):
		return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: at, Class: sanitize.ClassOf(r)}
	}
	if forbid == 0 {
		return nil
	}
	cl := sanitize.ClassOf(r)
	if first && r == 0xFEFF {
		cl |= sanitize.BOM
	}
	if cl &= forbid; cl != 0 {
		return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: at, Class: cl}
	}
	return nil
}

// xmlRef reads the reference at the start of p, which is '&', and returns
// the character it stands for and its length in octets, or a length of 0
// when it is none this package accepts. A character reference is "&#"
// followed by decimal digits, or "&#x" followed by hexadecimal digits (a
// lowercase x, as XML and encoding/xml have it), and ';'; leading zeros
// are allowed and any value above U+10FFFF comes back as
// utf8.MaxRune+1, however many digits it has. The predefined entities are
// &lt; &gt; &amp; &apos; &quot;, spelled in lower case.
func xmlRef(p []byte) (rune, int) {
	if len(p) < 2 || p[1] != '#' {
		for _, e := range xmlEntities {
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
	var r rune
	digits := j
	for ; j < len(p); j++ {
		d := xmlDigit(p[j], base)
		if d < 0 {
			break
		}
		if r <= utf8.MaxRune {
			r = r*base + d // at most 0x10FFFF*16+15: no overflow
		}
	}
	if j == digits || j >= len(p) || p[j] != ';' {
		return 0, 0
	}
	return min(r, utf8.MaxRune+1), j + 1
}

// xmlEntities are the predefined entities, each name with its leading '&'.
var xmlEntities = [...]struct {
	name string
	r    rune
}{{"&lt", '<'}, {"&gt", '>'}, {"&amp", '&'}, {"&apos", '\''}, {"&quot", '"'}}

// xmlDigit returns the value of the digit c in base 10 or 16, or -1.
func xmlDigit(c byte, base rune) rune {
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
