//go:build !amd64 || purego

package jsonscan

import "math"

const minLen = math.MaxInt

func structure(p []byte, colons []uint64) (int, bool, bool) { return structureGeneric(p, colons) }

func marks(p []byte, m []Block) { marksGeneric(p, m) }
