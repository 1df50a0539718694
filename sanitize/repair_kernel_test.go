//go:build amd64 && !purego

package sanitize

import (
	"bytes"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

// needRepairKernel skips a test on a CPU without the repair kernels.
func needRepairKernel(t testing.TB) {
	t.Helper()
	if repairKernel == noKernel {
		t.Skip("no repair kernel on this CPU")
	}
}

// repairKernels are the repair kernel pairs this CPU runs: the AVX2 pair
// on every CPU with AVX2, BMI2 and POPCNT, so that an AVX-512 machine
// tests both, and the AVX-512 pair where repairKernel is that one.
// A test calls no other: an AVX-512 instruction on a CPU without it is an
// illegal instruction.
var repairKernels = func() (ks []repairKernelPair) {
	x := &cpu.X86
	if x.HasAVX2 && x.HasBMI2 && x.HasPOPCNT {
		ks = append(ks, repairKernelPair{"avx2", avx2Kernel})
	}
	if repairKernel == avx512Kernel {
		ks = append(ks, repairKernelPair{"avx512", avx512Kernel})
	}
	return ks
}()

// A repairKernelPair names a pair of repair kernels for repairCount and
// repairWrite.
type repairKernelPair struct {
	name   string
	kernel int
}

// String returns the name of the pair, for test logs.
func (k repairKernelPair) String() string { return k.name }

// TestRepairKernelChoice reports the repair kernels of this CPU and those
// the tests call directly.
func TestRepairKernelChoice(t *testing.T) {
	names := map[int]string{noKernel: "none", avx2Kernel: "AVX2", avx512Kernel: "AVX-512"}
	t.Logf("repair kernels: %s; tested directly: %v", names[repairKernel], repairKernels)
	if repairKernel != noKernel && len(repairKernels) == 0 {
		t.Error("the CPU's repair kernel is not among those tested")
	}
}

// kernelInputs returns inputs for the kernels: random octets drawn from
// edgeOctets (every class Table 3-7 tells apart), and hostileString's
// runs, count of each.
func kernelInputs(r *rand.Rand, count int) [][]byte {
	var ins [][]byte
	for range count {
		p := make([]byte, 60+r.IntN(400))
		for k := range p {
			p[k] = edgeOctets[r.IntN(len(edgeOctets))]
		}
		ins = append(ins, p, hostileString(r, 60+r.IntN(600), true))
	}
	return ins
}

// strungInputs returns the 3-octet sequences of seqs strung together, in
// inputs of about 3,000 octets.
func strungInputs(seqs iter.Seq[int]) [][]byte {
	var ins [][]byte
	var seq []byte
	for v := range seqs {
		seq = append(seq, byte(v>>16), byte(v>>8), byte(v))
		if len(seq) >= 3000 {
			ins = append(ins, seq)
			seq = nil
		}
	}
	return ins
}

// TestRepairKernels checks the kernels block by block against the model
// (countSpan, writeSpan), and ToValid, ToValidString and AppendValid, which
// run them, against refRepair, on kernelInputs and on the sequences of
// sampleSeqs of 3 octets strung together.
//
// With -sweep, 2,000 of each kind of kernelInputs and every sequence of
// the sample (0.25 s of CPU). The default run takes 400 of each kind, and
// the sequences of leadSeqs (sampleSeqs from C0, edgeSeqs below it);
// -short, 200 of each kind, and the same sequences.
func TestRepairKernels(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 15))
	count, seqs := 400, leadSeqs(0, 0x100)
	switch {
	case sweepTests():
		count, seqs = 2000, sampleSeqs(3, 0, 0x100)
	case testing.Short():
		count = 200
	}
	for _, p := range append(kernelInputs(r, count), strungInputs(seqs)...) {
		checkKernelBlocks(t, p)
	}
}

// checkKernelBlocks checks each kernel pair of repairKernels on each
// block of p against the model (countSpan, writeSpan), and ToValid,
// ToValidString and AppendValid on p against refRepair. It returns how
// many blocks have no continuation that a lead admits (octetMasks.second
// is 0), which the kernels decide from ge80 alone (LONE in
// repair_amd64.s, LONE2 in repair_avx2_amd64.s).
func checkKernelBlocks(t *testing.T, p []byte) (lone int) {
	t.Helper()
	for a := kernelBefore; a+kernelAfter <= len(p); a += blockStep {
		checkKernelBlock(t, p, a)
		var w [windowLen]byte
		copy(w[:], p[a-windowFirst:])
		if maskWindow(p[a-windowFirst-1], &w).second == 0 {
			lone++
		}
	}
	want := refRepair(p)
	if got := ToValid(p); !bytes.Equal(got, want) {
		t.Fatalf("ToValid(% X) = % X, reference says % X", p, got, want)
	}
	if got := ToValidString(string(p)); got != string(want) {
		t.Fatalf("ToValidString(% X) = % X, reference says % X", p, got, want)
	}
	if got := AppendValid([]byte("dst"), p); string(got) != "dst"+string(want) {
		t.Fatalf("AppendValid(% X) = % X, reference says % X", p, got, want)
	}
	return lone
}

// checkKernelBlock runs each kernel pair of repairKernels on the block
// of p at a (kernelBefore <= a, a+kernelAfter <= len(p)) and checks the
// count, the valid octets and what it writes against the model.
func checkKernelBlock(t *testing.T, p []byte, a int) {
	t.Helper()
	var out [3*blockStep + 64]byte
	want := make([]byte, 3*blockStep)
	want = want[:writeSpan(want, 0, p, a, a+blockStep)]
	v, _ := spanMasks(p, a, a+blockStep)
	for _, k := range repairKernels {
		if done, got, valid := repairCount(k.kernel, &p[a], 1); done != 1 || got != len(want) || got != countSpan(p, a, a+blockStep) || valid != bits.OnesCount64(v) {
			t.Fatalf("%s: repairCount(% X) = %d, %d, %d valid; model says %d, %d valid", k, p[a-kernelBefore:a+kernelAfter], done, got, valid, len(want), bits.OnesCount64(v))
		}
		done, n, _ := repairWrite(k.kernel, &p[a], 1, &out[0], len(out))
		if done != 1 || !bytes.Equal(out[:n], want) {
			t.Fatalf("%s: repairWrite(% X) = %d, % X; model says % X", k, p[a-kernelBefore:a+kernelAfter], done, out[:n], want)
		}
	}
}

// TestRepairKernelsEveryOffset runs each kernel pair against the model on
// inputs of random octets (edgeOctets) and of hostileString's runs, one
// block from every octet at which one fits, and all the blocks that fit
// from each of the first blockStep octets: the blocks of ToValid start at
// any offset of its input, after its first error, and so at any alignment.
//
// With -sweep, 60 inputs of each kind (0.1 s of CPU); by default the first
// 20 of them, with -short 10.
func TestRepairKernelsEveryOffset(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 21))
	count := 20
	switch {
	case sweepTests():
		count = 60
	case testing.Short():
		count = 10
	}
	for _, p := range kernelInputs(r, count) {
		for a := kernelBefore; a+kernelAfter <= len(p); a++ {
			checkKernelBlock(t, p, a)
			if a >= kernelBefore+blockStep {
				continue
			}
			blocks := blocksFrom(len(p), a)
			for _, k := range repairKernels {
				done, m, valid := repairCount(k.kernel, &p[a], blocks)
				end := a + done*blockStep
				wantValid := 0
				for b := a; b < end; b += blockStep {
					v, _ := spanMasks(p, b, b+blockStep)
					wantValid += bits.OnesCount64(v)
				}
				if done < 1 || done > blocks || valid != wantValid {
					t.Fatalf("%s: repairCount(%d blocks at %d of % X) = %d, %d, %d valid; model says %d valid", k, blocks, a, p, done, m, valid, wantValid)
				}
				want := make([]byte, 0, 3*len(p))
				for b := a; b < end; b += blockStep {
					want = want[:writeSpan(want[:cap(want)], len(want), p, b, b+blockStep)]
				}
				if len(want) != m {
					t.Fatalf("%s: repairCount(%d blocks at %d of % X) = %d octets; model says %d", k, blocks, a, p, m, len(want))
				}
				out := make([]byte, len(want)+64)
				wdone, n, _ := repairWrite(k.kernel, &p[a], blocks, &out[0], len(out))
				if wdone != done || !bytes.Equal(out[:n], want) {
					t.Fatalf("%s: repairWrite(%d blocks at %d of % X) = %d, % X; model says %d, % X", k, blocks, a, p, wdone, out[:n], done, want)
				}
			}
		}
	}
}

// lonePieces start no well-formed sequence and own no continuation: lone
// octets, and leads followed by an octet they do not admit. A window made
// of them alone takes the kernels' LONE path; wellPieces, mixed in, put
// windows on either side of it.
var (
	lonePieces = []string{
		"a", " ", "\x00", "\x7f", "\x80", "\xbf", "\xc0", "\xc1", "\xf5", "\xff",
		"\xc2a", "\xdf\xc0", "\xe0\x80", "\xe0\x9f", "\xed\xa0", "\xed\xbf",
		"\xf0\x80", "\xf0\x8f", "\xf4\x90", "\xf4\xbf", "\xe9 ", "\xe2\xc2a",
	}
	wellPieces = []string{
		"é", "€", "😀", "\U0010FFFF", "\xe2\x82", "\xf0\x9f\x98", "\xed\x9f", "\xf4\x8f",
		"\xc2", "\xe0\xa0", "\xf0\x90\x80",
	}
)

// TestRepairKernelsLone checks the kernels on inputs whose windows mostly
// have no continuation that a lead admits, the densest errors, with such
// windows beside ordinary ones at every distance, and fails if too few of
// the windows take the path that decides them from ge80 alone.
//
// With -sweep, 3,000 inputs (0.1 s of CPU); by default the first 600 of
// them, with -short 300.
func TestRepairKernelsLone(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 17))
	count := 600
	switch {
	case sweepTests():
		count = 3000
	case testing.Short():
		count = 300
	}
	blocks, lone := 0, 0
	for range count {
		// One in rate pieces is one that a lead admits something in.
		rate := []int{0, 8, 40, 200, 1000}[r.IntN(5)]
		var b strings.Builder
		for n := 60 + r.IntN(500); b.Len() < n; {
			if rate > 0 && r.IntN(rate) == 0 {
				b.WriteString(wellPieces[r.IntN(len(wellPieces))])
			} else {
				b.WriteString(lonePieces[r.IntN(len(lonePieces))])
			}
		}
		p := []byte(b.String())
		lone += checkKernelBlocks(t, p)
		if len(p) >= kernelBefore+kernelAfter {
			blocks += (len(p)-kernelBefore-kernelAfter)/blockStep + 1
		}
	}
	if lone < blocks/2 || lone == blocks {
		t.Errorf("%d of %d blocks had no admitted continuation: want both kinds, most of them that one", lone, blocks)
	}
}

// TestRepairEdges runs ToValid with the kernels on inputs of every length
// up to 300 whose first error is near either end or in the middle, with errors of every
// kind at both ends: the edges before kernelBefore and after the last
// block, and the block boundaries.
func TestRepairEdges(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	errs := []string{"\xff", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "\x80", "\xf4\x90\x80\x80"}
	step := 1
	if testing.Short() {
		step = 7
	}
	for n := 1; n <= 300; n += step {
		// The first error before kernelBefore, after it, and in the last
		// octets (longTests: everywhere).
		var ats []int
		for at := range n {
			if at < 2*kernelBefore || at >= n-kernelBefore || at == n/2 || longTests() {
				ats = append(ats, at)
			}
		}
		for _, e := range errs {
			for _, at := range ats {
				p := []byte(strings.Repeat("é", n/2+1))[:n]
				copy(p[at:], e)
				copy(p[max(0, n-len(e)):], e)
				if want := refRepair(p); !bytes.Equal(ToValid(p), want) {
					t.Fatalf("ToValid(% X) = % X, reference says % X", p, ToValid(p), want)
				}
			}
		}
	}
}

// TestRepairWriteRoom checks that each writing kernel writes no octet past
// the room it is given: it stops before the first block that would not
// fit whole with 64 octets to spare for its stores, and no earlier.
func TestRepairWriteRoom(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	// Blocks of every kind the kernels write their own way: with the
	// groups, with no valid octet (FF, E2 82: U+FFFD stored 21 at a
	// time) and with every octet valid.
	for _, unit := range []string{"\xed\xa0\x80a\xff", "\xff", "\xe2\x82", "\xf0\x9f\x98", "a\xff", "aé€😀"} {
		p := []byte(strings.Repeat(unit, 400/len(unit)))
		const blocks = 4
		full := countSpan(p, kernelBefore, kernelBefore+blocks*blockStep)
		for room := range full + 100 {
			for _, k := range repairKernels {
				buf := bytes.Repeat([]byte{0x55}, room+64)
				done, n, _ := repairWrite(k.kernel, &p[kernelBefore], blocks, &buf[0], room)
				if n > room || done > blocks {
					t.Fatalf("%s, %+q, room %d: wrote %d octets, %d blocks", k, unit, room, n, done)
				}
				if want := countSpan(p, kernelBefore, kernelBefore+done*blockStep); n != want {
					t.Fatalf("%s, %+q, room %d: wrote %d octets for %d blocks, want %d", k, unit, room, n, done, want)
				}
				if done < blocks && room-n >= countSpan(p, kernelBefore+done*blockStep, kernelBefore+(done+1)*blockStep)+64 {
					t.Fatalf("%s, %+q, room %d: stopped after %d blocks with room for the next", k, unit, room, done)
				}
				if strings.Trim(string(buf[room:]), "\x55") != "" {
					t.Fatalf("%s, %+q, room %d: wrote past it: % X", k, unit, room, buf[room:])
				}
			}
		}
	}
}

// BenchmarkToValidShort times ToValid on short inputs, by blocks and one
// character at a time, for blocksFromLen.
func BenchmarkToValidShort(b *testing.B) {
	for _, n := range []int{16, 32, 48, 64, 96, 128, 256} {
		p := []byte(strings.Repeat("a\xff\xe2\x82", n/4))
		for _, blocks := range []bool{true, false} {
			b.Run(fmt.Sprintf("n=%d/blocks=%v", n, blocks), func(b *testing.B) {
				out := make([]byte, 3*n)
				for b.Loop() {
					if blocks {
						need, _, _ := repairLenBlocks(p, 0)
						repairIntoBlocks(out[:need], 0, p, 0)
					} else {
						repairInto(out[:repairLen(p, 0)+4], 0, p, 0)
					}
				}
			})
		}
	}
}

// BenchmarkRepairKernels times each kernel pair on 6 blocks of each kind
// that the writing kernels write their own way: with both valid and
// ill-formed octets, with no valid octet, and all valid (6: fewer than
// validRun, after which the kernels stop).
func BenchmarkRepairKernels(b *testing.B) {
	for _, in := range []struct{ name, unit string }{{"mixed", "a\xff\xe2\x82"}, {"errors", "\xff"}, {"valid", "aé€😀"}} {
		const blocks = 6
		p := []byte(strings.Repeat(in.unit, (kernelBefore+blocks*blockStep+kernelAfter)/len(in.unit)+1))
		out := make([]byte, 3*len(p)+64)
		for _, k := range repairKernels {
			b.Run(in.name+"/count/"+k.name, func(b *testing.B) {
				b.SetBytes(blocks * blockStep)
				for b.Loop() {
					repairCount(k.kernel, &p[kernelBefore], blocks)
				}
			})
			b.Run(in.name+"/write/"+k.name, func(b *testing.B) {
				b.SetBytes(blocks * blockStep)
				for b.Loop() {
					repairWrite(k.kernel, &p[kernelBefore], blocks, &out[0], len(out))
				}
			})
		}
	}
}

// FuzzToValidLong repairs p repeated to at least 300 octets after head
// ASCII octets, long enough for the kernels, and compares with refRepair.
func FuzzToValidLong(f *testing.F) {
	for _, tc := range repairCases {
		f.Add([]byte(tc.in), uint8(0))
	}
	for _, c := range hostileRepairUnits {
		f.Add([]byte(c.unit), uint8(3))
	}
	// No valid octet after the head (replaceAll), which puts the first
	// U+FFFD at each phase of the pattern.
	f.Add([]byte("\xf0\x9f\x98"), uint8(1))
	f.Add([]byte("\xed\xa0\x80\xe2\x82"), uint8(2))
	f.Add([]byte("\xc0\xaf\xff\xf4\x90\x80"), uint8(4))
	// Errors, then a valid character in a later block: repair fills up
	// to its block and writes from there.
	f.Add([]byte(strings.Repeat("\xed\xa0\x80", 70)+"\u20ac"), uint8(2))
	f.Fuzz(func(t *testing.T, unit []byte, head uint8) {
		if len(unit) == 0 {
			return
		}
		p := append(bytes.Repeat([]byte("h"), int(head%64)), bytes.Repeat(unit, 300/len(unit)+1)...)
		if want := refRepair(p); !bytes.Equal(ToValid(p), want) {
			t.Fatalf("ToValid(% X) = % X, reference says % X", p, ToValid(p), want)
		}
	})
}

// TestAdmitTables checks admitTables against secondRange on every pair of
// octets: the three lookups share admitLead and no other bit exactly when
// the first octet is a lead and admits the second after it.
func TestAdmitTables(t *testing.T) {
	for lead := range 256 {
		lo, hi := secondRange(byte(lead))
		for next := range 256 {
			got := admitTables[0][lead>>4]&admitTables[1][lead&15]&admitTables[2][next>>4] == admitLead
			if want := lo <= byte(next) && byte(next) <= hi; got != want {
				t.Errorf("admitTables: %02X %02X admitted %v, Table 3-7 says %v", lead, next, got, want)
			}
		}
	}
}

// FuzzRepairKernels runs each kernel pair of repairKernels on p, repeated
// to at least two blocks, from the octet at off (modulo blockStep, so at
// every alignment) over all the blocks that fit, and compares the kernels
// with each other and with the model: the blocks each count, their length
// repaired, their valid octets and what each writes.
func FuzzRepairKernels(f *testing.F) {
	for _, tc := range repairCases {
		f.Add([]byte(tc.in), uint8(0))
	}
	for i, c := range hostileRepairUnits {
		f.Add([]byte(c.unit), uint8(i*7))
	}
	for i, piece := range append(lonePieces, wellPieces...) {
		f.Add([]byte(piece+"\xe2\x82\xac"), uint8(i*11))
	}
	needRepairKernel(f)
	f.Fuzz(func(t *testing.T, p []byte, off uint8) {
		if len(p) == 0 {
			return
		}
		a := kernelBefore + int(off)%blockStep
		p = bytes.Repeat(p, (a+2*blockStep+kernelAfter)/len(p)+1)
		blocks := blocksFrom(len(p), a)
		var want []byte
		wantValid, wantDone := 0, -1
		for _, k := range repairKernels {
			done, m, valid := repairCount(k.kernel, &p[a], blocks)
			if wantDone < 0 {
				// The model, for the blocks the first kernel counted.
				wantDone = done
				want = make([]byte, 3*len(p))
				o := 0
				for b := range done {
					s := a + b*blockStep
					o = writeSpan(want, o, p, s, s+blockStep)
					v, _ := spanMasks(p, s, s+blockStep)
					wantValid += bits.OnesCount64(v)
				}
				want = want[:o]
			}
			if done != wantDone || m != len(want) || valid != wantValid {
				t.Fatalf("%s: repairCount(%d blocks at %d of % X) = %d, %d, %d valid; want %d, %d, %d valid", k, blocks, a, p, done, m, valid, wantDone, len(want), wantValid)
			}
			out := make([]byte, len(want)+64)
			wdone, n, _ := repairWrite(k.kernel, &p[a], blocks, &out[0], len(out))
			if wdone != done || !bytes.Equal(out[:n], want) {
				t.Fatalf("%s: repairWrite(%d blocks at %d of % X) = %d, % X; want %d, % X", k, blocks, a, p, wdone, out[:n], done, want)
			}
		}
	})
}
