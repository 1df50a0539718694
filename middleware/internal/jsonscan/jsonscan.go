// Package jsonscan finds, in one pass over a JSON text, what the
// middleware's quick check of a JSON body needs to know before it looks at
// any token: whether the text holds a backslash (an escape to decode), and
// how many '{' and '[' it holds (a bound on its nesting depth).
//
// On amd64 with AVX-512 (BW) the pass is a SIMD loop, 64 octets at a time;
// elsewhere, and under the purego build tag, it is the standard library's
// bytes.IndexByte and bytes.Count.
package jsonscan

import "bytes"

// Structure returns the number of '{' and '[' octets in p, and whether p
// holds a '\' octet. It looks at octets, not at JSON: brackets and
// backslashes inside strings count too.
func Structure(p []byte) (brackets int, backslash bool) {
	if len(p) >= minLen {
		return structure(p)
	}
	return structureGeneric(p)
}

// structureGeneric is Structure with the standard library.
func structureGeneric(p []byte) (brackets int, backslash bool) {
	return bytes.Count(p, []byte{'{'}) + bytes.Count(p, []byte{'['}), bytes.IndexByte(p, '\\') >= 0
}
