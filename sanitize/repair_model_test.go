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
// of each is set when octet l of the window (and for second, octet l-1)
// is in the range it names. The kernel computes each with one to three
// vector comparisons.
type octetMasks struct {
	ge80   uint64 // 80-FF: not ASCII
	cont   uint64 // 80-BF: a continuation
	ge3    uint64 // E0-F4: a lead of three or four octets
	lead4  uint64 // F0-F4: a lead of four octets
	second uint64 // a lead (C2-F4) at l-1, and at l the continuations it admits
}

// secondRange is the range of octets that the lead b admits after it
// (Table 3-7), empty if b is not a lead.
func secondRange(b byte) (lo, hi byte) {
	switch {
	case b < 0xC2 || b > 0xF4:
		return 1, 0
	case b == 0xE0:
		return 0xA0, 0xBF
	case b == 0xED:
		return 0x80, 0x9F
	case b == 0xF0:
		return 0x90, 0xBF
	case b == 0xF4:
		return 0x80, 0x8F
	}
	return 0x80, 0xBF
}

// maskWindow returns the octetMasks of the 64 octets of w, one at a time:
// what the kernel does with comparisons. prev is the octet before w.
func maskWindow(prev byte, w *[windowLen]byte) (m octetMasks) {
	for l, b := range w {
		bit := uint64(1) << l
		if b >= 0x80 {
			m.ge80 |= bit
		}
		if b >= 0x80 && b < 0xC0 {
			m.cont |= bit
		}
		if b >= 0xE0 && b < 0xF5 {
			m.ge3 |= bit
		}
		if b >= 0xF0 && b < 0xF5 {
			m.lead4 |= bit
		}
		if lo, hi := secondRange(prev); lo <= b && b <= hi {
			m.second |= bit
		}
		prev = b
	}
	return m
}

// subpartMasks returns the masks of the valid octets and of the starts of
// maximal subparts in a window, at the positions windowOut. A shift left
// by k moves the property of octet l-k to position l. repair_amd64.s does
// the same operations; keep the two in step.
func subpartMasks(m octetMasks) (valid, start uint64) {
	// Ends of characters of two, three and four octets: second follows a
	// lead, third a second of a lead of three or four octets.
	end2 := m.second &^ (m.ge3 << 1)
	third := m.second << 1 & m.cont & (m.ge3 << 2)
	end3 := third &^ (m.lead4 << 2)
	end4 := (third & (m.lead4 << 2)) << 1 & m.cont
	// Continuations that belong to a lead: a sequence that ends early
	// keeps them in its maximal subpart.
	owned := m.second | third | end4
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
	var prev byte
	if k := a - windowFirst - 1; k >= 0 && k < len(p) {
		prev = p[k]
	}
	v, s := subpartMasks(maskWindow(prev, &w))
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
// It calls t.Helper only on a failure: the sweeps call it for millions of
// inputs, and Helper costs a stack walk each time.
func modelRepair(t *testing.T, p []byte) []byte {
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
		t.Helper()
		t.Fatalf("model(% X): counted %d, wrote %d", p, m, o)
	}
	return out
}

// TestRepairModelExhaustive checks the model of the kernels against
// refRepair on every sequence of 1 and 2 octets and sampleSeqs of 3 (with
// -long, every one of 3 and sampleSeqs of 4): what an octet becomes
// depends on the three before it and the three after it, the pairs that
// Table 3-7 tells apart are all there, and the kernels do the model's
// operations.
//
// That is with -sweep (0.4 s of CPU). The default run (and -short) takes,
// of 3 octets, leadSeqs: sampleSeqs from C0, edgeSeqs below it.
func TestRepairModelExhaustive(t *testing.T) {
	t.Parallel()
	// In 8 parts for each length, to keep the cores busy.
	for n := 1; n <= 4; n++ {
		for lo := 0; lo < 256; lo += 32 {
			t.Run(fmt.Sprintf("len%d/%02X", n, lo), func(t *testing.T) {
				t.Parallel()
				seqs := allSeqs(n, lo, lo+32)
				switch {
				case n == 3 && !sweepTests():
					seqs = leadSeqs(lo, lo+32)
				case n >= 3 && !(n == 3 && longTests()):
					seqs = sampleSeqs(n, lo, lo+32)
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
