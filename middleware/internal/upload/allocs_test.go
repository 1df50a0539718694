package upload

import (
	"mime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// TestRewriteDispositionAllocs: rewriting a long name costs what
// mime.ParseMediaType, which reads the result back, costs, and a few
// allocations of its own (the new value and the header written): none
// that grows with the name's length.
func TestRewriteDispositionAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under the race detector")
	}
	for _, tc := range []struct{ name, sent, unit string }{
		{"quoted", `form-data; name="NAME"; filename="f.txt"`, "e\u0301a"},
		{"extended", `form-data; name*=utf-8''NAME`, "e%CC%81a"},
		{"extended, quoted", `form-data; name*="utf-8''NAME"`, "e%CC%81a"},
	} {
		for _, n := range []int{1, 16, 256, 4096} {
			nv := strings.Repeat("\u00e9a", n)
			sent := strings.Replace(tc.sent, "NAME", strings.Repeat(tc.unit, n), 1)
			disp, params, err := mime.ParseMediaType(sent)
			if err != nil {
				t.Fatal(err)
			}
			params["name"] = nv
			out, ok := rewriteDisposition(sent, disp, params, []string{"name"})
			if !ok {
				t.Fatalf("%s, %d: not rewritten", tc.name, n)
			}
			parse := testing.AllocsPerRun(20, func() { _, _, _ = mime.ParseMediaType(out) })
			got := testing.AllocsPerRun(20, func() { _, _ = rewriteDisposition(sent, disp, params, []string{"name"}) })
			if got > parse+3 {
				t.Errorf("%s, %d runes: %v allocations, ParseMediaType of the result %v: want at most 3 more", tc.name, 2*n, got, parse)
			}
		}
	}
}

// A quoted-printable part costs no buffer of its own.
func TestQPDecoderAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under the race detector")
	}
	var dec qpDecoder
	raw := []byte(strings.Repeat("=C3=A9", 100) + "=\r\n")
	buf := make([]byte, 0, 1024)
	_, _ = readAll(buf, dec.reader(raw))
	n := testing.AllocsPerRun(100, func() { _, _ = readAll(buf[:0], dec.reader(raw)) })
	if n > 1 {
		t.Errorf("%.0f allocations per part, want 1 at most (the decoder's state)", n)
	}
}
