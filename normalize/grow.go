package normalize

import "unicode/utf8"

// This file sizes the output buffer of a rewrite (Bytes, String, Append)
// so that one call allocates a bounded number of times, whatever its input
// (issue 14, FuzzNormalizeBudget).
//
// The normal form of the rest of a text is at most expand times as long as
// that rest (composer.expand: 11 under NFKC, for U+FDFA; 3 under NFC), and
// that bound is what makes the count of growths constant: every write of
// the normalizer first asks its grower for room (grower.room), which does
// nothing while the buffer has room for that write, so that text whose
// normal form fits the buffer never grows it. The first growth guesses the
// size of the whole output from what the text has done so far, as append
// would not (it grows by a quarter, many times over a text that expands);
// a text that then expands more than it promised gets, at the second
// growth, room for the longest normal form that the rest of it can have,
// and needs no third. Each growth is at most about expand times the input,
// so a call allocates at most three buffers, of at most 23 times its
// input in all.

// A grower sizes the output buffer of one rewrite of a text p.
type grower struct {
	base    int // the index in the buffer of the output of p[0]
	n       int // len(p)
	expand  int // the longest output, in octets, of one octet of input
	growths int
}

// newGrower returns the grower of a rewrite of n octets whose output for
// p[0:] starts at index base of the buffer (base is negative when the
// buffer does not hold the output of a normal prefix that was skipped).
func newGrower(fi *formInfo, c *composer, base, n int) grower {
	form := 0
	if fi.nfkc {
		form = 1
	}
	return grower{base: base, n: n, expand: c.expand[form]}
}

// room returns dst with room for now octets more: dst itself if it has it.
// done is the length of the prefix of the input whose output is either in
// dst or in those now octets; the rest of the output comes from p[done:].
// A nil grower (regionDiff's comparisons, into a scratch buffer) leaves the
// growth to append.
func (g *grower) room(dst []byte, done, now int) []byte {
	if g == nil || cap(dst)-len(dst) >= now {
		return dst
	}
	return g.grow(dst, done, now)
}

// grow returns a copy of dst with room for now octets and, at the first
// growth, for what the rest of the input is likely to need; from the second
// on, for the longest output that the rest can have.
func (g *grower) grow(dst []byte, done, now int) []byte {
	rest := g.n - done
	want := now + g.expand*rest
	if g.growths == 0 {
		// The output so far, per octet of input, extrapolated to the
		// rest, with a quarter to spare; at least the rest as it is.
		est := float64(rest)
		if out := len(dst) - g.base + now; done > 0 && out > done {
			est *= float64(out) / float64(done)
		}
		if e := now + int(est*1.25) + 64; e < want {
			want = e
		}
	}
	g.growths++
	grown := make([]byte, len(dst), len(dst)+want)
	copy(grown, dst)
	return grown
}

// expansion returns the longest output, per octet of input, of the
// normalizer under the form of decomposition d (composer.decomp's canon or
// compat): the longest decomposition per octet of its character, counting
// the U+034F that the Stream-Safe Text Format may insert before a character
// that starts with a non-starter. Composition only shortens the text (a
// primary composite is never longer than the two characters it replaces:
// TestExpansion), and octets that are not well-formed are copied as they
// are.
func (c *composer) expansion(nfkc bool) int {
	most := 3 // a Hangul syllable: three octets, three jamo of three
	for hi, b := range c.index {
		if b == 0 {
			continue // no entries: characters that stay as they are
		}
		for lo, e := range c.blocks[b] {
			r := rune(hi)<<7 | rune(lo)
			size := utf8.RuneLen(r)
			if e == 0 || size < 0 {
				continue
			}
			out := size
			if e&eCompat != 0 && (nfkc || e&eCanon != 0) {
				d := c.decomp[e>>eIdxShift].canon
				if nfkc {
					d = c.decomp[e>>eIdxShift].compat
				}
				out = 0
				for _, x := range d {
					out += utf8.RuneLen(x)
				}
			}
			if e>>eLeadShift&3 != 0 {
				out += utf8.RuneLen(cgj)
			}
			most = max(most, (out+size-1)/size)
		}
	}
	return most
}
