//go:build amd64 && !purego

package sanitize

// Tests of the SIMD kernels (validate_amd64.go) against the portable loop,
// validPrefixGeneric, which the exhaustive and table tests pin to the
// reference. The package's other tests run through the kernels too, for
// their inputs of simdFrom octets or more. To run everything on each path:
//
//	go test ./sanitize                            # AVX-512 where the CPU has it
//	GODEBUG=cpu.avx512f=off go test ./sanitize    # AVX2
//	go test -tags purego ./sanitize               # the portable loop alone

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/cpu"
)

// kernels are the SIMD kernels this CPU runs.
var kernels = func() (ks []kernelCase) {
	if cpu.X86.HasAVX2 {
		ks = append(ks, kernelCase{"avx2", validAVX2, 35})
	}
	if simdKernel == avx512Kernel {
		ks = append(ks, kernelCase{"avx512", validAVX512, 67})
	}
	return ks
}()

type kernelCase struct {
	name   string
	fn     func(*byte, int) int
	minLen int // the shortest input it takes
}

// TestKernelChoice reports the kernel validPrefix uses on this machine
// (GODEBUG=cpu.avx512f=off or cpu.avx2=off change it).
func TestKernelChoice(t *testing.T) {
	names := map[int]string{noKernel: "none", avx2Kernel: "avx2", avx512Kernel: "avx512 (avx2 below avx512MinLen)"}
	t.Logf("SIMD kernel: %s; validPrefixSIMD from %d octets, validAVX512 from %d", names[simdKernel], simdFrom, avx512From)
}

func needSIMD(t testing.TB) {
	t.Helper()
	if len(kernels) == 0 {
		t.Skip("no SIMD kernel on this CPU")
	}
}

// runKernel calls k on p, which may be empty.
func runKernel(k kernelCase, p []byte) int {
	if len(p) == 0 {
		return k.fn(nil, 0)
	}
	return k.fn(&p[0], len(p))
}

// pairKinds returns the kinds of bad pair that the nibble tables give the
// octets a, b.
func pairKinds(a, b byte) byte {
	return nibbleTables[0][a>>4] & nibbleTables[1][a&0x0F] & nibbleTables[2][b>>4]
}

// TestNibbleTables checks the tables pair by pair against the UTF-8 they
// must accept: a pair (a, b) may be flagged twoConts or nothing exactly when
// it occurs in some well-formed text, and it is flagged twoConts exactly
// when both are continuation octets. The pairs that occur are collected
// from the encodings of all scalar values and from the ends and starts of
// characters side by side.
func TestNibbleTables(t *testing.T) {
	t.Parallel()
	var occurs [256][256]bool
	var last, firsts [256]bool
	var buf [utf8.UTFMax]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		n := utf8.EncodeRune(buf[:], r)
		for k := 1; k < n; k++ {
			occurs[buf[k-1]][buf[k]] = true
		}
		firsts[buf[0]] = true
		last[buf[n-1]] = true
	}
	for a := range 256 {
		for b := range 256 {
			if last[a] && firsts[b] {
				occurs[a][b] = true
			}
		}
	}
	for a := range 256 {
		for b := range 256 {
			k := pairKinds(byte(a), byte(b))
			ok := k&^twoConts == 0
			// A lead is checked with the octet after it.
			allowed := occurs[a][b] || last[a] && b >= 0xC0
			both := isCont(byte(a)) && isCont(byte(b))
			if ok != allowed || (k&twoConts != 0) != both {
				t.Errorf("pair %02X %02X: kinds %08b; allowed: %v", a, b, k, allowed)
			}
		}
	}
}

// TestIncompleteMax checks that an octet exceeds incompleteMax exactly where
// it starts a character longer than the rest of a block of 64 octets (and,
// in its last 32, of a block of 32).
func TestIncompleteMax(t *testing.T) {
	t.Parallel()
	for i, max := range incompleteMax {
		for b := range 256 {
			need := 1 // octets of the character that b starts
			switch {
			case b >= 0xF0:
				need = 4
			case b >= 0xE0:
				need = 3
			case b >= 0xC0:
				need = 2
			}
			if (b > int(max)) != (need > len(incompleteMax)-i) {
				t.Errorf("incompleteMax[%d] = %02X; octet %02X starts %d octets", i, max, b, need)
			}
		}
	}
}

// checkKernel runs validPrefix, and each kernel followed by resume on p (as
// []byte and as string), and fails t unless they agree with want, the
// offset that validPrefixGeneric gives.
func checkKernel(t testing.TB, p []byte, want int) bool {
	ok := true
	if got := validPrefix(p); got != want {
		t.Helper()
		t.Errorf("% X (%d octets): validPrefix %d, want %d", p, len(p), got, want)
		ok = false
	}
	for _, k := range kernels {
		if len(p) < k.minLen {
			continue
		}
		s := runKernel(k, p)
		got, gotString := len(p), len(p)
		if s != len(p) {
			got, gotString = resume(p, s), resume(string(p), s)
		}
		if (s == len(p)) != (want == len(p)) || s > len(p) || got != want || gotString != want {
			t.Helper()
			t.Errorf("% X (%d octets): %s kernel %d, then %d, %d (string); want %d",
				p, len(p), k.name, s, got, gotString, want)
			ok = false
		}
	}
	return ok
}

// TestKernelExhaustive puts sequences of 1 to 4 octets into ASCII at
// offsets that straddle the blocks of each kernel: the lanes of the first
// block, the first block and the loop, the two blocks of one round of the
// loop, the loop and the last block, and the end of p. ASCII around the
// sequence neither hides nor adds a malformation before the sequence's own
// first one, so the offset must be its start plus validPrefixGeneric's
// offset in it alone.
//
// With -sweep, it takes every sequence of 1 and 2 octets and sampleSeqs of
// 3 octets, each at every offset, and sampleSeqs of 4 (leadPart.seqs) at
// one offset (0.6 s of CPU). With -long, every sequence of 3 octets too
// (about 15 s of CPU), and every sequence of 4 octets whose first is
// F0..F7 at one offset (about 30 s). The default run (and -short) takes
// the same sequences of 1 to 3 octets, each at one of the offsets in
// turn, so that every offset meets every kind of sequence and every
// sequence one offset; and of 4 octets only those from F0 (a sequence
// that starts below F0 starts with a shorter character, which the 3-octet
// sample has).
func TestKernelExhaustive(t *testing.T) {
	needSIMD(t)
	t.Parallel()
	type layout struct {
		n    int
		offs []int
	}
	// The blocks of validAVX2 for 48 octets: 0-31, last 16-47; for 100:
	// 0-31, round 32-95, last 68-99; for 200: 0-31, rounds 32-95 and
	// 96-159, 160-191, last 168-199. Of validAVX512 for 100: 0-63, last
	// 36-99; for 200: 0-63, round 64-191, last 136-199.
	full := func(m int) []layout {
		return []layout{
			{48, []int{30}},
			{100, []int{14, 62, 100 - m}},
			{200, []int{126, 190, 200 - m}},
		}
	}
	// run puts each sequence of seqs at every offset of layouts, or with
	// rotate at one of them, the next for the next sequence.
	run := func(t *testing.T, m int, seqs iter.Seq[int], layouts []layout, rotate bool) {
		bufs := map[int][]byte{}
		places := 0
		for _, l := range layouts {
			bufs[l.n] = []byte(strings.Repeat("a", l.n))
			places += len(l.offs)
		}
		seq := make([]byte, m)
		failures, turn := 0, 0
		for v := range seqs {
			for k := range m {
				seq[k] = byte(v >> (8 * (m - 1 - k)))
			}
			in := validPrefixGeneric(seq)
			place := 0
			for _, l := range layouts {
				buf := bufs[l.n]
				for _, off := range l.offs {
					place++
					if rotate && place-1 != turn {
						continue
					}
					copy(buf[off:], seq)
					want := l.n
					if in < m {
						want = off + in
					}
					if !checkKernelFast(t, buf, want) {
						if failures++; failures >= 20 {
							t.Fatal("too many failures")
						}
					}
					copy(buf[off:], "aaaa"[:m])
				}
			}
			turn = (turn + 1) % places
		}
	}
	for m := 1; m <= 3; m++ {
		// In 8 parts, to keep the cores busy.
		for lo := 0; lo < 256; lo += 32 {
			t.Run(fmt.Sprintf("len%d/%02X", m, lo), func(t *testing.T) {
				t.Parallel()
				seqs := allSeqs(m, lo, lo+32)
				if m == 3 && !longTests() {
					seqs = sampleSeqs(m, lo, lo+32)
				}
				run(t, m, seqs, full(m), !sweepTests())
			})
		}
	}
	for _, part := range fourOctetParts {
		if !sweepTests() && part.lo < 0xF0 {
			continue
		}
		t.Run(fmt.Sprintf("len4/%02X", part.lo), func(t *testing.T) {
			t.Parallel()
			run(t, 4, part.seqs(), []layout{{100, []int{62}}}, false)
		})
	}
}

// checkKernelFast is checkKernel for []byte only.
func checkKernelFast(t *testing.T, p []byte, want int) bool {
	for _, k := range kernels {
		if len(p) < k.minLen {
			continue
		}
		s := runKernel(k, p)
		got := len(p)
		if s != len(p) {
			got = resume(p, s)
		}
		if got != want || (s == len(p)) != (want == len(p)) {
			t.Helper()
			t.Errorf("% X: %s kernel %d, then %d; want %d", p, k.name, s, got, want)
			return false
		}
	}
	return true
}

// TestKernelDifferential injects each malformation of injected at every
// offset of random valid texts of 64 to 100 octets and some up to 300,
// overwriting the text (which also cuts the characters around the
// injection) and inserting it (at a character boundary), and checks the
// kernel and validPrefix against validPrefixGeneric, and Validate's reason
// and offset against classify at validPrefixGeneric's offset.
//
// With -sweep, each malformation goes at every fourth offset, a different
// fourth at each length: every pair of malformation and offset still comes
// up, at a quarter of the lengths (1 s of CPU; -long adds 3 s more, for
// every offset). The default run (and -short) takes every fifth length,
// and each malformation at every eighth offset, a different eighth at
// each length.
func TestKernelDifferential(t *testing.T) {
	needSIMD(t)
	t.Parallel()
	part := 8
	switch {
	case longTests():
		part = 1
	case sweepTests():
		part = 4
	}
	for fi, fill := range fills {
		t.Run(fill.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(fi), 1))
			failures := 0
			check := func(p []byte) {
				want := validPrefixGeneric(p)
				if !checkKernel(t, p, want) {
					failures++
				}
				var wantErr Error
				if want < len(p) {
					wantErr = *classify(p, want)
				}
				for _, err := range []error{Validate(p), ValidateString(string(p))} {
					if e, _ := asError(err); e != wantErr {
						t.Errorf("Validate(% X) = %v, want %+v", p, err, wantErr)
						failures++
					}
				}
				if failures >= 20 {
					t.Fatal("too many failures")
				}
			}
			for n := 64; n <= 300; n++ {
				// Every length up to 100 (every end in a block), then some.
				if n > 100 && n%9 != 0 || !sweepTests() && n%5 != 0 {
					continue
				}
				base := randomText(r, fill.chars, n)
				check(base)
				for bi, bad := range injected {
					for off := 0; off+len(bad) <= n; off++ {
						if (off+bi+n)%part != 0 {
							continue
						}
						p := append([]byte(nil), base...)
						copy(p[off:], bad)
						check(p)
						if utf8.RuneStart(base[off]) {
							check(append(append(append([]byte(nil), base[:off]...), bad...), base[off:]...))
						}
					}
				}
			}
		})
	}
}

// TestKernelBlockKinds checks the kernels where text of one kind (ASCII,
// two-, three- or four-octet characters) gives way to another, which
// changes the check that validAVX2 and checkAVX2 choose for a block
// (TWOPAIRS needs the three octets before a block below E0, and an ASCII
// block needs the octet before it to be no lead): each sequence of
// injected at every offset from 5 before the change to 4 after it, for
// every pair of kinds and every place of the change from 90 to 170
// octets (the blocks of both kernels start at 96, 128 and 160), in 260
// octets, against the portable loop, and the fused kernels against the
// reference under the strict preset's classes for values. The default run
// takes every fourth place, -short every sixteenth.
func TestKernelBlockKinds(t *testing.T) {
	needSIMD(t)
	t.Parallel()
	kinds := []struct {
		name  string
		chars []string
	}{
		{"ascii", []string{"a", " ", "Z"}},
		{"2-octet", fills[2].chars},
		{"3-octet", fills[3].chars},
		{"4-octet", fills[4].chars},
	}
	step := 4
	switch {
	case sweepTests():
		step = 1
	case testing.Short():
		step = 16
	}
	const n = 260
	forbid := NUL | C0 | C1 | BidiControl
	for ai, a := range kinds {
		for bi, b := range kinds {
			t.Run(a.name+"/"+b.name, func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(uint64(ai), uint64(bi)))
				failures := 0
				check := func(p []byte) {
					if !checkKernel(t, p, validPrefixGeneric(p)) {
						failures++
					}
					if msg := fusedKernelsAgree(p, forbid); msg != "" {
						t.Error(msg)
						failures++
					}
					if failures >= 20 {
						t.Fatal("too many failures")
					}
				}
				for split := 90; split <= 170; split += step {
					var text []byte
					for len(text) < split {
						text = append(text, a.chars[r.IntN(len(a.chars))]...)
					}
					at := len(text)
					for len(text) < n {
						text = append(text, b.chars[r.IntN(len(b.chars))]...)
					}
					text = text[:min(len(text), n)]
					for !utf8.Valid(text) { // cut in a character: drop its first octets
						text = text[:len(text)-1]
					}
					check(text)
					for _, bad := range injected {
						for off := at - 5; off <= at+4; off++ {
							p := append([]byte(nil), text...)
							copy(p[off:], bad)
							check(p)
						}
					}
				}
			})
		}
	}
}

// TestKernelRandom checks the kernels on random valid texts of every
// length up to 700 octets, whole and cut at each of their last 5 octets,
// and on random octets.
func TestKernelRandom(t *testing.T) {
	needSIMD(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(2, 2))
	for n := 0; n <= 700; n++ {
		for _, fill := range fills {
			p := randomText(r, fill.chars, n+4)
			for cut := n; cut <= n+4; cut++ {
				checkKernel(t, p[:cut], validPrefixGeneric(p[:cut]))
			}
		}
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		checkKernel(t, p, validPrefixGeneric(p))
	}
}

// FuzzValidateLong is FuzzValidate for inputs long enough for the kernels:
// p between two runs of fill text of lengths pre and post, one run of
// which may be ASCII and the other multibyte.
func FuzzValidateLong(f *testing.F) {
	for i, tc := range validateCases {
		f.Add([]byte(tc.in), uint8(i*7), uint8(i*13), uint8(i))
	}
	needSIMD(f)
	f.Fuzz(func(t *testing.T, p []byte, pre, post, fill uint8) {
		c := fills[int(fill)%len(fills)].chars
		q := randomText(rand.New(rand.NewPCG(uint64(fill), 0)), c, int(pre)%100)
		q = append(q, p...)
		q = append(q, randomText(rand.New(rand.NewPCG(uint64(fill), 1)), c, 35+int(post))...)
		want := validPrefixGeneric(q)
		checkKernel(t, q, want)
		reason, off := refValidate(q)
		if off != want {
			t.Fatalf("validPrefixGeneric(% X) = %d, reference says %d", q, want, off)
		}
		got, _ := asError(Validate(q))
		if got.Reason != reason || (reason != 0 && got.Offset != off) {
			t.Fatalf("Validate(% X) = %+v, reference says %v at %d", q, got, reason, off)
		}
	})
}

// BenchmarkValidPrefix compares the kernels with the portable loop around
// avx2MinLen and avx512MinLen, to place them.
func BenchmarkValidPrefix(b *testing.B) {
	needSIMD(b)
	for _, fill := range []struct{ name, s string }{{"ascii", "a"}, {"latin", "aaaé"}, {"cjk", "日"}} {
		for _, n := range []int{35, 48, 64, 80, 96, 128, 256, 1024} {
			p := []byte(strings.Repeat(fill.s, n)[:n])
			p = append(p[:validPrefixGeneric(p)], "aaa"...)[:n]
			for _, k := range kernels {
				if n < k.minLen {
					continue
				}
				b.Run(fmt.Sprintf("%s/%d/%s", fill.name, n, k.name), func(b *testing.B) {
					b.SetBytes(int64(len(p)))
					for b.Loop() {
						if s := runKernel(k, p); s != len(p) {
							resume(p, s)
						}
					}
				})
			}
			b.Run(fmt.Sprintf("%s/%d/generic", fill.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(p)))
				for b.Loop() {
					validPrefixGeneric(p)
				}
			})
		}
	}
}
