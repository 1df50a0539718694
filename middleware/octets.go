package middleware

import (
	"bytes"
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
