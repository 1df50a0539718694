package sanitize

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// Validate reports whether p is well-formed UTF-8, exactly the UTF8-octets
// of RFC 3629 section 4: nil if it is, otherwise a *Error whose Reason says
// what the first malformation is and whose Offset points at its first octet.
//
// The reasons are assigned by the octets at the offset:
//
//	80-BF where a character starts           UnexpectedContinuation
//	C0 or C1, then 80-BF                     Overlong
//	C0 or C1, then anything else or nothing  InvalidByte
//	E0 80-9F, F0 80-8F                       Overlong
//	ED A0-BF                                 Surrogate
//	F4 90-BF                                 OutOfRange
//	C2-F4 whose continuations stop early     Truncated
//	F5-F7 with 3 continuations               OutOfRange
//	F8-FB with 4, FC-FD with 5 continuations Overlong if the RFC 2279 value
//	                                         is at most U+10FFFF, else OutOfRange
//	F5-FD without all those continuations    InvalidByte
//	FE, FF                                   InvalidByte
//
// Validate does not allocate when p is valid.
func Validate(p []byte) error {
	if shortASCII(asString(p)) {
		return nil
	}
	return validate(p)
}

// ValidateString is like Validate but for a string.
func ValidateString(s string) error {
	if shortASCII(s) {
		return nil
	}
	return validate(s)
}

// Valid reports whether p is well-formed UTF-8 (RFC 3629 section 4): it is
// Validate(p) == nil, for a caller that needs no reason or offset.
func Valid(p []byte) bool {
	// shortASCII, spelled out: the call would cost as much as the test,
	// against utf8.Valid's 3 to 8 ns at these lengths.
	s := asString(p)
	if n := len(s); uint(n-8) <= 32-8 {
		a := (n - 6) * 11 >> 5
		if (word(s, 0)|word(s, a)|word(s, n-8-a)|word(s, n-8))&msb == 0 {
			return true
		}
	} else if uint(n-33) <= 64-33 && shortASCII64(s) {
		return true
	}
	return validPrefix(p) == len(p)
}

// ValidString is like Valid but for a string.
func ValidString(s string) bool {
	return Valid(unsafe.Slice(unsafe.StringData(s), len(s))) // only read
}

// shortASCII reports whether p is ASCII of 8 to 32 octets, with four
// overlapping word loads and no branch. At these lengths a call into the
// loops costs more than the test; for other inputs it costs a comparison.
// Valid spells it out; the compiler does not inline it.
func shortASCII(p string) bool {
	n := len(p)
	if uint(n-8) > 32-8 { // n < 8 || n > 32
		return false
	}
	// Words at 0, a, b and n-8, a about a third of n-8 and b two thirds,
	// so that no gap between them is over 8 (TestShortASCII tries every
	// length and position).
	a := (n - 6) * 11 >> 5
	b := n - 8 - a
	return (word(p, 0)|word(p, a)|word(p, b)|word(p, n-8))&msb == 0
}

// shortPrintable reports whether p, of 8 to 32 octets, is printable
// ASCII (0x20-0x7E), which no class holds: shortASCII's words, each
// tested for an octet of 0x80 or over, one under 0x20 (an ASCII octet
// plus 0x60 reaches 0x80 from 0x20 on) and 0x7F (plus 0x01 reaches 0x80
// from 0x7F), with no carry from one octet to the next (ASCII plus 0x60
// stays under 0x100). The words overlap: an octet tested twice is
// the same octet.
func shortPrintable(p string) bool {
	n := len(p)
	if uint(n-8) > 32-8 { // n < 8 || n > 32
		return false
	}
	a := (n - 6) * 11 >> 5
	b := n - 8 - a
	w0, wa, wb, wn := word(p, 0), word(p, a), word(p, b), word(p, n-8)
	const low, del = 0x6060606060606060, lsb
	high := (w0 | wa | wb | wn) & msb
	ctl := ((w0 + low) & (wa + low) & (wb + low) & (wn + low)) & msb
	dels := ((w0 + del) | (wa + del) | (wb + del) | (wn + del)) & msb
	return high == 0 && ctl == msb && dels == 0
}

// shortASCII64 is shortASCII for 33 to 64 octets: the first and the last
// 32.
func shortASCII64(p string) bool {
	n := len(p)
	w := word(p, 0) | word(p, 8) | word(p, 16) | word(p, 24)
	return (w|word(p, n-32)|word(p, n-24)|word(p, n-16)|word(p, n-8))&msb == 0
}

// ValidPrefix returns the length of the longest prefix of p that is
// well-formed UTF-8 and ends at a character boundary: len(p) if p is valid,
// otherwise the offset that Validate reports.
func ValidPrefix(p []byte) int { return validPrefix(p) }

// ValidPrefixString is like ValidPrefix but for a string.
func ValidPrefixString(s string) int { return validPrefix(s) }

func validate[T string | []byte](p T) error {
	if i := validPrefix(p); i < len(p) {
		return classify(p, i)
	}
	return nil
}

// asString returns the octets of p as a string, without copying: the header
// of a slice starts with the pointer and the length, as that of a string.
// The caller must not keep the string past a change to p.
func asString[T string | []byte](p T) string { return *(*string)(unsafe.Pointer(&p)) }

// validPrefix returns the length of the longest prefix of p that is
// well-formed UTF-8 and ends at a character boundary: validPrefixSIMD for
// an input of simdFrom octets or more, else validPrefixGeneric.
func validPrefix[T string | []byte](p T) int {
	if len(p) >= simdFrom {
		return validPrefixSIMD(p)
	}
	return validPrefixGeneric(p)
}

// validPrefixGeneric is the portable hot loop: it accepts well-formed UTF-8
// as fast as it can and stops at the first octet where a malformed sequence
// starts, leaving the diagnosis to classify. validPrefix gives an input of
// simdFrom octets or more to validPrefixSIMD instead, which runs a SIMD
// kernel (validate_amd64.go) and comes back here where it finds an error.
//
// It has three gears. ASCII goes eight octets at a time, and 32 and then 128
// at a time in a long run. Text made of ASCII and 2-octet characters (the
// Latin, Cyrillic, Greek, Hebrew and Arabic scripts) goes in windows of
// eight octets, each checked with a handful of word operations and no branch
// per character. Anything else (3- and 4-octet characters: CJK, emoji, Indic
// scripts) and the last octets of p go one character at a time, each matched
// against the octet pattern of its length in a 32-bit word. A window that
// fails hands over to the characters, which find the exact offset; the
// characters hand back after a 2-octet character or four ASCII octets.
func validPrefixGeneric[T string | []byte](p T) int {
	// bad3 and bad4 have bit k set when the pattern-matched sequence of 3
	// and 4 octets whose first two octets give index k is ill-formed (RFC
	// 3629 section 4). For 3 octets, k is the lead's low four bits and bit
	// 5 of the second octet: E0 80-9F (k=0) is overlong and ED A0-BF (k=27)
	// a surrogate. For 4 octets, k is the lead's low three bits and bits
	// 4-5 of the second octet: F0 80-8F (k=0) is overlong, F4 90-BF
	// (k=17-19) and F5-F7 (k=20-31) out of range.
	const (
		bad3 uint32 = 1<<0 | 1<<27
		bad4 uint32 = 1<<0 | 0b111<<17 | 0xFFF<<20
	)
	n := len(p)
	// A short input of ASCII, as most paths, query values and headers are,
	// in one test, without the loops below and their tail.
	if s := asString(p); shortASCII(s) || n > 32 && n <= 64 && shortASCII64(s) {
		return n
	}
	i := 0
ascii:
	for {
		// ASCII, eight octets at a time; a long run 32, then 128 at a time.
		for i+8 <= n {
			if load64(p, i)&msb != 0 {
				break
			}
			i += 8
			if n-i > 32 {
				q := p[i:]
				if len(q) > 32 && (load64(q, 0)|load64(q, 8)|load64(q, 16)|load64(q, 24))&msb == 0 {
					q = q[32:]
					for len(q) > 128 && ((load64(q, 0)|load64(q, 8)|load64(q, 16)|load64(q, 24))|
						(load64(q, 32)|load64(q, 40)|load64(q, 48)|load64(q, 56))|
						(load64(q, 64)|load64(q, 72)|load64(q, 80)|load64(q, 88))|
						(load64(q, 96)|load64(q, 104)|load64(q, 112)|load64(q, 120)))&msb == 0 {
						q = q[128:]
					}
					for len(q) > 64 && (load64(q, 0)|load64(q, 8)|load64(q, 16)|load64(q, 24)|
						load64(q, 32)|load64(q, 40)|load64(q, 48)|load64(q, 56))&msb == 0 {
						q = q[64:]
					}
					for len(q) > 32 && (load64(q, 0)|load64(q, 8)|load64(q, 16)|load64(q, 24))&msb == 0 {
						q = q[32:]
					}
					i = n - len(q)
				}
			}
		}
		// Windows of eight octets of ASCII and 2-octet characters. In bit 7
		// of each octet, lead2 marks the leads 110xxxxx and cont the
		// continuations 10xxxxxx (the other bits are noise): the window is
		// well-formed when no octet is 111xxxxx, every continuation
		// directly follows a lead (at octet 0, the lead that ended the
		// window before: carry) and no lead is C0 or C1 (bits 1-4 zero).
		var carry uint64
		for i+8 <= n {
			w := load64(p, i)
			if w&msb|carry == 0 {
				continue ascii
			}
			s1, s2 := w<<1, w<<2
			lead2 := w & s1 &^ s2
			cont := w &^ s1
			if ((w&s1&s2)|(cont^(lead2<<8|carry))|(lead2&^((w&(0x1E*lsb))+0x7F*lsb)))&msb != 0 {
				break
			}
			carry = lead2 >> 56 & 0x80
			i += 8
		}
		i -= int(carry >> 7) // back to the lead whose continuation is next
		// Characters one at a time, in the four octets at i (zero-padded
		// at the end of p: zero is not a continuation octet, so a sequence
		// cut short by the end fails its pattern). Back to the windows
		// after a 2-octet character or four ASCII octets, once past the
		// window that sent us here.
		stop := i + 8
	chars:
		for {
			var w uint32
			if i+4 <= n {
				q := p[i : i+4]
				w = uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24
			} else if i < n {
				w = uint32(p[i])
				if i+1 < n {
					w |= uint32(p[i+1]) << 8
					if i+2 < n {
						w |= uint32(p[i+2]) << 16
					}
				}
			} else {
				return n
			}
			switch b := uint8(w); {
			case b < 0x80:
				// Skip the ASCII octets at the start of w.
				if a := w & 0x80808080; a != 0 {
					i += bits.TrailingZeros32(a) >> 3
					continue
				}
				i += 4
				if i >= stop {
					break chars
				}
			case b >= 0xF0:
				// 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx, no F0 80-8F, no
				// F4 90-BF, no F5-F7.
				if w&0xC0C0C0F8 != 0x808080F0 || bad4>>((w&0x07)<<2|(w>>12)&3)&1 != 0 {
					return i
				}
				i += 4
			case b >= 0xE0:
				// 1110xxxx 10xxxxxx 10xxxxxx, no E0 80-9F, no ED A0-BF;
				// then the rest of a run of them, as in CJK text.
				if w&0xC0C000 != 0x808000 || bad3>>((w&0x0F)<<1|(w>>13)&1)&1 != 0 {
					return i
				}
				i += 3
				for i+4 <= n {
					q := p[i : i+4]
					w := uint32(q[0]) | uint32(q[1])<<8 | uint32(q[2])<<16 | uint32(q[3])<<24
					if w&0xC0C0F0 != 0x8080E0 || bad3>>((w&0x0F)<<1|(w>>13)&1)&1 != 0 {
						break
					}
					i += 3
				}
			default:
				// 110xxxxx 10xxxxxx, no C0 or C1.
				if w&0xC0E0 != 0x80C0 || w&0x1E == 0 {
					return i
				}
				i += 2
				if i >= stop {
					break chars
				}
			}
		}
	}
}

// first describes each octet as the start of a character: the low 3 bits are
// the length of the sequence it starts (0 where it cannot start one) and the
// high 4 bits index acceptRanges for the second octet.
var first = [256]uint8{
	//   1   2   3   4   5   6   7   8   9   A   B   C   D   E   F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x00-0x0F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x10-0x1F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x20-0x2F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x30-0x3F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x40-0x4F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x50-0x5F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x60-0x6F
	as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, as, // 0x70-0x7F
	xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, // 0x80-0x8F
	xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, // 0x90-0x9F
	xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, // 0xA0-0xAF
	xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, // 0xB0-0xBF
	xx, xx, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, // 0xC0-0xCF
	s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, s1, // 0xD0-0xDF
	s2, s3, s3, s3, s3, s3, s3, s3, s3, s3, s3, s3, s3, s4, s3, s3, // 0xE0-0xEF
	s5, s6, s6, s6, s7, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, xx, // 0xF0-0xFF
}

const (
	as = 0xF0 // ASCII: size 1
	xx = 0xF1 // cannot start a character
	s1 = 0x02 // C2-DF: 2 octets, second 80-BF
	s2 = 0x13 // E0: 3 octets, second A0-BF
	s3 = 0x03 // E1-EC, EE-EF: 3 octets, second 80-BF
	s4 = 0x23 // ED: 3 octets, second 80-9F
	s5 = 0x34 // F0: 4 octets, second 90-BF
	s6 = 0x04 // F1-F3: 4 octets, second 80-BF
	s7 = 0x44 // F4: 4 octets, second 80-8F
)

// acceptRange is the range of valid second octets of a sequence (RFC 3629
// section 4, Unicode Table 3-7); third and fourth octets are always 80-BF.
type acceptRange struct{ lo, hi uint8 }

var acceptRanges = [16]acceptRange{
	0: {0x80, 0xBF},
	1: {0xA0, 0xBF},
	2: {0x80, 0x9F},
	3: {0x90, 0xBF},
	4: {0x80, 0x8F},
}

func isCont(b byte) bool { return b&0xC0 == 0x80 }

// classify diagnoses the malformed sequence that starts at p[i], where
// validPrefix stopped. It always returns an error.
func classify[T string | []byte](p T, i int) *Error {
	b := p[i]
	rest := len(p) - i - 1 // octets after the lead
	// conts counts the continuation octets after the lead, up to max.
	conts := func(max int) int {
		k := 0
		for k < max && k < rest && isCont(p[i+1+k]) {
			k++
		}
		return k
	}
	reason := Truncated
	switch {
	case b < 0xC0: // 80-BF (ASCII never gets here)
		reason = UnexpectedContinuation
	case b <= 0xC1:
		reason = InvalidByte
		if conts(1) == 1 {
			reason = Overlong
		}
	case b <= 0xF4:
		if conts(1) == 1 {
			b1 := p[i+1]
			switch {
			case b == 0xE0 && b1 < 0xA0, b == 0xF0 && b1 < 0x90:
				reason = Overlong
			case b == 0xED && b1 >= 0xA0:
				reason = Surrogate
			case b == 0xF4 && b1 >= 0x90:
				reason = OutOfRange
			}
		}
	case b <= 0xF7:
		reason = InvalidByte
		if conts(3) == 3 {
			reason = OutOfRange
		}
	case b <= 0xFD:
		need, v := 4, rune(b&0x03) // F8-FB: RFC 2279 5-octet form
		if b >= 0xFC {
			need, v = 5, rune(b&0x01) // FC-FD: 6-octet form
		}
		reason = InvalidByte
		if conts(need) == need {
			for k := 1; k <= need; k++ {
				v = v<<6 | rune(p[i+k]&0x3F)
			}
			reason = Overlong
			if v > utf8.MaxRune {
				reason = OutOfRange
			}
		}
	default: // FE, FF
		reason = InvalidByte
	}
	return &Error{Reason: reason, Offset: i}
}

// decodeRune decodes the first character of p, which must not be empty. An
// ill-formed sequence decodes as utf8.RuneError with size 1.
func decodeRune[T string | []byte](p T) (rune, int) {
	b := p[0]
	if b < utf8.RuneSelf {
		return rune(b), 1
	}
	x := first[b]
	size := int(x & 7)
	if size < 2 || len(p) < size {
		return utf8.RuneError, 1
	}
	ar := acceptRanges[x>>4]
	if b1 := p[1]; b1 < ar.lo || ar.hi < b1 {
		return utf8.RuneError, 1
	}
	r := rune(b) & (0x7F >> size)
	for k := 1; k < size; k++ {
		c := p[k]
		if !isCont(c) {
			return utf8.RuneError, 1
		}
		r = r<<6 | rune(c&0x3F)
	}
	return r, size
}
