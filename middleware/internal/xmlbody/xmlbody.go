// Package xmlbody is the check of XML bodies (Check) and of their
// canonical form (Canon), over the tokens of package xmllex.
//
// XML bodies (application/xml, text/xml and every +xml type) are checked as
// a handler's XML decoder reads them. The decoder that matters most is
// encoding/xml: Echo's c.Bind uses it in Strict mode; a handler may also set
// Strict = false, an AutoClose list and an Entity map, or a CharsetReader.
// What such a decoder yields that the raw octets do not show, and what is
// done about each:
//
//   - Character references, &#NNN; and &#xHHH;, in character data and in
//     attribute values, are decoded: each is decoded here and checked
//     against XML's Char production and the policy's classes (Check).
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
//     pieces can make a string that is not normal (Canon).
//
// Comments, processing instructions and CDATA sections are taken literally
// by every decoder: a reference there is text, not a character, and is not
// decoded (the octets themselves are checked like all others).
package xmlbody

import (
	"bytes"
	"encoding/xml"
	"sync"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/middleware/internal/xmllex"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

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

// Check checks an XML body under c, failing closed: it returns the first
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
//   - c.Names, on top of c.Forbid, in the names: each element's name in
//     its start and end tags, each attribute's name (an attribute
//     without a value, which encoding/xml with Strict off reads, is a
//     name too), each processing instruction's target: forbidden_char
//     with the classes of c.Names the character is of, at its offset.
//     Names hold no references. The names a DTD declares are not
//     looked at (see xmlCheckNames). A character of c.Names in text, an
//     attribute value or a comment, raw or as a reference, passes: in
//     the strict preset, an RLM in an attribute value is right-to-left
//     text, in an attribute name an identifier that looks like another.
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
//     and not ours to check, and Check returns nil, unread, provided
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
// Check runs in time linear in the body and allocates nothing when it
// returns nil, but for the error sanitize.Check makes when it finds a
// character it must pass over (the first of c.Names; each noncharacter).
// The SIMD class check looks for c.Forbid and c.Names at once: a body
// without a character of c.Names costs nothing more for them, and one
// with some is read once more by the lexer for its names.
// A body without '&', without a BOM the policy refuses and without
// processing instructions past the declaration is checked by the SIMD
// class check alone; one with references but no comment, CDATA
// section, DTD or instruction, by that and a look at each '&' (xmlShape);
// any other, by xmlScan, which reads it as the lexer does, keeps nothing
// per open element (nesting costs nothing more than its tags), and costs
// a small multiple of the SIMD check whatever the markup (bench/'s xml-*
// cases).
func Check(body []byte, c *rules.Check, refuseCharsets bool) *finding.Rejection {
	if rj, foreign := xmlCharset(body, refuseCharsets); rj != nil || foreign {
		return rj
	}
	forbid := c.Forbid
	raw, named := xmlCheckRaw(body, forbid, c.Names)
	stop := len(body)
	if raw != nil {
		stop = raw.Offset
	}
	// Only a body that holds a character of c.Names (and not of forbid)
	// needs to know whether it is in a name.
	var inName *sanitize.Error
	if named >= 0 && named < stop {
		if inName = xmlCheckNames(body, named, c.Names, stop); inName != nil {
			stop = inName.Offset
		}
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
		e = inName
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
	if bytes.HasPrefix(body[decl:], xmllex.PIOpen) {
		lx := xmllex.Lexer{P: body, I: decl}
		t := lx.Next()
		if t.Kind != xmllex.PI {
			return xmlScanShape, 0
		}
		from = t.To
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
	return xmlRefsIn(body, from, stop, -1, false, forbid)
}

// xmlRefsIn checks the references in p[a:b], each at its '&': it must be
// a character reference or a predefined entity (bad_escape), and the
// character it decodes to is checked by xmlCheckRune, as the first of a
// value when its '&' is at offset first. In a directive (dtd), a '&' that
// does not start "&#" is left alone, and so are the entities, which
// decode to printable ASCII.
//
// It is the loop every reference of a body goes through, written for a
// body of nothing but references: the next '&' is looked at before it is
// searched for, the decoding is xmlRef's, and a character that needs no
// look-up (xmlCheckRune) costs a comparison or two.
func xmlRefsIn(p []byte, a, b, first int, dtd bool, forbid sanitize.Class) *sanitize.Error {
	for j := a; j < b; {
		if p[j] != '&' {
			k := bytes.IndexByte(p[j:b], '&')
			if k < 0 {
				return nil
			}
			j += k
		}
		r, n := xmllex.Ref(p[j:b])
		if n == 0 {
			if dtd && (j+1 >= b || p[j+1] != '#') {
				j++ // not a character reference: left alone
				continue
			}
			return &sanitize.Error{Reason: sanitize.BadEscape, Offset: j}
		}
		if !xmlPlainRune(r) {
			if e := xmlCheckRune(r, j, j == first, forbid); e != nil {
				return e
			}
		}
		j += n
	}
	return nil
}

var xmlBOM = []byte(octets.BOM)

// xmlCheckRaw checks the octets of body: the first one that is not
// well-formed UTF-8, not an XML Char or of a class in forbid (BOM aside:
// it counts only where a value starts), as a *sanitize.Error, or nil. The
// SIMD check looks for forbid, names and xmlNonChars at once; a
// noncharacter that is an XML Char (U+FDD0, U+1FFFE, ...) and that forbid
// allows is passed over and the check resumes after it, and so is the
// first character of a class in names only, whose offset comes back as
// named (-1 for none): it is refused in a name only, which the raw check
// cannot tell. From there on names is no longer looked for, so that text
// full of marks costs no more than text without. Where names holds BOM,
// a U+FEFF anywhere past the body's signature counts as such a
// character, since a name may start with it.
func xmlCheckRaw(body []byte, forbid, names sanitize.Class) (e *sanitize.Error, named int) {
	forbid &^= sanitize.BOM
	named = -1
	if names&sanitize.BOM != 0 {
		from := 0
		if bytes.HasPrefix(body, xmlBOM) {
			from = len(xmlBOM)
		}
		if k := bytes.Index(body[from:], xmlBOM); k >= 0 {
			named = from + k
		}
	}
	names &^= forbid | sanitize.BOM
	if named >= 0 {
		names = 0 // found already
	}
	classes := forbid | names | xmlNonChars
	for from := 0; ; {
		err := sanitize.Check(body[from:], classes)
		if err == nil {
			return nil, named
		}
		se := err.(*sanitize.Error)
		off := from + se.Offset
		if se.Reason != sanitize.ForbiddenChar {
			return &sanitize.Error{Reason: se.Reason, Offset: off}, named
		}
		if se.Class&forbid != 0 {
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: off, Class: se.Class & forbid}, named
		}
		r, size := utf8.DecodeRune(body[off:])
		if !xmlChar(r) {
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: off, Class: sanitize.ClassOf(r)}, named
		}
		if se.Class&names != 0 {
			named, classes, names = off, classes&^names, 0
		}
		from = off + size
	}
}

// xmlCheckNames returns the first character of a class in names, at or
// after offset from and before stop, that is in a name: an element's name
// in its start or end tag, an attribute's name, a processing
// instruction's target. A name holds no references (encoding/xml reads
// "&" as no name octet), so its octets are all there is to check. The
// names of a DTD's declarations are not looked at: encoding/xml yields a
// directive as one piece of text, which the raw check covers, and the
// entities it declares are refused where they are used (not predefined).
//
// It reads the whole body with xmlLexer, which is what a name is found by
// (as xmlScanTokens reads it), but only a body that holds a character of
// names anywhere comes here.
func xmlCheckNames(body []byte, from int, names sanitize.Class, stop int) *sanitize.Error {
	lx := xmllex.Lexer{P: body}
	for {
		t := lx.Next()
		if t.Kind == xmllex.EOF || t.Kind == xmllex.Broken || t.From >= stop {
			return nil
		}
		n0, n1 := t.Name[0], min(t.Name[1], stop)
		if n1 <= from || n1 <= n0 || octets.IsASCII(body[n0:n1]) {
			continue
		}
		if err := sanitize.CheckClasses(body[n0:n1], names); err != nil {
			se := err.(*sanitize.Error)
			return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: n0 + se.Offset, Class: se.Class}
		}
	}
}

// xmlReject is the Rejection of e, found in body.
func xmlReject(body []byte, e *sanitize.Error) *finding.Rejection {
	return &finding.Rejection{
		Reason:   e.Reason,
		Location: rules.XML,
		Field:    finding.SafeField(xmllex.PathAt(body, e.Offset)),
		Offset:   e.Offset,
		Sample:   finding.Sample(body, e.Offset),
		Class:    e.Class,
		Err:      e,
	}
}

// xmlScan looks for the violations the raw check cannot see, in the tokens
// that start before stop (the offset of the raw check's violation, or
// len(body)): references, BOMs at the start of values, and processing
// instructions naming another encoding. It returns the first with an
// offset before stop, or nil.
//
// It reads body as xmlLexer does, but makes no tokens: an attacker
// chooses the densest markup (<a/>, " b" attributes without a value,
// <?a?>, <!---->, one octet of text between tags), in a random order, and
// a token made and dispatched, or a chain of branches the predictor
// misses, for every two to five octets cost many times the check itself.
// Where forbid holds no BOM (the presets: only references and other
// encodings are to be found), the markup is read by xmlTags, a state
// machine that takes two octets a step from a table, with no branch on
// what it reads; it hands each reference, each possible <?xml ...?>,
// CDATA sections, directives and every syntax error to xmlScanUnit, the
// same scan one token at a time, and goes on after it. With a BOM to
// look for at the start of each value, xmlScanUnits reads it all.
// TestXMLScanTokens and FuzzXML hold both to xmlScanTokens, the same scan
// over the lexer's tokens.
//
// xmlTags exists for speed only, and earns its place on hostile markup:
// with xmlScanUnits instead, BenchmarkHostileMW at 256 KiB on the strict
// route (CPU time, medians of 5 interleaved rounds on a shared 2-core
// machine) goes from 0.68 to 1.46 ms a request for xml-markup, 0.38 to
// 1.48 ms for xml-bare and 0.58 to 0.86 ms for xml-deep, whose
// worst/benign ratios (19.7, 18.2, 11.2) would then break the strict
// route's bound of 10.
func xmlScan(body []byte, forbid sanitize.Class, stop int) *sanitize.Error {
	if forbid&sanitize.BOM != 0 {
		return xmlScanUnits(body, forbid, stop)
	}
	return xmlTags(body, forbid, stop)
}

// xmlTags is xmlScan where forbid holds no BOM, by the tag machine
// (xmlTagNext): see there.
func xmlTags(p []byte, forbid sanitize.Class, stop int) *sanitize.Error {
	ascii := -1 // whether p is all ASCII, once known
	// The last starts of units, by xmMarkup0 and the others, each the
	// offset of its pair; [0] takes the pairs where none starts, so that
	// noting costs a store and no branch. In text mode at 0.
	marks := [8]int{xmllex.XmMarkup1: -1, xmllex.XmAttr0: -1, xmllex.XmAttr1: -2}
	s := xmllex.XsText << 8 // the state, times 256
	for i := 0; ; {
		var a uint8
		for i+1 < len(p) {
			// The pair's classes first, off the chain of states: each step
			// waits for the last one's load alone.
			pair := int(xmllex.TagClass[p[i]])<<4 | int(xmllex.TagClass[p[i+1]])
			x := s | pair
			a = xmllex.TagAct[x]
			s = int(xmllex.TagNext[x])
			marks[a&7] = i
			if a >= 8 {
				break
			}
			i += 2
		}
		at := i + int(a>>3&1)
		switch a >> 4 {
		case xmllex.XaNone: // at the end
			if s == xmllex.XsText<<8 {
				if i >= len(p) {
					return nil
				}
				// One octet left, in text mode: the unit decides.
				marks[xmllex.XmMarkup0], marks[xmllex.XmMarkup1], marks[xmllex.XmAttr0], marks[xmllex.XmAttr1] = i, i-1, -1, -2
			}
		case xmllex.XaText, xmllex.XaDQuoted, xmllex.XaSQuoted:
			// A reference where it is decoded, in text or in a value: it
			// is checked here, and the machine goes on after it in the
			// same state. Should the value turn out to be broken (a '<'
			// or no end), the rest from the attribute on is character
			// data, whose first violation is still the first bad
			// reference: the ones before it passed the same check.
			// References come in runs: the one after this is checked here
			// too.
			for {
				if at >= stop {
					return nil // and so is every later violation
				}
				r, n := xmllex.Ref(p[at:]) // it cannot run past the value's end, '<' or a quote
				if n == 0 {
					return xmlBefore(&sanitize.Error{Reason: sanitize.BadEscape, Offset: at}, stop)
				}
				if !xmlPlainRune(r) {
					if e := xmlCheckRune(r, at, false, forbid); e != nil {
						return xmlBefore(e, stop)
					}
				}
				if at += n; at >= len(p) || p[at] != '&' {
					break
				}
			}
			i = at
			s = [...]int{xmllex.XaText: xmllex.XsText << 8, xmllex.XaDQuoted: xmllex.XsDQuoted << 8, xmllex.XaSQuoted: xmllex.XsSQuoted << 8}[a>>4]
			continue
		case xmllex.XaTarget:
			if !xmllex.DeclTarget(p[at-3 : at]) {
				s = xmllex.XsPI << 8
				if p[at] == '?' {
					s = xmllex.XsPIQuestion << 8
				}
				i = at + 1
				continue
			}
		}
		// Hand the unit the octet at i is in to xmlScanUnit: the last
		// markup, or the last attribute if it started after that.
		from, tag := max(marks[xmllex.XmMarkup0], marks[xmllex.XmMarkup1]+1), false
		if attr := max(marks[xmllex.XmAttr0], marks[xmllex.XmAttr1]+1); attr > from {
			from, tag = attr, true
		}
		if from >= stop {
			return nil // and so is every later violation
		}
		next, inTag, e, done := xmlScanUnit(p, from, tag, forbid, stop, &ascii)
		if done {
			return e
		}
		if next >= len(p) {
			return nil
		}
		// Go on at next, in the mode the unit ends in, where a unit starts.
		i, s = next, xmllex.XsText<<8
		marks[xmllex.XmMarkup0], marks[xmllex.XmMarkup1], marks[xmllex.XmAttr0], marks[xmllex.XmAttr1] = next, next-1, -1, -2
		if inTag {
			s = xmllex.XsTag << 8
			marks[xmllex.XmMarkup0], marks[xmllex.XmMarkup1], marks[xmllex.XmAttr0], marks[xmllex.XmAttr1] = -1, -2, next, next-1
		}
	}
}

// xmlScanUnits is xmlScan one unit at a time (xmlScanUnit).
func xmlScanUnits(body []byte, forbid sanitize.Class, stop int) *sanitize.Error {
	ascii := -1 // whether body is all ASCII, once known
	i, tag := 0, false
	for i < len(body) && (tag || i < stop) {
		var e *sanitize.Error
		var done bool
		if i, tag, e, done = xmlScanUnit(body, i, tag, forbid, stop, &ascii); done {
			return e
		}
	}
	return nil
}

// xmlRest checks the rest of the body from a syntax error at i on, as
// character data, and returns what it finds before stop.
func xmlRest(p []byte, i int, forbid sanitize.Class, stop int) *sanitize.Error {
	return xmlBefore(xmlCheckValue(p, [2]int{i, len(p)}, true, forbid), stop)
}

// xmlScanUnit scans the unit of p at i, as xmlLexer reads it: in text
// mode (tag false) a run of text or a piece of markup, of a start tag its
// name only; in tag mode, inside a start tag, an attribute or the end of
// the tag. It returns where the next unit starts and whether in tag mode,
// or, when done, the result of the scan: the first violation before stop,
// or nil. *ascii caches whether p is all ASCII (-1: not known yet).
func xmlScanUnit(p []byte, i int, tag bool, forbid sanitize.Class, stop int, ascii *int) (next int, inTag bool, e *sanitize.Error, done bool) {
	bom := forbid&sanitize.BOM != 0
	if tag {
		return xmlScanAttr(p, i, forbid, stop)
	}
	if p[i] != '<' {
		// Text between dense markup is short: look at it octet by octet
		// first, and where it holds no reference, there is nothing to
		// check but a BOM.
		k, lim := i, min(len(p), i+16)
		for k < lim && xmllex.Octets[p[k]]&xmllex.TextOctet == 0 {
			k++
		}
		if !bom && (k == len(p) || p[k] == '<') {
			return k, false, nil, false
		}
		end := len(p)
		if m := bytes.IndexByte(p[k:], '<'); m >= 0 {
			end = k + m
		}
		if bom {
			e = xmlCheckValue(p, [2]int{i, end}, true, forbid)
		} else {
			e = xmlRefsIn(p, k, end, -1, false, forbid) // no '&' before k
		}
		if e != nil {
			return 0, false, xmlBefore(e, stop), true
		}
		return end, false, nil, false
	}
	if i+1 >= len(p) {
		return 0, false, xmlRest(p, i, forbid, stop), true
	}
	switch p[i+1] {
	case '/': // an end tag
		n1 := xmllex.NameEnd(p, i+2)
		if n1 == i+2 {
			return 0, false, xmlRest(p, i, forbid, stop), true
		}
		j := xmllex.SkipSpace(p, n1)
		if j >= len(p) || p[j] != '>' {
			return 0, false, xmlRest(p, i, forbid, stop), true
		}
		return j + 1, false, nil, false
	case '?': // a processing instruction, as xmlLexer.next reads it
		n1 := xmllex.NameEnd(p, i+2)
		if n1 == i+2 {
			return 0, false, xmlRest(p, i, forbid, stop), true
		}
		j := xmllex.SkipSpace(p, n1)
		k := xmllex.IndexPair(p, j, "?>")
		if k < 0 {
			return 0, false, xmlRest(p, i, forbid, stop), true
		}
		if xmllex.DeclTarget(p[i+2 : n1]) {
			if off := xmllex.ForeignEncoding(p, [2]int{j, k}, ascii); off >= 0 {
				return 0, false, xmlBefore(&sanitize.Error{Reason: sanitize.BadCharset, Offset: off}, stop), true
			}
		}
		return k + 2, false, nil, false
	case '!': // a comment, CDATA section or directive, as xmlLexer.bang reads it
		if i+3 < len(p) && p[i+2] == '-' && p[i+3] == '-' {
			k := xmllex.CommentEnd(p, i+4)
			if k < 0 {
				return 0, false, xmlRest(p, i, forbid, stop), true
			}
			return k + 3, false, nil, false
		}
		lx := xmllex.Lexer{P: p, I: i}
		t := lx.Bang(i)
		switch t.Kind {
		case xmllex.Broken:
			return 0, false, xmlRest(p, t.From, forbid, stop), true
		case xmllex.CDATA:
			e = xmlCheckValue(p, t.Val, false, forbid)
		case xmllex.Directive:
			e = xmlCheckDTD(p, t.Val, forbid)
		}
		if e != nil {
			return 0, false, xmlBefore(e, stop), true
		}
		return lx.I, false, nil, false
	}
	// A start tag: its name; its attributes follow in tag mode.
	n1 := xmllex.NameEnd(p, i+1)
	if n1 == i+1 {
		return 0, false, xmlRest(p, i, forbid, stop), true
	}
	return n1, true, nil, false
}

// xmlScanAttr is xmlScanUnit in tag mode: what follows in a start tag from
// i on, an attribute or the tag's end, as xmlLexer.attr reads it.
func xmlScanAttr(p []byte, i int, forbid sanitize.Class, stop int) (next int, inTag bool, e *sanitize.Error, done bool) {
	bom := forbid&sanitize.BOM != 0
	j := xmllex.SkipSpace(p, i)
	if j >= len(p) {
		return 0, false, xmlRest(p, i, forbid, stop), true
	}
	if p[j] == '>' {
		return j + 1, false, nil, false
	}
	if p[j] == '/' {
		if j+1 >= len(p) || p[j+1] != '>' {
			return 0, false, xmlRest(p, j, forbid, stop), true
		}
		return j + 2, false, nil, false
	}
	n1 := xmllex.NameEnd(p, j)
	if n1 == j {
		return 0, false, xmlRest(p, j, forbid, stop), true
	}
	k := xmllex.SkipSpace(p, n1)
	if k >= len(p) {
		return 0, false, xmlRest(p, j, forbid, stop), true
	}
	if p[k] != '=' {
		// Strict off: the name is the value.
		if bom {
			if e := xmlCheckValue(p, [2]int{j, n1}, false, forbid); e != nil {
				return 0, false, xmlBefore(e, stop), true
			}
		}
		return k, true, nil, false
	}
	if k = xmllex.SkipSpace(p, k+1); k >= len(p) {
		return 0, false, xmlRest(p, j, forbid, stop), true
	}
	if q := p[k]; q == '"' || q == '\'' {
		// Values are short too: one without '<' and '&' holds nothing to
		// check but a BOM.
		m, lim := k+1, min(len(p), k+17)
		for m < lim && p[m] != q && xmllex.Octets[p[m]]&xmllex.TextOctet == 0 {
			m++
		}
		if !bom && m < len(p) && p[m] == q {
			return m + 1, true, nil, false
		}
		m = bytes.IndexByte(p[k+1:], q)
		if m < 0 || bytes.IndexByte(p[k+1:k+1+m], '<') >= 0 {
			return 0, false, xmlRest(p, j, forbid, stop), true
		}
		if e := xmlCheckValue(p, [2]int{k + 1, k + 1 + m}, true, forbid); e != nil {
			return 0, false, xmlBefore(e, stop), true
		}
		return k + 1 + m + 1, true, nil, false
	}
	// Strict off: an unquoted value, possibly empty, of octets that hold
	// no reference and no BOM.
	i = k
	for i < len(p) && xmllex.Octets[p[i]]&xmllex.UnquotedOctet != 0 {
		i++
	}
	return i, true, nil, false
}

// xmlBefore returns e if it is before stop, or nil.
func xmlBefore(e *sanitize.Error, stop int) *sanitize.Error {
	if e != nil && e.Offset < stop {
		return e
	}
	return nil
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
	return xmlRefsIn(p, a, b, a, false, forbid)
}

// xmlCheckDTD checks the character references of a directive's text
// p[v[0]:v[1]] (a DOCTYPE and its internal subset). XML expands the
// character references of an entity value where the entity is declared,
// so <!ENTITY x "&#x202E;"> holds a bidi control. Named references and
// other uses of '&' are left alone: nothing decodes them there, and a
// reference to the entity in the document is refused (not predefined).
func xmlCheckDTD(p []byte, v [2]int, forbid sanitize.Class) *sanitize.Error {
	return xmlRefsIn(p, v[0], v[1], -1, true, forbid)
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
	if xmlNoClassFrom < r && r < xmlNoClassTo {
		return nil // Latin-1 and Latin Extended letters, IPA, spacing modifiers, most combining marks
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

// xmlPlainRune reports whether xmlCheckRune passes the character r of a
// reference whatever it is given, a test that inlines: printable ASCII
// (the predefined entities), and the characters of no class between
// xmlNoClassFrom and xmlNoClassTo (Latin text).
func xmlPlainRune(r rune) bool {
	return uint32(r)-0x20 < 0x7F-0x20 || uint32(r)-(xmlNoClassFrom+1) < xmlNoClassTo-(xmlNoClassFrom+1)
}

// The characters strictly between xmlNoClassFrom (U+00AD, SOFT HYPHEN,
// default ignorable) and xmlNoClassTo (U+034F, COMBINING GRAPHEME JOINER,
// the next one) are of no class of sanitize's (no control, bidi control,
// noncharacter, private use, BOM or default ignorable): the common
// references of Latin text need no look-up (TestXMLNoClassRange holds the
// range to sanitize.ClassOf).
const (
	xmlNoClassFrom = 0xAD
	xmlNoClassTo   = 0x34F
)

// xmlCharset looks at the start of body for what says it is not UTF-8: a
// UTF-16 or UTF-32 byte order mark (bad_charset with refuse, otherwise
// nothing: the UTF-8 check will refuse it), or an XML declaration, after
// an optional UTF-8 BOM, naming another encoding: bad_charset with refuse,
// and otherwise, when encoding/xml reads the encoding there too, foreign:
// not ours to check. Where encoding/xml reads on in UTF-8 but another
// parser might not (<?XML ...?>, encoding = "latin1" with spaces, a
// second encoding after a first one), it is bad_charset whatever refuse
// says: the body would be checked as UTF-8 for one reader and reach
// another in a charset never checked.
func xmlCharset(body []byte, refuse bool) (rj *finding.Rejection, foreign bool) {
	if refuse && (bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || bytes.HasPrefix(body, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(body, []byte{0, 0, 0xFE, 0xFF})) {
		return xmlReject(body, &sanitize.Error{Reason: sanitize.BadCharset}), false
	}
	off, goForeign := xmlDeclEncoding(body)
	if off < 0 {
		return nil, false
	}
	if refuse || !goForeign {
		return xmlReject(body, &sanitize.Error{Reason: sanitize.BadCharset, Offset: off}), false
	}
	return nil, true
}

// xmlDeclEncoding looks at the processing instruction that body starts
// with (after an optional UTF-8 BOM), if its target is "xml" in any case.
// It returns the offset of the first encoding name there that is not
// UTF-8's (xmlForeignEncoding), or -1; and whether encoding/xml reads it as
// a declaration of an encoding that is not UTF-8's: the target is "xml"
// in lower case and the name procInst finds is such a one.
func xmlDeclEncoding(body []byte) (int, bool) {
	i := 0
	if bytes.HasPrefix(body, xmlBOM) {
		i = len(xmlBOM)
	}
	if !bytes.HasPrefix(body[i:], xmllex.PIOpen) {
		return -1, false
	}
	lx := xmllex.Lexer{P: body, I: i}
	t := lx.Next()
	if t.Kind != xmllex.PI || !xmllex.DeclTarget(body[t.Name[0]:t.Name[1]]) {
		return -1, false
	}
	ascii := -1
	off := xmllex.ForeignEncoding(body, t.Val, &ascii)
	if off < 0 || string(body[t.Name[0]:t.Name[1]]) != "xml" {
		return off, false
	}
	name, ok := xmlGoEncoding(body[t.Val[0]:t.Val[1]])
	return off, ok && len(name) > 0 && !xmllex.UTF8Name(body, name, &ascii)
}

// xmlGoEncoding returns the encoding name that encoding/xml's procInst
// reads in the content s of an <?xml ...?> instruction: after the first
// "encoding=" that is followed by a quote, up to the same quote; false when
// there is none.
func xmlGoEncoding(s []byte) ([]byte, bool) {
	const param = "encoding="
	var quote byte
	i := 0
	for i < len(s) {
		k := bytes.Index(s[i:], []byte(param))
		if k < 0 || i+k+len(param) >= len(s) {
			return nil, false
		}
		c := s[i+k+len(param)]
		i += k + len(param) + 1
		if c == '"' || c == '\'' {
			quote = c
			break
		}
	}
	if quote == 0 {
		return nil, false
	}
	j := bytes.IndexByte(s[i:], quote)
	if j < 0 {
		return nil, false
	}
	return s[i : i+j], true
}

// Canon reports the first text of an XML body that is not in the
// route's normalization form p.form (not_normalized), or nil: an XML body
// is checked, never rewritten. It returns nil when p.form is None, and for
// a body whose XML declaration names another encoding (not ours, as for
// Check); in Monitor mode it returns the rejection all the same, for
// the caller to log.
//
// The texts are those a handler's decoder yields, as encoding/xml yields
// them, each of which must be normal:
//
//   - each character-data token: a text run with its references decoded
//     (character references and the five predefined entities), or a CDATA
//     section's content;
//   - the character data of each element, the concatenation of its own
//     tokens across comments, processing instructions, CDATA sections and
//     child elements, which is what Unmarshal puts in a string or
//     ",chardata" field: <a>e<!---->&#x301;</a> is "e\u0301";
//   - the same again, once more, with the elements of xml.HTMLAutoClose
//     closed as encoding/xml closes them with Strict off and that list
//     (the configuration its documentation gives for HTML): <br> is closed
//     by the token after its start tag, unless that is its own end tag, so
//     in <a>e<br>&#x301;</a> the "\u0301" is a's;
//   - each attribute value, references decoded; each element, attribute
//     and processing-instruction target name (a name holds no references);
//   - each comment, and the concatenation of each element's comments (a
//     ",comment" field); each processing instruction's content and each
//     directive, as written.
//
// The Rejection's Offset is the body offset of the first octet of the
// character where normalization starts to change the text (of the '&' of a
// reference that decodes to it), and its Field the element path, as for
// Check.
//
// Not covered: CR and CRLF, which encoding/xml turns into LF, are left as
// they are (no normalization form composes or reorders either, so it never
// changes whether a text is normal); and AutoClose lists other than
// xml.HTMLAutoClose, which a handler makes up and this package cannot
// know: with one, the text inside an element the list names joins its
// parent's. Strict decoders (c.Bind), and decoders with Strict off and no
// list or that one, are covered exactly.
func Canon(p *compiled.Policy, body []byte) *finding.Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	if _, foreign := xmlDeclEncoding(body); foreign {
		return nil // another charset: not ours
	}
	if octets.IsASCII(body) && !bytes.Contains(body, charRefOpen) {
		return nil // ASCII is in every form, and nothing decodes to more
	}
	if len(body) <= maxXMLCompactBody {
		cn := xmlCanons.Get().(*xmlCanon[uint32])
		rj := cn.check(p.Norm, body)
		cn.trim()
		xmlCanons.Put(cn)
		return rj
	}
	return new(xmlCanon[uint64]).check(p.Norm, body)
}

// check runs the passes of Canon over body.
func (cn *xmlCanon[R]) check(form normalize.Form, body []byte) *finding.Rejection {
	cn.reset(form, body, false)
	if rj := cn.run(); rj != nil || !cn.sawAutoClose {
		return rj
	}
	cn.reset(form, body, true)
	return cn.run()
}

// xmlPiece is one piece of an element's text: the value p[from:to] of a
// character-data token (refs: with references) or of a comment.
type xmlPiece struct {
	from, to int
	refs     bool
}

// A piece of text as xmlCanon keeps it is an R: the offset of its first
// octet and its kind (xmlRefText and the others, in the two low bits).
// Its end is found again when it is needed (xmlCanon.piece), as the lexer
// found it: the text a piece holds is always cut at the first octet, or
// octets, that end its kind.
const (
	xmlRefText    = iota // character data: up to the next '<'
	xmlRefBroken         // the rest of the body after a syntax error
	xmlRefCDATA          // a CDATA section's content: up to "]]>"
	xmlRefComment        // a comment's content: up to "--"
)

// maxXMLCompactBody is the longest body whose offsets, shifted past the
// two bits of a piece's kind, fit an xmlCanon[uint32].
const maxXMLCompactBody = 1<<30 - 1

// ref returns the piece of kind k that starts at from.
func ref[R xmllex.Offset](from, k int) R { return R(from)<<2 | R(k) }

// piece returns the piece r stands for in cn.p.
func (cn *xmlCanon[R]) piece(r R) xmlPiece {
	p, from := cn.p, int(r>>2)
	var k int
	switch r & 3 {
	case xmlRefText:
		if k = bytes.IndexByte(p[from:], '<'); k < 0 {
			k = len(p) - from
		}
		return xmlPiece{from: from, to: from + k, refs: true}
	case xmlRefBroken:
		return xmlPiece{from: from, to: len(p), refs: true}
	case xmlRefCDATA:
		k = bytes.Index(p[from:], []byte("]]>"))
	default:
		k = bytes.Index(p[from:], []byte("--"))
	}
	return xmlPiece{from: from, to: from + k}
}

// xmlCanon is the state of Canon over p; an xmlCanon[uint32] is pooled
// (xmlCanons), its slices working memory that no handler sees. Each
// element and each piece costs a few octets of it (an xmlFrame, an R), and
// each slice grows to at most what p can need (xmlGrow), so that a pooled
// xmlCanon serves a body of the default limit without allocating.
type xmlCanon[R xmllex.Offset] struct {
	form normalize.Form
	p    []byte
	open []xmllex.Frame[R]
	// The pieces of the open elements, each element's after its parent's
	// that came before it, character data and comments together (told
	// apart by kind): an element's own are the last ones when it closes,
	// its children's gone with them.
	pieces []R
	buf    []byte // scratch
	// htmlAutoClose closes the elements of xml.HTMLAutoClose as
	// encoding/xml does with Strict off and that list, in a second pass
	// that checks only what the first cannot have: elements' texts joined
	// differently. pending is set
	// while the innermost open element is one whose start tag was the last
	// token, which the next token closes unless it is its end tag.
	// sawAutoClose reports that the body has such an element at all.
	htmlAutoClose, pending, sawAutoClose bool
}

var xmlCanons = sync.Pool{New: func() any { return new(xmlCanon[uint32]) }}

// Past these capacities an xmlCanon's slices are not kept for the next
// request. A body of the default limit (1 MiB) fits: it holds at most one
// open element or one piece for every two octets (a '<' and a name
// octet; an octet of text and the '<' after it), and its decoded texts
// are no longer than itself.
const (
	maxPooledXMLBody    = 1 << 20
	maxPooledXMLEntries = maxPooledXMLBody/2 + 1 // frames or pieces: 4 or 2 MiB at most
	maxPooledXMLBuf     = maxPooledXMLBody
)

// reset readies cn for a pass over p, keeping its memory.
func (cn *xmlCanon[R]) reset(form normalize.Form, p []byte, htmlAutoClose bool) {
	*cn = xmlCanon[R]{form: form, p: p, htmlAutoClose: htmlAutoClose,
		open: cn.open[:0], pieces: cn.pieces[:0], buf: cn.buf[:0]}
}

// trim readies cn for the pool: without the body, and without slices too
// large to keep.
func (cn *xmlCanon[R]) trim() {
	cn.p = nil
	if cap(cn.open) > maxPooledXMLEntries {
		cn.open = nil
	}
	if cap(cn.pieces) > maxPooledXMLEntries {
		cn.pieces = nil
	}
	if cap(cn.buf) > maxPooledXMLBuf {
		cn.buf = nil
	}
}

// xmlGrow returns s with room for one more element, growing it, when it
// is full, to twice its capacity but to no more than most, what the body
// can need: append's own growth would overshoot the pooled bound
// (maxPooledXMLEntries) on the largest bodies and have the slice dropped
// and rebuilt for every request.
func xmlGrow[T any](s []T, most int) []T {
	if len(s) < cap(s) {
		return s
	}
	n := max(2*cap(s), 64)
	if n > most && most > len(s) {
		n = most // else most was wrong: doubling, not one at a time
	}
	t := make([]T, len(s), n) // exactly n: append and slices.Grow round up
	copy(t, s)
	return t
}

// xmlRoom returns buf with room for n more octets: its own memory if it
// has that room, else new memory of twice its capacity, or of len(buf)+n
// if that is more, but never more than most, what the body can need (a
// decoded text is no longer than the body). Growing by doubling keeps the
// allocations to a few per body; sizing by what is known (n, one piece at
// a time) rather than by a bound on the whole keeps them small.
func xmlRoom(buf []byte, n, most int) []byte {
	if cap(buf)-len(buf) >= n {
		return buf
	}
	c := max(2*cap(buf), len(buf)+n, 64)
	if c > most && most >= len(buf)+n {
		c = most
	}
	b := make([]byte, len(buf), c) // exactly c: append rounds up
	copy(b, buf)
	return b
}

// xmlHTMLAutoClose reports whether the element name is one of
// xml.HTMLAutoClose, whose local part encoding/xml compares with
// strings.EqualFold.
func xmlHTMLAutoClose(name []byte) bool {
	local := xmlLocal(name)
	for _, s := range xml.HTMLAutoClose {
		if bytes.EqualFold(local, []byte(s)) {
			return true
		}
	}
	return false
}

// xmlLocal returns the local part of a name, as encoding/xml splits it:
// after the colon, if there is one with something on each side.
func xmlLocal(name []byte) []byte {
	if k := bytes.IndexByte(name, ':'); k > 0 && k < len(name)-1 {
		return name[k+1:]
	}
	return name
}

// run walks the tokens of p.
func (cn *xmlCanon[R]) run() *finding.Rejection {
	lx := xmllex.Lexer{P: cn.p}
	for {
		t := lx.Next()
		var rj *finding.Rejection
		if cn.pending && t.Kind != xmllex.Attr && t.Kind != xmllex.StartEnd {
			cn.pending = false
			top := xmllex.NameOf(cn.p, cn.open[len(cn.open)-1])
			if !(t.Kind == xmllex.End && bytes.EqualFold(xmlLocal(cn.p[t.Name[0]:t.Name[1]]), xmlLocal(top))) {
				if rj := cn.close(); rj != nil {
					return rj
				}
			}
		}
		switch t.Kind {
		case xmllex.EOF:
			for len(cn.open) > 0 {
				if rj := cn.close(); rj != nil {
					return rj
				}
			}
			return nil
		case xmllex.Start:
			cn.open = append(xmlGrow(cn.open, len(cn.p)/2+1), xmllex.Frame[R]{Name: R(t.Name[0]), Pieces: R(len(cn.pieces))})
			rj = cn.raw(t.Name, [2]int{})
			if !cn.sawAutoClose && xmlHTMLAutoClose(cn.p[t.Name[0]:t.Name[1]]) {
				cn.sawAutoClose = true
			}
		case xmllex.Attr:
			if rj = cn.raw(t.Name, t.Name); rj == nil {
				rj = cn.text(xmlPiece{from: t.Val[0], to: t.Val[1], refs: t.Refs}, t.Name)
			}
		case xmllex.StartEnd:
			if t.Empty {
				rj = cn.close()
			} else if cn.htmlAutoClose && xmlHTMLAutoClose(xmllex.NameOf(cn.p, cn.open[len(cn.open)-1])) {
				cn.pending = true
			}
		case xmllex.End:
			if rj = cn.raw(t.Name, [2]int{}); rj == nil {
				for k := xmllex.Close(cn.p, cn.open, t.Name); len(cn.open) > k && rj == nil; {
					rj = cn.close()
				}
			}
		case xmllex.Text, xmllex.Broken, xmllex.CDATA:
			k := xmlRefText
			switch t.Kind {
			case xmllex.Broken:
				k = xmlRefBroken
			case xmllex.CDATA:
				k = xmlRefCDATA
			}
			rj = cn.charData(xmlPiece{from: t.Val[0], to: t.Val[1], refs: t.Kind != xmllex.CDATA}, k)
		case xmllex.Comment:
			piece := xmlPiece{from: t.Val[0], to: t.Val[1]}
			if rj = cn.text(piece, [2]int{}); rj == nil && len(cn.open) > 0 {
				cn.add(piece.from, xmlRefComment)
			}
		case xmllex.PI:
			if rj = cn.raw(t.Name, [2]int{}); rj == nil {
				rj = cn.raw(t.Val, [2]int{})
			}
		case xmllex.Directive:
			rj = cn.raw(t.Val, [2]int{})
		}
		if rj != nil {
			return rj
		}
	}
}

// charData checks a character-data token on its own, and adds it, of kind
// k, to its element's pieces.
func (cn *xmlCanon[R]) charData(piece xmlPiece, k int) *finding.Rejection {
	if piece.to == piece.from {
		return nil // an empty CDATA section: nothing to join
	}
	if rj := cn.text(piece, [2]int{}); rj != nil {
		return rj
	}
	if len(cn.open) > 0 {
		cn.add(piece.from, k)
	}
	return nil
}

// add adds the piece of kind k that starts at from to the innermost open
// element's.
func (cn *xmlCanon[R]) add(from, k int) {
	cn.pieces = append(xmlGrow(cn.pieces, len(cn.p)/2+1), ref[R](from, k))
}

// close checks the text of the innermost open element, its character data
// and its comments each joined, and closes it.
func (cn *xmlCanon[R]) close() *finding.Rejection {
	f := cn.open[len(cn.open)-1]
	own := cn.pieces[f.Pieces:]
	if len(own) > 1 {
		comments := 0
		for _, r := range own {
			if r&3 == xmlRefComment {
				comments++
			}
		}
		// One of a kind was checked on its own as it came.
		if len(own)-comments > 1 {
			if rj := cn.joined(own, false); rj != nil {
				return rj
			}
		}
		if comments > 1 {
			if rj := cn.joined(own, true); rj != nil {
				return rj
			}
		}
	}
	cn.pieces = cn.pieces[:f.Pieces]
	cn.open = cn.open[:len(cn.open)-1]
	return nil
}

// raw checks the text p[v[0]:v[1]], which holds no references. attr names
// the attribute it belongs to, if any, for the field.
func (cn *xmlCanon[R]) raw(v [2]int, attr [2]int) *finding.Rejection {
	if cn.htmlAutoClose {
		return nil // the first pass has checked every token
	}
	if text := cn.p[v[0]:v[1]]; octets.IsASCII(text) {
		return nil // ASCII is in every form; names mostly are
	}
	if k := cn.form.FirstNonNormal(cn.p[v[0]:v[1]]); k >= 0 {
		return cn.reject(v[0]+k, attr)
	}
	return nil
}

// text checks the text of one piece, references decoded.
func (cn *xmlCanon[R]) text(piece xmlPiece, attr [2]int) *finding.Rejection {
	if cn.htmlAutoClose {
		return nil // the first pass has checked every token
	}
	v := cn.p[piece.from:piece.to]
	if !piece.refs || bytes.IndexByte(v, '&') < 0 {
		return cn.raw([2]int{piece.from, piece.to}, attr)
	}
	cn.buf = xmlAppendText(xmlRoom(cn.buf[:0], len(v), len(cn.p)), cn.p, piece)
	if k := cn.form.FirstNonNormal(cn.buf); k >= 0 {
		return cn.reject(xmlTextOffset(cn.p, piece, k), attr)
	}
	return nil
}

// joined checks the concatenation of the texts of those of pieces that
// are comments, or of those that are not.
func (cn *xmlCanon[R]) joined(pieces []R, comments bool) *finding.Rejection {
	cn.buf = cn.buf[:0]
	var last xmlPiece
	for _, r := range pieces {
		if (r&3 == xmlRefComment) == comments {
			last = cn.piece(r)
			cn.buf = xmlAppendText(xmlRoom(cn.buf, last.to-last.from, len(cn.p)), cn.p, last)
		}
	}
	k := cn.form.FirstNonNormal(cn.buf)
	if k < 0 {
		return nil
	}
	// The piece that holds the k-th octet, and the octet within it.
	at := 0
	for _, r := range pieces {
		if (r&3 == xmlRefComment) != comments {
			continue
		}
		pc := cn.piece(r)
		w := len(xmlAppendText(cn.buf[:0], cn.p, pc))
		if k < at+w {
			return cn.reject(xmlTextOffset(cn.p, pc, k-at), [2]int{})
		}
		at += w
	}
	return cn.reject(last.to, [2]int{})
}

// reject is the not_normalized Rejection at offset off of the body, inside
// the open elements (and the attribute attr).
func (cn *xmlCanon[R]) reject(off int, attr [2]int) *finding.Rejection {
	e := &sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}
	return &finding.Rejection{
		Reason:   sanitize.NotNormalized,
		Location: rules.XML,
		Field:    finding.SafeField(xmllex.Path(cn.p, cn.open, attr)),
		Offset:   off,
		Sample:   finding.Sample(cn.p, off),
		Err:      e,
	}
}

// xmlAppendText appends the text of piece to dst as a decoder yields it:
// with references decoded when piece.refs, as encoding/xml decodes them
// (a surrogate becomes U+FFFD; what it does not decode stays as written,
// as it does with Strict off).
func xmlAppendText(dst, p []byte, piece xmlPiece) []byte {
	v := p[piece.from:piece.to]
	if !piece.refs {
		return append(dst, v...)
	}
	for {
		k := bytes.IndexByte(v, '&')
		if k < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:k]...)
		v = v[k:]
		r, n := xmllex.Ref(v)
		if n == 0 || r > utf8.MaxRune {
			dst = append(dst, '&')
			v = v[1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		v = v[n:]
	}
}

// xmlTextOffset returns the offset in p of what became octet d of the
// text of piece (xmlAppendText): the octet itself, or the '&' of the
// reference that decoded to it.
func xmlTextOffset(p []byte, piece xmlPiece, d int) int {
	if !piece.refs {
		return piece.from + d
	}
	n := 0 // decoded octets before i
	var tmp [utf8.UTFMax]byte
	for i := piece.from; i < piece.to; {
		if p[i] == '&' {
			r, size := xmllex.Ref(p[i:piece.to])
			if size > 0 && r <= utf8.MaxRune {
				w := len(utf8.AppendRune(tmp[:0], r))
				if d < n+w {
					return i
				}
				n, i = n+w, i+size
				continue
			}
		}
		if d == n {
			return i
		}
		n, i = n+1, i+1
	}
	return piece.to
}
