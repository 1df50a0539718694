// Package escape is the escape scan every text body gets: it finds the
// escapes a handler's decoder of any text syntax would decode in a body
// (JSON, YAML, GraphQL and JavaScript string escapes, HTML and XML
// character references, XML declarations, YAML binary scalars) and refuses
// one that decodes to a character the location refuses. Its readers of
// one escape each (JSON, Hex4, IsSurrogate) are shared with the JSON
// check; the XML ones live in package xmllex.
//
// A handler does not always decode a body as its Content-Type says, and
// any body may reach any decoder: yaml.Unmarshal on a JSON body,
// xml.NewDecoder on a multipart body, json.NewDecoder on text/plain. A
// text/plain body {"a":"\u202e"}, or a form body ["<a>&#x202E;</a>"], is
// checked octet by octet as text, and its octets are all harmless, but
// such a handler reads a bidi control. So every body checked as text is
// also scanned for the escapes of every structured text type the strict
// preset accepts, not the declared type's alone, each where a decoder of
// that syntax would read one:
//
//   - In a double-quoted run ("..."): JSON's and JSON lines' escapes (\"
//     \\ \/ \b \f \n \r \t \uXXXX), YAML's (those, and \0 \a \v \e \N \_
//     \L \P, a space or TAB, \xXX, \UXXXXXXXX), GraphQL's (JSON's, and
//     \u{H...}) and JavaScript's (below).
//   - In a single-quoted run ('...') and a template literal (`...`):
//     JavaScript's: \b \f \n \r \t \v, \xHH, \uXXXX, \u{H...} (a \u
//     surrogate pair, in any of these syntaxes, is one character), and the
//     legacy octal escapes \0 to \377.
//   - Anywhere: the character references of HTML as html.UnescapeString
//     and golang.org/x/net/html read them (numeric ones with or without
//     ';', 'x' or 'X', U+0080-U+009F mapped as Windows-1252, the whole
//     named table with the legacy names read without ';'), which include
//     the numeric references of XML and the names of xml.HTMLEntity
//     (encoding/xml reads &#x85; as U+0085, HTML as U+2026: both count);
//     and XML declarations, <?xml ... encoding="..."?>: an XML decoder
//     with the usual CharsetReader switches charset at one, wherever it
//     stands, so one naming an encoding other than UTF-8 (or US-ASCII in
//     an all-ASCII body) is bad_charset, as xmlbody.Check has it.
//   - Anywhere: YAML's binary scalars (!!binary, !<tag:yaml.org,2002:binary>),
//     base64 that a YAML decoder decodes into a string, whatever its
//     octets: those are checked as the body's text is, and refused with the
//     reason and class of what they hold (binaryEscapes).
//
// An escape that decodes to a lone surrogate (surrogate), to a value above
// U+10FFFF (out_of_range) or to a character of a class the location
// refuses (forbidden_char) refuses the body. Where the syntaxes read an
// escape differently, every reading counts: in "\012" JavaScript reads
// LF, YAML reads NUL and "12". An escape of an allowed character ("\u00e9",
// "&#233;", "\n") passes.
//
// A run is what the scan takes for a string literal, and it cannot tell
// one from prose for sure; it fails closed where real documents still
// pass. A '"' or '`' opens a run anywhere outside one; a single quote opens one
// unless it follows a letter or digit (an apostrophe, as in "it's"), but
// for JavaScript keywords that a string may follow (return'...'). A run
// ends at its closing quote; a single-quoted one at a line end too, as a
// JavaScript string does, while a double-quoted one may span lines as
// YAML's does; a template literal's substitution, ${...}, is code again,
// where quotes open runs of their own, up to its closing brace. Within a
// run a backslash starts an escape, and "\\" is one backslash, after
// which comes text; a backslash, CR and LF is one escape, a line
// continuation, as JavaScript reads it. A run that never closes runs to
// the end of the body (a single-quoted one to its line end): which quote
// was the stray one cannot be told, so its escapes count. Outside a run
// a backslash is text: the Windows paths C:\2024\x64\files and
// C:\build\files, or \\server\share\new, in prose pass.
//
// One quote that a syntax takes for no delimiter (in a YAML, GraphQL or
// JavaScript comment, a JavaScript regular expression, a plain or block
// YAML scalar, a YAML single-quoted scalar over lines, a GraphQL block
// string) puts that tracking out of step with a decoder for the rest of
// the body, and the escapes of a string after it would be taken for
// prose. So each line that holds a backslash and a quote is also read on
// its own, with nothing kept from the lines before it (lineEscapes); a
// line ends at LF or CR. On it a backslash and the octet after it are an
// escape (an escaped quote is no quote), a single quote between two word octets
// is an apostrophe, not a quote, and the code of a template literal's
// ${...} is no string, up to the first quote in it, after which every
// escape on the line is read as in a double-quoted run. An escape is read
// as in a double-quoted run (every syntax's readings) when an odd number
// of '"' stand before it on its line, or after it (a string that opened
// on an earlier line and closes on this one); otherwise as in a
// single-quoted run (JavaScript's) when an odd number of '`' stand before
// or after it, or of single quotes before it, or after it where a single quote stands
// before it too or the line follows a line continuation (a JavaScript
// string spans lines only so). The line rule fails closed: a Windows path
// on the line of an odd quote (the users' C:\build\files) is refused,
// while one on a line whose quotes pair up, or have none, passes. What it
// cannot see is a line with no quote inside a string that spans lines
// (a YAML double-quoted scalar's, a template literal's middle lines),
// which only the tracking reads.
//
// A type added to the preset brings its escapes with it: a row of
// quotedSyntaxes, or a pass here (syntax.go).
//
// A form body is scanned whole, and each of its keys and values as
// r.FormValue returns them, percent-decoded (package middleware's
// checkFormEscapes). The text parts of a multipart body are scanned one
// by one, and its preamble and epilogue. The
// contents of its data parts, like a body of a binary type, are not read.
//
// JSON and XML bodies are checked as what they are first, by their own
// checks. The JSON check decodes every escape of a JSON string and refuses,
// as bad_escape, one that is not JSON's (\x, \0, \u{...}) or a backslash
// outside a string: no JSON decoder reads them, so only a looser one
// could. What is left in a JSON body reads alike in every syntax above,
// so there the scan looks for references and declarations only. In an
// XML body the XML check has read every reference and declaration; the scan
// looks for the quoted escapes only.
package escape

import (
	"bytes"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/middleware/internal/xmllex"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

//go:generate go run ../htmlentgen -o htmlentities.go

// Check scans body, checked as text at loc under forbid, for the
// escapes a decoder of another syntax would read that decode to a refused
// character. off is where body starts in what the log's offsets count
// from. A body without a backslash, '&', "<?" or "binary" costs four
// searches.
func Check(body []byte, loc rules.Location, forbid sanitize.Class, off int) *finding.Rejection {
	forbid &^= sanitize.BOM // a BOM counts at the start of a value, which the scan cannot tell
	var e *sanitize.Error
	if loc != rules.JSON {
		e = quotedEscapes(body, forbid)
		e = earlier(e, lineEscapes(body, forbid))
	}
	if loc != rules.XML {
		e = earlier(e, referenceEscapes(body, forbid))
		e = earlier(e, declarationEscapes(body))
	}
	e = earlier(e, binaryEscapes(body, forbid)) // yaml.go
	if e == nil {
		return nil
	}
	at := e.Offset
	e.Offset += off
	rj := finding.Reject(e, loc, "", body)
	rj.Sample = finding.Sample(body, at)
	return rj
}

// earlier returns the one of a and b that is earlier in the body, or the
// one that is not nil.
func earlier(a, b *sanitize.Error) *sanitize.Error {
	if a == nil || b != nil && b.Offset < a.Offset {
		return b
	}
	return a
}

// escapeRefused returns the error for r, decoded from an escape at off, or nil
// when it passes forbid.
func escapeRefused(r rune, off int, forbid sanitize.Class) *sanitize.Error {
	switch {
	case ' ' <= r && r < 0x7F:
		return nil // printable ASCII: of no class
	case IsSurrogate(r):
		return &sanitize.Error{Reason: sanitize.Surrogate, Offset: off}
	case r > utf8.MaxRune:
		return &sanitize.Error{Reason: sanitize.OutOfRange, Offset: off}
	}
	if cl := sanitize.ClassOf(r) & forbid; cl != 0 {
		return &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: off, Class: cl}
	}
	return nil
}

// nextOf finds the next c in a text, searching again only once the scan
// has passed the last one found: the searches of a scan cover the text
// once, however many there are.
type nextOf struct {
	at int // -1: not searched yet
	c  byte
}

func (n *nextOf) from(p []byte, i int) int {
	if n.at < i {
		n.at = octets.NextIndex(p, i, n.c)
	}
	return n.at
}

// quotedEscapes returns the first escape in a run of p that a decoder of
// quotedSyntaxes reads as a character forbid refuses, or nil.
//
// A template literal's substitution, `...${code}...`, is code, where
// quotes open runs of their own (`${`\x85`}` nests one template in
// another) and braces count, up to the '}' that closes it.
func quotedEscapes(p []byte, forbid sanitize.Class) *sanitize.Error {
	qs := quoteScan{p: p, bs: nextOf{-1, '\\'}, dq: nextOf{-1, '"'}, sq: nextOf{-1, '\''},
		bq: nextOf{-1, '`'}, lf: nextOf{-1, '\n'}, cr: nextOf{-1, '\r'}, dl: nextOf{-1, '$'}}
	// The substitutions open around i, innermost last, each with the
	// braces open in it.
	var open [8]int
	subst := open[:0]
	for i := 0; ; {
		if qs.bs.from(p, i) == len(p) {
			return nil // no more escapes (the common text has none at all)
		}
		// Outside a run: prose, whose backslashes are text, or the code
		// of a substitution.
		q, j := byte('`'), 0
		if len(subst) == 0 {
			k := qs.opening(i)
			if k == len(p) {
				return nil
			}
			q, j = p[k], k+1
		} else {
			k := substitutionStop(p, i)
			switch {
			case k == len(p):
				return nil // never closed, and holds no run
			case p[k] == '{':
				subst[len(subst)-1]++
				i = k + 1
				continue
			case p[k] == '}':
				if subst[len(subst)-1]--; subst[len(subst)-1] > 0 {
					i = k + 1
					continue
				}
				subst = subst[:len(subst)-1]
				j = k + 1 // back in the template literal
			default:
				q, j = p[k], k+1
			}
		}
		for {
			b := qs.stop(q, j)
			if b == len(p) {
				return nil // the run never closes, and holds no more escapes
			}
			if p[b] == '$' {
				if b+1 < len(p) && p[b+1] == '{' {
					subst = append(subst, 1)
					i = b + 2
					break
				}
				j = b + 1
				continue
			}
			if p[b] != '\\' {
				i = b + 1 // the run ends
				break
			}
			n, e := escapeAt(p, b, q, forbid)
			if e != nil {
				return e
			}
			j = min(b+n, len(p))
		}
	}
}

// escapeAt reads the escape at p[b] ('\\') in a run opened by q, as every
// decoder of runDecoders[q] reads it, and returns its length (the longest
// reading, at least 2) and the error for the first reading that decodes
// to a character forbid refuses, or nil.
func escapeAt(p []byte, b int, q byte, forbid sanitize.Class) (int, *sanitize.Error) {
	if r := plainEscapes[p[min(b+1, len(p)-1)]]; r != 0 && b+1 < len(p) {
		// Read alike by every syntax that reads it at all.
		return 2, escapeRefused(r, b, forbid)
	}
	if r, ok := Hex4(p, b+2); ok && p[b+1] == 'u' && !IsSurrogate(r) {
		// \uXXXX, read alike by every syntax that reads it.
		return 6, escapeRefused(r, b, forbid)
	}
	n := 2
	for _, decode := range runDecoders[q] {
		r, m := decode(p, b)
		if m == 0 {
			continue
		}
		if e := escapeRefused(r, b, forbid); e != nil {
			return n, e
		}
		n = max(n, m)
	}
	if b+2 < len(p) && p[b+1] == '\r' && p[b+2] == '\n' {
		n = max(n, 3) // one line continuation to JavaScript, not \CR then a line end
	}
	return n, nil
}

// lineEscapes returns the first escape in p that a decoder reads as a
// character forbid refuses, of those that stand, on their own line, after
// an odd number of quotes of one kind or before one (a run that opened
// on an earlier line and closes on this one), or nil. It keeps no state
// from one line to the next, so a stray quote on one line that the run
// tracking of quotedEscapes follows out of step with a decoder (one in a
// comment, a regular expression, a plain or block YAML scalar, a GraphQL
// block string) hides no escape on another. On a line, a backslash and
// the octet after it are an escape, so an escaped quote is not counted,
// and a single quote between two word octets is an apostrophe ("it's"), not
// counted either. Each line is read twice, only a line with a backslash.
func lineEscapes(p []byte, forbid sanitize.Class) *sanitize.Error {
	lf, cr := nextOf{-1, '\n'}, nextOf{-1, '\r'}
	dq, sq, bq := nextOf{-1, '"'}, nextOf{-1, '\''}, nextOf{-1, '`'}
	for i := 0; ; {
		b := octets.NextIndex(p, i, '\\')
		if b == len(p) {
			return nil
		}
		start, end := b, min(lf.from(p, b), cr.from(p, b))
		for start > i && p[start-1] != '\n' && p[start-1] != '\r' {
			start--
		}
		if min(dq.from(p, start), sq.from(p, start), bq.from(p, start)) >= end {
			// No quote on the line: its backslashes are text. (A string
			// continued from the line before is only a JavaScript
			// one, whose escapes the line holds none of but a
			// backslash's own.)
			if end == len(p) {
				return nil
			}
			i = end + 1
			continue
		}
		// total counts the quotes of the whole line, once an escape
		// after an even number of each needs it (-1: not yet).
		total := [3]int{-1}
		// A single-quoted string opened on an earlier line reaches this
		// one only through a line continuation.
		contd := start >= 2 && p[start-2] == '\\' ||
			start >= 3 && p[start-1] == '\n' && p[start-2] == '\r' && p[start-3] == '\\'
		var before [3]int
		// sub is the depth of braces in a template literal's
		// substitution, ${...}, on this line: code, whose backslashes are
		// no escapes, until a quote in it, after which the line is read
		// as if every escape stood in a string of every kind (suspect).
		sub, suspect := 0, false
		for k := start; k < end; k++ {
			for k < end && !lineStops[p[k]] {
				k++
			}
			if k == end {
				break
			}
			switch c := p[k]; {
			case c == '\\':
			case sub > 0 && (c == '"' || c == '\'' || c == '`'):
				sub, suspect = 0, true
				continue
			case sub > 0 && c == '{':
				sub++
				continue
			case sub > 0 && c == '}':
				sub--
				continue
			case sub > 0:
				continue
			case c == '$' && k+1 < end && p[k+1] == '{' && before[2]%2 == 1:
				sub = 1
				k++
				continue
			default:
				if q := lineQuote(p, k); q >= 0 {
					before[q]++
				}
				continue
			}
			if sub > 0 {
				k++ // code
				continue
			}
			// The readings of a double-quoted string include
			// JavaScript's, which are all of a single-quoted one's and a
			// template's: one kind of run is read, the widest that fits.
			q := byte(0)
			if suspect || before[0]%2 == 1 {
				q = '"'
			} else {
				if total[0] < 0 {
					total = lineQuotes(p, start, end)
				}
				after := total[1] - before[1]
				if !contd && before[1] == 0 {
					after = 0 // a JavaScript string opens on its own line, or before a continuation
				}
				switch {
				case (total[0]-before[0])%2 == 1:
					q = '"'
				case before[1]%2 == 1 || after%2 == 1 || before[2]%2 == 1 || (total[2]-before[2])%2 == 1:
					q = '`'
				}
			}
			n := 2 // a surrogate pair of escapes is one, read as a whole
			if q != 0 {
				m, e := escapeAt(p, k, q, forbid)
				if e != nil {
					return e
				}
				n = m
			}
			k += n - 1
		}
		if end == len(p) {
			return nil
		}
		i = end + 1
	}
}

// lineQuotes counts the quotes of p[start:end] by lineQuote's kinds, an
// escaped one not counted.
func lineQuotes(p []byte, start, end int) (total [3]int) {
	for k := start; k < end; k++ {
		for k < end && !lineStops[p[k]] {
			k++
		}
		if k == end {
			break
		}
		if p[k] == '\\' {
			k++
		} else if q := lineQuote(p, k); q >= 0 {
			total[q]++
		}
	}
	return total
}

// lineStops are the octets the walk of a line in lineEscapes stops at.
var lineStops = [256]bool{'\\': true, '"': true, '\'': true, '`': true, '$': true, '{': true, '}': true}

// lineQuote returns which quote p[k] is for lineEscapes: 0 for '"', 1 for
// a single quote but an apostrophe between two word octets, 2 for '`', or -1.
func lineQuote(p []byte, k int) int {
	switch p[k] {
	case '"':
		return 0
	case '\'':
		if k > 0 && k+1 < len(p) && isWordByte(p[k-1]) && isWordByte(p[k+1]) {
			return -1
		}
		return 1
	case '`':
		return 2
	}
	return -1
}

// substitutionStop returns the offset of the first quote that opens a run,
// '{' or '}' in p from i on, in the code of a substitution, or len(p).
func substitutionStop(p []byte, i int) int {
	for ; i < len(p); i++ {
		switch p[i] {
		case '"', '`', '{', '}':
			return i
		case '\'':
			if opensSingle(p, i) {
				return i
			}
		}
	}
	return i
}

// plainEscapes are the escapes every syntax of quotedSyntaxes that reads
// them reads as one character, two octets long: JSON's letters but \b \f
// \u, and JavaScript's \'.
var plainEscapes = [256]rune{'n': '\n', 'r': '\r', 't': '\t', '"': '"', '\\': '\\', '/': '/', '\'': '\''}

// quoteScan finds the runs of a text and the backslashes in them. Most
// runs, and the text between them and between escapes, are short (JSON's
// "name":"value"): each search looks at the next few octets one by one
// before it asks the cached searches of nextOf.
type quoteScan struct {
	p                          []byte
	bs, dq, sq, bq, lf, cr, dl nextOf
}

// near is how many octets a search looks at one by one.
const near = 16

// opening returns the offset of the first quote from i on that opens a run,
// or len(p).
func (qs *quoteScan) opening(i int) int {
	p := qs.p
	for k := i; k < min(i+near, len(p)); k++ {
		if c := p[k]; c == '"' || c == '`' || c == '\'' && opensSingle(p, k) {
			return k
		}
	}
	if i += near; i >= len(p) {
		return len(p)
	}
	k := min(qs.dq.from(p, i), qs.bq.from(p, i))
	for s := qs.sq.from(p, i); s < k; s = qs.sq.from(p, s+1) {
		if opensSingle(p, s) {
			return s
		}
	}
	return k
}

// stop returns the offset of the first octet from j on, in a run opened
// by q, that ends the run or is a backslash (or, in a template literal, a
// '$'), or len(p).
func (qs *quoteScan) stop(q byte, j int) int {
	p, t := qs.p, runStops[q]
	for k := j; k < min(j+near, len(p)); k++ {
		if t[p[k]] {
			return k
		}
	}
	if j += near; j >= len(p) {
		return len(p)
	}
	b := qs.bs.from(p, j)
	switch q {
	case '"':
		return min(b, qs.dq.from(p, j))
	case '`':
		return min(b, qs.bq.from(p, j), qs.dl.from(p, j))
	}
	return min(b, qs.sq.from(p, j), qs.lf.from(p, j), qs.cr.from(p, j))
}

// runStops are, for each quote, the octets stop looks for in a run it
// opens.
var runStops = func() (t [128]*[256]bool) {
	for _, q := range []byte("\"'`") {
		t[q] = &[256]bool{'\\': true}
		t[q][q] = true
	}
	t['\'']['\n'], t['\'']['\r'] = true, true
	t['`']['$'] = true // a substitution may open
	return t
}()

// opensSingle reports whether the single quote at p[k] opens a run: it does not
// follow a letter or digit (an apostrophe, as in "it's"), or it follows a
// JavaScript keyword a string literal may come after.
func opensSingle(p []byte, k int) bool {
	if k == 0 || !isWordByte(p[k-1]) {
		return true
	}
	w := k - 1
	for w > 0 && isASCIIAlnum(p[w-1]) {
		w--
	}
	return (w == 0 || !isWordByte(p[w-1])) && jsKeywordBeforeString(p[w:k])
}

// isWordByte reports whether c may be part of a word: an ASCII letter or
// digit, '_', '$', or an octet of a UTF-8 sequence (é's last octet in
// "café's").
func isWordByte(c byte) bool { return isASCIIAlnum(c) || c == '_' || c == '$' || c >= 0x80 }

// jsKeywordBeforeString reports whether w is a JavaScript keyword that a
// string literal may follow with no space between (minified code:
// return'x', case'x':).
func jsKeywordBeforeString(w []byte) bool {
	switch string(w) {
	case "return", "typeof", "case", "void", "delete", "throw", "in", "of",
		"instanceof", "yield", "await", "else", "do":
		return true
	}
	return false
}

// referenceEscapes returns the first character reference in p that HTML
// or XML reads as a character forbid refuses, or nil.
func referenceEscapes(p []byte, forbid sanitize.Class) *sanitize.Error {
	for i := 0; ; {
		at := octets.NextIndex(p, i, '&')
		if at == len(p) {
			return nil
		}
		n := 1
		if at+1 < len(p) && p[at+1] == '#' {
			// HTML's reading, then XML's, which differ: &#x85; is U+2026
			// to HTML, U+0085 to XML; &#x202e is a reference to HTML
			// only; a surrogate is U+FFFD to both, refused all the same.
			if r, m := htmlNumeric(p[at:]); m > 0 {
				if e := escapeRefused(r, at, forbid); e != nil {
					return e
				}
				n = m
			}
			if r, m := xmllex.Ref(p[at:]); m > 0 {
				if e := escapeRefused(r, at, forbid); e != nil {
					return e
				}
				n = max(n, m)
			}
		} else if text, m := htmlNamed(p[at:]); m > 0 {
			// Checked as the characters it stands for.
			for _, c := range text {
				if e := escapeRefused(c, at, forbid); e != nil {
					return e
				}
			}
			n = m
		}
		i = at + n
	}
}

// declarationEscapes returns the first XML declaration in p, <?xml ...?>
// anywhere, that names an encoding other than UTF-8 (or US-ASCII, in an
// all-ASCII p), as bad_charset at the name, or nil: the octets after it
// would reach a handler's XML decoder through its CharsetReader, read as
// another charset than the one checked.
func declarationEscapes(p []byte) *sanitize.Error {
	ascii := -1
	for i := 0; ; {
		k := bytes.Index(p[i:], xmllex.PIOpen)
		if k < 0 {
			return nil
		}
		at := i + k
		n1 := xmllex.NameEnd(p, at+2)
		if !xmllex.DeclTarget(p[at+2 : n1]) {
			i = at + 2
			continue
		}
		j := xmllex.SkipSpace(p, n1)
		end := xmllex.IndexPair(p, j, "?>")
		if end < 0 {
			return nil // no instruction ends: none names an encoding to a decoder
		}
		if off := xmllex.ForeignEncoding(p, [2]int{j, end}, &ascii); off >= 0 {
			return &sanitize.Error{Reason: sanitize.BadCharset, Offset: off}
		}
		i = end + 2
	}
}
