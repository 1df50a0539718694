package normalize

// This file sizes the output buffer of a rewrite (Bytes, String, Append)
// so that one call allocates a bounded number of times, whatever its input
// (FuzzNormalizeBudget).
//
// The normal form of the rest of a text is at most a few times as long as
// that rest (nfkcExpansion: 11 under NFKC, for U+FDFA; 3 under NFC), and
// that bound is what makes the count of growths constant: every write of
// the normalizer first asks its grower for room (grower.room), which does
// nothing while the buffer has room for that write, so that text whose
// normal form fits the buffer never grows it. The first growth guesses the
// size of the whole output from what the text has done so far, as append
// would not (it grows by a quarter, many times over a text that expands);
// a text that then expands more than it promised gets, at the second
// growth, room for the longest normal form that the rest of it can have,
// and needs no third. Each growth is at most about 11 times the input,
// so a call allocates at most three buffers, of at most 23 times its
// input in all.

// The longest output of the normalizer per octet of input, by form: the
// longest decomposition per octet of its character, counting the U+034F
// that the Stream-Safe Text Format may insert before a character that
// starts with a non-starter, and Hangul syllables. Composition only
// shortens the text (a primary composite is never longer than the two
// characters it replaces), and octets that are not well-formed are copied
// as they are. TestExpansion computes them from the tables and checks them
// against norm.
const (
	nfcExpansion  = 3
	nfkcExpansion = 11 // U+FDFA: 3 octets, 33 in NFKC
)

// A grower sizes the output buffer of one rewrite of a text p.
type grower struct {
	base    int  // the index in the buffer of the output of p[0]
	n       int  // len(p)
	nfkc    bool // the form: NFKC, or NFC
	growths int
}

// newGrower returns the grower of a rewrite of n octets whose output for
// p[0:] starts at index base of the buffer (base is negative when the
// buffer does not hold the output of a normal prefix that was skipped).
func newGrower(fi *formInfo, base, n int) grower {
	return grower{base: base, n: n, nfkc: fi.nfkc}
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
	expand := nfcExpansion
	if g.nfkc {
		expand = nfkcExpansion
	}
	want := now + expand*rest
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
