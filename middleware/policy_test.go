package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// TestCanonFoldKey: foldKey agrees with strings.EqualFold, and leaves a
// lower-case ASCII name as it is, without allocating.
func TestCanonFoldKey(t *testing.T) {
	words := []string{"user", "USER", "User", "u\u017Fer", "\u212Aelvin", "kelvin", "KELVIN", "\u00C5", "\u00E5", "\u212B",
		"\u03A9", "\u03C9", "\u2126", "m\u0131ke", "mike", "M\u0130KE", "stra\u00DFe", "STRASSE", "\u1E9E", "", "/user/name", "~0~1"}
	for _, a := range words {
		for _, b := range words {
			if got, want := compiled.FoldKey(a) == compiled.FoldKey(b), strings.EqualFold(a, b); got != want {
				t.Errorf("foldKey(%q) == foldKey(%q) is %v, strings.EqualFold says %v", a, b, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = compiled.FoldKey("/user/name") }); n != 0 && !racetest.Enabled {
		t.Errorf("foldKey of a lower-case ASCII name allocates %v times", n)
	}
}
