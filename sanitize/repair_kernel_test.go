//go:build amd64 && !purego

package sanitize

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// needRepairKernel skips a test on a CPU without the repair kernels.
func needRepairKernel(t testing.TB) {
	t.Helper()
	if !repairKernel {
		t.Skip("no repair kernel on this CPU")
	}
}

// kernelInputs returns inputs for the kernels: random octets drawn from
// edgeOctets (every class Table 3-7 tells apart), hostileString's runs,
// and the 3-octet sequences of sampleSeqs strung together.
func kernelInputs(r *rand.Rand, count int) [][]byte {
	var ins [][]byte
	for range count {
		p := make([]byte, 60+r.IntN(400))
		for k := range p {
			p[k] = edgeOctets[r.IntN(len(edgeOctets))]
		}
		ins = append(ins, p, hostileString(r, 60+r.IntN(600), true))
	}
	var seq []byte
	for v := range sampleSeqs(3, 0, 256) {
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
// run them, against refRepair.
func TestRepairKernels(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 15))
	count := 2000
	if testing.Short() {
		count = 200
	}
	for _, p := range kernelInputs(r, count) {
		checkKernelBlocks(t, p)
	}
}

// checkKernelBlocks checks the kernels on each block of p against the
// model (countSpan, writeSpan), and ToValid, ToValidString and AppendValid
// on p against refRepair. It returns how many blocks have no continuation
// that a lead admits (octetMasks.second is 0), which the kernels decide
// from ge80 alone (LONE in repair_amd64.s).
func checkKernelBlocks(t *testing.T, p []byte) (lone int) {
	t.Helper()
	var out [3*blockStep + 64]byte
	for a := kernelBefore; a+kernelAfter <= len(p); a += blockStep {
		want := make([]byte, 3*blockStep)
		want = want[:writeSpan(want, 0, p, a, a+blockStep)]
		v, _ := spanMasks(p, a, a+blockStep)
		if done, got, valid := repairCountAVX512(&p[a], 1); done != 1 || got != len(want) || got != countSpan(p, a, a+blockStep) || valid != bits.OnesCount64(v) {
			t.Fatalf("repairCountAVX512(% X) = %d, %d, %d valid; model says %d, %d valid", p[a-kernelBefore:a+kernelAfter], done, got, valid, len(want), bits.OnesCount64(v))
		}
		done, n, _ := repairWriteAVX512(&p[a], 1, &out[0], len(out))
		if done != 1 || !bytes.Equal(out[:n], want) {
			t.Fatalf("repairWriteAVX512(% X) = %d, % X; model says % X", p[a-kernelBefore:a+kernelAfter], done, out[:n], want)
		}
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
func TestRepairKernelsLone(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 17))
	count := 3000
	if testing.Short() {
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

// TestRepairWriteRoom checks that repairWriteAVX512 writes no octet past
// the room it is given: it stops before the first block that would not
// fit whole with 64 octets to spare for its stores, and no earlier.
func TestRepairWriteRoom(t *testing.T) {
	needRepairKernel(t)
	t.Parallel()
	// Blocks of every kind the kernel writes its own way: with the
	// groups, with no valid octet (FF, E2 82: U+FFFD stored 21 at a
	// time) and with every octet valid.
	for _, unit := range []string{"\xed\xa0\x80a\xff", "\xff", "\xe2\x82", "\xf0\x9f\x98", "a\xff", "aé€😀"} {
		p := []byte(strings.Repeat(unit, 400/len(unit)))
		const blocks = 4
		full := countSpan(p, kernelBefore, kernelBefore+blocks*blockStep)
		for room := range full + 100 {
			buf := bytes.Repeat([]byte{0x55}, room+64)
			done, n, _ := repairWriteAVX512(&p[kernelBefore], blocks, &buf[0], room)
			if n > room || done > blocks {
				t.Fatalf("%+q, room %d: wrote %d octets, %d blocks", unit, room, n, done)
			}
			if want := countSpan(p, kernelBefore, kernelBefore+done*blockStep); n != want {
				t.Fatalf("%+q, room %d: wrote %d octets for %d blocks, want %d", unit, room, n, done, want)
			}
			if done < blocks && room-n >= countSpan(p, kernelBefore+done*blockStep, kernelBefore+(done+1)*blockStep)+64 {
				t.Fatalf("%+q, room %d: stopped after %d blocks with room for the next", unit, room, done)
			}
			if strings.Trim(string(buf[room:]), "\x55") != "" {
				t.Fatalf("%+q, room %d: wrote past it: % X", unit, room, buf[room:])
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
