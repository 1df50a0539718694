package sanitize

import (
	"math/bits"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// The class check finds the characters of a policy's classes with a table
// of "attention" octets: the octets that can start such a character. An
// octet needs attention when the entries for its high and its low nibble
// in an attnTable share a bit, as in the nibble lookups of the SIMD
// validation kernels, so a SIMD kernel (classscan_amd64.s) tests 32 octets
// at a time with two table lookups. Each bit stands for one high nibble
// that a class's first octets can have (attnBit), and the low nibbles of
// the class's first octets with that high nibble set it in the low table:
// the test is exact for first octets. Continuation octets (80-BF) never
// need attention. A lead octet that does is looked at again with its
// second octet (classPairs) and only then decoded and given to ClassOf.

// attnTable is the table for a set of classes: the high-nibble entries,
// then the low-nibble entries.
type attnTable [32]byte

// attnBit is the bit that stands for each high nibble that the first octet
// of a character of some class can have: 0 and 1 (C0 controls), 7 (DEL)
// and C-F (2-, 3- and 4-octet characters). TestClassRanges checks that no
// class has a first octet with another high nibble.
var attnBit = [16]byte{0x0: 1 << 0, 0x1: 1 << 1, 0x7: 1 << 2, 0xC: 1 << 3, 0xD: 1 << 4, 0xE: 1 << 5, 0xF: 1 << 6}

// classRanges lists the code points of each class (BOM: U+FEFF, which is a
// BOM only at offset 0), as closed ranges in increasing order, indexed by
// the number of the class's bit.
// TestClassRanges checks them against ClassOf for every code point.
var classRanges = func() (cr [numClasses][][2]rune) {
	set := func(c Class, ranges ...[2]rune) {
		k := bits.TrailingZeros16(uint16(c))
		cr[k] = append(cr[k], ranges...)
	}
	set(NUL, [2]rune{0, 0})
	set(C0, [2]rune{0x01, 0x08}, [2]rune{0x0B, 0x0C}, [2]rune{0x0E, 0x1F})
	set(TabNewline, [2]rune{0x09, 0x0A}, [2]rune{0x0D, 0x0D})
	set(DEL, [2]rune{0x7F, 0x7F})
	set(C1, [2]rune{0x80, 0x9F})
	set(BidiControl, [2]rune{0x202A, 0x202E}, [2]rune{0x2066, 0x2069})
	set(BidiMark, [2]rune{0x061C, 0x061C}, [2]rune{0x200E, 0x200F})
	set(Noncharacter, [2]rune{0xFDD0, 0xFDEF})
	for plane := rune(0); plane <= 0x10; plane++ {
		set(Noncharacter, [2]rune{plane<<16 | 0xFFFE, plane<<16 | 0xFFFF})
	}
	set(PrivateUse, [2]rune{0xE000, 0xF8FF}, [2]rune{0xF0000, 0xFFFFD}, [2]rune{0x100000, 0x10FFFD})
	set(BOM, [2]rune{0xFEFF, 0xFEFF})
	for _, rg := range defaultIgnorable {
		set(DefaultIgnorable, [2]rune{rg.lo, rg.hi})
	}
	return cr
}()

// classLow[k] is the low half of the attnTable of class 1<<k; the table of
// a set of classes is the union of theirs.
//
// classPairs[lead-0xC0] has bit (second&63) set when a character of some
// class (any class: the check is exact later) starts with the octets lead,
// second.
var classLow, classPairs = func() (low [numClasses][16]byte, pairs [64]uint64) {
	var buf [utf8.UTFMax]byte
	for k, ranges := range classRanges {
		for _, rg := range ranges {
			// From U+0800 on, every 64 code points (aligned) share
			// their first two octets; below, every code point counts.
			for r := rg[0]; r <= rg[1]; r = nextPair(r) {
				n := utf8.EncodeRune(buf[:], r)
				b := buf[0]
				low[k][b&15] |= attnBit[b>>4]
				if n > 1 {
					pairs[b-0xC0] |= 1 << (buf[1] & 63)
				}
			}
		}
	}
	return low, pairs
}()

// nextPair is the next code point after r whose first two octets may differ.
func nextPair(r rune) rune {
	if r < 0x800 {
		return r + 1
	}
	return (r | 63) + 1
}

// classThirds[k][(lead&15)<<6|second&63] has bit (third&63) set when the
// 3-octet character lead, second, third is in class 1<<k.
var classThirds = func() (t [numClasses][1024]uint64) {
	var buf [utf8.UTFMax]byte
	for k, ranges := range classRanges {
		for _, rg := range ranges {
			for r := max(rg[0], 0x800); r <= min(rg[1], 0xFFFF); r++ {
				utf8.EncodeRune(buf[:], r)
				t[k][int(buf[0]&15)<<6|int(buf[1]&63)] |= 1 << (buf[2] & 63)
			}
		}
	}
	return t
}()

// inThirds reports whether the octets lead (E0-EF), second, third can be a
// character of a class in forbid: false when it is certainly not.
func inThirds(lead, second, third byte, forbid Class) bool {
	if third&0xC0 != 0x80 {
		return false // ill-formed: in no class
	}
	t := thirdsFor(forbid)
	return t[int(lead&15)<<6|int(second&63)]>>(third&63)&1 != 0
}

// thirdsTables caches, for each set of classes, the union of the
// classThirds of its classes, made on first use: one lookup per character
// that needs attention, whatever the number of classes.
var thirdsTables [AllClasses + 1]atomic.Pointer[[1024]uint64]

// thirdsFor returns the union of classThirds over the classes of forbid
// that have 3-octet characters.
func thirdsFor(forbid Class) *[1024]uint64 {
	forbid &= AllClasses &^ (asciiClasses | C1 | BOM)
	if t := thirdsTables[forbid].Load(); t != nil {
		return t
	}
	t := new([1024]uint64)
	for f := forbid; f != 0; f &= f - 1 {
		k := bits.TrailingZeros16(uint16(f))
		for i := range t {
			t[i] |= classThirds[k][i]
		}
	}
	if thirdsTables[forbid].CompareAndSwap(nil, t) {
		return t
	}
	return thirdsTables[forbid].Load()
}

// attnHigh is the high half of every attnTable.
var attnHigh = func() (t [16]byte) {
	copy(t[:], attnBit[:])
	return t
}()

// attnTables holds the attnTable of every set of classes.
var attnTables = func() (ts [AllClasses + 1]attnTable) {
	for forbid := range ts {
		ts[forbid] = tableFor(Class(forbid))
	}
	return ts
}()

// tableFor returns the attnTable of the classes in forbid (BOM excepted:
// the caller looks at offset 0 itself).
func tableFor(forbid Class) attnTable {
	var t attnTable
	copy(t[:16], attnHigh[:])
	var lo [16]byte
	for k := range numClasses {
		if forbid&(1<<k) != 0 && Class(1<<k) != BOM {
			for j := range lo {
				lo[j] |= classLow[k][j]
			}
		}
	}
	copy(t[16:], lo[:])
	return t
}

// attnMask returns the octets of p (at most 64) that need attention under
// t, as a bit mask: bit k for p[k]. Printable ASCII, which needs none under
// any table, goes eight octets at a time.
func attnMask[T string | []byte](p T, t *attnTable) uint64 {
	var m uint64
	n := len(p)
	for i := 0; i < n; {
		if i+8 <= n {
			w := load64(p, i)
			low := (w - 0x20*lsb) &^ w // high bit set in an octet < 0x20
			del := (w ^ 0x7F*lsb) - lsb
			del &^= w ^ 0x7F*lsb // high bit set in an octet 0x7F
			if (w|low|del)&msb == 0 {
				i += 8
				continue
			}
		}
		for stop := min(i+8, n); i < stop; i++ {
			if b := p[i]; t[b>>4]&t[16+b&15] != 0 {
				m |= 1 << i
			}
		}
	}
	return m
}

// attnBlocks looks at the blocks of 64 octets of p from its start, and
// returns the offset of the first one with an octet that needs attention
// under t, with attnMask of that block; or len(p)&^63 and 0 if none has.
// Only the SIMD kernels, for len(p) >= attnSIMDFrom, call it.
func attnBlocks[T string | []byte](p T, t *attnTable) (off int, mask uint64) {
	// The header of a string and of a slice both start with the pointer to
	// the octets.
	return attnBlocksSIMD(*(**byte)(unsafe.Pointer(&p)), len(p), t)
}
