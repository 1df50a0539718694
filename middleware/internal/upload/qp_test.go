package upload

import (
	"bytes"
	"io"
	"math/rand/v2"
	"mime/quotedprintable"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// qpDecoder, which reuses its memory from part to part, decodes exactly as
// quotedprintable.NewReader over the content does: the same octets, the
// same error, lines longer than the decoder's buffer included.
func TestQPDecoderAsGo(t *testing.T) {
	t.Parallel()
	pieces := []string{"=C3=A9", "abc", "=\r\n", "\r\n", "\n", "=", "=Z", "=c3", " \t", "\x01", "\xff",
		strings.Repeat("a", qpBufferSize-2), strings.Repeat("=41", qpBufferSize/3)}
	r := rand.New(rand.NewPCG(14, 3))
	var dec qpDecoder
	for i := range 2000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		raw := []byte(b.String())
		want, werr := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
		got, gerr := readAll(nil, dec.reader(raw))
		if !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) {
			t.Fatalf("case %d, %q: decoded %q, %v; Go's decoder %q, %v", i, raw, got, gerr, want, werr)
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
