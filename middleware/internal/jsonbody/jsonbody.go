// Package jsonbody is the check of JSON and JSON-lines bodies (Check,
// CheckLines) and of their canonical form (Canon): strings and their
// escapes, nesting, and member names (duplicates, and names that collide
// once canonical), over the structure pass of package jsonscan.
package jsonbody

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonscan"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
	"golang.org/x/text/unicode/norm"
)

// checkJSON checks a JSON body under p: its text (Check), then the
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
func checkJSON(body []byte, p *compiled.Policy) ([]byte, *finding.Rejection) {
	fixed, _, rj := Check(body, p)
	return fixed, rj
}

// Check is checkJSON; noRefs reports that body, handed on as it
// is, holds no '&' and no '<', so that escape.Check has nothing to find
// in it.
func Check(body []byte, p *compiled.Policy) (fixed []byte, noRefs bool, rj *finding.Rejection) {
	c, depth := &p.JSON, p.Limits.JSONDepth
	members := p.RefuseDuplicateKeys || p.Norm != normalize.None
	brackets, backslash, amp := jsonscan.Structure(body)
	// The classes of names are looked for everywhere first: a body
	// without any (the common one) is clean, and one with some goes to
	// the scanner, which tells member names from values.
	clean := !backslash && jsonCleanAfter(body, c.Forbid|c.Names, depth, brackets)
	fixed = body
	if !clean {
		if fixed, rj = scanJSON(body, c, depth); rj != nil {
			return nil, false, rj
		}
	}
	if members {
		// A clean body has no backslash; otherwise look: most bodies the
		// scanner took (over the bracket count, say) have none either.
		escapes := !clean && bytes.IndexByte(fixed, '\\') >= 0
		if rj := checkMembers(fixed, p, escapes); rj != nil {
			return nil, false, rj
		}
	}
	// A body with no escape (clean), no '&' and no '<' holds nothing
	// escape.Check looks for: no reference, no XML declaration.
	return fixed, clean && !amp && bytes.IndexByte(body, '<') < 0, nil
}

// jsonCleanAfter is jsonClean for a body without a backslash, with
// brackets '{' and '[' octets (jsonscan.Structure).
func jsonCleanAfter(body []byte, forbid sanitize.Class, maxDepth, brackets int) bool {
	if maxDepth >= 0 && brackets > maxDepth && jsonDepth(body) > maxDepth {
		return false
	}
	if forbid&sanitize.BOM != 0 && bytes.Contains(body, []byte("\uFEFF")) {
		return false // a BOM is refused at the start of a string only
	}
	return sanitize.Check(body, forbid&^sanitize.BOM) == nil
}

// jsonDepth returns the deepest nesting of arrays and objects in body,
// which holds no backslash: every '"' then opens or closes a string, and
// a bracket between an opening quote and the next is text. It is the
// depth the scanner finds (an unterminated string runs to the end), a
// pass over the structural octets only: a body of more brackets than the
// depth limit, but no deeper, stays on jsonClean's path.
func jsonDepth(body []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			k := bytes.IndexByte(body[i+1:], '"')
			if k < 0 {
				return deepest
			}
			i += 1 + k
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}

// scanJSON checks the text of a JSON body with the scanner, as
// Check does past its quick passes.
func scanJSON(body []byte, c *rules.Check, depth int) ([]byte, *finding.Rejection) {
	sc := jsonScanner{p: body, forbid: c.Forbid, names: c.Names, maxDepth: depth, repair: c.Repair}
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
			rj := finding.Reject(sanitize.Validate(body), rules.JSON, ptr, body)
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
	node, member *compiled.PrecisNode
}

type jsonScanner struct {
	p        []byte
	forbid   sanitize.Class
	names    sanitize.Class // refused in member names, on top of forbid
	maxDepth int
	repair   bool // rewrite a lone surrogate escape as \uFFFD
	stopAt   int  // when > 0, the offset of a UTF-8 error: stop there
	// onString, when set, is called for every complete string literal,
	// from its opening quote at i to just past its closing quote at end.
	onString func(i, end int, isKey bool) *finding.Rejection
	// pointers, when set, is the root of the JSON pointers with PRECIS
	// profiles: the scanner keeps each open container's place among them
	// (jsonFrame.node), and valueNode gives the place of the current
	// value, one step per key or element, never a pointer rebuilt.
	pointers *compiled.PrecisNode
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
func (sc *jsonScanner) valueNode() *compiled.PrecisNode {
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
	return f.node.Element(f.index)
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
func (sc *jsonScanner) scan() *finding.Rejection {
	sc.depth = 0
	p := sc.p
	for i := 0; i < len(p); {
		if sc.stopAt > 0 && i >= sc.stopAt {
			return nil
		}
		switch c := p[i]; c {
		case '{', '[':
			if sc.maxDepth >= 0 && sc.depth >= sc.maxDepth {
				return &finding.Rejection{Reason: sanitize.TooLarge, Location: rules.JSON, Field: sc.pointer(),
					Offset: i, Sample: finding.Sample(p, i), Limit: int64(sc.maxDepth), Err: sanitize.ErrTooLarge}
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
		case '\\':
			// Outside a string: no JSON decoder reads it, a JavaScript one
			// may read an escape in '...' there.
			return sc.fail(sanitize.BadEscape, 0, i, false, i)
		default:
			i++
		}
	}
	return nil
}

// str checks the string literal whose opening quote is at p[i] and returns
// the offset just past its closing quote. The text between escapes goes to
// sanitize.CheckClasses a run at a time; each escape is decoded and checked on its
// own. A member name is refused sc.names too.
func (sc *jsonScanner) str(i int) (int, *finding.Rejection) {
	p := sc.p
	start := i + 1
	f := sc.top()
	isKey := f != nil && f.object && f.wantsKey
	forbid := sc.forbid
	if isKey {
		forbid |= sc.names
	}
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
		if forbid != 0 && run > j {
			forbid := forbid
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
			sc.stopped, sc.inKey, sc.keySpan = true, isKey, [2]int{start, stringEnd(p, run)}
			return run, nil
		}
		if end == len(p) {
			return end, nil // unterminated: the decoder's to report
		}
		if p[end] == '"' {
			return end + 1, nil
		}
		j = end // an escape
		r, size, ok := escape.JSON(p, j)
		if !ok {
			// Not JSON's (\x85, \0, \U0000202E, \u{202E}, a short
			// \u00): no JSON decoder reads it, so only a looser one (YAML's,
			// JavaScript's) could, into what the scan has not checked.
			return j, sc.fail(sanitize.BadEscape, 0, j, isKey, start)
		}
		if escape.IsSurrogate(r) && sc.repair {
			copy(p[j+2:j+6], "FFFD") // same length: nothing moves
			r = 0xFFFD
		}
		if escape.IsSurrogate(r) {
			return j, sc.fail(sanitize.Surrogate, 0, j, isKey, start)
		}
		if cl := classIn(r, j == start, forbid); cl != 0 {
			return j, sc.fail(sanitize.ForbiddenChar, cl, j, isKey, start)
		}
		j += size
	}
}

// classIn returns the classes of forbid that r, decoded from an escape,
// belongs to; first says that it is the first character of its string,
// where U+FEFF is a BOM.
func classIn(r rune, first bool, forbid sanitize.Class) sanitize.Class {
	if forbid == 0 {
		return 0
	}
	c := sanitize.ClassOf(r)
	if first && r == 0xFEFF {
		c |= sanitize.BOM
	}
	return c & forbid
}

func (sc *jsonScanner) fail(reason sanitize.Reason, cl sanitize.Class, off int, isKey bool, start int) *finding.Rejection {
	sc.inKey, sc.keySpan = isKey, [2]int{start, stringEnd(sc.p, off)}
	if isKey {
		// The pointer names the member whose key is at fault: its whole
		// name, as the body has it (cut at the offending character, it
		// would name a member the body does not have, or another one).
		sc.stopped = true
	}
	e := &sanitize.Error{Reason: reason, Offset: off, Class: cl}
	rj := finding.Reject(e, rules.JSON, sc.pointer(), sc.p)
	return rj
}

// pointer returns the RFC 6901 JSON pointer of where the scan is: the open
// containers' keys and indexes, and the key being read if the scan stopped
// in one.
func (sc *jsonScanner) pointer() string { return finding.SafeField(sc.rawPointer()) }

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

// stringEnd returns the offset of the quote that closes the JSON string
// whose text runs on at p[from], or len(p) when none does.
func stringEnd(p []byte, from int) int {
	for i := from; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(p)
}

// writePointerToken writes a key's raw JSON text, escapes decoded, as a
// pointer token: '~' as "~0", '/' as "~1". Ill-formed octets, a lone
// surrogate escape and an escape that is not JSON's are written as the
// body has them, for the log to show (safeField escapes them).
func writePointerToken(b *strings.Builder, raw []byte) {
	for j := 0; j < len(raw); {
		r, size := rune(raw[j]), 1
		if raw[j] == '\\' {
			var ok bool
			if r, size, ok = escape.JSON(raw, j); !ok || escape.IsSurrogate(r) {
				b.Write(raw[j : j+size])
				j += size
				continue
			}
		} else if raw[j] >= utf8.RuneSelf {
			if r, size = utf8.DecodeRune(raw[j:]); r == utf8.RuneError && size == 1 {
				b.WriteByte(raw[j])
				j++
				continue
			}
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

// appendJSONUnquote appends the text of the JSON string literal content raw
// (what lies between the quotes) to dst, with its escapes decoded: a
// well-formed surrogate pair becomes its supplementary character. It
// reports false for an escape that is not JSON or a lone surrogate; the
// middleware has rejected or repaired those before it rewrites a body.
func appendJSONUnquote(dst, raw []byte) ([]byte, bool) {
	for j := 0; j < len(raw); {
		c := raw[j]
		if c != '\\' {
			k := j + 1
			for k < len(raw) && raw[k] != '\\' {
				k++
			}
			dst = append(dst, raw[j:k]...)
			j = k
			continue
		}
		r, size, ok := escape.JSON(raw, j)
		if !ok || escape.IsSurrogate(r) {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
		j += size
	}
	return dst, true
}

// appendJSONQuote appends s as a JSON string literal, quotes included. It
// escapes only what JSON requires ('"', '\' and the C0 controls) and
// writes every other character as itself, so the literal is as close to
// the text as JSON allows.
func appendJSONQuote(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	lit := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[lit:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		lit = i + 1
	}
	dst = append(dst, s[lit:]...)
	return append(dst, '"')
}

// jsonQuotedLen returns len(appendJSONQuote(nil, s)).
func jsonQuotedLen(s []byte) int {
	n := len(s) + 2
	for _, c := range s {
		switch {
		case c >= 0x20 && c != '"' && c != '\\':
		case c == '"', c == '\\', c == '\n', c == '\r', c == '\t':
			n++
		default:
			n += 5
		}
	}
	return n
}

// appendFoldKey appends foldKey(s) to dst: every character replaced by
// the representative of its case-folding orbit, an ASCII letter by its
// lower case.
func appendFoldKey(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		dst = utf8.AppendRune(dst, compiled.FoldRune(r))
		i += size
	}
	return dst
}

// Canon canonicalizes every string and key of a JSON body, escapes
// decoded first: "e\u0301" is normalized as much as a raw e+U+0301. A
// string at a JSON pointer the route names a PRECIS profile for gets the
// profile's enforced form, every other string and every key the route's
// normalization. A string that changes is written back as a JSON string
// with only the escapes JSON requires; every other octet of the body stays
// as it was. It returns nil when nothing changes.
//
// A canonical form must satisfy the policy the input did: a string or key
// whose canonical form holds a character of a class p.JSON refuses is
// refused (forbidden_char, at the string's offset in the body), and a
// body whose rewriting is over p.Limits.BodyBytes is refused as too_large
// (413), as a body sent that large would have been (NFKC writes U+FDFA as
// 33 octets). In Monitor mode nothing is rewritten, and what would be
// refused is flagged.
//
// Where a value sits among the PRECIS pointers is followed one step per
// key and per array element as the scanner goes (jsonScanner.pointers),
// so each string's profile is found in constant time; a JSON pointer is
// only built for a rejection. (Building it for every string cost the
// length of the pointer each time: a body of deeply nested long keys
// above many strings took time quadratic in its size.)
func Canon(p *compiled.Policy, body []byte) ([]byte, *finding.Rejection) {
	js := jsonScratches.Get().(*jsonScratch)
	defer js.release()
	sc := jsonScanner{p: body, maxDepth: -1, more: js.frames[:0]}
	if p.HasPrecis(rules.JSON) {
		sc.pointers = p.JSONPrecis
	}
	var out []byte
	buf, tok, norm := js.buf[:0], js.tok[:0], js.norm[:0]
	defer func() { js.buf, js.tok, js.norm, js.frames = buf, tok, norm, sc.more }()
	last := 0
	size := int64(len(body)) // of the body once rewritten
	limit := p.Limits.BodyBytes
	sc.onString = func(i, end int, isKey bool) *finding.Rejection {
		if end-1 <= i || body[end-1] != '"' {
			return nil // unterminated: the decoder's to report
		}
		raw := body[i+1 : end-1]
		text, escaped := raw, bytes.IndexByte(raw, '\\') >= 0
		if escaped {
			var ok bool
			if buf, ok = appendJSONUnquote(buf[:0], raw); !ok {
				return nil // not JSON: the decoder's to report
			}
			text = buf
		}
		var node *compiled.PrecisNode
		if !isKey {
			node = sc.valueNode()
		}
		// The most octets the string's canonical form may have: what the
		// limit leaves after the body before it, as rewritten, and the
		// quotes.
		room := int64(math.MaxInt64)
		if limit >= 0 {
			room = limit - (int64(i) + size - int64(len(body))) - 2
		}
		nt, changed, rj := jsonCanonical(p, text, node, room, &norm)
		if rj == nil && changed {
			if rj = checkCanonical(p, nt, isKey); rj != nil {
				escaped = true // the offset is not the body's
			}
		}
		if rj != nil {
			if rj.Reason == sanitize.TooLarge {
				return rj // the body's, as any body over its limit
			}
			return jsonCanonReject(p, &sc, rj, i, end, isKey, escaped, node)
		}
		if isKey {
			if f := sc.top(); f != nil && f.node.HasKeys() {
				// The member's place among the pointers: its name as
				// the handler reads it, folded as foldKey does.
				tok = appendFoldKey(tok[:0], nt)
				f.member = f.node.Child(tok)
			}
		}
		if !changed {
			return nil
		}
		size += int64(jsonQuotedLen(nt) - (end - i))
		if p.Mode == rules.Monitor {
			return nil
		}
		if limit >= 0 && int64(len(out)+(i-last)+jsonQuotedLen(nt)) > limit {
			// What follows can only add to it: refused now, before
			// the rest is rewritten, or the memory grown past it.
			return finding.TooLarge(rules.JSON, "", limit)
		}
		if out == nil {
			// Once: the canonical body is about as long as the body,
			// and no longer than the limit, so that it is not grown
			// again (a growth would allocate it a second time).
			c := len(body) + len(body)/8 + 64
			if limit >= 0 && int64(c) > limit {
				c = int(limit)
			}
			out = make([]byte, 0, c)
		}
		out = append(out, body[last:i]...)
		out = appendJSONQuote(out, nt)
		last = end
		return nil
	}
	if rj := sc.scan(); rj != nil {
		return nil, rj
	}
	if limit >= 0 && size > limit {
		return nil, finding.TooLarge(rules.JSON, "", limit)
	}
	if out == nil {
		return nil, nil
	}
	return append(out, body[last:]...), nil
}

// jsonScratch is Canon's working memory: the decoded string, the
// folded key and the normal form of the string at hand, and the open
// containers past the scanner's own sixteen. It is pooled, so that a body
// of many strings, or of long ones, costs a constant number of
// allocations once the pool has seen one like it. None of it reaches the
// handler: the canonical body is built in memory of its own.
type jsonScratch struct {
	buf, tok, norm []byte
	frames         []jsonFrame
}

var jsonScratches = sync.Pool{New: func() any { return new(jsonScratch) }}

// Past these sizes a jsonScratch's memory is not kept: a normal form may
// be up to the body limit (1 MiB by default) long.
const (
	maxPooledJSONBuf    = 2 << 20
	maxPooledJSONFrames = 1 << 12
)

// release puts js back in the pool, without what a huge body left in it.
func (js *jsonScratch) release() {
	for _, b := range []*[]byte{&js.buf, &js.tok, &js.norm} {
		if cap(*b) > maxPooledJSONBuf {
			*b = nil
		}
	}
	if cap(js.frames) > maxPooledJSONFrames {
		js.frames = nil
	}
	clear(js.frames[:cap(js.frames)]) // no pointer into a policy kept alive by the pool
	js.frames = js.frames[:0]
	jsonScratches.Put(js)
}

// jsonCanonical returns the canonical form of one decoded string or key,
// and whether it differs from text: the enforced form of node's PRECIS
// profile when node has one, the route's normalization otherwise. Unlike
// canonValue it computes the form in Monitor mode too, for the checks of
// Canon; in RejectUnnormalized mode a text that is not normal is
// refused instead. A normal form longer than room octets is refused as
// too_large as soon as that is known (normalBounded). A normal form is
// made in *buf, which the next string reuses.
func jsonCanonical(p *compiled.Policy, text []byte, node *compiled.PrecisNode, room int64, buf *[]byte) ([]byte, bool, *finding.Rejection) {
	if node != nil && node.Set {
		// Enforced into *buf, as a normal form is made: Enforce
		// allocated its result, and buffers of its own when a step
		// changed the value, for every PRECIS string of a body (issue
		// 14). AppendEnforce gives the same form and the same errors.
		out, err := normalize.AppendEnforce((*buf)[:0], node.Profile, text)
		if cap(out) > cap(*buf) {
			*buf = out[:0] // the memory grown, kept for the next string
		}
		if err != nil {
			return nil, false, finding.Reject(err, rules.JSON, "", text)
		}
		if bytes.Equal(out, text) {
			return text, false, nil
		}
		return out, true, nil
	}
	switch {
	case p.Norm == normalize.None:
		return text, false, nil
	case p.RejectUnnormalized:
		if err := p.Norm.Check(text); err != nil {
			return nil, false, finding.Reject(err, rules.JSON, "", text)
		}
		return text, false, nil
	case p.Norm.IsNormal(text):
		return text, false, nil
	}
	nt, ok := normalBoundedTo(p, (*buf)[:0], text, room)
	if cap(nt) > cap(*buf) {
		*buf = nt[:0] // the memory grown, kept for the next string or body even when refused
	}
	if !ok {
		return nil, false, finding.TooLarge(rules.JSON, "", p.Limits.BodyBytes)
	}
	return nt, true, nil
}

// maxCanonGrowth bounds how many times longer than a text its NFC or NFKC
// form is: U+FDFA, 3 octets, is 33 in NFKC, the most of any character
// (TestJSONCanonGrowth).
const maxCanonGrowth = 11

// normalBoundedTo is normalBounded appending to dst; when the form is too
// long it returns false with what it had appended, whose memory the
// caller may keep for another text.
func normalBoundedTo(p *compiled.Policy, dst, text []byte, room int64) ([]byte, bool) {
	if int64(len(text)) <= room/maxCanonGrowth {
		return p.Norm.Append(dst, text), true
	}
	nf, bt := norm.NFC, &boundaryTables[0]
	if p.Norm == normalize.NFKC {
		nf, bt = norm.NFKC, &boundaryTables[1]
	}
	const stretch = 4 << 10
	out := dst
	for len(text) > 0 {
		k := min(stretch, len(text))
		for k < len(text) && !(utf8.RuneStart(text[k]) && bt.boundaryBefore(nf, text[k:])) {
			k++
		}
		out = p.Norm.Append(out, text[:k])
		text = text[k:]
		if int64(len(out)) > room {
			return out, false
		}
	}
	return out, true
}

// boundaryTable remembers, for the code points below boundaryRunes (the
// planes where the characters without a boundary before them are), what
// norm's Properties(r).BoundaryBefore() answered in a form: known marks
// the code points looked up, before those it held for. normalBoundedTo
// asks at every character of a text with no boundary for a long way (a
// run of combining marks), and a lookup in norm's tables costs
// several times what the normalization of the character does. Any
// goroutine fills it in, a bit at a time, with atomic operations.
type boundaryTable struct {
	known, before [boundaryRunes / 64]atomic.Uint64
}

const boundaryRunes = 0x20000

// boundaryTables are the boundary tables of NFC and NFKC.
var boundaryTables [2]boundaryTable

// boundaryBefore reports whether nf has a boundary before the character
// that s, valid UTF-8, starts with: nf.Properties(s).BoundaryBefore(),
// remembered in t, nf's table.
func (t *boundaryTable) boundaryBefore(nf norm.Form, s []byte) bool {
	r, n := utf8.DecodeRune(s)
	if r >= boundaryRunes || n <= 1 && r == utf8.RuneError {
		return nf.Properties(s).BoundaryBefore()
	}
	w, bit := r>>6, uint64(1)<<(r&63)
	if t.known[w].Load()&bit != 0 {
		return t.before[w].Load()&bit != 0
	}
	b := nf.Properties(s).BoundaryBefore()
	if b {
		t.before[w].Or(bit)
	}
	t.known[w].Or(bit) // after before's: a reader that sees it known sees the answer
	return b
}

// checkCanonical checks the canonical form of a string or key against the
// classes p.JSON refuses (its Names too for a key), as its input was
// checked. (No character's NFC or
// NFKC form holds a class it does not, which TestJSONCanonicalClasses
// pins for this version of Unicode; the check keeps that a fact about the
// request rather than about the tables, and covers the PRECIS profiles.)
func checkCanonical(p *compiled.Policy, nt []byte, isKey bool) *finding.Rejection {
	forbid := p.JSON.Forbid
	if isKey {
		forbid |= p.JSON.Names
	}
	if forbid == 0 {
		return nil
	}
	if err := sanitize.CheckClasses(nt, forbid); err != nil {
		return finding.Reject(err, rules.JSON, "", nt)
	}
	return nil
}

// jsonCanonReject completes rj, the rejection of the string literal
// body[i:end]: its field is the JSON pointer of the string (of the member,
// for a key), in its canonical form for a PRECIS field as the policy names
// it; its offset is into the body, at the offending octet or, when the
// text was decoded or rewritten (escaped), at the string's first octet.
func jsonCanonReject(p *compiled.Policy, sc *jsonScanner, rj *finding.Rejection, i, end int, isKey, escaped bool, node *compiled.PrecisNode) *finding.Rejection {
	if isKey {
		// The pointer of the member whose key this is.
		sc.inKey, sc.keySpan = true, [2]int{i + 1, end - 1}
	}
	if node != nil && node.Set {
		rj.Field = finding.SafeField(canonPointer(p, sc))
	}
	if rj.Field == "" || isKey {
		rj.Field = sc.pointer()
	}
	rj.Offset += i + 1 // into the body, as the other JSON offsets
	if escaped {
		rj.Offset = i + 1 // the offset within decoded text is not the body's
	}
	rj.Sample = finding.Sample(sc.p, rj.Offset)
	return rj
}

// canonPointer returns the RFC 6901 JSON pointer of the value sc is at, as
// the handler sees it: every key with its escapes decoded and in the
// route's normalization form, so that a key written "n\u0061me" or, under
// NFKC, "ｎａｍｅ" names the same field as "name". It costs the length of
// the pointer: for rejections only.
func canonPointer(p *compiled.Policy, sc *jsonScanner) string {
	var b strings.Builder
	var buf []byte
	for k := range sc.depth {
		f := sc.frame(k)
		b.WriteByte('/')
		switch {
		case f.object && f.hasKey:
			var ok bool
			raw := sc.p[f.key[0]:f.key[1]]
			tok := raw
			if bytes.IndexByte(raw, '\\') >= 0 {
				if buf, ok = appendJSONUnquote(buf[:0], raw); ok {
					tok = buf
				}
			}
			tok = p.Norm.Bytes(tok)
			for _, c := range tok {
				switch c {
				case '~':
					b.WriteString("~0")
				case '/':
					b.WriteString("~1")
				default:
					b.WriteByte(c)
				}
			}
		case !f.object:
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}
