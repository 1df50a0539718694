//go:build amd64 && !purego

package jsonscan

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The SIMD passes this CPU can run: AVX-512 F and BW (masked loads, 64-bit
// masks), or else AVX2 with POPCNT (which every AVX2 CPU has, but which is
// a feature bit of its own).
var (
	hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT
)

// minLen is the shortest input for the SIMD pass of this CPU: below 64
// octets the standard library's passes are as fast as the AVX-512 pass,
// while the AVX2 pass is faster from the first length structureShort does
// not take (at 33 octets, 6 ns against 22).
var minLen = func() int {
	switch {
	case hasAVX512:
		return 64
	case hasAVX2:
		return shortLen + 1
	}
	return math.MaxInt
}()

// marksSIMD reports whether marks is a SIMD pass: the AVX-512 one (there
// is no AVX2 one).
var marksSIMD = hasAVX512

// structure is Structure with the SIMD pass of this CPU, for at least
// minLen octets.
func structure(p []byte) (brackets int, backslash, amp bool) {
	var found int
	if hasAVX512 {
		brackets, found = structureAVX512(&p[0], len(p))
	} else {
		brackets, found = structureAVX2(&p[0], len(p))
	}
	return brackets, found&1 != 0, found&2 != 0
}

// structureAVX512 is Structure for n > 0 octets at p; found has bit 0 set
// for a backslash, bit 1 for an ampersand.
//
//go:noescape
func structureAVX512(p *byte, n int) (brackets, found int)

// structureAVX2 is structureAVX512 for CPUs with AVX2 and not AVX-512, with
// the same contract: 64 octets a round as two vectors of 32, then the 32
// octets that end at n (of which only those not yet counted count); below
// 32 octets, an octet at a time. It reads no octet outside p[:n].
//
//go:noescape
func structureAVX2(p *byte, n int) (brackets, found int)

// marks is Marks with the AVX-512 pass, for marksSIMD CPUs.
func marks(p []byte, m []Block) { marksAVX512(&p[0], len(p), &m[0]) }

// marksAVX512 is Marks for n > 0 octets at p.
//
//go:noescape
func marksAVX512(p *byte, n int, m *Block)
