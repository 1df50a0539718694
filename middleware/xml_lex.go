package middleware

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The lexer.
//
// xmlLexer cuts an XML body into the tokens encoding/xml's Decoder reads
// (RawToken), at the same places: text runs up to the next '<', start tags
// (name, then one token per attribute, then the end of the tag), end tags,
// comments, processing instructions, CDATA sections and directives. It
// does not check names against XML's Name production, nor nesting, nor
// "]]>" in text: where encoding/xml fails on those, it stops for good, so
// what the lexer makes of the rest is never decoded. Where encoding/xml
// with Strict off reads on (an attribute without '=' has its name as
// value; an unquoted value is a run of [A-Za-z0-9_:-]), so does the lexer.
// At every other syntax error it notices, the lexer returns the rest of the
// body as one xmlBroken token, to be checked as character data.

// xmlKind is the kind of an xmlToken.
type xmlKind uint8

const (
	xmlEOF       xmlKind = iota
	xmlText              // character data between markup; val may hold references
	xmlCDATA             // a CDATA section; val is its content, literal
	xmlComment           // a comment; val is its content
	xmlPI                // a processing instruction; name is its target, val its content
	xmlDirective         // <!DOCTYPE ...> and the like; val is what lies between "<!" and '>'
	xmlStart             // the '<' and name of a start tag; its attributes and xmlStartEnd follow
	xmlAttr              // an attribute: name and val, which has references when refs
	xmlStartEnd          // the '>' or "/>" (empty) that ends a start tag
	xmlEnd               // an end tag; name is the element's
	xmlBroken            // the rest of the body after a syntax error; val may hold references
)

// xmlToken is one token: its octets p[from:to] and, by kind, the offsets
// of its name and its value.
type xmlToken struct {
	kind     xmlKind
	from, to int
	name     [2]int
	val      [2]int
	refs     bool // val is quoted text, where references are decoded
	empty    bool // xmlStartEnd: "/>"
}

// xmlLexer is the state of the lexer over p.
type xmlLexer struct {
	p      []byte
	i      int  // where the next token starts
	inTag  bool // between the attributes of a start tag
	broken bool // a syntax error was met: the rest was one xmlBroken token
	t      xmlToken
}

// set makes the token of kind k over p[from:to] the current one, with no
// name or value, and returns it for the caller to fill in. It writes the
// fields one by one: a whole xmlToken built and copied costs more than the
// rest of a short token's lexing.
func (lx *xmlLexer) set(k xmlKind, from, to int) *xmlToken {
	t := &lx.t
	t.kind, t.from, t.to = k, from, to
	t.name[0], t.name[1], t.val[0], t.val[1] = 0, 0, 0, 0
	t.refs, t.empty = false, false
	return t
}

// named sets the name of t and returns it.
func (t *xmlToken) named(n0, n1 int) *xmlToken {
	t.name[0], t.name[1] = n0, n1
	return t
}

// valued sets the value of t, and whether it holds references, and
// returns it.
func (t *xmlToken) valued(v0, v1 int, refs bool) *xmlToken {
	t.val[0], t.val[1], t.refs = v0, v1, refs
	return t
}

// next returns the next token, or one of kind xmlEOF at the end of p. The
// token is the lexer's own, valid until the next call.
func (lx *xmlLexer) next() *xmlToken {
	p, i := lx.p, lx.i
	switch {
	case i >= len(p):
		return lx.set(xmlEOF, len(p), len(p))
	case lx.inTag:
		return lx.attr()
	case p[i] != '<':
		end := len(p)
		if k := bytes.IndexByte(p[i:], '<'); k >= 0 {
			end = i + k
		}
		lx.i = end
		return lx.set(xmlText, i, end).valued(i, end, true)
	case i+1 >= len(p):
		return lx.fail(i)
	}
	switch p[i+1] {
	case '/':
		n0 := i + 2
		n1 := xmlNameEnd(p, n0)
		if n1 == n0 {
			return lx.fail(i)
		}
		j := xmlSkipSpace(p, n1)
		if j >= len(p) || p[j] != '>' {
			return lx.fail(i)
		}
		lx.i = j + 1
		return lx.set(xmlEnd, i, j+1).named(n0, n1)
	case '?':
		n0 := i + 2
		n1 := xmlNameEnd(p, n0)
		if n1 == n0 {
			return lx.fail(i)
		}
		j := xmlSkipSpace(p, n1)
		k := xmlIndexPair(p, j, "?>")
		if k < 0 {
			return lx.fail(i)
		}
		lx.i = k + 2
		return lx.set(xmlPI, i, lx.i).named(n0, n1).valued(j, k, false)
	case '!':
		return lx.bang(i)
	}
	n0 := i + 1
	n1 := xmlNameEnd(p, n0)
	if n1 == n0 {
		return lx.fail(i)
	}
	lx.i, lx.inTag = n1, true
	return lx.set(xmlStart, i, n1).named(n0, n1)
}

// bang reads the markup at p[i:] that starts "<!": a comment, a CDATA
// section or a directive. A directive ends at the first '>' outside quotes
// that closes no '<' opened inside it, comments inside it skipped, as
// encoding/xml reads it (the octet after "<!" counts as neither).
func (lx *xmlLexer) bang(i int) *xmlToken {
	p := lx.p
	if i+2 >= len(p) {
		return lx.fail(i)
	}
	switch p[i+2] {
	case '-':
		if i+3 >= len(p) || p[i+3] != '-' {
			return lx.fail(i)
		}
		s := i + 4
		k := xmlCommentEnd(p, s)
		if k < 0 {
			return lx.fail(i)
		}
		lx.i = k + 3
		return lx.set(xmlComment, i, lx.i).valued(s, k, false)
	case '[':
		if !bytes.HasPrefix(p[i+3:], []byte("CDATA[")) {
			return lx.fail(i)
		}
		s := i + 9
		k := xmlCDATAEnd(p, s)
		if k < 0 {
			return lx.fail(i)
		}
		lx.i = k + 3
		return lx.set(xmlCDATA, i, lx.i).valued(s, k, false)
	}
	depth := 0
	for k := i + 3; k < len(p); k++ {
		c := p[k]
		switch {
		case c == '>' && depth == 0:
			lx.i = k + 1
			return lx.set(xmlDirective, i, k+1).valued(i+2, k, false)
		case c == '"' || c == '\'':
			// Quoted: everything up to the same quote, at once (an
			// entity value is most of a DTD).
			q := bytes.IndexByte(p[k+1:], c)
			if q < 0 {
				return lx.fail(i)
			}
			k += 1 + q
		case c == '>':
			depth--
		case c == '<' && bytes.HasPrefix(p[k+1:], []byte("!--")):
			e := bytes.Index(p[k+4:], []byte("-->"))
			if e < 0 {
				return lx.fail(i)
			}
			k += 4 + e + 2 // at the '>'
		case c == '<':
			depth++
		}
	}
	return lx.fail(i)
}

// xmlCommentEnd returns the offset of the "--" that ends the comment
// whose content starts at p[s], or -1 where encoding/xml fails: at the
// first "--", which must be followed by '>', or at the end of p.
func xmlCommentEnd(p []byte, s int) int {
	k := xmlIndexPair(p, s, "--")
	if k < 0 || k+2 >= len(p) || p[k+2] != '>' {
		return -1
	}
	return k
}

// xmlCDATAEnd returns the offset of the "]]>" that ends the CDATA section
// whose content starts at p[s], or -1.
func xmlCDATAEnd(p []byte, s int) int {
	if s+2 < len(p) && p[s] == ']' && p[s+1] == ']' && p[s+2] == '>' {
		return s // empty: no call
	}
	if k := bytes.Index(p[s:], []byte("]]>")); k >= 0 {
		return s + k
	}
	return -1
}

// xmlIndexPair returns the offset of the first occurrence of the two
// octets sep in p from i on, or -1. Markup that ends where its content
// starts (<!---->, <?a?>) is found without a call; the rest by
// bytes.Index, which stays linear however many first octets there are.
func xmlIndexPair(p []byte, i int, sep string) int {
	if i+1 < len(p) && p[i] == sep[0] && p[i+1] == sep[1] {
		return i
	}
	if k := bytes.Index(p[i:], []byte(sep)); k >= 0 {
		return i + k
	}
	return -1
}

// attr reads what follows in a start tag: an attribute or the tag's end.
func (lx *xmlLexer) attr() *xmlToken {
	p := lx.p
	i := xmlSkipSpace(p, lx.i)
	if i >= len(p) {
		return lx.fail(lx.i)
	}
	switch p[i] {
	case '/':
		if i+1 >= len(p) || p[i+1] != '>' {
			return lx.fail(i)
		}
		lx.i, lx.inTag = i+2, false
		t := lx.set(xmlStartEnd, i, i+2)
		t.empty = true
		return t
	case '>':
		lx.i, lx.inTag = i+1, false
		return lx.set(xmlStartEnd, i, i+1)
	}
	name := [2]int{i, xmlNameEnd(p, i)}
	if name[1] == i {
		return lx.fail(i)
	}
	j := xmlSkipSpace(p, name[1])
	if j >= len(p) {
		return lx.fail(i)
	}
	if p[j] != '=' {
		// Strict off: an attribute without a value has its name as value.
		lx.i = j
		return lx.set(xmlAttr, i, name[1]).named(name[0], name[1]).valued(name[0], name[1], false)
	}
	j = xmlSkipSpace(p, j+1)
	if j >= len(p) {
		return lx.fail(i)
	}
	if q := p[j]; q == '"' || q == '\'' {
		k := bytes.IndexByte(p[j+1:], q)
		if k < 0 || bytes.IndexByte(p[j+1:j+1+k], '<') >= 0 {
			return lx.fail(i)
		}
		lx.i = j + 1 + k + 1
		return lx.set(xmlAttr, i, lx.i).named(name[0], name[1]).valued(j+1, j+1+k, true)
	}
	// Strict off: an unquoted value, possibly empty.
	k := j
	for k < len(p) && xmlOctets[p[k]]&xmlUnquotedOctet != 0 {
		k++
	}
	lx.i = k
	return lx.set(xmlAttr, i, k).named(name[0], name[1]).valued(j, k, false)
}

// fail notes a syntax error at i and returns the rest of the body from i
// as an xmlBroken token.
func (lx *xmlLexer) fail(i int) *xmlToken {
	lx.i, lx.inTag, lx.broken = len(lx.p), false, true
	return lx.set(xmlBroken, i, len(lx.p)).valued(i, len(lx.p), true)
}

// xmlNameEnd returns the end of the name that starts at p[i]: the octets
// encoding/xml reads as a name, ASCII letters, digits, '_', ':', '.', '-'
// and every octet from 0x80 up. It returns i when there is none.
func xmlNameEnd(p []byte, i int) int {
	for i < len(p) && xmlOctets[p[i]]&xmlNameOctet != 0 {
		i++
	}
	return i
}

// xmlNameByte reports whether the octet c, below 0x80, may be part of a
// name.
func xmlNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// xmlUnquotedByte reports whether c may be part of an unquoted attribute
// value, which encoding/xml reads with Strict off.
func xmlUnquotedByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '-'
}

// xmlSpace reports whether c is XML white space (SP, TAB, CR, LF).
func xmlSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// xmlSkipSpace returns the offset of the first octet of p from i on that
// is not XML white space.
func xmlSkipSpace(p []byte, i int) int {
	for i < len(p) && xmlOctets[p[i]]&xmlSpaceOctet != 0 {
		i++
	}
	return i
}

// The classes of xmlOctets. A markup-heavy body is a run of short names
// and spaces, each octet of which a table looks up faster than a chain of
// comparisons.
const (
	xmlNameOctet     = 1 << iota // part of a name (xmlNameEnd)
	xmlSpaceOctet                // white space (xmlSpace)
	xmlUnquotedOctet             // part of an unquoted value (xmlUnquotedByte)
	xmlTextOctet                 // '<' or '&', which end a run of plain text
)

// xmlOctets holds the classes of each octet.
var xmlOctets = func() (t [256]uint8) {
	for c := range t {
		b := byte(c)
		if b >= utf8.RuneSelf || xmlNameByte(b) {
			t[c] |= xmlNameOctet
		}
		if xmlSpace(b) {
			t[c] |= xmlSpaceOctet
		}
		if xmlUnquotedByte(b) {
			t[c] |= xmlUnquotedOctet
		}
		if b == '<' || b == '&' {
			t[c] |= xmlTextOctet
		}
	}
	return t
}()

// xmlOffset is the integer type an xmlFrame (and canonXML's pieces of
// text) holds body offsets in: uint32 for the bodies a route accepts in
// practice, to halve the working memory per open element, uint64 for the
// others.
type xmlOffset interface{ ~uint32 | ~uint64 }

// xmlFrame is an open element: the offset of the first octet of its name,
// whose end xmlNameEnd finds again (as the lexer found it), and, for
// canonXML, the index in xmlCanon.pieces of its first piece of text. Eight
// octets an element, not the thirty-two of offsets as ints: a body of
// nested elements holds one frame for every few octets.
type xmlFrame[R xmlOffset] struct {
	name, pieces R
}

// nameOf returns the name of the element f in p.
func nameOf[R xmlOffset](p []byte, f xmlFrame[R]) []byte {
	n0 := int(f.name)
	return p[n0:xmlNameEnd(p, n0)]
}

// xmlClose returns the index in open of the element that an end tag with
// the given name closes: the innermost open element of that name, or 0
// (all of them) when none has it. This is encoding/xml with Strict off,
// which closes every element above the one named, and all of them, before
// it fails, when none is; with Strict on the two differ only where the
// decoder fails.
func xmlClose[R xmlOffset](p []byte, open []xmlFrame[R], name [2]int) int {
	n := p[name[0]:name[1]]
	for k := len(open) - 1; k >= 0; k-- {
		if bytes.Equal(nameOf(p, open[k]), n) {
			return k
		}
	}
	return 0
}

// xmlPath returns the element path of open, and attr ("/@name") when it
// is not empty.
func xmlPath[R xmlOffset](p []byte, open []xmlFrame[R], attr [2]int) string {
	var b strings.Builder
	for _, f := range open {
		b.WriteByte('/')
		b.Write(nameOf(p, f))
	}
	if attr[1] > attr[0] {
		b.WriteString("/@")
		b.Write(p[attr[0]:attr[1]])
	}
	return b.String()
}

// xmlPathAt returns the element path (see checkXML) of the token of body
// that holds offset off.
func xmlPathAt(body []byte, off int) string {
	lx := xmlLexer{p: body}
	var open []xmlFrame[uint64] // a rejection's path: not worth compacting
	for {
		t := lx.next()
		switch t.kind {
		case xmlEOF:
			return xmlPath(body, open, [2]int{})
		case xmlStart:
			open = append(open, xmlFrame[uint64]{name: uint64(t.name[0])})
		case xmlAttr:
			if off < t.to {
				return xmlPath(body, open, t.name)
			}
			continue
		}
		if off < t.to {
			return xmlPath(body, open, [2]int{})
		}
		switch t.kind {
		case xmlStartEnd:
			if t.empty {
				open = open[:len(open)-1]
			}
		case xmlEnd:
			open = open[:xmlClose(body, open, t.name)]
		}
	}
}

// The tag machine.
//
// xmlTags reads markup as xmlScanUnits does where forbid holds no BOM,
// with a state machine rather than branches: dense markup in a random
// order makes every branch on what comes next a miss, and a miss costs
// more than the octets it decides. The machine takes two octets a step:
// the class of each (xmlTagClass), the pair's index into the tables of
// the state it is in, and from there the next state, whether to act and
// whether a unit starts, all loaded and none branched on but the rare
// action. The states follow xmlScanUnit's reading of each kind of markup;
// where it must decide something the machine does not know (a reference,
// a target that may be "xml", a CDATA section, a directive, any syntax
// error), it acts: a reference is checked where it is, the rest is handed
// to xmlScanUnit at the start of the unit it is in (the last '<' of
// markup, or the last attribute, which the machine notes as it goes), and
// the machine goes on where the unit ends.

// The classes of octets, as the tag machine tells them apart.
const (
	xtOther    = iota // none of the below
	xtNameU           // a name octet that may be in an unquoted value: [A-Za-z0-9_:]
	xtNameOnly        // a name octet that may not: '.' and every octet from 0x80 up
	xtDash            // '-': a name octet, in unquoted values, and what ends a comment
	xtLT              // '<'
	xtGT              // '>'
	xtSlash           // '/'
	xtQuestion        // '?'
	xtBang            // '!'
	xtEquals          // '='
	xtDQuote          // '"'
	xtSQuote          // '\''
	xtAmp             // '&'
	xtSpace           // XML white space
	xtClasses
)

// xmlTagClass holds the class of each octet.
var xmlTagClass = func() (t [256]uint8) {
	for c := range t {
		b := byte(c)
		switch {
		case b == '-':
			t[c] = xtDash
		case b >= utf8.RuneSelf || b == '.':
			t[c] = xtNameOnly
		case xmlUnquotedByte(b):
			t[c] = xtNameU
		case xmlSpace(b):
			t[c] = xtSpace
		default:
			// The markup octets, in the order of their classes.
			if k := strings.IndexByte("<>/?!=\"'&", b); k >= 0 {
				t[c] = uint8(xtLT + k)
			}
		}
	}
	return t
}()

// The states of the tag machine.
const (
	xsText          = iota // in text, or between units in text mode
	xsLT                   // after '<'
	xsEnd0                 // after "</"
	xsEndName              // in an end tag's name
	xsEndSpace             // after an end tag's name and white space
	xsPI0                  // after "<?"
	xsPIName1              // after a target's first octet
	xsPIName2              // after its second
	xsPIName3              // after its third: it may be "xml"
	xsPINameN              // after more
	xsPI                   // in an instruction's content
	xsPIQuestion           // after '?' there
	xsBang                 // after "<!"
	xsBangDash             // after "<!-"
	xsComment              // in a comment
	xsCommentDash          // after '-' there
	xsCommentDashes        // after "--": '>' must follow
	xsTagName              // in a start tag's name
	xsTag                  // in a start tag, where an attribute or the end may start
	xsSlash                // after '/' in a start tag
	xsAttrName             // in an attribute's name
	xsAttrSpace            // after an attribute's name and white space
	xsEquals               // after '=' and white space
	xsUnquoted             // in an unquoted value
	xsDQuoted              // in a value in double quotes
	xsSQuoted              // in a value in single quotes
	xsUnit                 // handed to xmlScanUnit: the table's rows go nowhere
	xsStates
)

// The actions of the tag machine, each at the first or second octet of the
// pair (the low bit of xmlTagAct's high nibble).
const (
	xaNone    = iota
	xaUnit    // hand the unit that holds the octet to xmlScanUnit
	xaText    // a reference in text
	xaDQuoted // a reference in a value in double quotes
	xaSQuoted // a reference in a value in single quotes
	xaTarget  // the octet ends a target of three octets
)

// The starts of units the tag machine notes, at the first or the second
// octet of a pair: the '<' of markup, in text mode, and the first octet of
// an attribute, in tag mode.
const (
	xmNone = iota
	xmMarkup0
	xmMarkup1
	xmAttr0
	xmAttr1
)

// xmlTagStep is the machine one octet at a time, from which the tables
// are made: the next state from state s on an octet of class c, the action
// and whether a unit starts there (xmMarkup0, xmAttr0 or xmNone).
func xmlTagStep(s, c int) (next, act, mark int) {
	name := c == xtNameU || c == xtNameOnly || c == xtDash
	// inTag is the state after an attribute, or where one may start.
	inTag := func() (int, int, int) {
		switch {
		case c == xtSpace:
			return xsTag, xaNone, xmNone
		case c == xtGT:
			return xsText, xaNone, xmNone
		case c == xtSlash:
			return xsSlash, xaNone, xmNone
		case name:
			return xsAttrName, xaNone, xmAttr0
		}
		return xsUnit, xaUnit, xmNone
	}
	unit := func() (int, int, int) { return xsUnit, xaUnit, xmNone }
	afterTarget := func() (int, int, int) {
		if c == xtQuestion {
			return xsPIQuestion, xaNone, xmNone
		}
		return xsPI, xaNone, xmNone
	}
	switch s {
	case xsText:
		switch c {
		case xtLT:
			return xsLT, xaNone, xmMarkup0
		case xtAmp:
			return xsText, xaText, xmNone
		}
		return xsText, xaNone, xmNone
	case xsLT:
		switch {
		case c == xtSlash:
			return xsEnd0, xaNone, xmNone
		case c == xtQuestion:
			return xsPI0, xaNone, xmNone
		case c == xtBang:
			return xsBang, xaNone, xmNone
		case name:
			return xsTagName, xaNone, xmNone
		}
		return unit()
	case xsEnd0:
		if name {
			return xsEndName, xaNone, xmNone
		}
		return unit()
	case xsEndName, xsEndSpace:
		switch {
		case name && s == xsEndName:
			return xsEndName, xaNone, xmNone
		case c == xtSpace:
			return xsEndSpace, xaNone, xmNone
		case c == xtGT:
			return xsText, xaNone, xmNone
		}
		return unit()
	case xsPI0:
		if name {
			return xsPIName1, xaNone, xmNone
		}
		return unit()
	case xsPIName1, xsPIName2:
		if name {
			return s + 1, xaNone, xmNone
		}
		return afterTarget()
	case xsPIName3:
		if name {
			return xsPINameN, xaNone, xmNone
		}
		return xsUnit, xaTarget, xmNone
	case xsPINameN:
		if name {
			return xsPINameN, xaNone, xmNone
		}
		return afterTarget()
	case xsPI, xsPIQuestion:
		switch {
		case c == xtQuestion:
			return xsPIQuestion, xaNone, xmNone
		case c == xtGT && s == xsPIQuestion:
			return xsText, xaNone, xmNone
		}
		return xsPI, xaNone, xmNone
	case xsBang:
		if c == xtDash {
			return xsBangDash, xaNone, xmNone
		}
		return unit() // a CDATA section, a directive or an error
	case xsBangDash:
		if c == xtDash {
			return xsComment, xaNone, xmNone
		}
		return unit()
	case xsComment:
		if c == xtDash {
			return xsCommentDash, xaNone, xmNone
		}
		return xsComment, xaNone, xmNone
	case xsCommentDash:
		if c == xtDash {
			return xsCommentDashes, xaNone, xmNone
		}
		return xsComment, xaNone, xmNone
	case xsCommentDashes:
		if c == xtGT {
			return xsText, xaNone, xmNone
		}
		return unit()
	case xsTagName:
		if name {
			return xsTagName, xaNone, xmNone
		}
		if c == xtSpace || c == xtGT || c == xtSlash {
			return inTag()
		}
		return unit()
	case xsTag:
		return inTag()
	case xsSlash:
		if c == xtGT {
			return xsText, xaNone, xmNone
		}
		return unit()
	case xsAttrName, xsAttrSpace:
		switch {
		case name && s == xsAttrName:
			return xsAttrName, xaNone, xmNone
		case c == xtSpace:
			return xsAttrSpace, xaNone, xmNone
		case c == xtEquals:
			return xsEquals, xaNone, xmNone
		}
		return inTag() // Strict off: the name is the value
	case xsEquals:
		switch c {
		case xtSpace:
			return xsEquals, xaNone, xmNone
		case xtDQuote:
			return xsDQuoted, xaNone, xmNone
		case xtSQuote:
			return xsSQuoted, xaNone, xmNone
		case xtNameU, xtDash:
			return xsUnquoted, xaNone, xmNone
		}
		return inTag() // an empty unquoted value
	case xsUnquoted:
		if c == xtNameU || c == xtDash {
			return xsUnquoted, xaNone, xmNone
		}
		return inTag()
	case xsDQuoted, xsSQuoted:
		q, a := xtDQuote, xaDQuoted
		if s == xsSQuoted {
			q, a = xtSQuote, xaSQuoted
		}
		switch c {
		case q:
			return xsTag, xaNone, xmNone
		case xtLT:
			return unit()
		case xtAmp:
			return s, a, xmNone
		}
		return s, xaNone, xmNone
	}
	return unit()
}

// The tables of the tag machine, indexed by a state times 256 plus the
// classes of a pair of octets, the first times 16: the next state, times
// 256; and the action (times 8, plus 8 when at the second octet) plus the
// start of a unit (xmMarkup0 and the others), in one octet.
var xmlTagNext, xmlTagAct = func() (next [xsStates * 256]uint16, act [xsStates * 256]uint8) {
	for s := range xsStates {
		for c0 := range xtClasses {
			for c1 := range xtClasses {
				x := s<<8 | c0<<4 | c1
				s1, a0, m0 := xmlTagStep(s, c0)
				if a0 != xaNone {
					next[x], act[x] = xsUnit<<8, uint8(a0<<4|m0)
					continue
				}
				s2, a1, m1 := xmlTagStep(s1, c1)
				m := m0
				if m1 != xmNone {
					if m0 != xmNone {
						panic("middleware: two units start in a pair")
					}
					m = m1 + 1 // xmMarkup1, xmAttr1
				}
				a := 0
				if a1 != xaNone {
					a = a1<<1 | 1
				}
				next[x], act[x] = uint16(s2)<<8, uint8(a<<3|m)
			}
		}
	}
	return
}()
