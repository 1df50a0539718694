//go:build linux && amd64 && !purego

package sanitize

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

// TestKernelsStayInBounds runs the SIMD kernels, through Validate, Check
// and CheckClasses and each fused kernel from every block start, on inputs
// that start right after a guard page and on inputs that end right before
// one, with characters of the classes, and malformations, at their ends.
func TestKernelsStayInBounds(t *testing.T) {
	needSIMD(t)
	page := guardedPage(t)
	rng := rand.New(rand.NewPCG(9, 9))
	ends := append([]string{"", "\x00", "\u0085", "\u202e", "\U0010fffe", "\ufdd0"}, injected...)
	sets := []Class{NUL | C0 | C1 | Bidi, AllClasses &^ BOM, Noncharacter | PrivateUse}
	for _, fill := range fills {
		for n := 35; n <= 400; n++ {
			if testing.Short() && n%3 != 0 {
				continue
			}
			text := randomText(rng, fill.chars, n)
			end := ends[rng.IntN(len(ends))]
			if len(end) <= n {
				copy(text[n-len(end):], end)
			}
			for _, atEnd := range []bool{false, true} {
				p := page[:n]
				if atEnd {
					p = page[len(page)-n:]
				}
				copy(p, text)
				Validate(p)
				Valid(p)
				for _, forbid := range sets {
					Check(p, forbid)
					CheckClasses(p, forbid)
					if n >= fusedKernelMinLen {
						ft, at := fusedFor(forbid), &attnTables[forbid]
						for _, k := range fusedKernels {
							for start := 0; start <= n; start += 64 {
								fusedBlocks(k.kernel, &p[0], n, start, ft, at)
							}
							fusedBlocks(k.kernel, &p[0], n, n, ft, at)
						}
					}
				}
			}
		}
	}
}
