package sanitize

// The references in this file are written from the specifications, not from
// the code under test, and are deliberately naive:
//
//   - refChar and refValidate: the UTF8-char ABNF of RFC 3629 section 4;
//   - refReason: the classification table of the rejection taxonomy (the README's table, Reason's doc);
//   - refRepair: "U+FFFD Substitution of Maximal Subparts", Unicode Standard
//     section 3.9 (D93b, Table 3-8);
//   - refCheck and refCheckClasses: a rune-by-rune walk using ClassOf.
//
// The tests and the fuzz targets compare the package against them.

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// octetRange is one octet of the ABNF: %xlo-hi.
type octetRange struct{ lo, hi byte }

func (r octetRange) has(b byte) bool { return r.lo <= b && b <= r.hi }

// tail is UTF8-tail = %x80-BF.
var tail = octetRange{0x80, 0xBF}

// utf8Char is UTF8-char of RFC 3629 section 4, one alternative a row:
//
//	UTF8-1    = %x00-7F
//	UTF8-2    = %xC2-DF UTF8-tail
//	UTF8-3    = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
//	            %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
//	UTF8-4    = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
//	            %xF4 %x80-8F 2( UTF8-tail )
var utf8Char = [...][]octetRange{
	{{0x00, 0x7F}},
	{{0xC2, 0xDF}, tail},
	{{0xE0, 0xE0}, {0xA0, 0xBF}, tail},
	{{0xE1, 0xEC}, tail, tail},
	{{0xED, 0xED}, {0x80, 0x9F}, tail},
	{{0xEE, 0xEF}, tail, tail},
	{{0xF0, 0xF0}, {0x90, 0xBF}, tail, tail},
	{{0xF1, 0xF3}, tail, tail, tail},
	{{0xF4, 0xF4}, {0x80, 0x8F}, tail, tail},
}

// refMatch returns how many leading octets of p match the alternative alt.
func refMatch(p []byte, alt []octetRange) int {
	k := 0
	for k < len(alt) && k < len(p) && alt[k].has(p[k]) {
		k++
	}
	return k
}

// refChar returns the length of the UTF8-char at the start of p, or 0 if
// none starts there.
func refChar(p []byte) int {
	for _, alt := range utf8Char {
		if refMatch(p, alt) == len(alt) {
			return len(alt)
		}
	}
	return 0
}

// refSubpart returns the length of the maximal subpart at the start of p,
// which must not start with a UTF8-char: the longest prefix of p that is a
// prefix of some UTF8-char, or 1 if there is none.
func refSubpart(p []byte) int {
	n := 1
	for _, alt := range utf8Char {
		n = max(n, refMatch(p, alt))
	}
	return n
}

// refValidate returns 0 and len(p) if p is UTF8-octets; otherwise the
// reason and the offset of the first sequence that is not a UTF8-char.
func refValidate(p []byte) (Reason, int) {
	for i := 0; i < len(p); {
		n := refChar(p[i:])
		if n == 0 {
			return refReason(p[i:]), i
		}
		i += n
	}
	return 0, len(p)
}

// refReason classifies the ill-formed sequence at the start of q, following
// the taxonomy's table row by row.
func refReason(q []byte) Reason {
	b := q[0]
	cont := func(k int) bool { return k < len(q) && tail.has(q[k]) }
	conts := func(n int) bool { // n continuations follow the lead
		for k := 1; k <= n; k++ {
			if !cont(k) {
				return false
			}
		}
		return true
	}
	switch {
	case b <= 0x7F:
		panic("refReason: ASCII is never ill-formed")
	case tail.has(b):
		// "80-BF where a character must start"
		return UnexpectedContinuation
	case b == 0xC0 || b == 0xC1:
		// "C0 or C1 followed by a continuation" / "not followed by one"
		if cont(1) {
			return Overlong
		}
		return InvalidByte
	case b == 0xE0 && cont(1) && q[1] <= 0x9F, b == 0xF0 && cont(1) && q[1] <= 0x8F:
		return Overlong // "E0 80-9F; F0 80-8F"
	case b == 0xED && cont(1) && q[1] >= 0xA0:
		return Surrogate // "ED A0-BF"
	case b == 0xF4 && cont(1) && q[1] >= 0x90:
		return OutOfRange // "F4 90-BF"
	case 0xC2 <= b && b <= 0xF4:
		// "a valid lead (C2-F4) whose continuation octets stop early"
		return Truncated
	case 0xF5 <= b && b <= 0xF7:
		// "an F5-F7 lead with its three continuations"
		if conts(3) {
			return OutOfRange
		}
		return InvalidByte
	case 0xF8 <= b && b <= 0xFD:
		// RFC 2279: 111110xx and 4 continuations, 1111110x and 5.
		n, v := 4, uint64(b-0xF8)
		if b >= 0xFC {
			n, v = 5, uint64(b-0xFC)
		}
		if !conts(n) {
			return InvalidByte
		}
		for k := 1; k <= n; k++ {
			v = v*64 + uint64(q[k]-0x80)
		}
		if v <= 0x10FFFF {
			return Overlong
		}
		return OutOfRange
	default: // FE, FF
		return InvalidByte
	}
}

// refRepair replaces each maximal subpart of p with U+FFFD.
func refRepair(p []byte) []byte {
	var out []byte
	for i := 0; i < len(p); {
		if n := refChar(p[i:]); n > 0 {
			out = append(out, p[i:i+n]...)
			i += n
			continue
		}
		out = append(out, 0xEF, 0xBF, 0xBD)
		i += refSubpart(p[i:])
	}
	return out
}

// refClassesAt returns the classes of the character r at offset off.
func refClassesAt(r rune, off int) Class {
	c := ClassOf(r)
	if r == 0xFEFF && off == 0 {
		c |= BOM
	}
	return c
}

// refCheck is what Check must return: the first violation in p, walking
// character by character, an ill-formed sequence (Validate's reason) or a
// character of a class in forbid, whichever comes first. It returns a zero
// Error if there is none.
func refCheck(p []byte, forbid Class) Error {
	for i := 0; i < len(p); {
		n := refChar(p[i:])
		if n == 0 {
			return Error{Reason: refReason(p[i:]), Offset: i}
		}
		r, _ := utf8.DecodeRune(p[i : i+n])
		if c := refClassesAt(r, i) & forbid; c != 0 {
			return Error{Reason: ForbiddenChar, Offset: i, Class: c}
		}
		i += n
	}
	return Error{}
}

// refCheckClasses is what CheckClasses must return: ill-formed octets are
// passed over one at a time.
func refCheckClasses(p []byte, forbid Class) Error {
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if c := refClassesAt(r, i) & forbid; c != 0 {
			return Error{Reason: ForbiddenChar, Offset: i, Class: c}
		}
		i += n
	}
	return Error{}
}

// hx decodes octets written in hexadecimal, with optional spaces: hx("C0 AE").
func hx(s string) string {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// asError returns err as an Error value, or a zero Error for nil. It fails
// the caller (via the returned ok) if err is not a *Error.
func asError(err error) (e Error, ok bool) {
	if err == nil {
		return Error{}, true
	}
	pe, ok := err.(*Error)
	if !ok || pe == nil {
		return Error{}, false
	}
	return *pe, true
}

// unsafeStringData returns the address of the octets of s, to tell s itself
// from a copy.
func unsafeStringData(s string) *byte { return unsafe.StringData(s) }
