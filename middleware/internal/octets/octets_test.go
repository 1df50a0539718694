package octets

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestWordMasks holds badOctets to its definition on words with every
// octet value in every position, among random and plain octets.
func TestWordMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 400000 {
		var b [8]byte
		for i := range b {
			if k%2 == 0 {
				b[i] = byte(rng.Uint32())
			} else {
				b[i] = byte(0x20 + rng.IntN(0x5F)) // printable: one bad octet at most, below
			}
		}
		if k < 256*8*2 {
			b[k/2/256] = byte(k / 2) // every value at every position
		}
		w := binary.LittleEndian.Uint64(b[:])
		for _, ab := range [][2]byte{{'%', '+'}, {'%', '%'}, {'&', '='}, {' ', '~'}} {
			want := false
			for _, c := range b {
				want = want || c < 0x20 || c >= 0x7F || c == ab[0] || c == ab[1]
			}
			if got := badOctets(w, lsb8*uint64(ab[0]), lsb8*uint64(ab[1]))&msb8 != 0; got != want {
				t.Fatalf("badOctets(% x, %q): %v, want %v", b, ab, got, want)
			}
		}
	}
}
