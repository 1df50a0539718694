package sanitize

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"
	"testing"
)

// The model of the repair kernels (repair_amd64.s): the same masks and the
// same operations, one octet at a time where the kernels compare 64, so
// that the tests can check the algorithm against the reference on every
// short sequence and the kernels against it on long inputs.

// octetMasks are the masks of a window that subpartMasks starts from: bit l
// of each is set when octet l of the window is in the range it names. The
// kernel computes each with one or two vector comparisons.
type octetMasks struct {
	ge80  uint64 // 80-FF: not ASCII
	cont  uint64 // 80-BF: a continuation
	lead  uint64 // C2-F4: a lead
	ge3   uint64 // E0-F4: a lead of three or four octets
	lead4 uint64 // F0-F4: a lead of four octets
	geA0  uint64 // A0-FF
	ge90  uint64 // 90-FF
	isE0  uint64 // E0: admits A0-BF only
	isED  uint64 // ED: admits 80-9F only
	isF0  uint64 // F0: admits 90-BF only
	isF4  uint64 // F4: admits 80-8F only
}

// octetRanges are the ranges of octetMasks, in the order of its fields.
var octetRanges = [...]struct{ lo, hi int }{
	{0x80, 0xFF}, {0x80, 0xBF}, {0xC2, 0xF4}, {0xE0, 0xF4}, {0xF0, 0xF4},
	{0xA0, 0xFF}, {0x90, 0xFF}, {0xE0, 0xE0}, {0xED, 0xED}, {0xF0, 0xF0}, {0xF4, 0xF4},
}

// octetFlags has bit k set for the octets in octetRanges[k].
var octetFlags = func() (t [256]uint16) {
	for b := range t {
		for k, r := range octetRanges {
			if r.lo <= b && b <= r.hi {
				t[b] |= 1 << k
			}
		}
	}
	return t
}()

// maskWindow returns the octetMasks of the 64 octets of w, one at a time:
// what the kernel does with comparisons.
func maskWindow(w *[windowLen]byte) octetMasks {
	var m [len(octetRanges)]uint64
	for l, b := range w {
		f := octetFlags[b]
		for k := range m {
			m[k] |= uint64(f>>k&1) << l
		}
	}
	return octetMasks{m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10]}
}

// subpartMasks returns the masks of the valid octets and of the starts of
// maximal subparts in a window, at the positions windowOut. A shift left
// by k moves the property of octet l-k to position l. repair_amd64.s does
// the same operations in the same order; keep the two in step.
func subpartMasks(m octetMasks) (valid, start uint64) {
	// A continuation that the lead right before it admits: the second
	// octet of a character or of a maximal subpart.
	bad := m.isE0<<1&^m.geA0 | m.isED<<1&m.geA0 | m.isF0<<1&^m.ge90 | m.isF4<<1&m.ge90
	second := m.lead << 1 & m.cont &^ bad
	lead2 := m.lead &^ m.ge3
	lead3 := m.ge3 &^ m.lead4
	// Ends of characters of two, three and four octets.
	end2 := second & (lead2 << 1)
	third := second << 1 & m.cont // third octet of a sequence of three or four
	end3 := third & (lead3 << 2)
	third4 := third & (m.lead4 << 2)
	end4 := third4 << 1 & m.cont
	// Continuations that belong to a lead: a sequence that ends early
	// keeps them in its maximal subpart.
	owned := second | third&(m.ge3<<2) | end4
	// Octets of well-formed characters: each end marks the octets before
	// it back to its lead.
	end34 := end3 | end4>>1
	valid = ^m.ge80 | end2 | end2>>1 | end34 | end34>>1 | end34>>2 | end4
	start = ^(valid | owned) & windowOut
	return valid & windowOut, start
}

// window fills w with the octets of p from a-windowFirst, and 0 (ASCII,
// which belongs to no sequence, as the ends of p do) where p has none.
func window[T string | []byte](w *[windowLen]byte, p T, a int) {
	for l := range w {
		w[l] = 0
		if k := a - windowFirst + l; k >= 0 && k < len(p) {
			w[l] = p[k]
		}
	}
}

// spanMasks returns the masks of p[a:b], b-a <= blockStep, shifted so that
// bit 0 is octet a.
func spanMasks[T string | []byte](p T, a, b int) (valid, start uint64) {
	var w [windowLen]byte
	window(&w, p, a)
	v, s := subpartMasks(maskWindow(&w))
	keep := uint64(1)<<(b-a) - 1
	return v >> windowFirst & keep, s >> windowFirst & keep
}

// countSpan returns the length of p[a:b] repaired, b-a <= blockStep: an
// octet of a well-formed character counts 1, the start of a maximal
// subpart 3 (U+FFFD), the rest of one 0.
func countSpan[T string | []byte](p T, a, b int) int {
	v, s := spanMasks(p, a, b)
	return bits.OnesCount64(v) + 3*bits.OnesCount64(s)
}

// writeSpan writes p[a:b] repaired, b-a <= blockStep, to out[o:] and
// returns the end of what it wrote.
func writeSpan[T string | []byte](out []byte, o int, p T, a, b int) int {
	v, s := spanMasks(p, a, b)
	for k := a; k < b; k, v, s = k+1, v>>1, s>>1 {
		switch {
		case v&1 != 0:
			out[o] = p[k]
			o++
		case s&1 != 0:
			o += copy(out[o:o+len(replacement)], replacement)
		}
	}
	return o
}

// modelRepair repairs p with the model, span by span, as the kernels do
// block by block, and checks that the count agrees with what it writes.
func modelRepair(t *testing.T, p []byte) []byte {
	t.Helper()
	m := 0
	for a := 0; a < len(p); a += blockStep {
		m += countSpan(p, a, min(a+blockStep, len(p)))
	}
	out := make([]byte, m)
	o := 0
	for a := 0; a < len(p); a += blockStep {
		o = writeSpan(out, o, p, a, min(a+blockStep, len(p)))
	}
	if o != m {
		t.Fatalf("model(% X): counted %d, wrote %d", p, m, o)
	}
	return out
}

// TestRepairModelExhaustive checks the model of the kernels against
// refRepair on every sequence of 1 and 2 octets and sampleSeqs of 3 (with
// -long, every one of 3 and sampleSeqs of 4): what an octet becomes depends on the three
// before it and the three after it, the pairs that Table 3-7 tells apart
// are all there, and the kernels do the model's operations.
func TestRepairModelExhaustive(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 4; n++ {
		for lo := 0; lo < 256; lo += 64 {
			t.Run(fmt.Sprintf("len%d/%02X", n, lo), func(t *testing.T) {
				t.Parallel()
				seqs := allSeqs(n, lo, lo+64)
				if n >= 3 && !(n == 3 && longTests()) {
					seqs = sampleSeqs(n, lo, lo+64)
				}
				if n == 4 && !longTests() {
					t.Skip("-long: a sample of 2.9 million")
				}
				buf := make([]byte, n)
				failures := 0
				for v := range seqs {
					for k := range n {
						buf[k] = byte(v >> (8 * (n - 1 - k)))
					}
					if got, want := modelRepair(t, buf), refRepair(buf); !bytes.Equal(got, want) {
						t.Errorf("model(% X) = % X, reference says % X", buf, got, want)
						if failures++; failures >= 20 {
							t.Fatal("too many failures")
						}
					}
				}
			})
		}
	}
}

// TestRepairModelCases checks the model on repairCases, and on each of
// them after 0 to 60 octets of ASCII, at every position of a span.
func TestRepairModelCases(t *testing.T) {
	t.Parallel()
	for _, tc := range repairCases {
		for pad := 0; pad <= 60; pad++ {
			p := []byte(strings.Repeat("x", pad) + tc.in)
			if got, want := modelRepair(t, p), strings.Repeat("x", pad)+tc.want; string(got) != want {
				t.Errorf("model(% X) = % X, want % X", p, got, want)
			}
		}
	}
}
