package middleware

import (
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestXMLNamesClassesOfAnyKind: Names is not tied to the marks. A class in
// Names is refused in a name and passes elsewhere; one in Forbid and
// Names is refused everywhere, as Forbid's.
func TestXMLNamesClassesOfAnyKind(t *testing.T) {
	t.Parallel()
	c := rules.Check{On: true, Forbid: sanitize.NUL, Names: sanitize.PrivateUse | sanitize.DefaultIgnorable}
	for _, tc := range []struct {
		body   string
		offset int // -1: passes
		class  sanitize.Class
	}{
		{"<a\ue000/>", 2, sanitize.PrivateUse},
		{"<r>\ue000</r>", -1, 0},
		{"<r a=\"\u00ad\"/>", -1, 0},
		{"<r a\u00ad=\"x\"/>", 4, sanitize.DefaultIgnorable},
		{"<r>\u00ad<a\u00ad/></r>", 7, sanitize.DefaultIgnorable},
	} {
		rj := checkXML([]byte(tc.body), &c, true)
		switch {
		case tc.offset < 0 && rj != nil:
			t.Errorf("checkXML(%q) = %v, want nil", tc.body, rj)
		case tc.offset >= 0 && (rj == nil || rj.Offset != tc.offset || rj.Class != tc.class):
			t.Errorf("checkXML(%q) = %v, want forbidden_char %v at %d", tc.body, rj, tc.class, tc.offset)
		}
	}
}
