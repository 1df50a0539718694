package upload

import (
	"errors"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
)

// The header lines of a part are bounded (Limits.MultipartHeaderLines):
// a part with more is refused, too_large in location multipart (400, a
// count), once the parts before it are checked, nested bodies included;
// headScan, which counts them before Go's reader parses them, counts at
// least the lines the reader parses, however the body arrives.

// headerLines counts the lines of a header as Go's reader read them: one
// per field value (a folded field is one value, the scan's count of it at
// least as large).
func headerLines(hdr textproto.MIMEHeader) int {
	n := 0
	for _, v := range hdr {
		n += len(v)
	}
	return n
}

// goHeaderLines returns the most header lines (field values) of a part
// that multipart.Reader reads in body, called as the check calls it: on
// after a syntax error, up to the body's end.
func goHeaderLines(body, boundary string) int {
	mr := multipart.NewReader(strings.NewReader(body), boundary)
	most := 0
	for range len(body) + 2 {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			continue
		}
		most = max(most, headerLines(p.Header))
	}
	return most
}

// headScanCut writes body to a headScan in pieces of the given lengths
// (the rest in one) and returns where it cuts the body, or -1.
func headScanCut(body, boundary string, limit int, pieces []int) int {
	var h headScan
	h.start(boundary, limit)
	off := 0
	for _, n := range append(pieces, len(body)) {
		n = min(n, len(body)-off)
		if cut := h.write([]byte(body[off : off+n])); cut >= 0 {
			return off + cut
		}
		if off += n; off == len(body) {
			break
		}
	}
	return -1
}

// checkHeadScan holds headScan to Go's reader on body: below the most
// lines the reader parses in a part, it goes over, wherever the body is
// cut into pieces, and cuts it in the same place.
func checkHeadScan(t *testing.T, body, boundary string, r *rand.Rand) {
	t.Helper()
	most := goHeaderLines(body, boundary)
	for _, limit := range []int{max(most-1, 0), most, most + 1} {
		whole := headScanCut(body, boundary, limit, nil)
		if limit < most && whole < 0 {
			t.Fatalf("limit %d: the reader parses a part of %d header lines, the scan does not go over\nbody %q", limit, most, body)
		}
		for range 4 {
			var pieces []int
			for range r.IntN(8) {
				pieces = append(pieces, 1+r.IntN(max(len(body)/3, 1)))
			}
			if got := headScanCut(body, boundary, limit, pieces); got != whole {
				t.Fatalf("limit %d: in pieces %v the scan cuts at %d, whole at %d\nbody %q", limit, pieces, got, whole, body)
			}
		}
	}
}

// mpPieces are the lines random bodies are made of: delimiters and near
// misses, header lines good and bad, folds, empty lines, content.
var mpPieces = []string{
	"--B\r\n", "--B\n", "--B \t\r\n", "--B--\r\n", "--B--", "x--B\r\n", "--Bx\r\n", "--B\r\r\n", "-", "--",
	"A: b\r\n", "A: b\n", "Content-Type: text/plain\r\n", " folded\r\n", "\tfolded\r\n", "bad line\r\n", ": v\r\n",
	"\r\n", "\n", "\r", "text\r\n", "text", strings.Repeat("y", PeekBufferSize-3), strings.Repeat("z", PeekBufferSize),
}

func TestHeadScanAgainstReader(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 1))
	fixed := []string{
		mptest.Build("B", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 9), Data: "v"}, mptest.Field("a", "1")),
		mptest.Build("B", "\n", mptest.Spec{Header: mptest.HeaderLines("q", 3), Data: "v"}),
		strings.Repeat("x", PeekBufferSize) + mptest.Build("B", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 5), Data: "v"}),
		strings.Repeat("x", 3*PeekBufferSize) + mptest.Build("B", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 5), Data: "v"}),
		"--B\r\nbad\r\n--B\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\nv\r\n--B--\r\n",
		"--B\r\nA: 1\r\n\r\nv" + strings.Repeat("w", 2*PeekBufferSize) + "\r\n--B\r\nA: 1\r\nB: 2\r\n\r\n\r\n--B--\r\n",
	}
	for _, body := range fixed {
		checkHeadScan(t, body, "B", r)
	}
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(mpPieces[r.IntN(len(mpPieces))])
		}
		checkHeadScan(t, b.String(), "B", r)
	}
}

func FuzzHeadScan(f *testing.F) {
	for _, p := range mpPieces {
		f.Add([]byte("--B\r\n"+p+"A: b\r\n"+p), uint64(1))
	}
	f.Add([]byte(mptest.Build("B", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 3), Data: "v"})), uint64(7))
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		checkHeadScan(t, string(body), "B", rand.New(rand.NewPCG(seed, 2)))
	})
}
