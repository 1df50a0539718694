//go:build !amd64 || purego

package sanitize

import "math"

// attnSIMDFrom is the shortest input for indexAttnSIMD: none, without a
// SIMD kernel.
const attnSIMDFrom = math.MaxInt

// indexAttnSIMD is never called.
func indexAttnSIMD[T string | []byte](p T, t *attnTable) int { return 0 }
