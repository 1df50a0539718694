package form

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

// TestIndexByteNear holds indexByteNear to strings.IndexByte, with the
// byte at every place around shortField, twice or not at all.
func TestIndexByteNear(t *testing.T) {
	for n := 0; n <= 2*shortField+2; n++ {
		s := strings.Repeat("a", n)
		if got := indexByteNear(s, '&'); got != -1 {
			t.Errorf("indexByteNear(%q) = %d", s, got)
		}
		for at := range n {
			for _, also := range []int{-1, at + 1, n - 1} {
				b := []byte(s)
				b[at] = '&'
				if also > at && also < n {
					b[also] = '&'
				}
				if got, want := indexByteNear(string(b), '&'), strings.IndexByte(string(b), '&'); got != want {
					t.Errorf("indexByteNear(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}
