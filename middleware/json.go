package middleware

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkJSON checks a JSON body under p: its text (checkJSONText), then the
// names of the members of each object (Member names, below). It refuses
//
//   - under p.RefuseDuplicateKeys, two members whose names are one after
//     unescaping and under strings.EqualFold (duplicate_key): the
//     handler's decoder fills one field from both, and which one wins is
//     its choice, not the check's;
//   - on a route that normalizes, two members whose names are not one but
//     become one in the canonical form (key_collision): the rewriting
//     would merge two members that were checked apart.
//
// The field of such a rejection is the JSON pointer of the second member,
// its offset the first octet of that member's name in the body. It returns
// the body to hand on (repaired where the policy repairs) or the first
// violation.
func checkJSON(body []byte, p *policy) ([]byte, *Rejection) {
	c, depth := &p.JSON, p.Limits.JSONDepth
	clean := jsonClean(body, c.Forbid, depth)
	fixed := body
	if !clean {
		var rj *Rejection
		if fixed, rj = scanJSON(body, c, depth); rj != nil {
			return nil, rj
		}
	}
	if p.RefuseDuplicateKeys || p.form != normalize.None {
		// jsonClean saw no backslash; otherwise look: most bodies the
		// scanner took (over the bracket count, say) have none either.
		escapes := !clean && bytes.IndexByte(fixed, '\\') >= 0
		if rj := checkMembers(fixed, p, escapes); rj != nil {
			return nil, rj
		}
	}
	return fixed, nil
}

// checkJSONText checks the text of a JSON body: the octets are well-formed
// UTF-8, and no string or key, once its escapes are decoded, holds a lone
// surrogate (encoding/json would silently turn "\ud800" into U+FFFD), a
// character of a refused class ("\u0000" is NUL as much as a raw NUL is),
// or nests deeper than depth. The Rejection's Field is the RFC 6901 JSON
// pointer of the offending string and its Offset the offset in the body.
//
// checkJSONText is no JSON validator: syntax errors are left to the
// handler's decoder, and every string literal is checked whatever the
// structure around it.
//
// Under c.Repair, ill-formed UTF-8 is replaced with U+FFFD and a lone
// surrogate escape with "\uFFFD", in place: body is modified.
func checkJSONText(body []byte, c *rules.Check, depth int) ([]byte, *Rejection) {
	if jsonClean(body, c.Forbid, depth) {
		return body, nil
	}
	return scanJSON(body, c, depth)
}

// jsonClean reports whether body passes checkJSONText without the scanner: it
// is valid UTF-8, has no escapes (nothing to decode, nothing to repair), no
// character of the forbidden classes anywhere (so none in a string) and no
// more brackets than the depth limit (so no deeper nesting). Each test is
// a SIMD pass over the body. Otherwise the scanner decides: it alone knows
// where strings are, which a forbidden TAB between two members, or a
// bracket inside a string, needs.
func jsonClean(body []byte, forbid sanitize.Class, maxDepth int) bool {
	if bytes.IndexByte(body, '\\') >= 0 {
		return false
	}
	if maxDepth >= 0 && bytes.Count(body, []byte{'{'})+bytes.Count(body, []byte{'['}) > maxDepth {
		return false
	}
	if forbid&sanitize.BOM != 0 && bytes.Contains(body, []byte("\uFEFF")) {
		return false // a BOM is refused at the start of a string only
	}
	return sanitize.Check(body, forbid&^sanitize.BOM) == nil
}

// scanJSON is checkJSONText with the scanner.
func scanJSON(body []byte, c *rules.Check, depth int) ([]byte, *Rejection) {
	sc := jsonScanner{p: body, forbid: c.Forbid, maxDepth: depth, repair: c.Repair}
	bad := sanitize.ValidPrefix(body)
	if bad < len(body) {
		if !c.Repair {
			// Scan up to the UTF-8 error, for its pointer; a violation
			// the scan meets before it comes first and is the one
			// reported. (At offset 0 there is nothing to scan.)
			var ptr string
			if bad > 0 {
				sc.stopAt = bad
				if rj := sc.scan(); rj != nil {
					return nil, rj
				}
				ptr = sc.pointer()
			}
			rj := reject(sanitize.Validate(body), rules.JSON, ptr, body)
			return nil, rj
		}
		body = sanitize.ToValid(body)
		sc.p = body
	}
	if rj := sc.scan(); rj != nil {
		return nil, rj
	}
	return body, nil
}

// jsonFrame is one open object or array.
type jsonFrame struct {
	object   bool
	index    int // array: index of the current element
	key      [2]int
	hasKey   bool
	wantsKey bool // object: the next string is a key
	// Where the container and its current member are among the JSON
	// pointers the route names PRECIS profiles for (nil: under none of
	// them). member is set by the onString hook when a key is read.
	node, member *precisNode
}

type jsonScanner struct {
	p        []byte
	forbid   sanitize.Class
	maxDepth int
	repair   bool // rewrite a lone surrogate escape as \uFFFD
	stopAt   int  // when > 0, the offset of a UTF-8 error: stop there
	// onString, when set, is called for every complete string literal,
	// from its opening quote at i to just past its closing quote at end.
	onString func(i, end int, isKey bool) *Rejection
	// pointers, when set, is the root of the JSON pointers with PRECIS
	// profiles: the scanner keeps each open container's place among them
	// (jsonFrame.node), and valueNode gives the place of the current
	// value, one step per key or element, never a pointer rebuilt.
	pointers *precisNode
	// The open containers, outermost first: depth of them, the first
	// len(frames) in frames and the rest in more. (A slice over frames
	// kept in the scanner would move the whole scanner to the heap: the
	// common case allocates nothing.)
	depth  int
	frames [16]jsonFrame
	more   []jsonFrame
	// the string being scanned when the scan stopped, if a key
	inKey   bool
	keySpan [2]int
	stopped bool
}

func (sc *jsonScanner) top() *jsonFrame {
	if sc.depth == 0 {
		return nil
	}
	return sc.frame(sc.depth - 1)
}

// frame returns the k-th open container, 0 the outermost.
func (sc *jsonScanner) frame(k int) *jsonFrame {
	if k < len(sc.frames) {
		return &sc.frames[k]
	}
	return &sc.more[k-len(sc.frames)]
}

// valueNode returns the place among the PRECIS pointers of the value the
// scanner is at: the root at the top level, an object's current member,
// an array's current element. It is nil under no pointer.
func (sc *jsonScanner) valueNode() *precisNode {
	if sc.pointers == nil {
		return nil
	}
	f := sc.top()
	switch {
	case f == nil:
		return sc.pointers
	case f.object:
		return f.member
	}
	return f.node.element(f.index)
}

// push opens a container.
func (sc *jsonScanner) push(f jsonFrame) {
	if sc.depth < len(sc.frames) {
		sc.frames[sc.depth] = f
	} else {
		sc.more = append(sc.more[:sc.depth-len(sc.frames)], f)
	}
	sc.depth++
}

// scan walks the body. It returns the first violation, or nil; when stopAt
// is set it stops at that offset with the stack describing where it is.
func (sc *jsonScanner) scan() *Rejection {
	sc.depth = 0
	p := sc.p
	for i := 0; i < len(p); {
		if sc.stopAt > 0 && i >= sc.stopAt {
			return nil
		}
		switch c := p[i]; c {
		case '{', '[':
			if sc.maxDepth >= 0 && sc.depth >= sc.maxDepth {
				return &Rejection{Reason: sanitize.TooLarge, Location: rules.JSON, Field: sc.pointer(),
					Offset: i, Sample: sample(p, i), Err: sanitize.ErrTooLarge}
			}
			sc.push(jsonFrame{object: c == '{', wantsKey: c == '{', node: sc.valueNode()})
			i++
		case '}', ']':
			if sc.depth > 0 {
				sc.depth--
			}
			i++
		case ',':
			if f := sc.top(); f != nil {
				if f.object {
					f.wantsKey, f.hasKey, f.member = true, false, nil
				} else {
					f.index++
				}
			}
			i++
		case ':':
			if f := sc.top(); f != nil && f.object {
				f.wantsKey = false
			}
			i++
		case '"':
			end, rj := sc.str(i)
			if rj != nil || sc.stopped {
				return rj
			}
			f := sc.top()
			if sc.onString != nil {
				if rj := sc.onString(i, end, f != nil && f.object && f.wantsKey); rj != nil {
					return rj
				}
			}
			if f != nil && f.object && f.wantsKey {
				f.key, f.hasKey, f.wantsKey = [2]int{i + 1, end - 1}, true, false
			}
			i = end
		default:
			i++
		}
	}
	return nil
}

// str checks the string literal whose opening quote is at p[i] and returns
// the offset just past its closing quote. The text between escapes goes to
// sanitize.CheckClasses a run at a time; each escape is decoded and checked on its
// own.
func (sc *jsonScanner) str(i int) (int, *Rejection) {
	p := sc.p
	start := i + 1
	f := sc.top()
	isKey := f != nil && f.object && f.wantsKey
	j := start
	// q is the next '"' at or after j, found once and found again only when
	// an escape (\") has consumed it: with the backslashes looked for only
	// up to q, each octet is searched once, however many escapes.
	q := -1
	for {
		// The next '"' or '\\': byte by byte over the first 16 octets,
		// where most keys and values end, then with IndexByte.
		end := -1
		for k, lim := j, min(j+16, len(p)); k < lim; k++ {
			if c := p[k]; c == '"' || c == '\\' {
				end = k
				break
			}
		}
		if end < 0 && j+16 >= len(p) {
			end = len(p)
		}
		if end < 0 {
			if q < j {
				if q = bytes.IndexByte(p[j:], '"'); q < 0 {
					q = len(p)
				} else {
					q += j
				}
			}
			end = q
			if k := bytes.IndexByte(p[j:q], '\\'); k >= 0 {
				end = j + k
			}
		}
		stop := sc.stopAt > 0 && end >= sc.stopAt
		run := end
		if stop {
			run = max(j, sc.stopAt) // the octets before the UTF-8 error
		}
		if sc.forbid != 0 && run > j {
			forbid := sc.forbid
			if j != start {
				forbid &^= sanitize.BOM // BOM counts at the start of the string only
			}
			if err := sanitize.CheckClasses(p[j:run], forbid); err != nil {
				e := err.(*sanitize.Error)
				off := j + e.Offset
				return off, sc.fail(sanitize.ForbiddenChar, e.Class, off, isKey, start)
			}
		}
		if stop {
			sc.stopped, sc.inKey, sc.keySpan = true, isKey, [2]int{start, run}
			return run, nil
		}
		if end == len(p) {
			return end, nil // unterminated: the decoder's to report
		}
		if p[end] == '"' {
			return end + 1, nil
		}
		j = end // an escape
		r, size, ok := jsonEscape(p, j)
		if !ok {
			j += size // not a valid escape: a syntax error, the decoder's to report
			continue
		}
		if utf16IsSurrogate(r) && sc.repair {
			copy(p[j+2:j+6], "FFFD") // same length: nothing moves
			r = 0xFFFD
		}
		if utf16IsSurrogate(r) {
			return j, sc.fail(sanitize.Surrogate, 0, j, isKey, start)
		}
		if cl := sc.class(r, j == start); cl != 0 {
			return j, sc.fail(sanitize.ForbiddenChar, cl, j, isKey, start)
		}
		j += size
	}
}

func (sc *jsonScanner) class(r rune, first bool) sanitize.Class {
	if sc.forbid == 0 {
		return 0
	}
	c := sanitize.ClassOf(r)
	if first && r == 0xFEFF {
		c |= sanitize.BOM
	}
	return c & sc.forbid
}

func (sc *jsonScanner) fail(reason sanitize.Reason, cl sanitize.Class, off int, isKey bool, start int) *Rejection {
	sc.inKey, sc.keySpan = isKey, [2]int{start, off}
	if isKey {
		// The pointer names the member whose key is at fault, as far as the
		// key is known: up to the offending character.
		sc.stopped = true
	}
	e := &sanitize.Error{Reason: reason, Offset: off, Class: cl}
	rj := reject(e, rules.JSON, sc.pointer(), sc.p)
	return rj
}

// jsonEscape decodes the escape at p[j] ('\\'). It returns the code point
// (a well-formed surrogate pair decodes to its supplementary character, a
// lone surrogate to itself), the escape's length, and false for an escape
// that is not JSON.
func jsonEscape(p []byte, j int) (rune, int, bool) {
	if j+1 >= len(p) {
		return 0, 1, false
	}
	switch p[j+1] {
	case '"', '\\', '/':
		return rune(p[j+1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := hex4(p, j+2)
		if !ok {
			return 0, 2, false
		}
		if r >= 0xD800 && r <= 0xDBFF && j+11 < len(p) && p[j+6] == '\\' && p[j+7] == 'u' {
			if lo, ok := hex4(p, j+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, true
			}
		}
		return r, 6, true
	}
	return 0, 2, false
}

func hex4(p []byte, k int) (rune, bool) {
	if k+4 > len(p) {
		return 0, false
	}
	var r rune
	for _, c := range p[k : k+4] {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

func utf16IsSurrogate(r rune) bool { return 0xD800 <= r && r <= 0xDFFF }

// pointer returns the RFC 6901 JSON pointer of where the scan is: the open
// containers' keys and indexes, and the key being read if the scan stopped
// in one.
func (sc *jsonScanner) pointer() string { return safeField(sc.rawPointer()) }

// rawPointer is pointer before the escaping that makes it safe to log.
func (sc *jsonScanner) rawPointer() string {
	var b strings.Builder
	for k := range sc.depth {
		f := sc.frame(k)
		b.WriteByte('/')
		switch {
		case f.object && f.hasKey && !(k == sc.depth-1 && sc.inKey):
			writePointerToken(&b, sc.p[f.key[0]:f.key[1]])
		case f.object && k == sc.depth-1 && sc.inKey:
			writePointerToken(&b, sc.p[sc.keySpan[0]:sc.keySpan[1]])
		case !f.object:
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}

// writePointerToken writes a key's raw JSON text, escapes decoded, as a
// pointer token: '~' as "~0", '/' as "~1".
func writePointerToken(b *strings.Builder, raw []byte) {
	for j := 0; j < len(raw); {
		r, size := rune(raw[j]), 1
		if raw[j] == '\\' {
			var ok bool
			if r, size, ok = jsonEscape(raw, j); !ok {
				r = '\\'
			}
		} else if raw[j] >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(raw[j:])
		}
		switch r {
		case '~':
			b.WriteString("~0")
		case '/':
			b.WriteString("~1")
		default:
			b.WriteRune(r)
		}
		j += size
	}
}
