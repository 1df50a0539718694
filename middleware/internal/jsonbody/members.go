package jsonbody

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonscan"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Member names.
//
// Parsers disagree on an object with two members of one name: most take
// the last, some the first, some refuse it, and a check that reads one
// while the handler's decoder reads the other has been bypassed. I-JSON
// (RFC 7493, section 2.3) therefore forbids duplicate names, and the
// strict preset refuses them (RefuseDuplicateKeys, reason duplicate_key).
//
// "The same name" is what the handler's decoder takes for the same member.
// Names are compared after unescaping ("a" and "\u0061" are one name), and
// without regard to case in the sense of strings.EqualFold: encoding/json,
// and so Echo's c.Bind, fills a struct field from any key that equals its
// name under that folding, the last one winning, so {"role":"user",
// "ROLE":"admin"} and {"user":"a","u\u017fer":"b"} ("ſ" folds with "s",
// as the Kelvin sign with "k") set the field from the second member while
// a check that took the first to be the only one saw "user". foldKey is
// the equivalence. A handler that decodes into a map would have kept
// both: for it this refuses a body it could read, which is the price of
// protecting struct binding (failing closed).
//
// On a route that normalizes, the handler reads the names in the canonical
// form, and two names that the rewriting makes one member for a reader
// that was not one before are refused as key_collision, whether or not
// RefuseDuplicateKeys is set: names whose canonical forms are equal under
// folding while the names are not ("é" and "e\u0301" under NFC, "é" and
// "E\u0301", "ｑ" and "q" under NFKC: a struct field gets the value of the
// second), and names whose canonical forms are identical while the names
// are not ("Å" and the Angstrom sign U+212B, equal under folding already:
// a map gets one entry for the two). Names that are one before the
// rewriting stay RefuseDuplicateKeys's business. It holds in every mode:
// in RejectUnnormalized mode, which would refuse the name that is not
// normal anyway, it is the reason given; in Monitor mode it is flagged.
//
// The check is linear in the body: each name is decoded, folded and
// hashed once (a seeded hash, so that no client can choose names that
// collide), an object's names are compared by hash while it has few, and
// looked up in a table once it has more. Objects with few plain (ASCII,
// unescaped, already normal) names, the common case, allocate nothing.

// memberTableFrom is the number of names from which an object's names are
// looked up in memberCheck.table rather than compared one by one.
const memberTableFrom = 16

// memberSeed keys the hash of member names, for the life of the process.
var memberSeed = maphash.MakeSeed()

// nameKind is a way two member names can be one.
type nameKind uint8

const (
	foldedName nameKind = iota // foldKey of the unescaped names: duplicates
	canonName                  // foldKey of their canonical forms: collisions
	exactName                  // their canonical forms: collisions where duplicates pass
	numNameKinds
)

// span is a part of the body, body[lo:hi], or, when lo is negative, of
// memberCheck.arena, arena[^lo:hi].
type span struct{ lo, hi int }

// memberKey is one member name of an open object: the name, unescaped,
// and its fingerprint by foldedName, hashFolded of u. On a route that
// normalizes, its memberNorm, at the same index, holds the rest.
type memberKey struct {
	u span
	h uint64
}

// memberNorm is what a name is on a route that normalizes: n, u in the
// route's normalization form (u itself when normal), and the name's
// fingerprints by canonName and exactName, hashFolded and hashExact of n.
type memberNorm struct {
	n      span
	hc, he uint64
}

// memberObj is one open object: its names are keys[first:nkeys], and
// they are in table once there are memberTableFrom of them.
type memberObj struct {
	first  int
	tabled bool
}

// memberCheck finds the members of every object of a JSON body that has
// passed the text check (Check) and refuses duplicate and colliding names. It only
// looks for what delimits strings and objects: a string followed by ':'
// is a member name of the innermost open object. (Arrays need no
// tracking: they hold no names, and an object inside one has braces of
// its own.) The body is valid JSON as far as the handler's decoder goes:
// anything else it refuses whatever this finds.
type memberCheck struct {
	p       []byte
	form    normalize.Form // the route's normalization
	escapes bool           // p may hold escapes
	// kinds are the ways names are compared: foldedName where
	// duplicates are refused, canonName where the route normalizes, and
	// exactName where it normalizes and duplicates pass.
	kinds []nameKind
	// The next '"', '{' and '}' at or after the last place looked at,
	// for the long stretches found with IndexByte.
	quote, open, close nextByte
	// The open objects, outermost first, and the names of their members
	// read so far, with their memberNorms where the route normalizes.
	// keys (and norms) only grow: their length is the most names they
	// have held; nkeys are in use.
	objs  []memberObj
	keys  []memberKey
	norms []memberNorm
	nkeys int
	// table holds the names of the objects with many names, by kind
	// (memberTable).
	table memberTable
	// bound is the most names the body can hold, once it is needed
	// (growth); 0 until then.
	bound int
	// arena holds the names that are not plain: unescaped, normalized.
	arena []byte
	// fold holds a stretch of a name being folded for its hash.
	fold [64]byte
}

// memberChecks holds memberChecks between requests, with the memory
// their last body needed: no handler can reach it.
var memberChecks = sync.Pool{New: func() any { return new(memberCheck) }}

// Past these sizes a memberCheck's memory is not kept for the next body:
// a body over the default limit must not pin what it needed. Up to them
// it is kept, so that a body of many names, up to the default limit of
// 1 MiB (at most 209,716 names: five octets each at least), allocates
// nothing here once the pool has seen one like it: the allocations of a
// request do not grow with its names. (A name costs 24 octets in keys,
// 32 more in norms where the route normalizes, and 8 to 16 in the table
// per kind; sync.Pool lets go of what two collections find unused.)
const (
	maxPooledNames = 1 << 18
	maxPooledArena = 4 << 20
	maxPooledSlots = 8 * maxPooledNames
)

// growFrom is the number of names past which keys and norms are grown to
// hold every name the body can hold, at once (growth).
const growFrom = 1 << 10

// memberKinds lists the nameKinds a policy compares names by.
var memberKinds = [...][]nameKind{
	{},                                 // neither
	{foldedName},                       // duplicates refused
	{canonName, exactName},             // normalizing
	{foldedName, canonName, exactName}, // both
}

// kindsOf returns the kinds of comparison p asks for. (With duplicates
// refused, exactName finds nothing canonName does not: two names it would
// find that are not one under folding are canonName's, and two that are
// were refused as duplicates. It is kept for the simplicity of one rule.)
func kindsOf(p *compiled.Policy) []nameKind {
	k := 0
	if p.RefuseDuplicateKeys {
		k |= 1
	}
	if p.Norm != normalize.None {
		k |= 2
	}
	return memberKinds[k]
}

// nextByte remembers the offset of the next occurrence of an octet at or
// after some offset, plus one (zero: not looked for yet): it is looked for
// again only once the scan has passed it, so that each octet is looked at
// once however often the question is asked.
type nextByte struct{ end int }

// from returns the offset of the first c in p at or after i, or len(p).
func (nb *nextByte) from(p []byte, i int, c byte) int {
	if nb.end <= i {
		if k := bytes.IndexByte(p[i:], c); k < 0 {
			nb.end = len(p) + 1
		} else {
			nb.end = i + k + 1
		}
	}
	return nb.end - 1
}

// checkMembers runs memberCheck over body under p; escapes says whether
// the body may hold escapes ("\\").
//
// Without escapes, two quick tests come first: namesDistinct, which looks
// back from each colon, for a small document whose names all differ, and
// objectNamesDistinct, which follows the objects, for a body whose names
// differ within each object (an array of records). Either answers true
// only where memberCheck would refuse nothing.
func checkMembers(body []byte, p *compiled.Policy, escapes bool) *finding.Rejection {
	if !escapes && (namesDistinct(body, p.Norm) || objectNamesDistinct(body, p.Norm)) {
		return nil
	}
	mc := memberChecks.Get().(*memberCheck)
	mc.p, mc.form, mc.escapes, mc.kinds = body, p.Norm, escapes, kindsOf(p)
	rj := mc.run()
	mc.release()
	return rj
}

// release forgets the body and puts mc back in the pool.
func (mc *memberCheck) release() {
	mc.p = nil
	mc.quote, mc.open, mc.close = nextByte{}, nextByte{}, nextByte{}
	mc.objs, mc.nkeys, mc.arena, mc.bound = mc.objs[:0], 0, mc.arena[:0], 0
	mc.table.reset(maxPooledSlots)
	if cap(mc.keys) > maxPooledNames || cap(mc.norms) > maxPooledNames || cap(mc.objs) > maxPooledNames {
		mc.keys, mc.norms, mc.objs = nil, nil, nil
	}
	if cap(mc.arena) > maxPooledArena {
		mc.arena = nil
	}
	memberChecks.Put(mc)
}

// The quick test of namesDistinct looks at this many colons and names at
// most, and at names of this many octets at most.
const (
	quickColons  = 32
	quickNames   = 16
	quickNameLen = 64
)

// namesDistinct is the first quick test of checkMembers, for a small
// document: it reports true when the strings before the colons of body
// (white space between) are all different as member names, so that no
// object has two names of one identity. Without escapes, every member
// name is such a string, and back from its colon the first quote opens
// it; a colon inside a string adds a fingerprint, which can only make the
// answer false. Fingerprints as objectNamesDistinct's; more than
// quickColons colons, more than quickNames names, a name longer than
// quickNameLen or not normal answer false.
//
// For speed only: on BenchmarkMiddleware's 1 KiB JSON POST (8
// interleaved rounds, CPU time, medians, Xeon with AVX-512, load 3.6-4.7)
// it saves 68 to 88 ns of the request's 1.6 us (3.9 to 5.5%; 8 to 10% of
// what the middleware adds), which objectNamesDistinct's pass over the
// marks costs on a document of a few names; with it the request costs
// what it did before the colon bitmap of the structure pass went (0.8%,
// 0.5% and -0.2% on Echo v4, v5 and net/http).
func namesDistinct(body []byte, form normalize.Form) bool {
	var seen [quickNames]uint64
	var fold [64]byte
	n := 0
	for i, count := 0, 0; ; count++ {
		c := bytes.IndexByte(body[i:], ':')
		if c < 0 {
			return true
		}
		c += i
		if count == quickColons {
			return false
		}
		i = c + 1
		e := c - 1
		for e >= 0 && isJSONSpace(body[e]) {
			e--
		}
		if e < 0 || body[e] != '"' {
			continue
		}
		// Back to the opening quote, packing the octets on the way
		// (packName's order: the first octet lowest) for a short name.
		lo := max(0, e-quickNameLen)
		s := e - 1
		var w uint64
		for ; s >= lo && body[s] != '"'; s-- {
			w = w<<8 | uint64(body[s])
		}
		if s < lo {
			if lo > 0 {
				return false // a long name
			}
			continue // no quote opens it: not a string
		}
		name := body[s+1 : e]
		h, ok := uint64(0), false
		if len(name) < 8 {
			h, ok = plainWord(w, len(name))
		}
		if !ok {
			ascii, lower := asciiName(name)
			if form != normalize.None && !ascii && !form.IsNormal(name) {
				return false
			}
			h = hashFolded(name, lower, &fold)
		}
		for _, g := range seen[:n] {
			if g == h {
				return false
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = h
		n++
	}
}

// objectNamesDistinct is the quick test of checkMembers for a body without
// escapes: it reports true when
// no object of body has two member names of one identity, so that
// memberCheck would refuse nothing. Without escapes every '"' opens or
// closes a string, so names and objects are where memberCheck finds them:
// a name is a string followed by white space and a colon in an open
// object, and its identity foldKey of the name, which on a route that
// normalizes must be normal (ASCII, or IsNormal in form): then its
// canonical form is itself, and names that are not one under folding
// collide in no form. Each name is fingerprinted (shapeName: the name
// itself when short and plain, else hashFolded) and compared with those
// of its object before it; any doubt (a repeated
// fingerprint, more than shapeNames names open at once, objects nested
// more than shapeObjects deep, a name that is not normal) answers false,
// and memberCheck decides.
//
// Each octet is looked at once or twice: long strings and gaps are
// crossed with IndexByte, each octet searched once for each of the three
// octets that end them (nextByte).
//
// Where jsonscan's marks are a SIMD pass, objectNamesMarked walks them
// instead, for speed only: on BenchmarkHostile's echo.JSON small-objects
// case (arrays of records on a PRECIS route; CPU time, medians of 8 to 10
// interleaved rounds on a shared 2-core machine, AVX-512) the benign
// array of records costs 5 to 7% more with objectNamesScanned at 256 KiB
// and 1 MiB (1.02 against 1.09 ms, 4.03 against 4.32 ms) and about 4% at
// 64 KiB (3.6, 4.0 and 10.3% in three runs), the worst input 13 to 15%
// (0.64 against 0.73 ms at 64 KiB). On a 1 KiB body the two are 13 ns
// apart (138 against 151 ns).
func objectNamesDistinct(p []byte, form normalize.Form) bool {
	if jsonscan.HasMarks {
		return objectNamesMarked(p, form)
	}
	return objectNamesScanned(p, form)
}

// objectNamesScanned is objectNamesDistinct octet by octet and with
// IndexByte.
func objectNamesScanned(p []byte, form normalize.Form) bool {
	var seen [shapeNames]uint64
	var objs [shapeObjects]uint8 // where each open object's names start in seen
	var quote, open, close nextByte
	nobj, n := 0, 0
	for i := 0; i < len(p); {
		switch p[i] {
		case '"':
			// The string's end: a word at a time over the first 32
			// octets, where most strings end, then with IndexByte.
			start := i + 1
			end := start
			for lim := min(start+32, len(p)-7); end < lim; end += 8 {
				if m := hasOctet(binary.LittleEndian.Uint64(p[end:]), '"'); m != 0 {
					end += bits.TrailingZeros64(m) / 8
					goto found
				}
			}
			end = quote.from(p, end, '"')
		found:
			if end >= len(p) {
				return true // unterminated: where memberCheck stops
			}
			j := end + 1
			for j < len(p) && isJSONSpace(p[j]) {
				j++
			}
			if j < len(p) && p[j] == ':' {
				if nobj > 0 {
					if nobj > len(objs) {
						return false
					}
					// A plain name of up to seven octets is its own
					// fingerprint (packPlain), here; shapeName takes
					// the others.
					h, ok := uint64(0), false
					if k := end - start; k < 8 && len(p)-start >= 8 {
						h, ok = plainWord(binary.LittleEndian.Uint64(p[start:])&(1<<(8*k)-1), k)
					}
					if !ok {
						if h, ok = shapeName(p[start:end], p[start:], form); !ok {
							return false
						}
					}
					for _, g := range seen[objs[nobj-1]:n] {
						if g == h {
							return false
						}
					}
					if n == len(seen) {
						return false
					}
					seen[n] = h
					n++
				}
				j++
			}
			i = j
			continue
		case '{':
			if nobj < len(objs) {
				objs[nobj] = uint8(n)
			}
			nobj++
		case '}':
			if nobj > 0 {
				nobj--
				if nobj < len(objs) {
					n = int(objs[nobj])
				}
			}
		default:
			// A gap: octet by octet over a few, where most end, then
			// with IndexByte.
			i++
			lim := min(i+16, len(p))
			for i < lim && p[i] != '"' && p[i] != '{' && p[i] != '}' {
				i++
			}
			if i == lim && i < len(p) {
				i = min(quote.from(p, i, '"'), open.from(p, i, '{'), close.from(p, i, '}'))
			}
			continue
		}
		i++
	}
	return true
}

// objectNamesMarked is objectNamesDistinct over the marks of jsonscan: a
// SIMD pass marks the quotes, braces and colons of 1 KiB at a time, and
// the walk visits the braces and colons outside strings, in order.
// Without escapes every quote opens or closes a string, so the octets
// inside strings are those after an odd number of quotes (a prefix XOR of
// the quotes' marks, carried from block to block). A colon outside
// strings after white space only since the last quote ends a member name:
// the string between the last two quotes before it, which the quote marks
// give without visiting the quotes (a body has two to four quotes for
// each colon).
func objectNamesMarked(p []byte, form normalize.Form) bool {
	var blocks [16]jsonscan.Block
	var seen [shapeNames]uint64
	var objs [shapeObjects]uint8 // where each open object's names start in seen
	nobj, n := 0, 0
	var inside uint64   // all ones when the text so far ends inside a string
	open, end := -1, -1 // the last two quotes before the block
	for base := 0; base < len(p); base += 64 * len(blocks) {
		chunk := p[base:min(len(p), base+64*len(blocks))]
		jsonscan.Marks(chunk, blocks[:])
		for k := range jsonscan.Words(len(chunk)) {
			b := &blocks[k]
			// Bit i of in: octet i is inside a string, or its opening
			// quote.
			in := b.Quote
			in ^= in << 1
			in ^= in << 2
			in ^= in << 4
			in ^= in << 8
			in ^= in << 16
			in ^= in << 32
			in ^= inside
			inside = uint64(int64(in) >> 63)
			at := base + 64*k
			for marks := (b.Open | b.Close | b.Colon) &^ in; marks != 0; marks &= marks - 1 {
				bit := bits.TrailingZeros64(marks)
				i := at + bit
				switch p[i] {
				case '{':
					if nobj < len(objs) {
						objs[nobj] = uint8(n)
					}
					nobj++
				case '}':
					if nobj > 0 {
						nobj--
						if nobj < len(objs) {
							n = int(objs[nobj])
						}
					}
				default: // ':'
					if nobj == 0 {
						continue // no object open: no name
					}
					// The last two quotes before the colon.
					e, o := end, open
					if q := b.Quote & (1<<bit - 1); q != 0 {
						last := 63 - bits.LeadingZeros64(q)
						e, o = at+last, end
						if q &^= 1 << last; q != 0 {
							o = at + 63 - bits.LeadingZeros64(q)
						}
					}
					if o < 0 || !jsonSpaceOnly(p[e+1:i]) {
						continue // not after a string: no name
					}
					if nobj > len(objs) {
						return false
					}
					// As in objectNamesScanned, inline: the same steps
					// as a function call cost the walk 12% on an array
					// of records (BenchmarkCheckJSON/body=records).
					start := o + 1
					h, ok := uint64(0), false
					if k := e - start; k < 8 && len(p)-start >= 8 {
						h, ok = plainWord(binary.LittleEndian.Uint64(p[start:])&(1<<(8*k)-1), k)
					}
					if !ok {
						if h, ok = shapeName(p[start:e], p[start:], form); !ok {
							return false
						}
					}
					for _, g := range seen[objs[nobj-1]:n] {
						if g == h {
							return false
						}
					}
					if n == len(seen) {
						return false
					}
					seen[n] = h
					n++
				}
			}
			// The last two quotes, for the blocks after this one.
			if q := b.Quote; q != 0 {
				last := 63 - bits.LeadingZeros64(q)
				end, open = at+last, end
				if q &^= 1 << last; q != 0 {
					open = at + 63 - bits.LeadingZeros64(q)
				}
			}
		}
	}
	return true
}

// jsonSpaceOnly reports whether p is JSON white space only.
func jsonSpaceOnly(p []byte) bool {
	for _, c := range p {
		if !isJSONSpace(c) {
			return false
		}
	}
	return true
}

// The most names and nested objects objectNamesDistinct keeps track of.
const (
	shapeNames   = 32
	shapeObjects = 16
)

// shapeName returns the fingerprint of the member name name (rest: name
// and what follows it in the body): packPlain of a short plain name,
// hashFolded of any other; or false when the name is not normal on a
// route that normalizes.
func shapeName(name, rest []byte, form normalize.Form) (uint64, bool) {
	if h, ok := packPlain(name, rest); ok {
		return h, true
	}
	ascii, lower := asciiName(name)
	if form != normalize.None && !ascii && !form.IsNormal(name) {
		return 0, false
	}
	var fold [64]byte
	return hashFolded(name, lower, &fold), true
}

func (mc *memberCheck) run() *finding.Rejection {
	p := mc.p
	for i := 0; i < len(p); {
		switch p[i] {
		case '"':
			end := i + 1
			if w := len(p) - end; w >= 8 && !mc.escapes {
				// The common short string, without escapes: its end
				// in the next word.
				if m := hasOctet(binary.LittleEndian.Uint64(p[end:]), '"'); m != 0 {
					end += bits.TrailingZeros64(m) / 8
				} else {
					end = mc.stringEnd(end + 8)
				}
			} else {
				end = mc.stringEnd(end)
			}
			if end >= len(p) {
				return nil // unterminated: the decoder's to refuse
			}
			j := end + 1
			for j < len(p) && isJSONSpace(p[j]) {
				j++
			}
			if j < len(p) && p[j] == ':' {
				if len(mc.objs) > 0 {
					if rj := mc.member(i+1, end); rj != nil {
						return rj
					}
				}
				j++
			}
			i = j
		case '{':
			mc.push()
			i++
		case '}':
			mc.pop()
			i++
		default:
			i = mc.skip(i)
		}
	}
	return nil
}

// skip returns the offset of the first '"', '{' or '}' after p[i], or
// len(p): octet by octet over a few, where most stretches between strings
// end, then with IndexByte.
func (mc *memberCheck) skip(i int) int {
	p := mc.p
	i++
	for lim := min(i+16, len(p)); i < lim; i++ {
		if c := p[i]; c == '"' || c == '{' || c == '}' {
			return i
		}
	}
	if i >= len(p) {
		return len(p)
	}
	return min(mc.quote.from(p, i, '"'), mc.open.from(p, i, '{'), mc.close.from(p, i, '}'))
}

// stringEnd returns the offset of the quote that ends the string whose
// text starts at p[j], or len(p) if none does.
func (mc *memberCheck) stringEnd(j int) int {
	p := mc.p
	// A word at a time over the first 32 octets, where most strings end.
	for lim := min(j+32, len(p)-7); j < lim; {
		w := binary.LittleEndian.Uint64(p[j:])
		m := hasOctet(w, '"') | hasOctet(w, '\\')
		if m == 0 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(m) / 8
		if p[j] == '"' {
			return j
		}
		j += 2 // an escape: the escaped octet is never the end
	}
	for j < len(p) {
		q := mc.quote.from(p, j, '"')
		if q >= len(p) || !mc.escapes {
			return q
		}
		// Escaped when an odd number of backslashes stands before it.
		// From j on, each backslash is counted for the one quote that
		// follows its run: linear.
		k := q
		for k > j && p[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		j = q + 1
	}
	return len(p)
}

// hasOctet returns a word whose lowest set bit, if any, is the high bit
// of the lowest octet of w that is c (higher bits may be set wrongly: the
// borrow of the subtraction runs on past a match).
func hasOctet(w uint64, c byte) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	x := w ^ lsb*uint64(c)
	return (x - lsb) &^ x & msb
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (mc *memberCheck) push() {
	mc.objs = append(mc.objs, memberObj{first: mc.nkeys})
}

// pop closes the innermost object and forgets its names.
func (mc *memberCheck) pop() {
	if len(mc.objs) == 0 {
		return // unbalanced: the decoder's to refuse
	}
	o := &mc.objs[len(mc.objs)-1]
	if o.tabled {
		// Last in, first out: the table is as it was before the object's
		// first name went in (memberTable.remove).
		// The exact reverse of the order they went in (insert: each
		// name's kinds in order): a slot emptied out of turn would cut
		// the probe sequence of a name that went in after it, which a
		// lookup would then miss and a removal leave behind.
		for at := mc.nkeys - 1; at >= o.first; at-- {
			for k := len(mc.kinds) - 1; k >= 0; k-- {
				kind := mc.kinds[k]
				mc.table.remove(memberHome(mc.hash(at, kind), kind, len(mc.objs)), at, kind)
			}
		}
	}
	mc.nkeys = o.first
	mc.objs = mc.objs[:len(mc.objs)-1]
}

// of returns the octets of s: in p, the body, or, for a negative lo, in
// arena.
func (s span) of(p, arena []byte) []byte {
	if s.lo < 0 {
		return arena[^s.lo:s.hi]
	}
	return p[s.lo:s.hi]
}

// member checks the name p[start:end] (its raw text, between the quotes)
// of a member of the innermost open object against the names before it,
// and adds it to them.
func (mc *memberCheck) member(start, end int) *finding.Rejection {
	at := mc.next() // filled in place: the names are compared where they lie
	k := &mc.keys[at]
	k.u = span{start, end}
	u, rest := mc.p[start:end], mc.p[start:]
	if mc.escapes && bytes.IndexByte(u, '\\') >= 0 {
		lo := len(mc.arena)
		var ok bool
		if mc.arena, ok = appendJSONUnquote(mc.arena, u); !ok {
			mc.arena = mc.arena[:lo]
			return nil // not JSON: the decoder's to refuse
		}
		k.u = span{^lo, len(mc.arena)}
		u = mc.arena[lo:]
		rest = u
	}
	var ascii, lower bool
	if h, ok := packPlain(u, rest); ok {
		ascii, lower = true, true
		k.h = h
	} else {
		ascii, lower = asciiName(u)
		k.h = hashFolded(u, lower, &mc.fold)
	}
	if mc.form != normalize.None {
		nm := &mc.norms[at]
		nm.n, nm.hc, nm.he = k.u, k.h, k.h
		n := u
		if !ascii && !mc.form.IsNormal(u) {
			lo := len(mc.arena)
			mc.arena = mc.form.Append(mc.arena, u)
			nm.n = span{^lo, len(mc.arena)}
			n = mc.arena[lo:]
			nm.hc = hashFolded(n, false, &mc.fold)
		}
		if !lower {
			nm.he = hashExact(n)
		}
	}
	o := &mc.objs[len(mc.objs)-1]
	for _, kind := range mc.kinds {
		e := mc.find(o, at, kind)
		if e < 0 {
			continue
		}
		switch {
		case kind == foldedName:
			return memberReject(mc.p, sanitize.DuplicateKey, start)
		case kind == canonName && !bytes.EqualFold(mc.keys[e].u.of(mc.p, mc.arena), u),
			kind == exactName && !bytes.Equal(mc.keys[e].u.of(mc.p, mc.arena), u):
			// One in the canonical form, and not before.
			return memberReject(mc.p, sanitize.KeyCollision, start)
		}
	}
	mc.add(o)
	return nil
}

// next returns the index of the place of the name after the last one,
// nkeys, which add then counts in.
func (mc *memberCheck) next() int {
	if mc.nkeys == len(mc.keys) {
		if len(mc.keys) == cap(mc.keys) {
			mc.keys = slices.Grow(mc.keys, mc.growth(len(mc.keys)))
		}
		mc.keys = mc.keys[:len(mc.keys)+1]
	}
	if mc.form != normalize.None && mc.nkeys >= len(mc.norms) {
		if len(mc.norms) == cap(mc.norms) {
			mc.norms = slices.Grow(mc.norms, mc.growth(len(mc.norms)))
		}
		mc.norms = mc.norms[:mc.nkeys+1]
	}
	return mc.nkeys
}

// growth returns how many names to make room for in keys or norms, which
// hold n and are full: as many again while they are few (append's growth
// of large slices, a quarter, allocates five times the final size along
// the way), and past growFrom all the body can still hold at once. Every
// name is followed by a colon, and takes five octets at least
// (`,"":0`): a body of many names (the case where they matter) is
// reserved for once, instead of in a dozen doublings that allocate as
// much again; the pool then keeps it for the next such body.
func (mc *memberCheck) growth(n int) int {
	if n < growFrom {
		return max(n, 16)
	}
	if mc.bound == 0 {
		mc.bound = min(bytes.Count(mc.p, []byte{':'}), len(mc.p)/5+1)
	}
	return max(n, mc.bound-n)
}

// hash returns the fingerprint by kind of the name at index at.
func (mc *memberCheck) hash(at int, kind nameKind) uint64 {
	switch kind {
	case canonName:
		return mc.norms[at].hc
	case exactName:
		return mc.norms[at].he
	}
	return mc.keys[at].h
}

// find returns the index of a name of o, before the one at index at, that
// is one with it by kind, or -1 if there is none. Of names that are one
// with each other by kind, it may return any: member refuses a name that
// is one with an earlier name by kind and differs from it as unescaped,
// so those it lets in are all the same name.
func (mc *memberCheck) find(o *memberObj, at int, kind nameKind) int {
	h := mc.hash(at, kind)
	if o.tabled {
		// Only an earlier name of o: a place the table still holds for a
		// name of a closed object whose index the names after it took
		// again may hold at itself, whose fingerprint is its own.
		return mc.table.find(memberHome(h, kind, len(mc.objs)), kind, func(e int) bool {
			return e >= o.first && e < at && mc.hash(e, kind) == h && mc.same(e, at, kind)
		})
	}
	for e := o.first; e < at; e++ {
		if mc.hash(e, kind) == h && mc.same(e, at, kind) {
			return e
		}
	}
	return -1
}

// same reports whether the names at indexes e and k, whose fingerprints
// by kind are equal, are one by kind.
func (mc *memberCheck) same(e, k int, kind nameKind) bool {
	switch kind {
	case foldedName:
		return bytes.EqualFold(mc.keys[e].u.of(mc.p, mc.arena), mc.keys[k].u.of(mc.p, mc.arena))
	case canonName:
		return bytes.EqualFold(mc.norms[e].n.of(mc.p, mc.arena), mc.norms[k].n.of(mc.p, mc.arena))
	}
	return bytes.Equal(mc.norms[e].n.of(mc.p, mc.arena), mc.norms[k].n.of(mc.p, mc.arena))
}

// add counts in the name that next returned, of o, the innermost open
// object, and puts the object's names in the table once it has
// memberTableFrom of them. Room is made first: growTable enters again
// only the names that are in the table already.
func (mc *memberCheck) add(o *memberObj) {
	at := mc.nkeys
	switch {
	case o.tabled:
		mc.reserve(1)
		mc.nkeys++
		mc.insert(at)
	case at+1-o.first >= memberTableFrom:
		mc.reserve(at + 1 - o.first)
		o.tabled = true
		mc.nkeys++
		for k := o.first; k < mc.nkeys; k++ {
			mc.insert(k)
		}
	default:
		mc.nkeys++
	}
}

// reserve makes room in the table for names more names, of every kind.
func (mc *memberCheck) reserve(names int) {
	for 2*(mc.table.n+names*len(mc.kinds)) > len(mc.table.slots) {
		mc.growTable()
	}
}

// insert enters the name at index at, of the innermost open object, in
// the table, once for each kind. There is room (reserve).
func (mc *memberCheck) insert(at int) {
	for _, kind := range mc.kinds {
		mc.table.insert(memberHome(mc.hash(at, kind), kind, len(mc.objs)), at, kind)
	}
}

// growTable doubles the table (16 slots at first) and enters again the
// names it held, in the order they went in: the names of the tabled open
// objects, outermost first, each at the depth of its object.
func (mc *memberCheck) growTable() {
	t := &mc.table
	size := max(16, 2*len(t.slots))
	if size > 2*growFrom && len(mc.keys) > 0 {
		// As keys, past growFrom: room for as many names as keys has,
		// at once.
		for size < 2*cap(mc.keys)*len(mc.kinds) {
			size *= 2
		}
	}
	t.slots, t.n = make([]uint32, size), 0
	for i, o := range mc.objs {
		if !o.tabled {
			continue
		}
		end := mc.nkeys
		if i+1 < len(mc.objs) {
			end = mc.objs[i+1].first
		}
		for at := o.first; at < end; at++ {
			for _, kind := range mc.kinds {
				t.insert(memberHome(mc.hash(at, kind), kind, i+1), at, kind)
			}
		}
	}
}

// memberHome returns where in the table a name whose fingerprint by kind is h,
// of the open object at depth depth (1 the outermost), is looked for
// first: a seeded hash of the fingerprint, the kind and the depth (only
// open objects have names in the table, one per depth). The fingerprints
// of short names are their octets, which a client chooses; hashed with a
// secret seed, they make places no client can make collide, so that no
// client can make the probes long (and a collision, found by comparing
// the names, costs a probe, not a wrong answer).
func memberHome(h uint64, kind nameKind, depth int) uint64 {
	return hashKey(h ^ uint64(kind)<<62 ^ uint64(depth)*0x9E3779B97F4A7C15)
}

// memberTable is the table of the names of the objects with many names:
// open addressing with linear probing, each slot the index of a name
// (plus one; 0 is empty) and its kind in the top two bits, at most half
// the slots in use. Names leave it last in, first out (the innermost
// object's, when it closes), which linear probing allows without
// tombstones: a name went in after every name whose probe sequence it
// could lie on, and so it comes out before them.
type memberTable struct {
	slots []uint32
	n     int // slots in use
}

const (
	slotKindShift = 30
	slotIndexMask = 1<<slotKindShift - 1
)

// insert enters the name at index at, of kind kind, whose home is home.
func (t *memberTable) insert(home uint64, at int, kind nameKind) {
	mask := uint64(len(t.slots) - 1)
	i := home & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = uint32(at+1) | uint32(kind)<<slotKindShift
	t.n++
}

// find returns the index of the first name of kind kind on the probe
// sequence from home that match accepts, or -1.
func (t *memberTable) find(home uint64, kind nameKind, match func(at int) bool) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint64(len(t.slots) - 1)
	for i := home & mask; t.slots[i] != 0; i = (i + 1) & mask {
		if s := t.slots[i]; nameKind(s>>slotKindShift) == kind && match(int(s&slotIndexMask)-1) {
			return int(s&slotIndexMask) - 1
		}
	}
	return -1
}

// remove takes out the name at index at, of kind kind, whose home is
// home: the last one in.
func (t *memberTable) remove(home uint64, at int, kind nameKind) {
	mask := uint64(len(t.slots) - 1)
	want := uint32(at+1) | uint32(kind)<<slotKindShift
	for i := home & mask; t.slots[i] != 0; i = (i + 1) & mask {
		if t.slots[i] == want {
			t.slots[i] = 0
			t.n--
			return
		}
	}
}

// reset empties the table for the next body, keeping up to keep slots.
func (t *memberTable) reset(keep int) {
	if len(t.slots) > keep {
		t.slots = nil
	} else if t.n > 0 {
		clear(t.slots) // left by a body that stopped in an object
	}
	t.n = 0
}

// hashFolded returns a fingerprint of foldKey(s): for a folded name of
// up to seven octets, the octets and the length themselves (equal
// fingerprints are equal names), and for a longer one its seeded hash
// (maphash: no client can choose names whose hashes collide). lower says
// that s is ASCII without upper-case letters, its own folding. The
// folding goes a stretch at a time through fold, since it never lengthens
// a text (the representative of an orbit is its smallest code point) and
// shortens it at most threefold.
func hashFolded(s []byte, lower bool, fold *[64]byte) uint64 {
	if !lower && len(s) <= len(fold) {
		s, lower = appendFoldKey(fold[:0], s), true
	}
	if lower {
		if len(s) < 8 {
			return packName(s)
		}
		return maphash.Bytes(memberSeed, s)
	}
	var h maphash.Hash
	h.SetSeed(memberSeed)
	for i := 0; i < len(s); {
		end := min(i+len(fold), len(s))
		// Cut before the character that straddles the end of the
		// stretch. Where no character starts in the last three octets,
		// none straddles it (the text is not UTF-8 there, and its
		// octets fold one at a time).
		for back := 0; back < utf8.UTFMax-1 && end < len(s) && !utf8.RuneStart(s[end]); back++ {
			end--
		}
		if end < len(s) && !utf8.RuneStart(s[end]) {
			end = i + len(fold)
		}
		h.Write(appendFoldKey(fold[:0], s[i:end]))
		i = end
	}
	return h.Sum64()
}

// packPlain returns packName(s) for a plain name shorter than eight
// octets, ASCII without upper-case letters or backslashes (its own
// folding, normal form and unescaped text), and whether s is one. rest
// is s and what follows it in the body, for a word load.
func packPlain(s, rest []byte) (uint64, bool) {
	if len(s) >= 8 {
		return 0, false
	}
	var w uint64
	if len(rest) >= 8 {
		w = binary.LittleEndian.Uint64(rest) & (1<<(8*len(s)) - 1)
	} else {
		for i, c := range s {
			w |= uint64(c) << (8 * i)
		}
	}
	return plainWord(w, len(s))
}

// plainWord returns packName of the name of n < 8 octets packed in w (the
// first octet lowest, zeros above), and whether it is plain.
func plainWord(w uint64, n int) (uint64, bool) {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	if w&msb != 0 {
		return 0, false
	}
	// Octets 'A' to 'Z': at least 'A' and not at least 'Z'+1, where
	// adding to octets below 0x80 carries into no other octet.
	upper := (w + (0x80-'A')*lsb) &^ (w + (0x80-'Z'-1)*lsb) & msb
	if upper != 0 || hasOctet(w, '\\') != 0 {
		return 0, false
	}
	return w | uint64(n)<<56, true
}

// hashExact returns a fingerprint of s as it is, as hashFolded does of
// a folded name.
func hashExact(s []byte) uint64 {
	if len(s) < 8 {
		return packName(s)
	}
	return maphash.Bytes(memberSeed, s)
}

// packName returns the octets of a name shorter than eight octets, and its
// length in the top octet.
func packName(s []byte) uint64 {
	h := uint64(len(s)) << 56
	for i, c := range s {
		h |= uint64(c) << (8 * i)
	}
	return h
}

// asciiName reports whether s is all ASCII, and whether it is ASCII
// without upper-case letters (so that foldKey leaves it as it is).
//
// It goes eight octets at a time: a long key is looked at here once per
// object it is in (a hostile body of long keys is made of them).
func asciiName(s []byte) (ascii, lower bool) {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	var high, upper uint64
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		high |= w
		// Octets 'A' to 'Z', as plainWord tells them; in a word with an
		// octet over 0x7F the carries make this wrong, but then high
		// says that s is not ASCII.
		upper |= (w + (0x80-'A')*lsb) &^ (w + (0x80-'Z'-1)*lsb)
		s = s[8:]
	}
	if high&msb != 0 {
		return false, false
	}
	lower = upper&msb == 0
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return false, false
		}
		if 'A' <= c && c <= 'Z' {
			lower = false
		}
	}
	return true, lower
}

// memberReject returns the rejection of the member whose name starts at
// p[start]: its JSON pointer, and the offset of its name.
func memberReject(p []byte, reason sanitize.Reason, start int) *finding.Rejection {
	return &finding.Rejection{Reason: reason, Location: rules.JSON, Field: jsonMemberPointer(p, start),
		Offset: start, Sample: finding.Sample(p, start), Err: &sanitize.Error{Reason: reason, Offset: start}}
}

// jsonMemberPointer returns the JSON pointer (safeField) of the member of
// body whose name starts at body[start], found again with the scanner:
// work for a rejection only.
func jsonMemberPointer(body []byte, start int) string {
	sc := jsonScanner{p: body, maxDepth: -1}
	var ptr string
	sc.onString = func(i, end int, _ bool) *finding.Rejection {
		if i+1 != start {
			return nil
		}
		sc.inKey, sc.keySpan = true, [2]int{start, max(start, end-1)}
		ptr = sc.pointer()
		return errStopScan
	}
	if sc.scan() == nil {
		return "" // not found: cannot happen for a name memberCheck found
	}
	return ptr
}

// errStopScan stops a scan from its onString hook.
var errStopScan = &finding.Rejection{}
