//go:build amd64 && !purego

package sanitize

import (
	"math"
	"unsafe"
)

// attnSIMDFrom is the shortest input for indexAttnSIMD: 32 octets with
// AVX2, none without.
var attnSIMDFrom = func() int {
	if simdKernel != noKernel {
		return 32
	}
	return math.MaxInt
}()

// indexAttnSIMD returns the offset of the first octet of p[:len(p)&^31]
// that needs attention under t, or len(p)&^31.
func indexAttnSIMD[T string | []byte](p T, t *attnTable) int {
	// The header of a string and of a slice both start with the pointer to
	// the octets.
	return indexAttnAVX2(*(**byte)(unsafe.Pointer(&p)), len(p), t)
}

// indexAttnAVX2 tests the octets of p[:n&^31], 64 and then 32 at a time:
// an octet needs attention when the entries of t for its high nibble and
// its low nibble share a bit (VPSHUFB looks both up, in each 128-bit lane).
//
//go:noescape
func indexAttnAVX2(p *byte, n int, t *attnTable) int
