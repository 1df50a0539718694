// Package xmllex is the XML lexer of the middleware's XML check: tokens
// (text, tags, attributes, comments, processing instructions, CDATA,
// directives) over a body held in memory, as offsets into it, without
// decoding or copying anything, and the octet classes and the two-octet
// tag machine that make it fast; and the readers of XML's references and
// declarations (Ref, ForeignEncoding), which the XML check and the escape
// scan of every text body share. It knows nothing of policies or
// rejections: the XML engine (package xmlbody) reads its tokens
// and decides.
package xmllex

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// The lexer.
//
// Lexer cuts an XML body into the tokens encoding/xml's Decoder reads
// (RawToken), at the same places: text runs up to the next '<', start tags
// (name, then one token per attribute, then the end of the tag), end tags,
// comments, processing instructions, CDATA sections and directives. It
// does not check names against XML's Name production, nor nesting, nor
// "]]>" in text: where encoding/xml fails on those, it stops for good, so
// what the lexer makes of the rest is never decoded. Where encoding/xml
// with Strict off reads on (an attribute without '=' has its name as
// value; an unquoted value is a run of [A-Za-z0-9_:-]), so does the lexer.
// At every other syntax error it notices, the lexer returns the rest of the
// body as one Broken token, to be checked as character data.

// Kind is the kind of an Token.
type Kind uint8

const (
	EOF       Kind = iota
	Text           // character data between markup; val may hold references
	CDATA          // a CDATA section; val is its content, literal
	Comment        // a comment; val is its content
	PI             // a processing instruction; name is its target, val its content
	Directive      // <!DOCTYPE ...> and the like; val is what lies between "<!" and '>'
	Start          // the '<' and name of a start tag; its attributes and StartEnd follow
	Attr           // an attribute: name and val, which has references when refs
	StartEnd       // the '>' or "/>" (empty) that ends a start tag
	End            // an end tag; name is the element's
	Broken         // the rest of the body after a syntax error; val may hold references
)

// Token is one token: its octets p[from:to] and, by kind, the offsets
// of its name and its value.
type Token struct {
	Kind     Kind
	From, To int
	Name     [2]int
	Val      [2]int
	Refs     bool // val is quoted text, where references are decoded
	Empty    bool // StartEnd: "/>"
}

// Lexer is the state of the lexer over p.
type Lexer struct {
	P      []byte
	I      int  // where the next token starts
	InTag  bool // between the attributes of a start tag
	Broken bool // a syntax error was met: the rest was one Broken token
	T      Token
}

// Set makes the token of kind k over p[from:to] the current one, with no
// name or value, and returns it for the caller to fill in. It writes the
// fields one by one: a whole Token built and copied costs more than the
// rest of a short token's lexing.
func (lx *Lexer) Set(k Kind, from, to int) *Token {
	t := &lx.T
	t.Kind, t.From, t.To = k, from, to
	t.Name[0], t.Name[1], t.Val[0], t.Val[1] = 0, 0, 0, 0
	t.Refs, t.Empty = false, false
	return t
}

// Named sets the name of t and returns it.
func (t *Token) Named(n0, n1 int) *Token {
	t.Name[0], t.Name[1] = n0, n1
	return t
}

// Valued sets the value of t, and whether it holds references, and
// returns it.
func (t *Token) Valued(v0, v1 int, refs bool) *Token {
	t.Val[0], t.Val[1], t.Refs = v0, v1, refs
	return t
}

// Next returns the next token, or one of kind EOF at the end of p. The
// token is the lexer's own, valid until the Next call.
func (lx *Lexer) Next() *Token {
	p, i := lx.P, lx.I
	switch {
	case i >= len(p):
		return lx.Set(EOF, len(p), len(p))
	case lx.InTag:
		return lx.Attr()
	case p[i] != '<':
		end := len(p)
		if k := bytes.IndexByte(p[i:], '<'); k >= 0 {
			end = i + k
		}
		lx.I = end
		return lx.Set(Text, i, end).Valued(i, end, true)
	case i+1 >= len(p):
		return lx.Fail(i)
	}
	switch p[i+1] {
	case '/':
		n0 := i + 2
		n1 := NameEnd(p, n0)
		if n1 == n0 {
			return lx.Fail(i)
		}
		j := SkipSpace(p, n1)
		if j >= len(p) || p[j] != '>' {
			return lx.Fail(i)
		}
		lx.I = j + 1
		return lx.Set(End, i, j+1).Named(n0, n1)
	case '?':
		n0 := i + 2
		n1 := NameEnd(p, n0)
		if n1 == n0 {
			return lx.Fail(i)
		}
		j := SkipSpace(p, n1)
		k := IndexPair(p, j, "?>")
		if k < 0 {
			return lx.Fail(i)
		}
		lx.I = k + 2
		return lx.Set(PI, i, lx.I).Named(n0, n1).Valued(j, k, false)
	case '!':
		return lx.Bang(i)
	}
	n0 := i + 1
	n1 := NameEnd(p, n0)
	if n1 == n0 {
		return lx.Fail(i)
	}
	lx.I, lx.InTag = n1, true
	return lx.Set(Start, i, n1).Named(n0, n1)
}

// Bang reads the markup at p[i:] that starts "<!": a comment, a CDATA
// section or a directive. A directive ends at the first '>' outside quotes
// that closes no '<' opened inside it, comments inside it skipped, as
// encoding/xml reads it (the octet after "<!" counts as neither).
func (lx *Lexer) Bang(i int) *Token {
	p := lx.P
	if i+2 >= len(p) {
		return lx.Fail(i)
	}
	switch p[i+2] {
	case '-':
		if i+3 >= len(p) || p[i+3] != '-' {
			return lx.Fail(i)
		}
		s := i + 4
		k := CommentEnd(p, s)
		if k < 0 {
			return lx.Fail(i)
		}
		lx.I = k + 3
		return lx.Set(Comment, i, lx.I).Valued(s, k, false)
	case '[':
		if !bytes.HasPrefix(p[i+3:], []byte("CDATA[")) {
			return lx.Fail(i)
		}
		s := i + 9
		k := CDATAEnd(p, s)
		if k < 0 {
			return lx.Fail(i)
		}
		lx.I = k + 3
		return lx.Set(CDATA, i, lx.I).Valued(s, k, false)
	}
	depth := 0
	for k := i + 3; k < len(p); k++ {
		c := p[k]
		switch {
		case c == '>' && depth == 0:
			lx.I = k + 1
			return lx.Set(Directive, i, k+1).Valued(i+2, k, false)
		case c == '"' || c == '\'':
			// Quoted: everything up to the same quote, at once (an
			// entity value is most of a DTD).
			q := bytes.IndexByte(p[k+1:], c)
			if q < 0 {
				return lx.Fail(i)
			}
			k += 1 + q
		case c == '>':
			depth--
		case c == '<' && bytes.HasPrefix(p[k+1:], []byte("!--")):
			e := bytes.Index(p[k+4:], []byte("-->"))
			if e < 0 {
				return lx.Fail(i)
			}
			k += 4 + e + 2 // at the '>'
		case c == '<':
			depth++
		}
	}
	return lx.Fail(i)
}

// CommentEnd returns the offset of the "--" that ends the comment
// whose content starts at p[s], or -1 where encoding/xml fails: at the
// first "--", which must be followed by '>', or at the end of p.
func CommentEnd(p []byte, s int) int {
	k := IndexPair(p, s, "--")
	if k < 0 || k+2 >= len(p) || p[k+2] != '>' {
		return -1
	}
	return k
}

// CDATAEnd returns the offset of the "]]>" that ends the CDATA section
// whose content starts at p[s], or -1.
func CDATAEnd(p []byte, s int) int {
	if s+2 < len(p) && p[s] == ']' && p[s+1] == ']' && p[s+2] == '>' {
		return s // empty: no call
	}
	if k := bytes.Index(p[s:], []byte("]]>")); k >= 0 {
		return s + k
	}
	return -1
}

// IndexPair returns the offset of the first occurrence of the two
// octets sep in p from i on, or -1. Markup that ends where its content
// starts (<!---->, <?a?>) is found without a call; the rest by
// bytes.Index, which stays linear however many first octets there are.
func IndexPair(p []byte, i int, sep string) int {
	if i+1 < len(p) && p[i] == sep[0] && p[i+1] == sep[1] {
		return i
	}
	if k := bytes.Index(p[i:], []byte(sep)); k >= 0 {
		return i + k
	}
	return -1
}

// Attr reads what follows in a start tag: an attribute or the tag's end.
func (lx *Lexer) Attr() *Token {
	p := lx.P
	i := SkipSpace(p, lx.I)
	if i >= len(p) {
		return lx.Fail(lx.I)
	}
	switch p[i] {
	case '/':
		if i+1 >= len(p) || p[i+1] != '>' {
			return lx.Fail(i)
		}
		lx.I, lx.InTag = i+2, false
		t := lx.Set(StartEnd, i, i+2)
		t.Empty = true
		return t
	case '>':
		lx.I, lx.InTag = i+1, false
		return lx.Set(StartEnd, i, i+1)
	}
	name := [2]int{i, NameEnd(p, i)}
	if name[1] == i {
		return lx.Fail(i)
	}
	j := SkipSpace(p, name[1])
	if j >= len(p) {
		return lx.Fail(i)
	}
	if p[j] != '=' {
		// Strict off: an attribute without a value has its name as value.
		lx.I = j
		return lx.Set(Attr, i, name[1]).Named(name[0], name[1]).Valued(name[0], name[1], false)
	}
	j = SkipSpace(p, j+1)
	if j >= len(p) {
		return lx.Fail(i)
	}
	if q := p[j]; q == '"' || q == '\'' {
		k := bytes.IndexByte(p[j+1:], q)
		if k < 0 || bytes.IndexByte(p[j+1:j+1+k], '<') >= 0 {
			return lx.Fail(i)
		}
		lx.I = j + 1 + k + 1
		return lx.Set(Attr, i, lx.I).Named(name[0], name[1]).Valued(j+1, j+1+k, true)
	}
	// Strict off: an unquoted value, possibly empty.
	k := j
	for k < len(p) && Octets[p[k]]&UnquotedOctet != 0 {
		k++
	}
	lx.I = k
	return lx.Set(Attr, i, k).Named(name[0], name[1]).Valued(j, k, false)
}

// Fail notes a syntax error at i and returns the rest of the body from i
// as an Broken token.
func (lx *Lexer) Fail(i int) *Token {
	lx.I, lx.InTag, lx.Broken = len(lx.P), false, true
	return lx.Set(Broken, i, len(lx.P)).Valued(i, len(lx.P), true)
}

// NameEnd returns the end of the name that starts at p[i]: the octets
// encoding/xml reads as a name, ASCII letters, digits, '_', ':', '.', '-'
// and every octet from 0x80 up. It returns i when there is none.
func NameEnd(p []byte, i int) int {
	for i < len(p) && Octets[p[i]]&NameOctet != 0 {
		i++
	}
	return i
}

// NameByte reports whether the octet c, below 0x80, may be part of a
// name.
func NameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// UnquotedByte reports whether c may be part of an unquoted attribute
// value, which encoding/xml reads with Strict off.
func UnquotedByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '-'
}

// Space reports whether c is XML white space (SP, TAB, CR, LF).
func Space(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// SkipSpace returns the offset of the first octet of p from i on that
// is not XML white space.
func SkipSpace(p []byte, i int) int {
	for i < len(p) && Octets[p[i]]&SpaceOctet != 0 {
		i++
	}
	return i
}

// The classes of Octets. A markup-heavy body is a run of short names
// and spaces, each octet of which a table looks up faster than a chain of
// comparisons.
const (
	NameOctet     = 1 << iota // part of a name (NameEnd)
	SpaceOctet                // white space (Space)
	UnquotedOctet             // part of an unquoted value (UnquotedByte)
	TextOctet                 // '<' or '&', which end a run of plain text
)

// Octets holds the classes of each octet.
var Octets = func() (t [256]uint8) {
	for c := range t {
		b := byte(c)
		if b >= utf8.RuneSelf || NameByte(b) {
			t[c] |= NameOctet
		}
		if Space(b) {
			t[c] |= SpaceOctet
		}
		if UnquotedByte(b) {
			t[c] |= UnquotedOctet
		}
		if b == '<' || b == '&' {
			t[c] |= TextOctet
		}
	}
	return t
}()

// Offset is the integer type an Frame (and canonXML's pieces of
// text) holds body offsets in: uint32 for the bodies a route accepts in
// practice, to halve the working memory per open element, uint64 for the
// others.
type Offset interface{ ~uint32 | ~uint64 }

// Frame is an open element: the offset of the first octet of its name,
// whose end NameEnd finds again (as the lexer found it), and, for
// canonXML, the index in xmlCanon.pieces of its first piece of text. Eight
// octets an element, not the thirty-two of offsets as ints: a body of
// nested elements holds one frame for every few octets.
type Frame[R Offset] struct {
	Name, Pieces R
}

// NameOf returns the name of the element f in p.
func NameOf[R Offset](p []byte, f Frame[R]) []byte {
	n0 := int(f.Name)
	return p[n0:NameEnd(p, n0)]
}

// Close returns the index in open of the element that an end tag with
// the given name closes: the innermost open element of that name, or 0
// (all of them) when none has it. This is encoding/xml with Strict off,
// which closes every element above the one named, and all of them, before
// it fails, when none is; with Strict on the two differ only where the
// decoder fails.
func Close[R Offset](p []byte, open []Frame[R], name [2]int) int {
	n := p[name[0]:name[1]]
	for k := len(open) - 1; k >= 0; k-- {
		if bytes.Equal(NameOf(p, open[k]), n) {
			return k
		}
	}
	return 0
}

// Path returns the element path of open, and attr ("/@name") when it
// is not empty.
func Path[R Offset](p []byte, open []Frame[R], attr [2]int) string {
	var b strings.Builder
	for _, f := range open {
		b.WriteByte('/')
		b.Write(NameOf(p, f))
	}
	if attr[1] > attr[0] {
		b.WriteString("/@")
		b.Write(p[attr[0]:attr[1]])
	}
	return b.String()
}

// PathAt returns the element path (see checkXML) of the token of body
// that holds offset off.
func PathAt(body []byte, off int) string {
	lx := Lexer{P: body}
	var open []Frame[uint64] // a rejection's path: not worth compacting
	for {
		t := lx.Next()
		switch t.Kind {
		case EOF:
			return Path(body, open, [2]int{})
		case Start:
			open = append(open, Frame[uint64]{Name: uint64(t.Name[0])})
		case Attr:
			if off < t.To {
				return Path(body, open, t.Name)
			}
			continue
		}
		if off < t.To {
			return Path(body, open, [2]int{})
		}
		switch t.Kind {
		case StartEnd:
			if t.Empty {
				open = open[:len(open)-1]
			}
		case End:
			open = open[:Close(body, open, t.Name)]
		}
	}
}

// The tag machine.
//
// xmlTags reads markup as xmlScanUnits does where forbid holds no BOM,
// with a state machine rather than branches: dense markup in a random
// order makes every branch on what comes next a miss, and a miss costs
// more than the octets it decides. The machine takes two octets a step:
// the class of each (TagClass), the pair's index into the tables of
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
	XtOther    = iota // none of the below
	XtNameU           // a name octet that may be in an unquoted value: [A-Za-z0-9_:]
	XtNameOnly        // a name octet that may not: '.' and every octet from 0x80 up
	XtDash            // '-': a name octet, in unquoted values, and what ends a comment
	XtLT              // '<'
	XtGT              // '>'
	XtSlash           // '/'
	XtQuestion        // '?'
	XtBang            // '!'
	XtEquals          // '='
	XtDQuote          // '"'
	XtSQuote          // '\''
	XtAmp             // '&'
	XtSpace           // XML white space
	XtClasses
)

// TagClass holds the class of each octet.
var TagClass = func() (t [256]uint8) {
	for c := range t {
		b := byte(c)
		switch {
		case b == '-':
			t[c] = XtDash
		case b >= utf8.RuneSelf || b == '.':
			t[c] = XtNameOnly
		case UnquotedByte(b):
			t[c] = XtNameU
		case Space(b):
			t[c] = XtSpace
		default:
			// The markup octets, in the order of their classes.
			if k := strings.IndexByte("<>/?!=\"'&", b); k >= 0 {
				t[c] = uint8(XtLT + k)
			}
		}
	}
	return t
}()

// The states of the tag machine.
const (
	XsText          = iota // in text, or between units in text mode
	XsLT                   // after '<'
	XsEnd0                 // after "</"
	XsEndName              // in an end tag's name
	XsEndSpace             // after an end tag's name and white space
	XsPI0                  // after "<?"
	XsPIName1              // after a target's first octet
	XsPIName2              // after its second
	XsPIName3              // after its third: it may be "xml"
	XsPINameN              // after more
	XsPI                   // in an instruction's content
	XsPIQuestion           // after '?' there
	XsBang                 // after "<!"
	XsBangDash             // after "<!-"
	XsComment              // in a comment
	XsCommentDash          // after '-' there
	XsCommentDashes        // after "--": '>' must follow
	XsTagName              // in a start tag's name
	XsTag                  // in a start tag, where an attribute or the end may start
	XsSlash                // after '/' in a start tag
	XsAttrName             // in an attribute's name
	XsAttrSpace            // after an attribute's name and white space
	XsEquals               // after '=' and white space
	XsUnquoted             // in an unquoted value
	XsDQuoted              // in a value in double quotes
	XsSQuoted              // in a value in single quotes
	XsUnit                 // handed to xmlScanUnit: the table's rows go nowhere
	XsStates
)

// The actions of the tag machine, each at the first or second octet of the
// pair (the low bit of TagAct's high nibble).
const (
	XaNone    = iota
	XaUnit    // hand the unit that holds the octet to xmlScanUnit
	XaText    // a reference in text
	XaDQuoted // a reference in a value in double quotes
	XaSQuoted // a reference in a value in single quotes
	XaTarget  // the octet ends a target of three octets
)

// The starts of units the tag machine notes, at the first or the second
// octet of a pair: the '<' of markup, in text mode, and the first octet of
// an attribute, in tag mode.
const (
	XmNone = iota
	XmMarkup0
	XmMarkup1
	XmAttr0
	XmAttr1
)

// TagStep is the machine one octet at a time, from which the tables
// are made: the next state from state s on an octet of class c, the action
// and whether a unit starts there (XmMarkup0, XmAttr0 or XmNone).
func TagStep(s, c int) (next, act, mark int) {
	name := c == XtNameU || c == XtNameOnly || c == XtDash
	// inTag is the state after an attribute, or where one may start.
	inTag := func() (int, int, int) {
		switch {
		case c == XtSpace:
			return XsTag, XaNone, XmNone
		case c == XtGT:
			return XsText, XaNone, XmNone
		case c == XtSlash:
			return XsSlash, XaNone, XmNone
		case name:
			return XsAttrName, XaNone, XmAttr0
		}
		return XsUnit, XaUnit, XmNone
	}
	unit := func() (int, int, int) { return XsUnit, XaUnit, XmNone }
	afterTarget := func() (int, int, int) {
		if c == XtQuestion {
			return XsPIQuestion, XaNone, XmNone
		}
		return XsPI, XaNone, XmNone
	}
	switch s {
	case XsText:
		switch c {
		case XtLT:
			return XsLT, XaNone, XmMarkup0
		case XtAmp:
			return XsText, XaText, XmNone
		}
		return XsText, XaNone, XmNone
	case XsLT:
		switch {
		case c == XtSlash:
			return XsEnd0, XaNone, XmNone
		case c == XtQuestion:
			return XsPI0, XaNone, XmNone
		case c == XtBang:
			return XsBang, XaNone, XmNone
		case name:
			return XsTagName, XaNone, XmNone
		}
		return unit()
	case XsEnd0:
		if name {
			return XsEndName, XaNone, XmNone
		}
		return unit()
	case XsEndName, XsEndSpace:
		switch {
		case name && s == XsEndName:
			return XsEndName, XaNone, XmNone
		case c == XtSpace:
			return XsEndSpace, XaNone, XmNone
		case c == XtGT:
			return XsText, XaNone, XmNone
		}
		return unit()
	case XsPI0:
		if name {
			return XsPIName1, XaNone, XmNone
		}
		return unit()
	case XsPIName1, XsPIName2:
		if name {
			return s + 1, XaNone, XmNone
		}
		return afterTarget()
	case XsPIName3:
		if name {
			return XsPINameN, XaNone, XmNone
		}
		return XsUnit, XaTarget, XmNone
	case XsPINameN:
		if name {
			return XsPINameN, XaNone, XmNone
		}
		return afterTarget()
	case XsPI, XsPIQuestion:
		switch {
		case c == XtQuestion:
			return XsPIQuestion, XaNone, XmNone
		case c == XtGT && s == XsPIQuestion:
			return XsText, XaNone, XmNone
		}
		return XsPI, XaNone, XmNone
	case XsBang:
		if c == XtDash {
			return XsBangDash, XaNone, XmNone
		}
		return unit() // a CDATA section, a directive or an error
	case XsBangDash:
		if c == XtDash {
			return XsComment, XaNone, XmNone
		}
		return unit()
	case XsComment:
		if c == XtDash {
			return XsCommentDash, XaNone, XmNone
		}
		return XsComment, XaNone, XmNone
	case XsCommentDash:
		if c == XtDash {
			return XsCommentDashes, XaNone, XmNone
		}
		return XsComment, XaNone, XmNone
	case XsCommentDashes:
		if c == XtGT {
			return XsText, XaNone, XmNone
		}
		return unit()
	case XsTagName:
		if name {
			return XsTagName, XaNone, XmNone
		}
		if c == XtSpace || c == XtGT || c == XtSlash {
			return inTag()
		}
		return unit()
	case XsTag:
		return inTag()
	case XsSlash:
		if c == XtGT {
			return XsText, XaNone, XmNone
		}
		return unit()
	case XsAttrName, XsAttrSpace:
		switch {
		case name && s == XsAttrName:
			return XsAttrName, XaNone, XmNone
		case c == XtSpace:
			return XsAttrSpace, XaNone, XmNone
		case c == XtEquals:
			return XsEquals, XaNone, XmNone
		}
		return inTag() // Strict off: the name is the value
	case XsEquals:
		switch c {
		case XtSpace:
			return XsEquals, XaNone, XmNone
		case XtDQuote:
			return XsDQuoted, XaNone, XmNone
		case XtSQuote:
			return XsSQuoted, XaNone, XmNone
		case XtNameU, XtDash:
			return XsUnquoted, XaNone, XmNone
		}
		return inTag() // an empty unquoted value
	case XsUnquoted:
		if c == XtNameU || c == XtDash {
			return XsUnquoted, XaNone, XmNone
		}
		return inTag()
	case XsDQuoted, XsSQuoted:
		q, a := XtDQuote, XaDQuoted
		if s == XsSQuoted {
			q, a = XtSQuote, XaSQuoted
		}
		switch c {
		case q:
			return XsTag, XaNone, XmNone
		case XtLT:
			return unit()
		case XtAmp:
			return s, a, XmNone
		}
		return s, XaNone, XmNone
	}
	return unit()
}

// The tables of the tag machine, indexed by a state times 256 plus the
// classes of a pair of octets, the first times 16: the next state, times
// 256; and the action (times 8, plus 8 when at the second octet) plus the
// start of a unit (XmMarkup0 and the others), in one octet.
var TagNext, TagAct = func() (next [XsStates * 256]uint16, act [XsStates * 256]uint8) {
	for s := range XsStates {
		for c0 := range XtClasses {
			for c1 := range XtClasses {
				x := s<<8 | c0<<4 | c1
				s1, a0, m0 := TagStep(s, c0)
				if a0 != XaNone {
					next[x], act[x] = XsUnit<<8, uint8(a0<<4|m0)
					continue
				}
				s2, a1, m1 := TagStep(s1, c1)
				m := m0
				if m1 != XmNone {
					if m0 != XmNone {
						panic("middleware: two units start in a pair")
					}
					m = m1 + 1 // XmMarkup1, XmAttr1
				}
				a := 0
				if a1 != XaNone {
					a = a1<<1 | 1
				}
				next[x], act[x] = uint16(s2)<<8, uint8(a<<3|m)
			}
		}
	}
	return
}()
