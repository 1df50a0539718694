package jsonscan

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMarks: Marks agrees with the octet-at-a-time marks on every length up
// to 300 octets at many offsets, and writes no Block past the text's.
func TestMarks(t *testing.T) {
	alphabet := []byte{'"', '{', '}', ':', '[', ']', '\\', 0x02, 0x5B, 0x5D, 0x1A, 0xA2, 0xFB, 0xFD, 0xBA, 0, 'a', ' '}
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 300+64)
	junk := Block{1, 2, 3, 4}
	for n := 0; n <= 300; n++ {
		for off := 0; off < 64; off += 5 {
			p := buf[off : off+n]
			for i := range p {
				p[i] = alphabet[rng.IntN(len(alphabet))]
			}
			w := Words(n)
			got := slices.Repeat([]Block{junk}, w+1)
			want := make([]Block, w)
			Marks(p, got[:w])
			marksGeneric(p, want)
			if !slices.Equal(got[:w], want) || got[w] != junk {
				t.Fatalf("%d octets at %d: %x, want %x and the next Block untouched (%q)", n, off, got, want, p)
			}
		}
	}
}

// FuzzMarks: Marks agrees with the octet-at-a-time marks.
func FuzzMarks(f *testing.F) {
	f.Add([]byte(`{"a":{"b":[1,"}:{"]},"c":"d"}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		got, want := make([]Block, Words(len(p))), make([]Block, Words(len(p)))
		Marks(p, got)
		marksGeneric(p, want)
		if !slices.Equal(got, want) {
			t.Fatalf("%x, want %x", got, want)
		}
	})
}
