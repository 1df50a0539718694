//go:build amd64 && !purego

package sanitize

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The SIMD kernels.
const (
	noKernel     = iota
	avx2Kernel   // validAVX2
	avx512Kernel // validAVX512, and validAVX2 for shorter inputs
)

// simdKernel is the best kernel for this CPU, chosen once from its features
// (x/sys/cpu also checks that the OS saves the vector registers, and obeys
// GODEBUG=cpu.avx512f=off and cpu.avx2=off, with which the tests run each
// path).
var simdKernel = func() int {
	x := &cpu.X86
	switch {
	case x.HasAVX2 && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VBMI:
		return avx512Kernel
	case x.HasAVX2:
		return avx2Kernel
	}
	return noKernel
}()

// The shortest inputs given to the kernels. validAVX2 needs 35 octets and
// is faster than the portable loop from there on; validAVX512 needs 67 and
// pulls ahead of validAVX2 at about 96 (BenchmarkValidPrefix).
const (
	avx2MinLen   = 35
	avx512MinLen = 96
)

// simdFrom is the shortest input for validPrefixSIMD on this CPU, and
// avx512From the shortest for validAVX512 (above every length if the CPU
// lacks the kernel).
//
//lint:ignore U1000 avx512From is used from assembly (validate_amd64.s)
var simdFrom, avx512From = func() (int, int) {
	switch simdKernel {
	case avx512Kernel:
		return avx2MinLen, avx512MinLen
	case avx2Kernel:
		return avx2MinLen, math.MaxInt
	}
	return math.MaxInt, math.MaxInt
}()

// validPrefixSIMD is validPrefix for simdFrom octets or more: a SIMD kernel
// (validSIMD) checks p, and if it finds an error or an incomplete character
// at the end, the portable loop takes over from a character boundary at or
// before it (resume), so that the offset, and then classify's reason, are
// exactly those of the portable code.
func validPrefixSIMD[T string | []byte](p T) int {
	n := len(p)
	// The header of a string and of a slice both start with the pointer to
	// the octets (see reflect.StringHeader and reflect.SliceHeader).
	if s := validSIMD(*(**byte)(unsafe.Pointer(&p)), n); s != n {
		return resume(p, s)
	}
	return n
}

// validSIMD (in assembly) runs validAVX512 if n >= avx512From, otherwise
// validAVX2; n >= avx2MinLen.
//
//go:noescape
func validSIMD(p *byte, n int) int

// resume returns the length of the longest valid prefix of p given that
// p[:s] is valid but for its last character, which may be cut short at s
// (it starts in the last four octets): it restarts the portable loop at the
// first octet of that character.
func resume[T string | []byte](p T, s int) int {
	r := charStart(p, s)
	return r + validPrefixGeneric(p[r:])
}

// charStart returns the first octet of the multi-octet character that
// p[s-1] belongs to, if it starts in the four octets before s, and s
// otherwise: a character boundary at or before s from which the portable
// loop takes over.
func charStart[T string | []byte](p T, s int) int {
	r := s
	for r > 0 && r > s-3 && p[r-1]&0xC0 == 0x80 {
		r--
	}
	if r > 0 && p[r-1] >= 0xC0 {
		r--
	}
	return r
}

// validAVX2 checks the n octets at p, n >= 35, in blocks of 32 with the
// "lookup" algorithm of Keiser and Lemire ("Validating UTF-8 in less than
// one instruction per byte", Software: Practice and Experience 51(5), 2021).
// It returns n if they are well-formed UTF-8. Otherwise it returns an offset
// s at or before the first malformation such that p[:s] is well-formed but
// for its last character, which may be cut short at s; s < n.
//
// Every octet of a block is checked against the three before it (prev1,
// prev2, prev3). The pair (prev1, octet) is classified by three 16-entry
// tables, nibbleTables, indexed by the high and low nibble of prev1 and the
// high nibble of the octet; each bit of an entry stands for one kind of bad
// pair, and the pair is bad when the three entries share a bit (see
// nibbleTables). One bit, twoConts, marks a continuation after a
// continuation, which is right exactly when the octet must be the third or
// fourth of a character: prev2 >= E0 or prev3 >= F0, found with saturating
// subtractions whose result has its high bit set exactly then.
//
// A leading run of ASCII is skipped 128 octets at a time before the
// constants are even loaded. After that, two blocks go together, and the
// largest of their octets and of the three before them chooses the check:
// with an octet E0-FF, the lookups above; if all are ASCII, none (no
// character can be cut short before them), and a run of ASCII again goes
// 128 at a time; otherwise, no character there has more than two octets,
// and TWOPAIRS (validate_amd64.h) checks them with half of the vector
// instructions: a continuation exactly after a lead C0-DF, and no C0 or
// C1. Text in Latin, Cyrillic, Greek, Hebrew or Arabic script is mostly
// such blocks. The three octets before a block are looked at only after a
// block with an octet E0-FF; after any other, they are known to be below
// E0, and an ASCII block tests the octet before it for a lead. The last block, placed to end at n, overlaps the blocks
// before it and also checks that p does not end inside a character.
//
//go:noescape
//lint:ignore U1000 used from assembly (validate_amd64.s)
func validAVX2(p *byte, n int) int

// validAVX512 is validAVX2 in blocks of 64 octets, for CPUs with AVX-512
// BW and VBMI, and n >= 67. VPERMB looks up the nibble tables, each
// repeated four times so that the nibbles need no masking, and VPTERNLOGD
// merges the three lookups and then the continuation check. Like
// validAVX2, it reads no octet outside p[:n]: masked loads reaching past
// the ends were tried, and took 0.5 µs a call on buffers next to a page not
// touched yet (a masked-off octet there costs a microcode assist).
//
//go:noescape
//lint:ignore U1000 used from assembly (validate_amd64.s)
func validAVX512(p *byte, n int) int

// The kinds of bad pairs (prev1, octet), one bit each in nibbleTables. A
// kind is a product of three sets: prev1's high nibbles, prev1's low nibbles
// and the octet's high nibbles; a kind whose pairs are not such a product is
// split (tooLarge) or shares a bit with one that makes a product with it
// (overlong4 with tooLarge1000).
const (
	tooShort     = 1 << 0 // lead C0-FF, then not a continuation
	tooLong      = 1 << 1 // ASCII, then a continuation
	overlong3    = 1 << 2 // E0, then 80-9F
	tooLarge     = 1 << 3 // F4-FF, then 90-BF
	surrogate    = 1 << 4 // ED, then A0-BF
	overlong2    = 1 << 5 // C0 or C1, then a continuation
	overlong4    = 1 << 6 // F0, then 80-8F
	tooLarge1000 = 1 << 6 // F5-FF, then 80-8F
	twoConts     = 1 << 7 // a continuation, then a continuation
)

// nibbleTables are the three lookup tables of validAVX2: the kinds of bad
// pair that prev1's high nibble, prev1's low nibble and the octet's high
// nibble allow. The assembly broadcasts each row to both 128-bit lanes.
//
//lint:ignore U1000 used from assembly (validate_amd64.s, check_amd64.s)
var nibbleTables = [3][16]byte{
	{ // prev1 >> 4
		0x0: tooLong, 0x1: tooLong, 0x2: tooLong, 0x3: tooLong,
		0x4: tooLong, 0x5: tooLong, 0x6: tooLong, 0x7: tooLong,
		0x8: twoConts, 0x9: twoConts, 0xA: twoConts, 0xB: twoConts,
		0xC: tooShort | overlong2,
		0xD: tooShort,
		0xE: tooShort | overlong3 | surrogate,
		0xF: tooShort | tooLarge | overlong4 | tooLarge1000,
	},
	{ // prev1 & 0x0F
		0x0: tooShort | tooLong | twoConts | overlong2 | overlong3 | overlong4,
		0x1: tooShort | tooLong | twoConts | overlong2,
		0x2: tooShort | tooLong | twoConts,
		0x3: tooShort | tooLong | twoConts,
		0x4: tooShort | tooLong | twoConts | tooLarge,
		0x5: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0x6: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0x7: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0x8: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0x9: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0xA: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0xB: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0xC: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0xD: tooShort | tooLong | twoConts | tooLarge | tooLarge1000 | surrogate,
		0xE: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
		0xF: tooShort | tooLong | twoConts | tooLarge | tooLarge1000,
	},
	{ // octet >> 4
		0x0: tooShort, 0x1: tooShort, 0x2: tooShort, 0x3: tooShort,
		0x4: tooShort, 0x5: tooShort, 0x6: tooShort, 0x7: tooShort,
		0x8: tooLong | twoConts | overlong2 | overlong3 | overlong4 | tooLarge1000,
		0x9: tooLong | twoConts | overlong2 | overlong3 | tooLarge,
		0xA: tooLong | twoConts | overlong2 | surrogate | tooLarge,
		0xB: tooLong | twoConts | overlong2 | surrogate | tooLarge,
		0xC: tooShort, 0xD: tooShort, 0xE: tooShort, 0xF: tooShort,
	},
}

// incompleteMax is, for each octet of a block of 64 (validAVX512) or of its
// last 32 (validAVX2), the largest value that does not start a character
// longer than the rest of the block: any octet but in the last 3, then
// below F0, below E0 and below C0 (a continuation or ASCII). Subtracting it
// with saturation leaves a nonzero octet where a character runs past the end
// of the block.
//
//lint:ignore U1000 used from assembly (validate_amd64.s, check_amd64.s)
var incompleteMax = [64]byte{
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
}

// twoOctet holds the constants of validAVX2's and checkAVX2's blocks
// without octets E0-FF (TWOPAIRS, validate_amd64.h), 32 of each: -64,
// below which (signed) are the continuation octets; 0x40, which leaves bit
// 7 set when subtracted from a lead C0-DF; 0x3E, which takes C0 and C1 to
// FE and FF; 0x7E, which leaves bit 7 set when subtracted from those; and
// 0x7F, the attention bits of checkAVX2's attnCont.
//
//lint:ignore U1000 read by the assembly only
var twoOctet = func() (t [5][32]byte) {
	for i := range t[0] {
		t[0][i], t[1][i], t[2][i], t[3][i], t[4][i] = 0xC0, 0x40, 0x3E, 0x7E, 0x7F
	}
	return t
}()

// byteIndex holds 0 to 63, for shifting a block of 64 octets with VPERMB
// (the first blocks of validAVX512 and checkAVX512).
//
//lint:ignore U1000 read by the assembly only
var byteIndex = [64]byte{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
	48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
}
