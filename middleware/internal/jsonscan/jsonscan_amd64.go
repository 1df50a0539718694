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

func structure(p []byte) (brackets int, backslash, amp bool) {
	brackets, found := structureAVX512(&p[0], len(p))
	return brackets, found&1 != 0, found&2 != 0
}

// structureAVX512 is Structure for n > 0 octets at p; found has bit 0 set
// for a backslash, bit 1 for an ampersand.
//
//go:noescape
func structureAVX512(p *byte, n int) (brackets, found int)

func marks(p []byte, m []Block) { marksAVX512(&p[0], len(p), &m[0]) }

// marksAVX512 is Marks for n > 0 octets at p.
//
//go:noescape
func marksAVX512(p *byte, n int, m *Block)
