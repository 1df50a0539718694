//go:build !amd64 || purego

package jsonscan

import "math"

const minLen = math.MaxInt

func structure(p []byte) (int, bool, bool) { return structureGeneric(p) }

func marks(p []byte, m []Block) { marksGeneric(p, m) }
