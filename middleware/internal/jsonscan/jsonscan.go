// Package jsonscan finds, in one pass over a JSON text, what the
// middleware's quick checks of a JSON body need to know before they look
// at any token: whether the text holds a backslash (an escape to decode)
// or an ampersand (what an XML decoder might read as a reference), how
// many '{' and '[' it holds (a bound on its nesting depth), and where its
// colons are (after every member name).
//
// On amd64 with AVX-512 (F and BW) the pass is a SIMD loop, 64 octets at
// a time; elsewhere, and under the purego build tag, it is the standard
// library's bytes.IndexByte and bytes.Count.
package jsonscan

import (
	"bytes"
)

// Words returns how many words the colons of Structure need for n octets.
func Words(n int) int { return (n + 63) / 64 }

// Structure returns the number of '{' and '[' octets in p, and whether p
// holds a '\' octet and a '&' octet. When colons is not nil, it must have
// Words(len(p)) words at least, and Structure sets bit i%64 of colons[i/64]
// for every ':' octet at p[i] and clears the other bits of those words.
// It looks at octets, not at JSON: inside strings too.
func Structure(p []byte, colons []uint64) (brackets int, backslash, amp bool) {
	if colons != nil {
		colons = colons[:Words(len(p))] // bounds: fails before any write
	}
	if len(p) >= minLen {
		return structure(p, colons)
	}
	return structureGeneric(p, colons)
}

// structureGeneric is Structure with the standard library.
func structureGeneric(p []byte, colons []uint64) (brackets int, backslash, amp bool) {
	if colons != nil {
		clear(colons)
		for i := 0; ; i++ {
			k := bytes.IndexByte(p[i:], ':')
			if k < 0 {
				break
			}
			i += k
			colons[i/64] |= 1 << (i % 64)
		}
	}
	return bytes.Count(p, []byte{'{'}) + bytes.Count(p, []byte{'['}),
		bytes.IndexByte(p, '\\') >= 0, bytes.IndexByte(p, '&') >= 0
}
