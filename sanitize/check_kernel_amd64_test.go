//go:build amd64 && !purego

package sanitize

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// fusedKernels are the fused check kernels this CPU runs: checkAVX2 on
// every CPU with AVX2, so that an AVX-512 machine tests both.
var fusedKernels = func() (ks []fusedKernel) {
	if cpu.X86.HasAVX2 {
		ks = append(ks, fusedKernel{"avx2", avx2Kernel})
	}
	if simdKernel == avx512Kernel {
		ks = append(ks, fusedKernel{"avx512", avx512Kernel})
	}
	return ks
}()

type fusedKernel struct {
	name   string
	kernel int // for fusedBlocks
}

// fusedKernelMinLen is the shortest input of both fused kernels.
const fusedKernelMinLen = 67

// fusedKernelsAgree runs checkFused and checkClassesFused with each fused
// kernel on p (67 octets or more), as []byte and as string, and reports
// the first disagreement with refCheck and refCheckClasses, or "".
func fusedKernelsAgree(p []byte, forbid Class) string {
	if len(p) < fusedKernelMinLen || forbid == 0 {
		return ""
	}
	want, wantClasses := refCheck(p, forbid), refCheckClasses(p, forbid)
	for _, k := range fusedKernels {
		for _, c := range []struct {
			fn   string
			err  error
			want Error
		}{
			{"checkFused", checkFusedBy(p, forbid, k.kernel), want},
			{"checkFused(string)", checkFusedBy(string(p), forbid, k.kernel), want},
			{"checkClassesFused", checkClassesFusedBy(p, forbid, k.kernel), wantClasses},
			{"checkClassesFused(string)", checkClassesFusedBy(string(p), forbid, k.kernel), wantClasses},
		} {
			if got, ok := asError(c.err); !ok || got != c.want {
				return fmt.Sprintf("%s %s(% X, %v) = %v, reference says %+v", k.name, c.fn, p, forbid, c.err, c.want)
			}
		}
	}
	return ""
}

// TestFusedKernelChoice reports the fused kernel of this CPU and the
// shortest input given to it.
func TestFusedKernelChoice(t *testing.T) {
	names := map[int]string{noKernel: "none", avx2Kernel: "checkAVX2", avx512Kernel: "checkAVX512"}
	t.Logf("fused kernel: %s from %d octets; kernels tested directly: %v", names[simdKernel], fusedFrom, fusedKernels)
}

// TestFusedKernelExhaustive puts sequences of 1 to 4 octets into ASCII at
// offsets that straddle the halves and blocks of the fused kernels (the
// first block, the loop, the last block that ends at n, and the end of p)
// and runs each kernel directly under the sets of classes of the strict
// preset and every class: the sequence is the only thing that is not
// plain ASCII, so the first violation is that of the sequence followed by
// ASCII, at its offset.
//
// It takes every sequence of 1 and 2 octets; every 3-octet sequence whose
// second and third octets are continuations (every character of the Basic
// Multilingual Plane, and its neighbours cut short); and the 4-octet
// sequences from F0 to F4 with a continuation second and third octet and
// a fourth at the ends of the continuations (the classes' last characters
// in a plane), and their neighbours. With -sweep, each at every offset
// under every set of classes (1.2 s of CPU); by default and with -short,
// each at one of the offsets under one of the sets, the next ones for the
// next sequence, so that every offset and every set meet every kind of
// sequence, and every sequence is checked once. With -long
// (about 25 s of CPU), also sampleSeqs of 3 octets, every second octet of
// 4 and more fourth octets (around the classes' other ends), each at
// every offset.
func TestFusedKernelExhaustive(t *testing.T) {
	if len(fusedKernels) == 0 {
		t.Skip("no fused kernel on this CPU")
	}
	t.Parallel()
	sets := []Class{NUL | C0 | C1 | BidiControl, NUL | C0 | TabNewline | C1 | Bidi, AllClasses &^ BOM}
	// The blocks of both kernels for 100 octets: 0-63 (checkAVX2: halves
	// 0-31, 32-63), last 36-99; for 200: 0-63, 64-127 (checkAVX512:
	// 64-191 in one round), 128-191, last 136-199.
	layouts := []struct {
		n    int
		offs []int
	}{
		{100, []int{0, 30, 62, 97}},
		{200, []int{94, 126, 190, 197}},
	}
	rotate := !sweepTests()
	run := func(t *testing.T, m int, seqs iter.Seq[int]) {
		// The places that a sequence of m octets fits in.
		type place struct{ n, off int }
		var places []place
		bufs := map[int][]byte{}
		for _, l := range layouts {
			bufs[l.n] = []byte(strings.Repeat("a", l.n))
			for _, off := range l.offs {
				if off+m <= l.n {
					places = append(places, place{l.n, off})
				}
			}
		}
		seq := make([]byte, m+4)
		failures, turn := 0, 0
		for v := range seqs {
			for k := range m {
				seq[k] = byte(v >> (8 * (m - 1 - k)))
			}
			copy(seq[m:], "aaaa")
			for si, forbid := range sets {
				// Rotated, each set takes every place in turn.
				if rotate && si != turn/len(places)%len(sets) {
					continue
				}
				want, wantClasses := refCheck(seq, forbid), refCheckClasses(seq, forbid)
				for i, pl := range places {
					if rotate && i != turn%len(places) {
						continue
					}
					buf, off := bufs[pl.n], pl.off
					copy(buf[off:], seq[:m])
					w, wc := want, wantClasses
					if w.Reason != 0 {
						w.Offset += off
					}
					if wc.Reason != 0 {
						wc.Offset += off
					}
					if off+m == pl.n && w.Reason != 0 && w.Reason != ForbiddenChar {
						// Cut short by the end of p, not by 'a'.
						w = refCheck(buf, forbid)
					}
					for _, k := range fusedKernels {
						got, _ := asError(checkFusedBy(buf, forbid, k.kernel))
						gotClasses, _ := asError(checkClassesFusedBy(buf, forbid, k.kernel))
						if got != w || gotClasses != wc {
							t.Errorf("% X at %d of %d, %v: %s kernel: check %+v, classes %+v; want %+v, %+v",
								seq[:m], off, pl.n, forbid, k.name, got, gotClasses, w, wc)
							if failures++; failures >= 20 {
								t.Fatal("too many failures")
							}
						}
					}
					copy(buf[off:], "aaaa"[:m])
				}
			}
			turn++
		}
	}
	t.Run("len1-2", func(t *testing.T) {
		t.Parallel()
		run(t, 1, allSeqs(1, 0, 256))
		run(t, 2, allSeqs(2, 0, 256))
	})
	for lead := 0xE0; lead < 0xF0; lead += 4 {
		t.Run(fmt.Sprintf("len3/%02X", lead), func(t *testing.T) {
			t.Parallel()
			run(t, 3, func(yield func(int) bool) {
				product(0, [][]byte{allOctets[lead : lead+4], allOctets[0x80:0xC0], allOctets[0x80:0xC0]}, yield)
			})
		})
	}
	for lo := 0; lo < 256 && longTests(); lo += 64 {
		t.Run(fmt.Sprintf("len3/sample%02X", lo), func(t *testing.T) {
			t.Parallel()
			run(t, 3, sampleSeqs(3, lo, lo+64))
		})
	}
	seconds, fourth := allOctets[0x7F:0xC1], []byte{0x7F, 0x80, 0xBE, 0xBF, 0xC0}
	if longTests() {
		seconds = allOctets
		fourth = []byte{0x7F, 0x80, 0x81, 0x8F, 0x9F, 0xA0, 0xA3, 0xB2, 0xB3, 0xBA, 0xBB, 0xBD, 0xBE, 0xBF, 0xC0}
	}
	for lead := 0xF0; lead <= 0xF4; lead++ {
		t.Run(fmt.Sprintf("len4/%02X", lead), func(t *testing.T) {
			t.Parallel()
			run(t, 4, func(yield func(int) bool) {
				product(0, [][]byte{{byte(lead)}, seconds, allOctets[0x80:0xC0], fourth}, yield)
			})
		})
	}
}

// TestFusedKernelsAtEveryOffset puts each class probe, and each
// malformation, at every offset of texts of each fill whose lengths end at
// every octet of a block, and runs each fused kernel directly.
//
// With -sweep, each probe goes at a quarter of the offsets, a different
// quarter at each length, and every fifth length (2 s of CPU; -long adds
// about 40 s more, for every offset of every length). The default run (and
// -short) takes every 19th length from 67, each ending at a different
// phase of a block and of a word, and each probe at a sixteenth of the
// offsets, a different sixteenth at each length, so that every probe
// still meets every phase of a word.
func TestFusedKernelsAtEveryOffset(t *testing.T) {
	if len(fusedKernels) == 0 {
		t.Skip("no fused kernel on this CPU")
	}
	t.Parallel()
	// A probe goes at every part-th offset, from an offset that changes
	// with the probe and the length, and at the lengths that keep says.
	part, keep := 16, func(n int) bool { return (n-fusedKernelMinLen)%19 == 0 }
	switch {
	case longTests():
		part, keep = 1, func(int) bool { return true }
	case sweepTests():
		part, keep = 4, func(n int) bool { return n%5 == 0 }
	}
	for fi, fill := range fills {
		t.Run(fill.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(fi), 11))
			failures := 0
			for n := fusedKernelMinLen; n <= 200; n++ {
				if !keep(n) {
					continue
				}
				base := randomText(rng, fill.chars, n)
				probes := append(append([]string(nil), classProbes...), injected...)
				for pi, probe := range probes {
					for off := 0; off+len(probe) <= n; off++ {
						if (off+pi+n)%part != 0 {
							continue
						}
						p := append([]byte(nil), base...)
						copy(p[off:], probe)
						forbid := checkSets[(off+pi)%len(checkSets)]
						if msg := fusedKernelsAgree(p, forbid); msg != "" {
							t.Error(msg)
							if failures++; failures >= 10 {
								t.FailNow()
							}
						}
					}
				}
			}
		})
	}
}

// FuzzCheckKernels compares each fused kernel, run directly, with the
// references: p between two runs of fill text, as in FuzzCheckLong.
func FuzzCheckKernels(f *testing.F) {
	for i, probe := range classProbes {
		f.Add([]byte(probe), uint8(i*7), uint8(i*13), uint8(i), uint16(AllClasses))
		f.Add([]byte(probe), uint8(i*11), uint8(i*5), uint8(i), uint16(NUL|C0|C1|BidiControl))
	}
	for i, bad := range injected {
		f.Add([]byte(bad), uint8(i*3), uint8(i*17), uint8(i), uint16(NUL|C0|C1|Bidi))
	}
	f.Add([]byte(strings.Repeat("\u200d\u2014", 40)), uint8(0), uint8(0), uint8(0), uint16(NUL|C0|C1|BidiControl))
	f.Fuzz(func(t *testing.T, p []byte, pre, post, fill uint8, forbid uint16) {
		c := fills[int(fill)%len(fills)].chars
		q := randomText(rand.New(rand.NewPCG(uint64(fill), 0)), c, int(pre)%100)
		q = append(q, p...)
		q = append(q, randomText(rand.New(rand.NewPCG(uint64(fill), 1)), c, int(post)%80)...)
		if msg := fusedKernelsAgree(q, Class(forbid)); msg != "" {
			t.Fatal(msg)
		}
	})
}

// BenchmarkCheckFusedFrom compares checkFused with each fused kernel with
// the path check takes below fusedFrom (validPrefixSIMD, then the
// attention scan) around the kernels' shortest inputs, under the strict
// preset's classes for values, to place fusedFrom. Run it with
// GODEBUG=cpu.avx512f=off for the AVX2 path's validPrefixSIMD.
func BenchmarkCheckFusedFrom(b *testing.B) {
	if len(fusedKernels) == 0 {
		b.Skip("no fused kernel on this CPU")
	}
	forbid := NUL | C0 | C1 | BidiControl
	for _, tx := range benchTexts {
		for _, n := range []int{67, 80, 96, 128, 160, 256} {
			p := []byte(strings.Repeat(tx.text, n/len(tx.text)+2))
			for p[n]&0xC0 == 0x80 {
				n--
			}
			if n < fusedKernelMinLen {
				continue
			}
			p = p[:n]
			for _, k := range fusedKernels {
				b.Run(fmt.Sprintf("script=%s/size=%d/impl=%s", tx.script, n, k.name), func(b *testing.B) {
					b.SetBytes(int64(len(p)))
					for b.Loop() {
						benchSinkErr = checkFusedBy(p, forbid, k.kernel)
					}
				})
			}
			b.Run(fmt.Sprintf("script=%s/size=%d/impl=scan", tx.script, n), func(b *testing.B) {
				b.SetBytes(int64(len(p)))
				for b.Loop() {
					benchSinkErr = checkClassesScan(p[:validPrefixSIMD(p)], forbid)
				}
			})
		}
	}
}
