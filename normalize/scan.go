package normalize

import (
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// This file holds the scanner that every method of Form is built on.
//
// A character is safe in a form when its Canonical_Combining_Class is 0 and
// its quick-check property (NFC_QC or NFKC_QC) is Yes: it is in the form, it
// starts with a starter and nothing combines with what precedes it
// (combining backward makes the quick check Maybe). Two facts follow (UAX
// #15, Detecting Normalization Forms), and TestSafeTable and
// TestBoundaryBeforeSafe check them against norm:
//
//   - text made of safe characters only is in the form (the quick check
//     answers Yes, which is definitive);
//   - there is a normalization boundary before every safe character: for any
//     x, and y that starts with a safe character, f(x+y) = f(x) + f(y).
//
// So the scanner skips safe characters with a table lookup (ASCII eight
// octets at a time), and hands to norm only the regions that are not safe:
// from the last safe character before the first unsafe one (that character
// may combine with what follows it, as e with U+0301), up to the next safe
// character. Each region lies between two boundaries, so the text is normal
// if and only if every region is, and the normal form of the text is the
// safe runs copied as they are with the normal form of every region between
// them.
//
// Octets that are not well-formed UTF-8 end a region and are never given to
// norm: they are reported (IsNormal, Check) or copied as they are (Bytes,
// String, Append), and act as a boundary.

const msb = 0x8080808080808080

// load64 returns the eight octets of p at i as a little-endian word.
func load64[T string | []byte](p T, i int) uint64 {
	q := p[i : i+8] // one bounds check; the compiler merges the loads
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}

// formInfo is what the scanner needs to know about a Form.
type formInfo struct {
	norm  norm.Form
	index *[indexLen]uint8 // safe bits of a code point below limit: safeRows[index[cp>>8]]
	limit rune             // every code point at or above limit is safe
}

var formInfos = [...]formInfo{
	NFC:  {norm: norm.NFC, index: &nfcIndex, limit: nfcLimit},
	NFKC: {norm: norm.NFKC, index: &nfkcIndex, limit: nfkcLimit},
}

// noIndex is the index used when the tables do not match the Unicode version
// of norm: every non-ASCII character then goes to norm.
var noIndex [indexLen]uint8

func init() {
	if norm.Version != tablesVersion {
		// The tables were computed from another version of norm's data
		// (a new Go release can switch x/text to newer tables); a code
		// point unassigned in one version can be a combining mark in the
		// next. Stay correct: fall back to norm for non-ASCII text.
		for i := range formInfos {
			if formInfos[i].index != nil {
				formInfos[i].index, formInfos[i].limit = &noIndex, utf8.MaxRune+1
			}
		}
	}
}

// isSafe reports whether the code point c (a scalar value) is safe.
func (fi *formInfo) isSafe(c rune) bool {
	if c >= fi.limit {
		return true
	}
	return safeRows[fi.index[c>>8]][c>>6&3]>>(c&63)&1 != 0
}

// safeSpan returns the offset of the first octet at or after i that does not
// start a well-formed safe character, or len(p).
func safeSpan[T string | []byte](fi *formInfo, p T, i int) int {
	n := len(p)
	for i < n {
		// A run of ASCII, eight octets at a time, 32 once the run is long.
		for i+8 <= n {
			w := load64(p, i)
			if w&msb != 0 {
				i += bits.TrailingZeros64(w&msb) >> 3
				break
			}
			i += 8
			if n-i >= 32 {
				q := p[i:]
				for len(q) > 32 && (load64(q, 0)|load64(q, 8)|load64(q, 16)|load64(q, 24))&msb == 0 {
					q = q[32:]
				}
				i = n - len(q)
			}
		}
		if i >= n {
			break
		}
		c := p[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		// A character of 2, 3 or 4 octets: decode it strictly (RFC 3629
		// section 4); anything ill-formed is left to the slow path.
		var r rune
		var size int
		switch {
		case c < 0xC2:
			return i // a continuation octet, or an overlong C0/C1 lead
		case c < 0xE0:
			if i+1 >= n || p[i+1]&0xC0 != 0x80 {
				return i
			}
			r, size = rune(c&0x1F)<<6|rune(p[i+1]&0x3F), 2
		case c < 0xF0:
			if i+2 >= n || p[i+1]&0xC0 != 0x80 || p[i+2]&0xC0 != 0x80 {
				return i
			}
			r, size = rune(c&0x0F)<<12|rune(p[i+1]&0x3F)<<6|rune(p[i+2]&0x3F), 3
			if r < 0x800 {
				return i // overlong; surrogates are not safe in the tables
			}
		case c < 0xF5:
			if i+3 >= n || p[i+1]&0xC0 != 0x80 || p[i+2]&0xC0 != 0x80 || p[i+3]&0xC0 != 0x80 {
				return i
			}
			r, size = rune(c&0x07)<<18|rune(p[i+1]&0x3F)<<12|rune(p[i+2]&0x3F)<<6|rune(p[i+3]&0x3F), 4
			if r < 0x10000 || r > utf8.MaxRune {
				return i
			}
		default:
			return i
		}
		if !fi.isSafe(r) {
			return i
		}
		i += size
	}
	return n
}

// decode returns the character at p[i:], or utf8.RuneError and 1 for an
// octet that does not start a well-formed one.
func decode[T string | []byte](p T, i int) (rune, int) {
	switch q := any(p).(type) {
	case string:
		return utf8.DecodeRuneInString(q[i:])
	case []byte:
		return utf8.DecodeRune(q[i:])
	}
	panic("unreachable")
}

// nextRegion finds the next region of p, at or after i, that the fast path
// cannot accept. p[i:start] is safe text; p[start:end] is the region, made of
// well-formed characters, that starts at a boundary and ends at one (a safe
// character, an ill-formed octet or the end of p); bad reports that an
// ill-formed octet is at end. found is false when p[i:] is all safe.
func nextRegion[T string | []byte](fi *formInfo, p T, i int) (start, end int, bad, found bool) {
	k := safeSpan(fi, p, i)
	if k == len(p) {
		return 0, 0, false, false
	}
	// The last safe character before k may combine with what follows it:
	// the region starts there. Safe characters are well-formed, so their
	// first octet is the first one that is not a continuation.
	start = k
	if k > i {
		start = k - 1
		for start > i && p[start]&0xC0 == 0x80 {
			start--
		}
	}
	end = k
	for end < len(p) {
		r, size := decode(p, end)
		if r == utf8.RuneError && size == 1 {
			return start, end, true, true
		}
		if fi.isSafe(r) {
			break
		}
		end += size
	}
	return start, end, false, true
}

// iterPool holds norm.Iter values: an Iter is too large to live on the stack
// (norm's own slow paths allocate one buffer of that size per call).
var iterPool = sync.Pool{New: func() any { return new(norm.Iter) }}

// iters lends one norm.Iter to a whole call, taken from the pool at the
// first region that needs it and given back by release. An Iter may be
// reused after a complete iteration, not after one abandoned half-way:
// Iter.Init does not empty what the abandoned one left behind (after the
// first "f" of U+FB01 under NFKC, a new iteration over U+FB01 yields "if",
// "i"). release zeroes it, which also lets go of the text.
type iters struct{ it *norm.Iter }

func (c *iters) get() *norm.Iter {
	if c.it == nil {
		c.it = iterPool.Get().(*norm.Iter)
	}
	return c.it
}

func (c *iters) release() {
	if c.it != nil {
		*c.it = norm.Iter{}
		iterPool.Put(c.it)
		c.it = nil
	}
}

func initIter[T string | []byte](it *norm.Iter, f norm.Form, p T) {
	switch q := any(p).(type) {
	case string:
		it.InitString(f, q)
	case []byte:
		it.Init(f, q)
	}
}

func quickSpan[T string | []byte](f norm.Form, p T) int {
	switch q := any(p).(type) {
	case string:
		return f.QuickSpanString(q)
	case []byte:
		return f.QuickSpan(q)
	}
	panic("unreachable")
}

// regionDiff returns the offset in the region r (well-formed, between two
// boundaries) of the first character that normalization changes, or -1 if r
// is normal: the longest common prefix of r and f(r), backed up to the start
// of a character. Once it has found a difference, c's Iter must be released
// before it is used again.
func regionDiff[T string | []byte](c *iters, f norm.Form, r T) int {
	if quickSpan(f, r) == len(r) {
		return -1
	}
	// QuickSpan's answer is not a place to resume from: it can stop before
	// a character that combines with the one before it (U+1161 after
	// U+1100). Iterate over the whole region, from its boundary.
	it := c.get()
	initIter(it, f, r)
	for pos := 0; !it.Done(); {
		seg := it.Next()
		end := it.Pos()
		if in := r[pos:end]; string(seg) != string(in) {
			n := 0
			for n < len(seg) && n < len(in) && seg[n] == in[n] {
				n++
			}
			n += pos
			if n >= len(r) {
				n = len(r) - 1
			}
			for n > 0 && r[n]&0xC0 == 0x80 {
				n--
			}
			return n
		}
		pos = end
	}
	return -1
}

// appendRegion appends f(r) to dst, for a well-formed region r between two
// boundaries, without looking at what dst holds.
func appendRegion[T string | []byte](c *iters, dst []byte, f norm.Form, r T) []byte {
	if quickSpan(f, r) == len(r) {
		return append(dst, r...)
	}
	it := c.get()
	initIter(it, f, r)
	for !it.Done() {
		dst = append(dst, it.Next()...)
	}
	return dst
}

// firstDiff returns the offset n of the first character of p that f changes,
// or of the first ill-formed octet if that comes first (bad), or -1; and the
// boundary from <= n where the region holding it starts, from which
// appendNormal can resume.
func firstDiff[T string | []byte](fi *formInfo, p T) (from, n int, bad bool) {
	var c iters
	defer c.release()
	for i := 0; ; {
		start, end, bad, found := nextRegion(fi, p, i)
		if !found {
			return 0, -1, false
		}
		if d := regionDiff(&c, fi.norm, p[start:end]); d >= 0 {
			return start, start + d, false
		}
		if bad {
			return end, end, true
		}
		i = end
	}
}

// Stretches of text that need rewriting: regions closer together than
// mergeGap octets are rewritten together, and a stretch of at least
// bulkStretch octets by norm's Append, which is faster than norm.Iter (about
// 1.5 times on decomposed Latin text) but allocates a buffer of its own per
// call; shorter stretches go through a pooled norm.Iter.
const (
	mergeGap    = 64
	bulkStretch = 256
)

// appendNormal appends f(p[i:]) to dst, for a boundary i, copying
// ill-formed octets as they are.
func appendNormal[T string | []byte](fi *formInfo, dst []byte, p T, i int) []byte {
	var c iters
	defer c.release()
	for {
		start, end, bad, found := nextRegion(fi, p, i)
		if !found {
			return append(dst, p[i:]...)
		}
		dst = append(dst, p[i:start]...)
		if quickSpan(fi.norm, p[start:end]) == end-start {
			dst = append(dst, p[start:end]...)
		} else {
			// Take in the regions that follow closely: the safe text
			// between them is normal and starts at a boundary, so the
			// stretch is normalized as a whole just as piece by piece.
			for !bad && end < len(p) {
				s2, e2, bad2, found2 := nextRegion(fi, p, end)
				if !found2 || s2-end >= mergeGap {
					break
				}
				end, bad = e2, bad2
			}
			if end-start >= bulkStretch {
				dst = appendBulk(dst, fi.norm, p[start:end])
			} else {
				dst = appendRegion(&c, dst, fi.norm, p[start:end])
			}
		}
		if bad {
			dst = append(dst, p[end])
			end++
		}
		i = end
	}
}

// appendBulk appends f(r) to dst with norm's Append, for a well-formed r
// between two boundaries. norm.Form.Append normalizes across the junction
// with what its out argument holds, so it is given none: an empty slice over
// the free capacity of dst, which it fills in place when the result fits.
func appendBulk[T string | []byte](dst []byte, f norm.Form, r T) []byte {
	// Normalizing to NFC or NFKC rarely lengthens text; if it does, norm
	// grows out itself and the result is copied.
	dst = slices.Grow(dst, len(r))
	var out []byte
	switch q := any(r).(type) {
	case string:
		out = f.AppendString(dst[len(dst):], q)
	case []byte:
		out = f.Append(dst[len(dst):], q...)
	}
	if len(out) > 0 && cap(out) == cap(dst)-len(dst) && &out[0] == &dst[:len(dst)+1][len(dst)] {
		return dst[:len(dst)+len(out)] // written in place
	}
	return append(dst, out...)
}
