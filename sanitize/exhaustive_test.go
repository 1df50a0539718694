package sanitize

import (
	"fmt"
	"iter"
	"testing"
	"unicode/utf8"
)

// edgeOctets are the first and last octet of every class of octet that
// UTF-8 validation tells apart: ASCII; the continuation octets, and the
// parts of them that E0, ED, F0 and F4 admit as their second octet (80-8F,
// 90-9F, A0-BF); C0-C1, never a lead; the leads C2-DF, E0, E1-EC, ED,
// EE-EF, F0, F1-F3 and F4; F5-F7, which would encode more than U+10FFFF;
// the 5- and 6-octet leads of RFC 2279, F8-FB and FC-FD; and FE-FF.
var edgeOctets = []byte{
	0x00, 0x7F,
	0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
	0xC0, 0xC1,
	0xC2, 0xDF,
	0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
	0xF0, 0xF1, 0xF3, 0xF4,
	0xF5, 0xF7,
	0xF8, 0xFB, 0xFC, 0xFD,
	0xFE, 0xFF,
}

// contEdges are the ends of the continuation range and the octets just
// outside it.
var contEdges = []byte{0x7F, 0x80, 0xBF, 0xC0}

// allOctets[b] is b.
var allOctets = func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

// sampleStride is the step between the sequences that sampleSeqs takes
// from every n-octet one: prime, so that each octet runs through all its
// values.
var sampleStride = [...]int{3: 61, 4: 4099}

// allSeqs yields every sequence of n octets whose first octet is in
// [lo, hi), as its big-endian value.
func allSeqs(n, lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for v := lo << (8 * (n - 1)); v < hi<<(8*(n-1)); v++ {
			if !yield(v) {
				return
			}
		}
	}
}

// sampleSeqs yields, as allSeqs does, a sample of the sequences of n octets
// (3 or 4) whose first octet is in [lo, hi) that has every class of input:
//
//   - every first octet with every second one, and each later octet one of
//     contEdges: every pair that the second-octet ranges of RFC 3629 tell
//     apart, each followed by continuations and by the end of them;
//   - every sequence of edgeOctets only: every class of octet at every
//     position after every other;
//   - every sampleStride[n]-th sequence, for the octets between the edges.
//
// A few sequences come twice. There are about 560,000 of three octets
// (of 16.8 million) and 2.9 million of four (of 4.3 billion).
func sampleSeqs(n, lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		leads := allOctets[lo:hi]
		sets := [][]byte{leads, allOctets}
		for range n - 2 {
			sets = append(sets, contEdges)
		}
		if !product(0, sets, yield) {
			return
		}
		for v := range edgeSeqs(n, lo, hi) {
			if !yield(v) {
				return
			}
		}
		stride := sampleStride[n]
		from, to := lo<<(8*(n-1)), hi<<(8*(n-1))
		for v := (from + stride - 1) / stride * stride; v < to; v += stride {
			if !yield(v) {
				return
			}
		}
	}
}

// edgeSeqs yields, as allSeqs does, every sequence of n octets of
// edgeOctets whose first octet is in [lo, hi): every class of octet at
// every position after every other. sampleSeqs has them.
func edgeSeqs(n, lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		var edgeLeads []byte
		for _, b := range edgeOctets {
			if lo <= int(b) && int(b) < hi {
				edgeLeads = append(edgeLeads, b)
			}
		}
		sets := [][]byte{edgeLeads}
		for range n - 1 {
			sets = append(sets, edgeOctets)
		}
		product(0, sets, yield)
	}
}

// leadSeqs yields, as allSeqs does, the sample of the sequences of 3
// octets whose first octet is in [lo, hi) that the default runs of the
// repair sweeps take: sampleSeqs from C0 (every lead, and C0-C1) and
// edgeSeqs below it. An octet below C0 (ASCII, or a continuation with no
// lead) is a character or a maximal subpart of its own, and the two
// octets after it a sequence of 2 octets, which the sweeps take whole.
func leadSeqs(lo, hi int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for v := range edgeSeqs(3, lo, min(hi, 0xC0)) {
			if !yield(v) {
				return
			}
		}
		if hi <= 0xC0 {
			return
		}
		for v := range sampleSeqs(3, max(lo, 0xC0), hi) {
			if !yield(v) {
				return
			}
		}
	}
}

// product yields v followed by every sequence whose k-th octet is in
// sets[k], as big-endian values, and reports whether yield asked for more.
func product(v int, sets [][]byte, yield func(int) bool) bool {
	if len(sets) == 0 {
		return yield(v)
	}
	for _, b := range sets[0] {
		if !product(v<<8|int(b), sets[1:], yield) {
			return false
		}
	}
	return true
}

// TestValidateExhaustive runs Validate over every sequence of 1, 2 and 3
// octets, and over sequences of 4 octets, and compares acceptance, Reason
// and Offset with refValidate (the RFC 3629 ABNF and the taxonomy of
// refReason), acceptance with unicode/utf8.Valid, and the offset with
// ValidPrefix.
//
// Of 4 octets, it takes sampleSeqs (leadPart.seqs), and with -long every
// sequence whose first octet is F0..F7 as well (about 35 s of CPU).
//
// The default run takes every sequence of 1 and 2 octets, sampleSeqs of 3
// octets, and of 4 octets sampleSeqs from F0 (every lead of four octets,
// and every octet that cannot lead) and edgeSeqs below it (a shorter
// character, or an octet that is no lead, followed by every class of
// octet). -sweep takes every sequence of 3 octets and sampleSeqs of 4 from
// every first octet (2 s of CPU). -short is the default run.
func TestValidateExhaustive(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 2; n++ {
		t.Run(fmt.Sprintf("len%d", n), func(t *testing.T) {
			t.Parallel()
			exhaust(t, n, allSeqs(n, 0, 256))
		})
	}
	for lo := 0; lo < 256; lo += 32 {
		t.Run(fmt.Sprintf("len3/%02X", lo), func(t *testing.T) {
			t.Parallel()
			seqs := sampleSeqs(3, lo, lo+32)
			if sweepTests() {
				seqs = allSeqs(3, lo, lo+32)
			}
			exhaust(t, 3, seqs)
		})
	}
	for _, part := range fourOctetParts {
		t.Run(fmt.Sprintf("len4/%02X", part.lo), func(t *testing.T) {
			t.Parallel()
			exhaust(t, 4, part.seqs())
		})
	}
}

// A leadPart is the sequences of four octets whose first is in [lo, hi).
type leadPart struct{ lo, hi int }

// fourOctetParts split the sequences of four octets into parts for the
// parallel subtests: F0..F7, which -long sweeps whole, one a part (16.8
// million sequences each), and the rest, which is only ever sampled, in
// parts of about equal work.
var fourOctetParts = []leadPart{
	{0x00, 0x40}, {0x40, 0x80}, {0x80, 0xC0}, {0xC0, 0xF0},
	{0xF0, 0xF1}, {0xF1, 0xF2}, {0xF2, 0xF3}, {0xF3, 0xF4},
	{0xF4, 0xF5}, {0xF5, 0xF6}, {0xF6, 0xF7}, {0xF7, 0xF8},
	{0xF8, 0x100},
}

// seqs yields the part's sequences that the sweeps of four octets take:
// with -long, every one if its first octets are in F0..F7; with -sweep,
// and by default from F0, sampleSeqs; below F0 by default, edgeSeqs.
func (p leadPart) seqs() iter.Seq[int] {
	switch {
	case longTests() && 0xF0 <= p.lo && p.hi <= 0xF8:
		return allSeqs(4, p.lo, p.hi)
	case sweepTests() || p.lo >= 0xF0:
		return sampleSeqs(4, p.lo, p.hi)
	}
	return edgeSeqs(4, p.lo, p.hi)
}

// exhaust checks every n-octet sequence of seqs, given as big-endian
// values.
func exhaust(t *testing.T, n int, seqs iter.Seq[int]) {
	buf := make([]byte, n)
	failures := 0
	for v := range seqs {
		for k := range n {
			buf[k] = byte(v >> (8 * (n - 1 - k)))
		}
		wantReason, wantOff := refValidate(buf)
		err := Validate(buf)
		var got Error
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Validate(% X) = %T %v, want *Error", buf, err, err)
			}
			got = *e
		}
		gotOff := len(buf)
		if err != nil {
			gotOff = got.Offset
		}
		ok := got.Reason == wantReason && gotOff == wantOff && got.Class == 0
		ok = ok && utf8.Valid(buf) == (wantReason == 0)
		ok = ok && ValidPrefix(buf) == wantOff
		if !ok {
			t.Errorf("% X: Validate = %v (reason %v, offset %d); want reason %v at offset %d; utf8.Valid = %v; ValidPrefix = %d",
				buf, err, got.Reason, gotOff, wantReason, wantOff, utf8.Valid(buf), ValidPrefix(buf))
			if failures++; failures >= 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

// TestSampleSeqs checks that the sample of the sweeps has what
// sampleSeqs promises: every pair of first and second octets, every
// octet at every position, and every edge octet after every other.
func TestSampleSeqs(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 4; n++ {
		pairs := make([]bool, 1<<16)
		var at [4][256]bool
		var follows [4][256][256]bool // position, octet there, octet before
		count := 0
		for _, part := range []leadPart{{0, 0x80}, {0x80, 0xF3}, {0xF3, 0x100}} {
			for v := range sampleSeqs(n, part.lo, part.hi) {
				count++
				pairs[v>>(8*(n-2))] = true
				for k := range n {
					b := byte(v >> (8 * (n - 1 - k)))
					at[k][b] = true
					if k > 0 {
						follows[k][b][byte(v>>(8*(n-k)))] = true
					}
				}
			}
		}
		t.Logf("%d octets: %d sequences", n, count)
		for v, ok := range pairs {
			if !ok {
				t.Errorf("%d octets: no sequence starts % X", n, []byte{byte(v >> 8), byte(v)})
			}
		}
		for k := range n {
			for b, ok := range at[k] {
				if !ok {
					t.Errorf("%d octets: %02X is never octet %d", n, b, k+1)
				}
			}
		}
		for k := 1; k < n; k++ {
			for _, b := range edgeOctets {
				for _, a := range edgeOctets {
					if !follows[k][b][a] {
						t.Errorf("%d octets: %02X never follows %02X as octet %d", n, b, a, k+1)
					}
				}
			}
		}
	}
}

// TestReferenceSanity pins the reference against a few hand-checked
// sequences, so that a mistake in the reference cannot hide one in the code.
func TestReferenceSanity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		reason Reason
		off    int
	}{
		{"", 0, 0},
		{hx("7F C2 80 DF BF E0 A0 80 ED 9F BF EE 80 80 EF BF BF F0 90 80 80 F4 8F BF BF"), 0, 25},
		{hx("41 C0 AE"), Overlong, 1},
		{hx("ED A0 80"), Surrogate, 0},
		{hx("F4 90 80 80"), OutOfRange, 0},
		{hx("FE"), InvalidByte, 0},
		{hx("E2 82"), Truncated, 0},
		{hx("80"), UnexpectedContinuation, 0},
		{hx("F8 84 8F BF BF"), Overlong, 0},   // U+10FFFF in 5 octets
		{hx("F8 84 90 80 80"), OutOfRange, 0}, // 0x110000 in 5 octets
	} {
		if r, off := refValidate([]byte(tc.in)); r != tc.reason || off != tc.off {
			t.Errorf("refValidate(% X) = %v, %d; want %v, %d", tc.in, r, off, tc.reason, tc.off)
		}
	}
	// Every scalar value encodes to a UTF8-char of its own length, and no
	// surrogate does.
	var buf [4]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		if got := refChar(buf[:n]); got != n {
			t.Fatalf("refChar(% X) (U+%04X) = %d, want %d", buf[:n], r, got, n)
		}
	}
}
