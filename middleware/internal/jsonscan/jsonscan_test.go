package jsonscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// kernel is a SIMD pass of Structure, called directly on p of any length
// (nothing is called for an empty p: the passes take n > 0).
type kernel struct {
	name string
	run  func(p []byte) (brackets int, backslash, amp bool)
}

// passes are Structure and the kernels.
var passes = append([]kernel{{"Structure", Structure}}, kernels...)

// disagreement runs each of passes on p and reports the first that
// disagrees with the standard library's passes, or "".
func disagreement(p []byte) string {
	wantB, wantS, wantA := structureGeneric(p)
	for _, k := range passes {
		if b, s, a := k.run(p); b != wantB || s != wantS || a != wantA {
			return fmt.Sprintf("%s of %d octets: %d brackets, backslash %v, ampersand %v; want %d, %v, %v (%q)",
				k.name, len(p), b, s, a, wantB, wantS, wantA, p)
		}
	}
	return ""
}

// check fails t if a pass disagrees on p. (It calls no t.Helper, which
// would cost more than the passes in the tests' loops.)
func check(t *testing.T, p []byte) {
	if msg := disagreement(p); msg != "" {
		t.Fatal(msg)
	}
}

// nearOctets are the octets the passes look for, and octets one bit away
// from them or from their ORs with 0x20 (the bracket test ORs 0x20 in).
var nearOctets = []byte{'{', '[', '\\', '&',
	0x7A, 0x5A, 0x7C, 0x5D, 0x7D, 0x3B, 0x1B, 0xFB, 0xDB, 0x5C | 0x20, 0x1C,
	0x06, 0x27, 0x24, 0xA6, 0x00, 0xFF}

// TestPassesAgreeAtEveryLengthAndOffset: Structure and each kernel run
// directly agree with the standard library's passes on every length up to
// 300 octets at every offset of a 64-octet block, on text with none of the
// octets they look for, on text of brackets only, and on random text of
// the octets they look for and their near misses, and ':', '}', ']', 'a',
// ' ', '"'.
func TestPassesAgreeAtEveryLengthAndOffset(t *testing.T) {
	t.Parallel()
	alphabet := append([]byte{':', '}', ']', 'a', ' ', '"'}, nearOctets...)
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300+64)
	for n := 0; n <= 300; n++ {
		for off := range 64 {
			for round := range 4 {
				p := buf[off : off+n]
				for i := range p {
					switch round {
					case 0:
						p[i] = 'x' // none
					case 1:
						p[i] = "{["[i%2] // every octet counts
					default:
						p[i] = alphabet[rng.IntN(len(alphabet))]
					}
				}
				check(t, p)
			}
		}
	}
}

// TestPassesSeeEachOctetAtEveryPosition: each octet of nearOctets, put at
// every position of every length up to 300 octets in text of 'a' and in
// text of brackets, is seen or not
// by Structure and each kernel run directly as by the standard library's
// passes: the first and last octets, those of a vector's edges and those
// of an overlapping last load are counted once.
func TestPassesSeeEachOctetAtEveryPosition(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 300+64)
	for _, fill := range []byte{'a', '['} {
		for n := 1; n <= 300; n++ {
			p := buf[n%64 : n%64+n]
			for i := range p {
				p[i] = fill
			}
			for pos := range p {
				for _, c := range nearOctets {
					p[pos] = c
					check(t, p)
				}
				p[pos] = fill
			}
		}
	}
}

// TestPassesCountEveryBracketOfLongText: on long texts of brackets only
// and of random text, up to 64 KiB, Structure and each kernel agree with
// the standard library's passes.
func TestPassesCountEveryBracketOfLongText(t *testing.T) {
	t.Parallel()
	alphabet := append([]byte{'a', ' '}, nearOctets...)
	rng := rand.New(rand.NewPCG(7, 8))
	lengths := []int{1<<12 - 1, 1 << 12, 1<<12 + 33, 1<<13 + 63, 1<<16 - 1, 1 << 16, 1<<16 + 31}
	buf := make([]byte, 1<<16+31+2)
	for _, n := range lengths {
		for round := range 3 {
			p := buf[round : round+n]
			for i := range p {
				switch round {
				case 0:
					p[i] = '{'
				case 1:
					p[i] = '['
				default:
					p[i] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			check(t, p)
		}
	}
}

// FuzzStructure: Structure, and each kernel run directly, agree with the
// standard library's passes.
func FuzzStructure(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"\u00e9"}],"c":"&amp;"}`))
	f.Add(bytes.Repeat([]byte("[{\\&:"), 100))
	f.Add(bytes.Repeat([]byte("{"), 95))
	f.Add(append(bytes.Repeat([]byte(" "), 70), '&'))
	f.Fuzz(func(t *testing.T, p []byte) { check(t, p) })
}

// TestStructureAllocs: no allocation.
func TestStructureAllocs(t *testing.T) {
	p := bytes.Repeat([]byte(`{"a":[1]}`), 100)
	if n := testing.AllocsPerRun(100, func() { Structure(p) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// benchSink keeps the results of the benchmarks.
var benchSink int

// BenchmarkStructure compares Structure, each kernel run directly, and the
// standard library's passes (impl=bytes) on clean JSON text of a size
// around the kernels' shortest inputs (to place minLen) and of 1 KiB and
// 64 KiB. Run it with GODEBUG=cpu.avx512f=off for Structure's AVX2 path.
func BenchmarkStructure(b *testing.B) {
	text := bytes.Repeat([]byte(`{"name":"Zoë","tags":["a","b"]},`), 2048)
	impls := append([]kernel{{"bytes", structureGeneric}}, passes...)
	for _, size := range []struct {
		name string
		n    int
	}{{"33", 33}, {"48", 48}, {"63", 63}, {"1KiB", 1 << 10}, {"64KiB", 64 << 10}} {
		p := text[:size.n]
		for _, k := range impls {
			b.Run("size="+size.name+"/impl="+k.name, func(b *testing.B) {
				b.SetBytes(int64(len(p)))
				for b.Loop() {
					n, _, _ := k.run(p)
					benchSink += n
				}
			})
		}
	}
}
