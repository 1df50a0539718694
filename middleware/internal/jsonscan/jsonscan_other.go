//go:build !amd64 || purego

package jsonscan

import "math"

const minLen = math.MaxInt

func structure(p []byte) (int, bool) { return structureGeneric(p) }
