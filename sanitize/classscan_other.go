//go:build !amd64 || purego

package sanitize

import "math"

// attnSIMDFrom is the shortest input for attnBlocks: none, without a SIMD
// kernel.
const attnSIMDFrom = math.MaxInt

// attnBlocksSIMD is never called.
func attnBlocksSIMD(p *byte, n int, t *attnTable) (off int, mask uint64) {
	panic("sanitize: no SIMD kernel")
}

// fusedFrom is the shortest input for checkFused: none, without a SIMD
// kernel.
const fusedFrom = math.MaxInt

// checkFused is never called.
func checkFused[T string | []byte](p T, forbid Class) error {
	panic("sanitize: no SIMD kernel")
}

// checkClassesFused is never called.
func checkClassesFused[T string | []byte](p T, forbid Class) error {
	panic("sanitize: no SIMD kernel")
}
