package peers

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/bench/internal/corpus"
)

// sink keeps the results alive so that the calls cannot be optimized away.
var sink bool

// BenchmarkValidate runs every validator on every input of the corpus, the
// validators of one input right after each other, so that noise on the
// machine hits them alike.
func BenchmarkValidate(b *testing.B) {
	all := corpus.Inputs()
	for _, c := range corpus.Classes() {
		b.Run("class="+c.Name, func(b *testing.B) {
			for _, in := range all {
				if in.Class != c.Name {
					continue
				}
				b.Run("size="+in.Size, func(b *testing.B) {
					for _, impl := range Impls() {
						b.Run("impl="+impl.Name, func(b *testing.B) {
							valid, p := impl.Valid, in.Bytes
							b.SetBytes(int64(len(p)))
							b.ReportAllocs()
							for b.Loop() {
								sink = valid(p)
							}
						})
					}
				})
			}
		})
	}
}

// check fails t unless every validator says want about p.
func check(t *testing.T, name string, p []byte, want bool) {
	t.Helper()
	for _, impl := range Impls() {
		if got := impl.Valid(p); got != want {
			t.Errorf("%s: %s says %v, want %v (%d octets: % X)", name, impl.Name, got, want, len(p), head(p))
		}
	}
}

func head(p []byte) []byte {
	if len(p) > 80 {
		return p[:80]
	}
	return p
}

// TestAgree checks that all the validators give the same answer, that of
// unicode/utf8, on every input.
func TestAgree(t *testing.T) {
	if got := len(Impls()); got != 4 {
		t.Errorf("%d validators, want 4", got)
	}
	t.Run("corpus", func(t *testing.T) {
		for _, in := range corpus.Inputs() {
			check(t, in.Class+"/"+in.Size, in.Bytes, true)
		}
	})
	t.Run("cases", func(t *testing.T) {
		n := 0
		for _, c := range corpus.Cases() {
			check(t, c.Name, c.Bytes, c.Valid)
			if !c.Valid {
				n++
			}
		}
		t.Logf("%d cases, %d invalid", len(corpus.Cases()), n)
	})
	// Every octet pair, and every octet triple and quadruple from the
	// octets around the boundaries of the ranges, after 45 ASCII octets
	// and followed by 20 more, so that vector code sees them.
	t.Run("sequences", func(t *testing.T) {
		pre, post := corpus.Text("ascii", 45), corpus.Text("ascii", 20)
		p := make([]byte, 0, 45+4+20)
		try := func(seq ...byte) {
			p = append(append(append(p[:0], pre...), seq...), post...)
			check(t, fmt.Sprintf("% X", seq), p, utf8.Valid(p))
		}
		for i := range 1 << 16 {
			try(byte(i>>8), byte(i))
		}
		lead := []byte{0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFF}
		cont := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xFF}
		for _, a := range lead {
			for _, b := range cont {
				for _, c := range cont {
					try(a, b, c)
					for _, d := range cont {
						try(a, b, c, d)
					}
				}
			}
		}
	})
	// Copies of the 1 KiB and 64 KiB inputs, each with a few octets
	// replaced or dropped at pseudo-random places.
	t.Run("corrupted", func(t *testing.T) {
		r := uint64(1)
		next := func(n int) int {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			return int(r % uint64(n))
		}
		invalid := 0
		for _, in := range corpus.Inputs() {
			if in.Size != "1KiB" && in.Size != "64KiB" {
				continue
			}
			for range 200 {
				p := append([]byte(nil), in.Bytes...)
				for range 1 + next(3) {
					i := next(len(p))
					switch next(3) {
					case 0:
						p[i] = byte(next(256))
					case 1:
						p[i] = 0x80 | byte(next(0x40))
					case 2:
						p = append(p[:i], p[i+1:]...)
					}
				}
				want := utf8.Valid(p)
				if !want {
					invalid++
				}
				check(t, in.Class+"/"+in.Size+" corrupted", p, want)
			}
		}
		t.Logf("%d corrupted inputs invalid", invalid)
	})
}
