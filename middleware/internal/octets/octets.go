// Package octets holds the octet-level helpers every part of the
// middleware shares: zero-copy conversions between strings and byte
// slices (for reading only), ASCII tests and case folding, and the
// word-wise scans that prove a short path or query plain, so that a clean
// request skips the general checks.
package octets

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// BytesString returns b as a string without copying. The caller must not
// change b while the string is in use; the middleware uses it for bodies it
// has read and never writes to again.
func BytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// StringBytes returns s as a byte slice without copying, for reading only:
// the bytes of a string must never be written.
func StringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// BOM is U+FEFF in UTF-8.
const BOM = "\xEF\xBB\xBF"

// IsASCII reports whether every octet of p is below 0x80.
func IsASCII(p []byte) bool {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if Load64LE(p, i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Load64LE returns the eight octets of p at i as a little-endian word.
func Load64LE(p []byte, i int) uint64 {
	q := p[i : i+8]
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}

// EqualFoldASCII reports whether b equals the lower-case ASCII s, ignoring
// the case of ASCII letters only (strings.EqualFold would also match "ſ"
// to "s" and "K" to "k").
func EqualFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// NextIndex returns the index of the first c in p at or after i, or
// len(p).
func NextIndex(p []byte, i int, c byte) int {
	if k := bytes.IndexByte(p[i:], c); k >= 0 {
		return i + k
	}
	return len(p)
}

// Word-wise scans of short texts (paths, queries), eight octets at a time.
// Each test gives a word whose high bits, taken together, are not all
// clear exactly when some octet of the word is one looked for (a borrow
// or carry may mark octets next to a true one, never one in a word
// without any): so a scan that finds none proves absence.

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// PrintableWithout reports whether s is printable ASCII holding neither a
// nor b (two printable ASCII octets): valid UTF-8 in which no character
// belongs to any class of sanitize (ClassOf is 0 for every printable ASCII
// character), and no U+FEFF anywhere.
func PrintableWithout(s string, a, b byte) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7F || c == a || c == b {
				return false
			}
		}
		return true
	}
	var bad uint64
	aw, bw := lsb8*uint64(a), lsb8*uint64(b)
	p := StringBytes(s)
	for i := 0; i+8 <= len(p); i += 8 {
		bad |= badOctets(binary.LittleEndian.Uint64(p[i:]), aw, bw)
	}
	// The last eight octets, which overlap the words above when len(s)
	// is not a multiple of eight: looking at an octet twice changes
	// nothing.
	bad |= badOctets(binary.LittleEndian.Uint64(p[len(p)-8:]), aw, bw)
	return bad&msb8 == 0
}

// badOctets returns a word whose high bits are not all clear exactly when
// an octet of w is not printable ASCII, or is the octet aw or bw repeats
// (lsb8 times a printable ASCII octet). Its other bits are noise.
func badOctets(w, aw, bw uint64) uint64 {
	// Below 0x20: the lowest such octet borrows in the subtraction (the
	// octets below it, at least 0x20, borrow nothing) and keeps its high
	// bit clear in w, so its high bit comes out set; with none, no octet
	// borrows, and an octet whose high bit comes out set in the
	// difference is one of 0xA0 or above, whose high bit &^ w clears.
	lt20 := (w - lsb8*0x20) &^ w
	// Above 0x7E: an octet of 0x80 or above has its high bit set in w;
	// one of 0x7F gets it from the +1, which carries no further (a carry
	// out of an octet of 0x80 or above can mark the next one: that word
	// is bad anyway).
	gt7e := (w + lsb8) | w
	// Equal to a (or b): an octet of the exclusive or that is zero, as
	// lt20 tells octets below 1.
	xa, xb := w^aw, w^bw
	return lt20 | gt7e | (xa-lsb8)&^xa | (xb-lsb8)&^xb
}

// PlainPath reports whether a decoded path is printable ASCII without a
// '%': nothing in it belongs to a class, nothing is double encoding, and
// no segment starts with U+FEFF.
func PlainPath(s string) bool { return PrintableWithout(s, '%', '%') }

// PlainQuery reports whether a query or form text is printable ASCII
// without a '%' or a '+': nothing to decode, nothing of any class.
func PlainQuery(s string) bool { return PrintableWithout(s, '%', '+') }

func IsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
