//go:build amd64 && !purego

package sanitize

import (
	"math"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// fusedFrom is the shortest input for checkFused: that of validAVX512, on
// CPUs that have it, and avx2FusedMinLen on those with AVX2 only.
var fusedFrom = func() int {
	switch simdKernel {
	case avx512Kernel:
		return avx512MinLen
	case avx2Kernel:
		return avx2FusedMinLen
	}
	return math.MaxInt
}()

// avx2FusedMinLen is the shortest input for checkFused with checkAVX2:
// the 67 octets it needs. From there on it beats validPrefixSIMD and the
// attention scan on every script of benchTexts, by 1.2 to 3.5 times
// (BenchmarkCheckFusedFrom with GODEBUG=cpu.avx512f=off).
const avx2FusedMinLen = 67

// checkFused is check for fusedFrom octets or more, with the fused kernel
// of this CPU (checkAVX512 or checkAVX2): one pass that validates and
// finds the characters of the classes in forbid. What it flags, it decodes
// and checks with classesIn; where it finds ill-formed UTF-8, the portable
// code finds the exact offset (checkRest).
func checkFused[T string | []byte](p T, forbid Class) error {
	return checkFusedBy(p, forbid, simdKernel)
}

// checkFusedBy is checkFused with the fused kernel of kernel (fusedBlocks),
// which the tests choose.
func checkFusedBy[T string | []byte](p T, forbid Class, kernel int) error {
	n := len(p)
	if forbid&BOM != 0 && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		return &Error{Reason: ForbiddenChar, Offset: 0, Class: forbid & (BOM | DefaultIgnorable)}
	}
	forbid &= AllClasses &^ BOM
	if forbid == 0 {
		return validate(p)
	}
	t, a := fusedFor(forbid), &attnTables[forbid]
	// The header of a string and of a slice both start with the pointer to
	// the octets.
	ptr := *(**byte)(unsafe.Pointer(&p))
	for start := 0; ; {
		off, mask := fusedBlocks(kernel, ptr, n, start, t, a)
		if mask == 0 {
			if off == n {
				return nil
			}
			return checkRest(p, off, forbid)
		}
		// The flagged octets start characters that may be in a class
		// (the block at off is valid UTF-8, but a character that starts
		// there may run past it, into octets not checked yet).
		for ; mask != 0; mask &= mask - 1 {
			i := off + bits.TrailingZeros64(mask)
			if r, _ := decodeRune(p[i:]); r != utf8.RuneError {
				if c := classesIn(r, forbid); c != 0 {
					return &Error{Reason: ForbiddenChar, Offset: i, Class: c}
				}
			}
		}
		start = off + 64
	}
}

// checkAVX512 checks p[start:n] (n >= 67) as validAVX512 does, and looks
// for the characters of a set of classes, whose fusedTable is t, 64 octets
// at a time. start is 0 or a block end that an earlier call returned; the
// classes of the characters that end before start are not looked at again.
//
// It returns off == n and mask == 0 if p[start:] is well-formed and none of
// its characters is flagged. It returns mask != 0 for the first block, at
// off, in which a character is flagged, if the block and those before it
// are well-formed: bit k stands for p[off+k], which is an ASCII character
// of a class or the first octet of a character that may be in one.
// Otherwise it returns mask == 0 and off < n: p[:off] is well-formed but
// for its last character, which may be cut short at off, and no character
// that starts before off is flagged.
//
//go:noescape
func checkAVX512(p *byte, n, start int, t *fusedTable) (off int, mask uint64)

// checkRest is check for p given that p[:s] is well-formed but for its
// last character, which may be cut short at s, and that no character that
// starts before s belongs to the classes in forbid (no BOM): the portable
// code takes over from the character boundary at or before s.
func checkRest[T string | []byte](p T, s int, forbid Class) error {
	r := charStart(p, s)
	k := r + validPrefixGeneric(p[r:])
	if err := checkClassesScan(p[r:k], forbid); err != nil {
		e := err.(*Error)
		e.Offset += r
		return e
	}
	if k < len(p) {
		return classify(p, k)
	}
	return nil
}

// checkClassesFused is checkClasses for fusedFrom octets or more, with the
// fused kernel of this CPU: what it flags it decodes and checks with
// classesIn. From an ill-formed sequence on, which CheckClasses passes
// over, the attention scan takes over (CheckClasses expects valid text: on
// it, the kernel sees every octet).
func checkClassesFused[T string | []byte](p T, forbid Class) error {
	return checkClassesFusedBy(p, forbid, simdKernel)
}

// checkClassesFusedBy is checkClassesFused with the fused kernel of kernel.
func checkClassesFusedBy[T string | []byte](p T, forbid Class, kernel int) error {
	n := len(p)
	if forbid&BOM != 0 && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
		return &Error{Reason: ForbiddenChar, Offset: 0, Class: forbid & (BOM | DefaultIgnorable)}
	}
	forbid &= AllClasses &^ BOM
	if forbid == 0 {
		return nil
	}
	t, a := fusedFor(forbid), &attnTables[forbid]
	ptr := *(**byte)(unsafe.Pointer(&p))
	for start := 0; ; {
		off, mask := fusedBlocks(kernel, ptr, n, start, t, a)
		if mask == 0 {
			if off == n {
				return nil
			}
			r := charStart(p, off)
			if err := checkClassesScan(p[r:], forbid); err != nil {
				e := err.(*Error)
				e.Offset += r
				return e
			}
			return nil
		}
		for ; mask != 0; mask &= mask - 1 {
			i := off + bits.TrailingZeros64(mask)
			if r, _ := decodeRune(p[i:]); r != utf8.RuneError {
				if c := classesIn(r, forbid); c != 0 {
					return &Error{Reason: ForbiddenChar, Offset: i, Class: c}
				}
			}
		}
		start = off + 64
	}
}
