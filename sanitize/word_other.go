//go:build !(amd64 || arm64 || 386)

package sanitize

// word returns the eight octets of s at i, i+8 <= len(s), as a word.
func word(s string, i int) uint64 { return load64(s, i) }
