package middleware

import (
	"testing"

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
