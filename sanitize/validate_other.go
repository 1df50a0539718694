//go:build !amd64 || purego

package sanitize

import "math"

// simdFrom is the shortest input for validPrefixSIMD: none, without a SIMD
// kernel (other architectures, or the purego build tag).
const simdFrom = math.MaxInt

// validPrefixSIMD is never called.
func validPrefixSIMD[T string | []byte](p T) int { return validPrefixGeneric(p) }
