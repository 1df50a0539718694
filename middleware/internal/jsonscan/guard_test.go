//go:build linux && amd64 && !purego

package jsonscan

import (
	"math/rand/v2"
	"syscall"
	"testing"
)

// guardedPage returns a page of memory between two pages that fault on
// any access, so that a kernel that reads one octet before or after its
// input crashes the test.
func guardedPage(t *testing.T) []byte {
	ps := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, 3*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := syscall.Mprotect(m[:ps], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	if err := syscall.Mprotect(m[2*ps:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	return m[ps : 2*ps : 2*ps]
}

// TestKernelsStayInBounds runs each kernel directly, and Structure, on
// every length up to 300 octets starting right after a guard page and
// ending right before one, with the octets they look for at the ends.
func TestKernelsStayInBounds(t *testing.T) {
	if len(kernels) == 0 {
		t.Skip("no SIMD pass on this CPU")
	}
	page := guardedPage(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 300; n++ {
		for _, atEnd := range []bool{false, true} {
			p := page[:n]
			if atEnd {
				p = page[len(page)-n:]
			}
			for i := range p {
				p[i] = nearOctets[rng.IntN(len(nearOctets))]
			}
			check(t, p)
		}
	}
}
