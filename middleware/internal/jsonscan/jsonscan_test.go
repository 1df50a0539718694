package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// check compares Structure with the standard library's passes on p.
func check(t *testing.T, p []byte) {
	t.Helper()
	gotB, gotS, gotA := Structure(p)
	wantB, wantS, wantA := structureGeneric(p)
	if gotB != wantB || gotS != wantS || gotA != wantA {
		t.Fatalf("%d octets: %d brackets, backslash %v, ampersand %v; want %d, %v, %v (%q)",
			len(p), gotB, gotS, gotA, wantB, wantS, wantA, p)
	}
}

// TestStructure: Structure agrees with the standard library's passes on
// every length up to 300 octets, at many offsets of a block, with the
// octets it looks for, their neighbours and their ORs with 0x20 all over.
func TestStructure(t *testing.T) {
	alphabet := []byte{'{', '[', '\\', '&', ':', '}', ']', 0x5B | 0x20, 0x7B &^ 0x20, 0x5C | 0x20, 0x7C,
		0x06, 0x1A, 0xDB, 0xFB, 0xBA, 0, 'a', ' ', '"', 0xFF}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300+64)
	for n := 0; n <= 300; n++ {
		for off := 0; off < 64; off += 7 {
			for round := range 6 {
				p := buf[off : off+n]
				for i := range p {
					p[i] = alphabet[rng.IntN(len(alphabet))]
					if round == 0 {
						p[i] = 'x' // none
					}
				}
				check(t, p)
			}
		}
	}
}

// FuzzStructure: Structure agrees with the standard library's passes.
func FuzzStructure(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"\u00e9"}],"c":"&amp;"}`))
	f.Add(bytes.Repeat([]byte("[{\\&:"), 100))
	f.Fuzz(func(t *testing.T, p []byte) { check(t, p) })
}

// TestStructureAllocs: no allocation.
func TestStructureAllocs(t *testing.T) {
	p := bytes.Repeat([]byte(`{"a":[1]}`), 100)
	if n := testing.AllocsPerRun(100, func() { Structure(p) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func BenchmarkStructure(b *testing.B) {
	p := bytes.Repeat([]byte(`{"name":"Zoë","tags":["a","b"]},`), 32)[:1024]
	b.Run("impl=jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			Structure(p)
		}
	})
	b.Run("impl=bytes", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			structureGeneric(p)
		}
	})
}
