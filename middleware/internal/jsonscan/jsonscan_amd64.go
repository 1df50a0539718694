//go:build amd64 && !purego

package jsonscan

import (
	"math"

	"golang.org/x/sys/cpu"
)

// minLen is the shortest input for the AVX-512 pass, on CPUs that have
// it: below it the standard library's passes are as fast.
var minLen = func() int {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW {
		return 64
	}
	return math.MaxInt
}()

func structure(p []byte) (brackets int, backslash bool) {
	return structureAVX512(&p[0], len(p))
}

// structureAVX512 is Structure for n > 0 octets at p.
//
//go:noescape
func structureAVX512(p *byte, n int) (brackets int, backslash bool)
