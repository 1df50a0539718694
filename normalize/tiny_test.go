package normalize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTinyText checks the texts of at most tinyText octets, which
// appendNormal gives the normalizer whole, against the reference, with
// those just longer (which take the scanner), at the start of the text
// and after a normal prefix (Bytes resumes there): short mixes of
// starters, marks in and out of canonical order, Hangul, compatibility
// characters, and ill-formed octets (which take the scanner's way).
func TestTinyText(t *testing.T) {
	pieces := []string{
		"e", "q", "A", " ", "\u00e9", "\u0301", "\u0323", "\u0302", "\u0308",
		"\u1100", "\u1161", "\u11a8", "\uac00", "\u212b", "\u2126", "\ufb01",
		"\uff21", "\u00b2", "\ufdfa", "\u0f73", "\u0bc6\u0bbe", "\u034f",
		"\U0001d15e", "\xff", "\xcc", "\xe2\x84",
	}
	rng := rand.New(rand.NewPCG(14, 32))
	var texts []string
	for range 10000 {
		var b strings.Builder
		want := 1 + rng.IntN(tinyText+8)
		for b.Len() < want {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	// The edges: exactly tinyText octets, and one more.
	texts = append(texts, strings.Repeat("e\u0301", tinyText/3)+"ee", strings.Repeat("e\u0301", tinyText/3)+"eee",
		"x\u0302\u0323", "\u0301", "a"+strings.Repeat("\u0301", 15))
	for _, s := range texts {
		for _, f := range []Form{NFC, NFKC} {
			want := referenceOf(f, s)
			if got := f.AppendString([]byte("e"), s); string(got) != "e"+want {
				t.Fatalf("%s.AppendString(%+q) = %+q, want %+q", f.Name(), s, got[1:], want)
			}
			if got := f.Bytes([]byte("ab" + s)); string(got) != referenceOf(f, "ab"+s) {
				t.Fatalf("%s.Bytes(%+q) = %+q", f.Name(), "ab"+s, got)
			}
		}
	}
}

// referenceOf is f(s) as norm makes it, each well-formed piece between
// ill-formed octets on its own (pieces).
func referenceOf(f Form, s string) string {
	return string(pieces(f.info().norm, []byte(s)))
}
