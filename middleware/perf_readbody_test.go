package middleware

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/iotest"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
)

// octetCounter counts the octets read through it.
type octetCounter struct {
	r io.Reader
	n int
}

func (c *octetCounter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += k
	return k, err
}

// TestReadBodySizes reads bodies of every size around readBody's
// boundaries (upfrontBytes, the commit at a commitShare-th of the declared
// length, the limit), declared truly, declared shorter or longer than
// sent, or not declared, through readers that give one octet at a time,
// half of what is asked, or io.EOF with the last octets: the body comes
// back whole, or over the limit after at most limit+1 octets read; in
// Monitor mode (keep) r.Body then gives all of it.
func TestReadBodySizes(t *testing.T) {
	const limit = 3*bodyio.UpfrontBytes + 100
	sizes := []int{0, 1, 7, 8, 9, bodyio.ChunkSize - 1, bodyio.ChunkSize, bodyio.ChunkSize + 1, bodyio.UpfrontBytes - 1, bodyio.UpfrontBytes, bodyio.UpfrontBytes + 1,
		2*bodyio.UpfrontBytes + 3, limit - 1, limit, limit + 1, limit + 2, 2 * limit}
	readers := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
		"dataerr": iotest.DataErrReader,
	}
	for _, size := range sizes {
		body := make([]byte, size)
		for i := range body {
			body[i] = byte('a' + i%26)
		}
		for _, decl := range []int{size, -1, size / 2, size + 5, size + bodyio.UpfrontBytes} {
			for rname, wrap := range readers {
				if rname == "onebyte" && size > 3*bodyio.ChunkSize {
					continue // slow and no different
				}
				for _, keep := range []bool{false, true} {
					name := fmt.Sprintf("size=%d/declared=%d/%s/keep=%v", size, decl, rname, keep)
					cr := &octetCounter{r: wrap(bytes.NewReader(body))}
					r := &http.Request{Body: io.NopCloser(cr), ContentLength: int64(decl)}
					var ls lazyScratch
					got, over, err := readBody(&ls, r, limit, keep, make([]byte, 8))
					ls.release()
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if cr.n > limit+1 {
						t.Errorf("%s: read %d octets, limit %d", name, cr.n, limit)
					}
					if size > limit || decl > limit {
						if !over || got != nil {
							t.Errorf("%s: over %v, %d octets, want over", name, over, len(got))
						}
						if keep && decl <= limit {
							all, err := io.ReadAll(r.Body)
							if err != nil || !bytes.Equal(all, body) {
								t.Errorf("%s: kept body of %d octets (%v), want %d", name, len(all), err, len(body))
							}
						}
						continue
					}
					if over || got == nil || !bytes.Equal(got, body) {
						t.Errorf("%s: over %v, %d octets (nil %v), want the %d of the body", name, over, len(got), got == nil, size)
					}
				}
			}
		}
	}
}

// TestReadBodyError: a read that fails after some octets is
// body_unreadable, and in Monitor mode r.Body gives the octets read and
// then the same error, whatever memory they were read into.
func TestReadBodyError(t *testing.T) {
	boom := errors.New("boom")
	for _, size := range []int{0, 10, bodyio.UpfrontBytes + 10, 5 * bodyio.UpfrontBytes} {
		for _, decl := range []int{-1, size, 2 * size, 1 << 20} {
			body := bytes.Repeat([]byte{'x'}, size)
			r := &http.Request{Body: io.NopCloser(io.MultiReader(bytes.NewReader(body), iotest.ErrReader(boom))), ContentLength: int64(decl)}
			var ls lazyScratch
			got, over, err := readBody(&ls, r, 1<<20, true, make([]byte, 8))
			ls.release()
			if got != nil || over || !errors.Is(err, boom) || !errors.Is(err, bodyio.ErrRead) {
				t.Fatalf("size %d declared %d: %d octets, over %v, err %v", size, decl, len(got), over, err)
			}
			all, err := io.ReadAll(r.Body)
			if !bytes.Equal(all, body) || !errors.Is(err, boom) {
				t.Errorf("size %d declared %d: kept %d octets and %v, want %d and boom", size, decl, len(all), err, size)
			}
		}
	}
}
