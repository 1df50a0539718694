package upload

import (
	"bytes"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"strings"
	"testing"
)

// The contents a scan in memory returns are exactly what Go's reader
// hands out, part by part, whether they are found in the body (inBody,
// not copied) or read into memory: bodies well formed, broken, with
// delimiter-like lines, without line ends, LF only, truncated.
func TestScannerContentsAsGo(t *testing.T) {
	t.Parallel()
	pieces := []string{"--b\r\n", "--b--\r\n", "\r\n--b\r\n", "\r\n--b--\r\n", "\r\n", "\n", "--b\n", "\n--b\n",
		"Content-Disposition: form-data; name=\"f\"\r\n", "X: y\r\n", "\r\n\r\n", "text", "é", "--bx", "\r\n--bx\r\n",
		"--b  \r\n", "\r", strings.Repeat("a", 5000), strings.Repeat("\r\n--b-", 3)}
	r := rand.New(rand.NewPCG(14, 5))
	found, copied := 0, 0
	for i := range 3000 {
		var sb strings.Builder
		if i%2 == 0 {
			sb.WriteString("--b\r\n\r\n") // most start well
		}
		for range r.IntN(14) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		body := []byte(sb.String())
		want := rawContents(body, "b")
		s := newScanner(body, "b")
		var got [][]byte
		for pt := s.next(); pt != nil; pt = s.next() {
			content, _, _, _, _ := pt.readContent(nil, new(qpDecoder))
			if pt.inBody {
				found++
			} else {
				copied++
			}
			got = append(got, bytes.Clone(content))
		}
		if len(got) != len(want) {
			t.Fatalf("case %d, %q: %d parts, Go's reader %d", i, body, len(got), len(want))
		}
		for k := range got {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("case %d, %q, part %d: %q, Go's reader %q", i, body, k, got[k], want[k])
			}
		}
	}
	if found == 0 || copied == 0 {
		t.Errorf("%d contents found in the body, %d copied: want both", found, copied)
	}
}

// rawContents reads the parts of body as a handler that retries after an
// error does (NextRawPart), and returns their contents.
func rawContents(body []byte, boundary string) [][]byte {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var out [][]byte
	for range len(body) + 2 {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if strings.Contains(err.Error(), "EOF") {
				break
			}
			continue
		}
		c, _ := io.ReadAll(p)
		out = append(out, c)
	}
	return out
}
