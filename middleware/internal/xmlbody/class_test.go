package xmlbody

import (
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// TestXMLNoClassRange holds xmlCheckRune's short cut to sanitize: every
// character strictly between xmlNoClassFrom and xmlNoClassTo is of no
// class, and the two bounds are of one (so the range is as wide as it may
// be).
func TestXMLNoClassRange(t *testing.T) {
	for r := rune(xmlNoClassFrom + 1); r < xmlNoClassTo; r++ {
		if c := sanitize.ClassOf(r); c != 0 {
			t.Fatalf("U+%04X is of class %v: xmlCheckRune would pass it unchecked", r, c)
		}
	}
	for _, r := range []rune{xmlNoClassFrom, xmlNoClassTo} {
		if sanitize.ClassOf(r) == 0 {
			t.Errorf("U+%04X is of no class: the range could start or end there", r)
		}
	}
}

// TestXMLPlainRune holds xmlPlainRune to xmlCheckRune: every character it
// passes, xmlCheckRune passes under every class, as the first character
// of a value or not; and it passes printable ASCII and the range above.
func TestXMLPlainRune(t *testing.T) {
	all := sanitize.Class(1<<16 - 1)
	for r := rune(0); r <= utf8.MaxRune+1; r++ {
		plain := xmlPlainRune(r)
		if plain && (xmlCheckRune(r, 0, true, all) != nil || xmlCheckRune(r, 0, false, all) != nil) {
			t.Fatalf("U+%04X: plain, but xmlCheckRune refuses it", r)
		}
		if want := 0x20 <= r && r < 0x7F || xmlNoClassFrom < r && r < xmlNoClassTo; plain != want {
			t.Fatalf("U+%04X: plain %v, want %v", r, plain, want)
		}
	}
}
