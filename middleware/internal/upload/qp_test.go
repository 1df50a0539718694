package upload

import (
	"bytes"
	"io"
	"math/rand/v2"
	"mime/quotedprintable"
	"strings"
	"testing"
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
