package sanitize

import "testing"

// BenchmarkAppendUnescapeShort measures the decoding of short query
// values, whose fixed cost a query of a thousand fields pays a thousand
// times.
func BenchmarkAppendUnescapeShort(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"nfd", "e%CC%81e%CC%81"},
		{"fullwidth", "%EF%BC%A1B%EF%BC%A1B"},
		{"ascii", "hello+world"},
	} {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]byte, 0, 64)
			for b.Loop() {
				dst, _ = AppendUnescape(dst[:0], c.s, EscapeQuery)
			}
		})
	}
}
