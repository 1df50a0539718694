package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestStructure: Structure agrees with the standard library's passes on
// every length up to 300 octets, at every offset of a block, with the
// octets it counts, their neighbours and their ORs with 0x20 everywhere.
func TestStructure(t *testing.T) {
	alphabet := []byte{'{', '[', '\\', '}', ']', ':', 0x5B | 0x20, 0x7B &^ 0x20, 0x5C | 0x20, 0x7C, 0xDB, 0xFB, 0, 'a', ' ', '"', 0xFF}
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300+64)
	for n := 0; n <= 300; n++ {
		for off := 0; off < 64; off += 7 {
			for round := 0; round < 8; round++ {
				p := buf[off : off+n]
				for i := range p {
					p[i] = alphabet[rng.IntN(len(alphabet))]
				}
				if round == 0 {
					for i := range p {
						p[i] = 'x' // none
					}
				}
				gotB, gotS := Structure(p)
				wantB, wantS := structureGeneric(p)
				if gotB != wantB || gotS != wantS {
					t.Fatalf("%d octets at %d: %d brackets, backslash %v; want %d, %v (%q)", n, off, gotB, gotS, wantB, wantS, p)
				}
			}
		}
	}
}

// FuzzStructure: Structure agrees with the standard library's passes.
func FuzzStructure(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"\u00e9"}]}`))
	f.Add(bytes.Repeat([]byte("[{\\"), 100))
	f.Fuzz(func(t *testing.T, p []byte) {
		gotB, gotS := Structure(p)
		wantB, wantS := structureGeneric(p)
		if gotB != wantB || gotS != wantS {
			t.Fatalf("%d brackets, backslash %v; want %d, %v", gotB, gotS, wantB, wantS)
		}
	})
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
