package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// check compares Structure with the standard library's passes on p,
// colons and all.
func check(t *testing.T, p []byte) {
	t.Helper()
	gotB, gotS, gotA := Structure(p, nil)
	wantB, wantS, wantA := structureGeneric(p, nil)
	if gotB != wantB || gotS != wantS || gotA != wantA {
		t.Fatalf("%d octets: %d brackets, backslash %v, ampersand %v; want %d, %v, %v (%q)",
			len(p), gotB, gotS, gotA, wantB, wantS, wantA, p)
	}
	// The colons' words, with garbage in them first and one word past
	// them that must stay as it is.
	w := Words(len(p))
	got := slices.Repeat([]uint64{0xA5A5A5A5A5A5A5A5}, w+1)
	want := make([]uint64, w)
	gotB, gotS, gotA = Structure(p, got[:w])
	structureGeneric(p, want)
	if gotB != wantB || gotS != wantS || gotA != wantA {
		t.Fatalf("%d octets, with colons: %d brackets, backslash %v, ampersand %v; want %d, %v, %v",
			len(p), gotB, gotS, gotA, wantB, wantS, wantA)
	}
	if !slices.Equal(got[:w], want) || got[w] != 0xA5A5A5A5A5A5A5A5 {
		t.Fatalf("%d octets: colons %x, want %x and the next word untouched (%q)", len(p), got, want, p)
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
	var colons [16]uint64
	if n := testing.AllocsPerRun(100, func() { Structure(p, colons[:]) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

// TestStructureShortColons: colons too short for p panics before any
// write.
func TestStructureShortColons(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Structure(make([]byte, 65), make([]uint64, 1))
}

func BenchmarkStructure(b *testing.B) {
	p := bytes.Repeat([]byte(`{"name":"Zoë","tags":["a","b"]},`), 32)[:1024]
	var colons [16]uint64
	b.Run("impl=jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			Structure(p, colons[:])
		}
	})
	b.Run("impl=bytes", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			structureGeneric(p, colons[:])
		}
	})
}
