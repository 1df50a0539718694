package middleware

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// bytesString returns b as a string without copying. The caller must not
// change b while the string is in use; the middleware uses it for bodies it
// has read and never writes to again.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// stringBytes returns s as a byte slice without copying, for reading only:
// the bytes of a string must never be written.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// bom is U+FEFF in UTF-8.
const bom = "\xEF\xBB\xBF"

// isASCII reports whether every octet of p is below 0x80.
func isASCII(p []byte) bool {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if load64LE(p, i)&0x8080808080808080 != 0 {
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

// load64LE returns the eight octets of p at i as a little-endian word.
func load64LE(p []byte, i int) uint64 {
	q := p[i : i+8]
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}

// asciiEqualFold reports whether b equals the lower-case ASCII s, ignoring
// the case of ASCII letters only (strings.EqualFold would also match "ſ"
// to "s" and "K" to "k").
func asciiEqualFold(b []byte, s string) bool {
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

// nextIndex returns the index of the first c in p at or after i, or
// len(p).
func nextIndex(p []byte, i int, c byte) int {
	if k := bytes.IndexByte(p[i:], c); k >= 0 {
		return i + k
	}
	return len(p)
}

// Word-wise scans of short texts (paths, queries), eight octets at a time.
// Each mask has the high bit of an octet set exactly where the octet is
// what it looks for, no false positives: the scans prove absences.

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
	low7 = 0x7F7F7F7F7F7F7F7F
)

// octetsEqual returns the mask of the octets of w equal to c.
func octetsEqual(w uint64, c byte) uint64 {
	x := w ^ lsb8*uint64(c)
	return ^((x&low7 + low7) | x | low7)
}

// notPrintable returns the mask of the octets of w that are not printable
// ASCII (0x20 to 0x7E): control characters, DEL and every octet of 0x80
// or above.
func notPrintable(w uint64) uint64 {
	// An octet below 0x80 keeps its high bit clear in (w|msb8) - 0x20
	// exactly when it is below 0x20 (no borrow crosses octets: each is at
	// least 0x80 after the or).
	return w&msb8 | ^((w|msb8)-lsb8*0x20)&msb8 | octetsEqual(w, 0x7F)
}

// loadWord returns the eight octets of s at i as a little-endian word.
func loadWord(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(stringBytes(s[i : i+8]))
}

// plainPath reports whether a decoded path is printable ASCII without a
// '%': valid UTF-8 in which no character belongs to any class of sanitize
// (ClassOf is 0 for every printable ASCII character), with no escape in
// it that would be double encoding, and no U+FEFF anywhere.
func plainPath(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := loadWord(s, i)
		if notPrintable(w)|octetsEqual(w, '%') != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '%' {
			return false
		}
	}
	return true
}

// plainQuery reports whether a query or form text is printable ASCII
// without a '%' or a '+' (nothing to decode, no character of any class),
// and, if so, how many '&' it holds.
func plainQuery(s string) (plain bool, amps int) {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := loadWord(s, i)
		if notPrintable(w)|octetsEqual(w, '%')|octetsEqual(w, '+') != 0 {
			return false, 0
		}
		amps += bits.OnesCount64(octetsEqual(w, '&'))
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7F || c == '%' || c == '+':
			return false, 0
		case c == '&':
			amps++
		}
	}
	return true, amps
}
