package normalize

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/width"
)

// TestTinyText checks the texts of at most tinyText octets, which
// appendNormal gives the normalizer whole, against the reference, with
// those just longer (which take the scanner), at the start of the text
// and after a normal prefix (Bytes resumes there): short mixes of
// starters, marks in and out of canonical order, Hangul, compatibility
// characters, and ill-formed octets (which take the scanner's way):
// 10,000 random texts with -sweep (0.15 s of CPU), the first 2,000 of them
// by default and with -short.
func TestTinyText(t *testing.T) {
	count := 2000
	if sweepTests() {
		count = 10000
	}
	pieces := []string{
		"e", "q", "A", " ", "\u00e9", "\u0301", "\u0323", "\u0302", "\u0308",
		"\u1100", "\u1161", "\u11a8", "\uac00", "\u212b", "\u2126", "\ufb01",
		"\uff21", "\u00b2", "\ufdfa", "\u0f73", "\u0bc6\u0bbe", "\u034f",
		"\U0001d15e", "\xff", "\xcc", "\xe2\x84",
	}
	rng := rand.New(rand.NewPCG(14, 32))
	var texts []string
	for range count {
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

// TestLowerASCII holds the shortcuts of the username profiles for ASCII
// to x/text: width mapping leaves every ASCII character as it is, and
// lowercasing maps A-Z to a-z and nothing else, alone or in a word.
func TestLowerASCII(t *testing.T) {
	lower := cases.Lower(language.Und, cases.HandleFinalSigma(false))
	var all []byte
	for c := range utf8.RuneSelf {
		all = append(all, byte(c))
	}
	for _, s := range []string{string(all), "ABC", "Σ", "xΣ", "IJ"} {
		var w precisWork
		if got := width.Fold.String(s); isASCII([]byte(s)) && got != s {
			t.Errorf("width.Fold(%q) = %q", s, got)
		}
		if !isASCII([]byte(s)) {
			continue
		}
		if got, want := string(w.lowerASCII([]byte(s))), lower.String(s); got != want {
			t.Errorf("lowerASCII(%q) = %q, x/text %q", s, got, want)
		}
	}
	for c := range utf8.RuneSelf {
		s := string(rune(c))
		var w precisWork
		if got, want := string(w.lowerASCII([]byte(s))), lower.String(s); got != want {
			t.Errorf("lowerASCII(%q) = %q, x/text %q", s, got, want)
		}
	}
}

// TestEnforceTiny holds Enforcer.Append on short values, which take the
// shortcuts (ASCII lowercasing, utf8.Valid, normalizing without a scan),
// to Enforce, for every profile.
func TestEnforceTiny(t *testing.T) {
	var e Enforcer
	for _, s := range []string{
		"ab", "AB", "\uff21B", "\uff21\uff42", "Ab Cd", "a\u0301", "\u00c5", "A\u030a", "\u212b",
		"\u0130", "\u03a3", "x\u03a3", "\u05d0", "a\u05d0", "\u0661", "1a", "\ufb01", "\u00b2",
		"\u3000a", "a\u00a0b", "\uff01\uff5e", "\uff5f", "\uff41\uff3a\uff10", "\uff21\u00e9", "", " ", "\xff", "a\xc3", "\ufdfa", "\uac00\u11a8", "\u1100\u1161",
		"\uff21" + strings.Repeat("B", 40), "e\u0301" + strings.Repeat("z", 30),
	} {
		for _, p := range []Profile{UsernameCaseMapped, UsernameCasePreserved, OpaqueString, Nickname} {
			want, wantErr := Enforce(p, s)
			got, err := e.Append([]byte("x"), p, []byte(s))
			if (err == nil) != (wantErr == nil) || err == nil && string(got) != "x"+want {
				t.Errorf("Append(%v, %+q) = %+q, %v; Enforce: %+q, %v", p, s, got, err, want, wantErr)
			}
		}
	}
}

// TestFoldFullwidth holds foldFullwidthASCII to width.Fold: on every
// fullwidth form of ASCII, alone and among ASCII, and it declines every
// other character of three octets that starts with EF BC or EF BD.
func TestFoldFullwidth(t *testing.T) {
	var w precisWork
	for r := rune(0xFF00); r <= 0xFF7F; r++ {
		for _, s := range []string{string(r), "a" + string(r) + "B", string(r) + string(r)} {
			got, ok := w.foldFullwidthASCII([]byte(s))
			want := width.Fold.String(s)
			if ok != (r >= 0xFF01 && r <= 0xFF5E) {
				t.Errorf("foldFullwidthASCII(%+q) ok = %v", s, ok)
			}
			if ok && string(got) != want {
				t.Errorf("foldFullwidthASCII(%+q) = %q, width.Fold %q", s, got, want)
			}
			if !ok && string(got) != s {
				t.Errorf("foldFullwidthASCII(%+q) declined but returned %q", s, got)
			}
			w.reset()
		}
	}
	for _, s := range []string{"\xef", "a\xef\xbc", "\u3000", "\uffe0", "\u00e9"} {
		if _, ok := w.foldFullwidthASCII([]byte(s)); ok {
			t.Errorf("foldFullwidthASCII(%+q) ok", s)
		}
	}
}
