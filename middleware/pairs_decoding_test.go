package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/sanitize"
)

// TestNeedsDecoding checks needsDecoding's two ways, octet by octet up to
// shortField octets and IndexByte past that, on '%' and '+' at every
// place: '+' decodes only in a query or form text.
func TestNeedsDecoding(t *testing.T) {
	for n := 1; n <= shortField+2; n++ {
		for at := range n {
			for _, c := range []byte{'%', '+', 'x', '&'} {
				b := []byte(strings.Repeat("a", n))
				b[at] = c
				s := string(b)
				for _, mode := range []sanitize.EscapeMode{sanitize.EscapeQuery, sanitize.EscapeQuery | sanitize.RefuseDoubleEncoding, sanitize.EscapePath, sanitize.EscapePathSegment} {
					query := mode&^sanitize.RefuseDoubleEncoding == sanitize.EscapeQuery
					want := c == '%' || c == '+' && query
					if got := needsDecoding(s, mode); got != want {
						t.Errorf("needsDecoding(%q, %v) = %v", s, mode, got)
					}
				}
			}
		}
	}
}
