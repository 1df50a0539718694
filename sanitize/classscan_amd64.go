//go:build amd64 && !purego

package sanitize

import "math"

// attnSIMDFrom is the shortest input for attnBlocks: 64 octets with AVX2,
// none without.
var attnSIMDFrom = func() int {
	if simdKernel != noKernel {
		return 64
	}
	return math.MaxInt
}()

// attnBlocksSIMD is attnBlocks for the n octets at p: attnAVX512 on CPUs
// that have the AVX-512 validation kernel, else attnAVX2.
func attnBlocksSIMD(p *byte, n int, t *attnTable) (off int, mask uint64) {
	if simdKernel == avx512Kernel {
		return attnAVX512(p, n, t)
	}
	return attnAVX2(p, n, t)
}

// attnAVX2 is attnBlocks for the octets of p[:n&^63], 64 at a time: an
// octet needs attention when the entries of t for its high nibble and its
// low nibble share a bit (VPSHUFB looks both up, in each 128-bit lane).
//
//go:noescape
func attnAVX2(p *byte, n int, t *attnTable) (off int, mask uint64)

// attnAVX512 is attnAVX2 with 64-octet vectors: VPTESTMB gives the mask of
// a block in one instruction.
//
//go:noescape
func attnAVX512(p *byte, n int, t *attnTable) (off int, mask uint64)
