//go:build linux && amd64 && !purego

package sanitize

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestRepairKernelsStayInBounds runs ToValid on inputs that start right
// after a guard page and end right before one.
func TestRepairKernelsStayInBounds(t *testing.T) {
	needRepairKernel(t)
	page := guardedPage(t)
	r := rand.New(rand.NewPCG(14, 16))
	for n := 1; n <= 400; n++ {
		for _, atEnd := range []bool{false, true} {
			p := page[:n]
			if atEnd {
				p = page[len(page)-n:]
			}
			for k := range p {
				p[k] = edgeOctets[r.IntN(len(edgeOctets))]
			}
			if want := refRepair(p); !bytes.Equal(ToValid(p), want) {
				t.Fatalf("ToValid(% X) = % X, reference says % X", p, ToValid(p), want)
			}
		}
	}
}
