package normalize

import (
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/sanitize"
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
// So the scanner skips safe characters (safeSpan) and hands to norm only the
// regions that are not safe:
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
//
// The safe characters of each form are in tables.go, which
// internal/mktables generates from the Unicode Character Database (in
// testdata/ucd). The scanner skips ASCII eight and 32 octets at a time.
// Where sanitize.ValidPrefix runs a SIMD kernel (amd64 with AVX2), it has it
// validate the rest of the text a stretch at a time, and then looks at the
// well-formed text eight octets at a time without decoding it: a run of
// characters whose first octet is below skipBelow (ASCII and, in NFC, every
// character below U+0300) is skipped a word at a time, and any other
// character is looked up in a table indexed by its octets (validSpan);
// after a character of four octets, emoji text is read a word at a time
// too (wideSpan). Elsewhere it checks the octets of each character itself as it looks it up
// in the same tables (checkSpan).

const msb = 0x8080808080808080

// load64 returns the eight octets of p at i as a little-endian word.
func load64[T string | []byte](p T, i int) uint64 {
	_ = p[i+7] // one bounds check, which the loops prove away; the compiler merges the loads
	return uint64(p[i]) | uint64(p[i+1])<<8 | uint64(p[i+2])<<16 | uint64(p[i+3])<<24 |
		uint64(p[i+4])<<32 | uint64(p[i+5])<<40 | uint64(p[i+6])<<48 | uint64(p[i+7])<<56
}

// formInfo is what the scanner needs to know about a Form.
type formInfo struct {
	norm  norm.Form
	index *[indexLen]uint8 // safe bits of a code point below limit: safeRows[index[cp>>8]]
	limit rune             // every code point at or above limit is safe
	// The same safe bits, indexed by the octets of a character: two[l&0x1F]
	// bit c&63 for a character of two octets l, c; three[(l&0x0F)<<6|c&0x3F]
	// bit d&63 for one of three octets l, c, d. The code points that have
	// no such encoding (overlong ones, surrogates) have no bit set.
	two   *[32]uint64
	three *[1024]uint64 // the first half of wide
	// wide is three followed by rows for the characters of four octets,
	// for wideSpan: wide[(l&0x1F)<<6|c&0x3F] bit d&63 is three's bit for
	// a character of three octets l, c, d; for one of four octets l, c,
	// d, e (l&0x1F from 0x10), it is set when the 64 characters l, c, d,
	// * are all safe, as they are in the emoji blocks (in NFKC, but for
	// the enclosed letters and ideographs), and for the ideographs of
	// planes 2 and 3 but the compatibility ones.
	wide *[2048]uint64
	// Every character whose first octet is below skipBelow is safe: ASCII,
	// and in NFC the characters of two octets up to U+02FF (first octets
	// C2-CB), which cover the Latin scripts. fillOctetTables computes it:
	// CC for NFC, C2 (ASCII only) for NFKC.
	skipBelow byte
	// prevalidate tells safeSpan to have sanitize.ValidPrefix validate the
	// text before it looks at the characters (validSpan), rather than check
	// each one itself (checkSpan): where ValidPrefix runs a SIMD kernel.
	prevalidate bool
	// nfkc is set for NFKC. native tells the scanner to normalize the
	// regions itself (compose.go), which it does when its data are of the
	// Unicode version of norm; otherwise norm does.
	nfkc, native bool
}

var formInfos = [...]formInfo{
	NFC:  {norm: norm.NFC, index: &nfcIndex, limit: nfcLimit, two: new([32]uint64), wide: new([2048]uint64)},
	NFKC: {norm: norm.NFKC, index: &nfkcIndex, limit: nfkcLimit, two: new([32]uint64), wide: new([2048]uint64), nfkc: true},
}

// noIndex is the index used when the tables do not match the Unicode version
// of norm: every non-ASCII character then goes to norm. noTwo and noWide are
// its octet-driven tables.
var (
	noIndex [indexLen]uint8
	noTwo   [32]uint64
	noWide  [2048]uint64
)

//go:generate go run ./internal/mktables -ucd ../testdata/ucd/15.0.0 -o tables.go -compose compose_tables.go

func init() {
	for i := range formInfos {
		fi := &formInfos[i]
		if fi.index == nil {
			continue
		}
		if norm.Version != tablesVersion {
			// The tables were computed from another version of the
			// Unicode data than norm's (a new Go release can switch
			// x/text to newer tables); a code point unassigned in one
			// version can be a combining mark in the next. Stay
			// correct: fall back to norm for non-ASCII text.
			*fi = fallbackInfo(fi.norm)
			continue
		}
		fi.fillOctetTables()
		fi.prevalidate = simdValidation
		fi.native = composeVersion == norm.Version
	}
}

// fallbackInfo returns the formInfo of f for another Unicode version than
// that of the tables: only ASCII is safe.
func fallbackInfo(f norm.Form) formInfo {
	return formInfo{norm: f, index: &noIndex, limit: utf8.MaxRune + 1, two: &noTwo, three: (*[1024]uint64)(noWide[:1024]), wide: &noWide, skipBelow: 0xC2, prevalidate: simdValidation, nfkc: f == norm.NFKC}
}

// fillOctetTables fills fi.two, fi.wide (and fi.three, its first half) and
// fi.skipBelow from the tables indexed by code point.
func (fi *formInfo) fillOctetTables() {
	for b := 0x80 >> 6; b < len(fi.two); b++ {
		fi.two[b] = fi.safeBits(rune(b) << 6)
	}
	fi.three = (*[1024]uint64)(fi.wide[:1024])
	for b := 0x800 >> 6; b < len(fi.three); b++ {
		if c := rune(b) << 6; c < 0xD800 || c > 0xDFFF {
			fi.three[b] = fi.safeBits(c)
		}
	}
	// Four octets: row 1024 + (l&0x07)<<6 | c&0x3F holds the code points
	// (l&0x07)<<18 | (c&0x3F)<<12, bit d&63 those from that plus
	// (d&0x3F)<<6.
	for c := rune(0x10000); c <= utf8.MaxRune; c += 64 {
		if fi.safeBits(c) == ^uint64(0) {
			fi.wide[1024+c>>12] |= 1 << (c >> 6 & 63)
		}
	}
	fi.skipBelow = 0xC2
	for fi.skipBelow < 0xE0 && fi.two[fi.skipBelow&0x1F] == ^uint64(0) {
		fi.skipBelow++
	}
}

// safeBits returns the safe bits of the 64 code points from c, a multiple
// of 64: bit k for c+k.
func (fi *formInfo) safeBits(c rune) uint64 {
	if c >= fi.limit {
		return ^uint64(0)
	}
	return safeRows[fi.index[c>>8]][c>>6&3]
}

// isSafe reports whether the code point c (a scalar value) is safe.
func (fi *formInfo) isSafe(c rune) bool {
	if c >= fi.limit {
		return true
	}
	return safeRows[fi.index[c>>8]][c>>6&3]>>(c&63)&1 != 0
}

// Each call of safeSpan validates the text in stretches, from minStretch
// octets doubling up to maxStretch, so that a long text with an early
// character to normalize is not validated to its end first.
const (
	minStretch = 1 << 10
	maxStretch = 64 << 10
)

// scanState is what safeSpan carries from one call to the next on the same
// text; its zero value is the state at the start.
type scanState struct {
	// valid is an offset up to which the text is known to be well-formed:
	// p[i:valid] is, for a character boundary i <= valid.
	valid int
	// stretch is the length of the last stretch that nextStretch had
	// validated ahead (decodeIn).
	stretch int
	// illFormed is set once an ill-formed sequence has been found. From
	// then on safeSpan decodes eight characters one at a time, not one,
	// before it calls sanitize.ValidPrefix, whose call costs as much as a
	// few dozen characters: where ill-formed sequences come close
	// together, most of them are found without it.
	illFormed bool
}

// safeSpan returns the offset of the first octet at or after i, a character
// boundary, that does not start a well-formed safe character, or len(p).
func safeSpan[T string | []byte](fi *formInfo, p T, i int, st *scanState) int {
	if !fi.prevalidate {
		return checkSpan(fi, p, i)
	}
	n := len(p)
	v := st.valid
	stretch := minStretch
	for i < n {
		if i >= v {
			// ASCII needs no validation; from the first octet that is not,
			// sanitize.ValidPrefix (SIMD on amd64) checks a stretch of
			// the text much faster than the loop below could.
			for i >= 0 && i <= n-8 {
				if m := load64(p, i) & msb; m != 0 {
					i += bits.TrailingZeros64(m) >> 3
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
			for i < n && p[i] < utf8.RuneSelf {
				i++
			}
			if i == n {
				break
			}
			// The first characters one at a time: the one after the ASCII
			// is often the one to normalize (U+0301 in NFD text), and in
			// text with ill-formed sequences the next one is often close.
			k := 1
			if st.illFormed {
				k = 8
			}
			for ; k > 0 && i < n; k-- {
				r, size := decode(p, i)
				if r == utf8.RuneError && size == 1 || !fi.isSafe(r) {
					return i
				}
				i += size
			}
			if i == n {
				break
			}
			if n-i < shortTail {
				// A few octets left: decoding them costs less than
				// the call of ValidPrefix.
				for i < n {
					r, size := decode(p, i)
					if r == utf8.RuneError && size == 1 || !fi.isSafe(r) {
						return i
					}
					i += size
				}
				break
			}
			v = i + validPrefix(p[i:min(n, i+stretch)])
			st.valid = v
			if v == i {
				st.illFormed = true
				return i // an ill-formed sequence
			}
			stretch = min(2*stretch, maxStretch)
		}
		if i = validSpan(fi, p, i, v); i < v {
			return i
		}
	}
	return n
}

// validShort reports whether p, a few octets, is well-formed UTF-8.
func validShort[T string | []byte](p T) bool {
	switch q := any(p).(type) {
	case string:
		return utf8.ValidString(q)
	case []byte:
		return utf8.Valid(q)
	}
	panic("unreachable")
}

// validPrefix returns sanitize.ValidPrefix(p) or ValidPrefixString(p).
func validPrefix[T string | []byte](p T) int {
	switch q := any(p).(type) {
	case string:
		return sanitize.ValidPrefixString(q)
	case []byte:
		return sanitize.ValidPrefix(q)
	}
	panic("unreachable")
}

const lsb = 0x0101010101010101

// validSpan is safeSpan for well-formed text p[i:v]: it returns the offset of
// the first character in it that is not safe, or v.
//
// It reads eight octets at a time, a word from which it takes the next
// character, or a run of characters below skipBelow. Such a run (ASCII, and
// in NFC the Latin letters of two octets) is skipped eight octets at a time,
// 32 once it is long: an octet is at least skipBelow when, its top bit
// cleared, adding 0x80-skipBelow&0x7F sets it. Continuation octets are below
// skipBelow, so the run ends at the first octet of a character. Another
// character is checked with one lookup in fi.two or fi.three (with its
// successor of the same length, in runs of Cyrillic or CJK), or decoded if
// it has four octets, and then wideSpan reads on. The last octets before v
// go one character at a time.
func validSpan[T string | []byte](fi *formInfo, p T, i, v int) int {
	two, three := fi.two, fi.three
	skip := fi.skipBelow
	add := uint64(0x80-skip&0x7F) * lsb
	p = p[:v] // for the bounds checks
	for i >= 0 && i <= len(p)-8 {
		w := load64(p, i)
		switch c := byte(w); {
		case c < skip:
			if m := (w&^msb + add) & w & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				continue
			}
			i += 8
			for i <= len(p)-32 {
				w0, w1, w2, w3 := load64(p, i), load64(p, i+8), load64(p, i+16), load64(p, i+24)
				if ((w0&^msb+add)&w0|(w1&^msb+add)&w1|(w2&^msb+add)&w2|(w3&^msb+add)&w3)&msb != 0 {
					break
				}
				i += 32
			}
		case c < 0xE0:
			if two[w&0x1F]>>(w>>8&63)&1 == 0 {
				return i
			}
			if w>>16&0xE0 == 0xC0 {
				if two[w>>16&0x1F]>>(w>>24&63)&1 == 0 {
					return i + 2
				}
				i += 4
				continue
			}
			i += 2
		case c < 0xF0:
			if three[(w&0x0F)<<6|w>>8&0x3F]>>(w>>16&63)&1 == 0 {
				return i
			}
			if w>>24&0xF0 == 0xE0 {
				if three[(w>>24&0x0F)<<6|w>>32&0x3F]>>(w>>40&63)&1 == 0 {
					return i + 3
				}
				i += 6
				continue
			}
			i += 3
		default:
			r := rune(w&0x07)<<18 | rune(w>>8&0x3F)<<12 | rune(w>>16&0x3F)<<6 | rune(w>>24&0x3F)
			if !fi.isSafe(r) {
				return i
			}
			i = wideSpan(fi.wide, p, i+4)
		}
	}
	for i < v {
		r, size := decode(p, i)
		if !fi.isSafe(r) {
			return i
		}
		i += size
	}
	return v
}

// wideSpan is validSpan's loop for the text after a character of four
// octets, which in emoji text comes mixed with characters of three octets
// (U+200D, U+FE0F, U+2764) and single spaces: a switch on the length of
// each character, as in validSpan, mispredicts at most of them. From i, a
// character boundary in well-formed p, wideSpan reads eight octets at a
// time the same way whatever the lengths. A word without a character of
// two octets starts at most three characters that are not ASCII (each has
// two continuation octets at least); leadPositions gives where, and each
// is looked up in wide by its first three octets: a character of three
// octets exactly, one of four with the 63 others that share them (a word
// that starts fewer than three looks the first up again). wideSpan stops
// at a word that starts no character that is not ASCII, or one of two
// octets, at the second word in a row without one of four (CJK text after
// an emoji), all of which validSpan reads faster; at a lookup that fails
// (an unsafe character, or one of four octets whose neighbours are not
// all safe); and at the last 15 octets. It returns the first character
// boundary in that word, from which validSpan looks at each character
// itself.
func wideSpan[T string | []byte](wide *[2048]uint64, p T, i int) int {
	four := uint64(msb) // the character before i has four octets
	for i <= len(p)-16 {
		q := p[i : i+16]
		w := load64(q, 0)
		// The octets 11xxxxxx, that start a character that is not
		// ASCII; with 110xxxxx, of two octets; with 1111xxxx, of four.
		a := w & (w << 1)
		l := a & msb
		f := a & (a << 2) & msb
		if l == 0 || l&^(w<<2) != 0 || f|four == 0 {
			break
		}
		four = f
		// The multiplication gathers the top bit of each octet k of l
		// into bit k of the top octet.
		k := leadPositions[(l>>7)*0x0102040810204080>>56]
		x, y, z := load64(q, int(k&7)), load64(q, int(k>>8&7)), load64(q, int(k>>16&7))
		if (wide[(x&0x1F)<<6|x>>8&0x3F]>>(x>>16&63))&
			(wide[(y&0x1F)<<6|y>>8&0x3F]>>(y>>16&63))&
			(wide[(z&0x1F)<<6|z>>8&0x3F]>>(z>>16&63))&1 == 0 {
			break
		}
		i += 8
	}
	for i < len(p) && p[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

// leadPositions holds, for each set of octets of a word (bit k for octet
// k), the positions of the first three in octets 0, 1 and 2 of its value;
// a set of fewer than three repeats the first (the empty set, which
// wideSpan does not look up, has 0).
var leadPositions = func() (t [256]uint32) {
	for m := range t {
		var k [3]uint32
		n := 0
		for b := range 8 {
			if m>>b&1 != 0 && n < 3 {
				k[n] = uint32(b)
				n++
			}
		}
		for j := max(n, 1); j < 3; j++ {
			k[j] = k[0]
		}
		t[m] = k[0] | k[1]<<8 | k[2]<<16
	}
	return t
}()

// Masks and values that tell the length of the character that the first
// octets of a little-endian word start: 110xxxxx 10xxxxxx, 1110xxxx
// 10xxxxxx 10xxxxxx, 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx.
const (
	mask2, lead2 = 0xC0E0, 0x80C0
	mask3, lead3 = 0xC0C0F0, 0x8080E0
	mask4, lead4 = 0xC0C0C0F8, 0x808080F0
)

// checkSpan is safeSpan for when sanitize.ValidPrefix has no SIMD kernel to
// run (fi.prevalidate is false), and would take as long to validate the text
// as checkSpan takes to look at it: checkSpan checks the octets of each
// character itself as it reads it.
//
// It reads eight octets at a time, a word from which it takes a run of
// ASCII, or the next character (with its successor of the same length, in
// runs of Cyrillic or CJK): a character of two or three octets is checked
// with one lookup in fi.two or fi.three, which hold no bit for the overlong
// forms and the surrogates, once its octets are of the form the first one
// announces. The last octets go one character at a time.
func checkSpan[T string | []byte](fi *formInfo, p T, i int) int {
	two, three := fi.two, fi.three
	n := len(p)
	for i >= 0 && i <= n-8 {
		w := load64(p, i)
		switch {
		case w&0x80 == 0:
			if m := w & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				continue
			}
			i += 8
			for i <= n-32 && (load64(p, i)|load64(p, i+8)|load64(p, i+16)|load64(p, i+24))&msb == 0 {
				i += 32
			}
		case w&mask2 == lead2:
			if two[w&0x1F]>>(w>>8&63)&1 == 0 {
				return i
			}
			if w&(mask2<<16) == lead2<<16 {
				if two[w>>16&0x1F]>>(w>>24&63)&1 == 0 {
					return i + 2
				}
				i += 4
				continue
			}
			i += 2
		case w&mask3 == lead3:
			if three[(w&0x0F)<<6|w>>8&0x3F]>>(w>>16&63)&1 == 0 {
				return i
			}
			if w&(mask3<<24) == lead3<<24 {
				if three[(w>>24&0x0F)<<6|w>>32&0x3F]>>(w>>40&63)&1 == 0 {
					return i + 3
				}
				i += 6
				continue
			}
			i += 3
		case w&mask4 == lead4:
			r := rune(w&0x07)<<18 | rune(w>>8&0x3F)<<12 | rune(w>>16&0x3F)<<6 | rune(w>>24&0x3F)
			if r < 0x10000 || r > utf8.MaxRune || !fi.isSafe(r) {
				return i
			}
			i += 4
		default:
			return i
		}
	}
	for i < n {
		r, size := decode(p, i)
		if r == utf8.RuneError && size == 1 || !fi.isSafe(r) {
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
func nextRegion[T string | []byte](fi *formInfo, p T, i int, st *scanState) (start, end int, bad, found bool) {
	k := safeSpan(fi, p, i, st)
	if testHookWork != nil {
		testHookWork(k - i)
	}
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
		if b := p[end]; end+utf8.UTFMax <= st.valid && b >= 0xC0 && b < 0xF0 {
			// Known well-formed: one lookup, as in validSpan.
			if b < 0xE0 {
				if fi.two[b&0x1F]>>(p[end+1]&63)&1 != 0 {
					break
				}
				end += 2
			} else {
				if fi.three[int(b&0x0F)<<6|int(p[end+1]&0x3F)]>>(p[end+2]&63)&1 != 0 {
					break
				}
				end += 3
			}
			continue
		}
		r, size := rune(p[end]), 1
		if r >= utf8.RuneSelf {
			r, size = decodeIn(fi, p, end, st) // validates ahead
		}
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
func regionDiff[T string | []byte](c *iters, fi *formInfo, r T) int {
	if fi.native {
		var scratch [4 * segMax]byte
		if _, n, ok := normRegion(fi, theComposer(), scratch[:0], r, true, nil, 0); ok {
			if n < 0 {
				return -1
			}
			return backToChar(r, n)
		}
	}
	f := fi.norm
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
			return backToChar(r, pos+n)
		}
		pos = end
	}
	return -1
}

// backToChar returns the start of the character of r at n, the length of
// a common prefix of r and its normal form (n < len(r) unless the normal
// form is longer than r and starts with it).
func backToChar[T string | []byte](r T, n int) int {
	if n >= len(r) {
		n = len(r) - 1
	}
	for n > 0 && r[n]&0xC0 == 0x80 {
		n--
	}
	return n
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
	var rs regions
	// The first stretch is short, the next ones twice as long up to
	// maxCheckStretch: a text that changes early (Bytes then rewrites it)
	// is not scanned far in vain, a long normal one costs few calls.
	limit := minCheckStretch
	for i := 0; ; {
		start, end, bad, found := nextStretch(fi, p, i, &rs, limit)
		if !found {
			return 0, -1, false
		}
		limit = min(2*limit, maxCheckStretch)
		if d := regionDiff(&c, fi, p[start:end]); d >= 0 {
			return start, start + d, false
		}
		if bad {
			return end, end, true
		}
		i = end
	}
}

// decodeIn is decode for nextStretch's scans, of a character that is not
// ASCII: it has sanitize.ValidPrefix
// validate the text ahead, a stretch at a time, where that runs a SIMD
// kernel (fi.prevalidate), and decodes well-formed text without checking
// its octets.
func decodeIn[T string | []byte](fi *formInfo, p T, j int, st *scanState) (rune, int) {
	if j+utf8.UTFMax > st.valid && fi.prevalidate && j >= st.valid {
		if len(p)-j < shortTail {
			// A short rest: utf8.Valid costs less than the call of
			// ValidPrefix, and once it has vouched for the rest, the
			// scans look its characters up without decoding them.
			if validShort(p[j:]) {
				st.valid = len(p)
			}
		} else {
			st.stretch = min(max(2*st.stretch, minStretch), maxStretch)
			st.valid = j + validPrefix(p[j:min(len(p), j+st.stretch)])
		}
	}
	if j+utf8.UTFMax <= st.valid {
		return decodeValid(p, j)
	}
	return decode(p, j)
}

// shortTail is the length under which the scanner decodes the rest of a
// text a character at a time (which validates it) rather than have
// sanitize.ValidPrefix validate it first: the call costs as much as a few
// dozen characters, and short texts (a query value, a PRECIS field) paid
// it once per text.
const shortTail = 32

// testHookWork, when set by a test, is called with the number of octets
// that each pass of the scanner and of the normalizer looks at:
// FuzzNormalizeBudget adds them up to bound the work of a call.
var testHookWork func(octets int)

// maxCheckStretch bounds the stretches that firstDiff looks at, from
// minCheckStretch on: it stops at
// the first character that changes, so a longer stretch would only have
// been scanned in vain (Bytes then scans it again to rewrite it). The
// first stretch is the first region alone: text that is not normal
// usually shows it in its first region (decomposed text: IsNormal on
// 1 KiB of NFD Latin takes 130 ns so, 500 ns from 256 octets, 2.1 µs
// unbounded), and doubling reaches the longest stretch within 12 calls.
const (
	minCheckStretch = 1
	maxCheckStretch = 4 << 10
)

// regions is the state of nextStretch over one text.
type regions struct {
	st scanState
}

// nextStretch is nextRegion where the package normalizes regions itself
// (fi.native): it merges the regions that follow each other closer than
// mergeGap octets into one stretch (of maxLen octets or a little more, if
// maxLen is not 0), which starts and ends at boundaries as
// they do, so that text made of short regions ("e" + U+0301, repeated)
// costs one call of the normalizer per stretch rather than per region. It
// looks for the next region itself, a character at a time, which costs
// less over a few octets than a restart of the scanner; it leaves an
// ill-formed octet in the gap to nextRegion.
func nextStretch[T string | []byte](fi *formInfo, p T, i int, rs *regions, maxLen int) (start, end int, bad, found bool) {
	start, end, bad, found = nextRegion(fi, p, i, &rs.st)
	if !found || !fi.native {
		return start, end, bad, found
	}
	two, three := fi.two, fi.three
	for !bad && end < len(p) && (maxLen == 0 || end-start < maxLen) {
		// Is there an unsafe character less than mergeGap octets on?
		// (safeAt, by hand: the call would cost more than the lookup.)
		j := end
		for j < len(p) && j-end < mergeGap {
			b := p[j]
			if b < utf8.RuneSelf {
				j++
				continue
			}
			size, safe := 0, false
			if j+utf8.UTFMax <= rs.st.valid && b < 0xF0 {
				if b < 0xE0 {
					size, safe = 2, two[b&0x1F]>>(p[j+1]&63)&1 != 0
				} else {
					size, safe = 3, three[int(b&0x0F)<<6|int(p[j+1]&0x3F)]>>(p[j+2]&63)&1 != 0
				}
			} else {
				var ok bool
				if size, safe, ok = safeAtSlow(fi, p, j, &rs.st); !ok {
					return start, end, bad, true
				}
			}
			if !safe {
				break
			}
			j += size
		}
		if testHookWork != nil {
			testHookWork(j - end)
		}
		if j >= len(p) || j-end >= mergeGap {
			break
		}
		// An unsafe character at j: the region runs to the next safe
		// character or ill-formed octet.
		for j < len(p) {
			b := p[j]
			if b < utf8.RuneSelf {
				break
			}
			size, safe := 0, false
			if j+utf8.UTFMax <= rs.st.valid && b < 0xF0 {
				if b < 0xE0 {
					size, safe = 2, two[b&0x1F]>>(p[j+1]&63)&1 != 0
				} else {
					size, safe = 3, three[int(b&0x0F)<<6|int(p[j+1]&0x3F)]>>(p[j+2]&63)&1 != 0
				}
			} else {
				var ok bool
				if size, safe, ok = safeAtSlow(fi, p, j, &rs.st); !ok {
					bad = true
					break
				}
			}
			if safe {
				break
			}
			j += size
		}
		if testHookWork != nil {
			testHookWork(j - end)
		}
		end = j
	}
	return start, end, bad, true
}

// safeAt reports the length of the character at p[j] (not ASCII) and
// whether it is safe, or ok false if it is ill-formed. Where the text is
// known well-formed (decodeIn validates ahead), a character of two or three
// octets takes one lookup in the octet tables, as in validSpan.
func safeAt[T string | []byte](fi *formInfo, p T, j int, st *scanState) (size int, safe, ok bool) {
	if j+utf8.UTFMax <= st.valid {
		if b := p[j]; b < 0xE0 {
			return 2, fi.two[b&0x1F]>>(p[j+1]&63)&1 != 0, true
		} else if b < 0xF0 {
			return 3, fi.three[int(b&0x0F)<<6|int(p[j+1]&0x3F)]>>(p[j+2]&63)&1 != 0, true
		}
	}
	return safeAtSlow(fi, p, j, st)
}

// safeAtSlow is safeAt for a character of four octets, or near the end of
// what is known to be well-formed.
func safeAtSlow[T string | []byte](fi *formInfo, p T, j int, st *scanState) (size int, safe, ok bool) {
	if j+utf8.UTFMax > st.valid {
		decodeIn(fi, p, j, st) // validates ahead
		if j+utf8.UTFMax <= st.valid && p[j] < 0xF0 {
			return safeAt(fi, p, j, st)
		}
	}
	r, size := decodeIn(fi, p, j, st)
	if r == utf8.RuneError && size == 1 {
		return 1, false, false
	}
	return size, fi.isSafe(r), true
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

// tinyText is the longest rest of a text that appendNormal gives the
// normalizer whole, once it is known well-formed, rather than look for
// the regions that need it: over a few octets, the search costs more
// than the normalizer's own check (quickNormal) of the safe characters.
const tinyText = 32

// appendNormal appends f(p[i:]) to dst, for a boundary i, copying
// ill-formed octets as they are.
func appendNormal[T string | []byte](fi *formInfo, dst []byte, p T, i int) []byte {
	if fi.native && len(p)-i <= tinyText && validShort(p[i:]) {
		// A few octets, well-formed: one region from i, a boundary, to
		// the end, another. The normalizer takes it at once, without
		// the scanner's search for regions, whose fixed cost is most of
		// the cost of a short value (a query of a thousand
		// short NFD values).
		gr := newGrower(fi, len(dst)-i, len(p))
		if out, _, ok := normRegion(fi, theComposer(), dst, p[i:], false, &gr, i); ok {
			return out
		}
	}
	var c iters
	defer c.release()
	var rs regions
	var g *grower
	if fi.native {
		// base: where the normal form of p[0:] would start.
		gr := newGrower(fi, len(dst)-i, len(p))
		g = &gr
	}
	for {
		start, end, bad, found := nextStretch(fi, p, i, &rs, 0)
		if !found {
			return append(g.room(dst, len(p), len(p)-i), p[i:]...)
		}
		dst = append(g.room(dst, start, start-i), p[i:start]...)
		if fi.native {
			if out, _, ok := normRegion(fi, theComposer(), dst, p[start:end], false, g, start); ok {
				dst = out
				if bad {
					dst = append(g.room(dst, end+1, 1), p[end])
					end++
				}
				i = end
				continue
			}
		}
		if quickSpan(fi.norm, p[start:end]) == end-start {
			dst = append(dst, p[start:end]...)
		} else {
			// Take in the regions that follow closely: the safe text
			// between them is normal and starts at a boundary, so the
			// stretch is normalized as a whole just as piece by piece.
			for !bad && end < len(p) {
				s2, e2, bad2, found2 := nextRegion(fi, p, end, &rs.st)
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
