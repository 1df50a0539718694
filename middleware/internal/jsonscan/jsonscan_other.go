//go:build !amd64 || purego

package jsonscan

import "math"

// minLen is the shortest input for a SIMD pass: there is none here.
const minLen = math.MaxInt

// marksSIMD reports whether marks is a SIMD pass: it is not here.
const marksSIMD = false

// structure is Structure with the standard library's passes.
func structure(p []byte) (int, bool, bool) { return structureGeneric(p) }

// marks is Marks an octet at a time.
func marks(p []byte, m []Block) { marksGeneric(p, m) }
