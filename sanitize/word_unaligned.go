//go:build amd64 || arm64 || 386

package sanitize

import "unsafe"

// word returns the eight octets of s at i, i+8 <= len(s), in one load:
// these CPUs load unaligned words, and the caller has checked the bounds.
// Only the OR of words' high bits is ever taken, so the byte order does not
// matter.
func word(s string, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
}
