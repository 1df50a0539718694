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
	switch {
	case len(p) >= minLen:
		return structure(p, colons)
	case len(p) <= shortLen:
		return structureShort(p, colons)
	}
	return structureGeneric(p, colons)
}

// shortLen is the longest input structureShort takes: up to it, one loop
// over the octets costs less than the standard library's passes, whose
// set-up is most of their time on a body like {"id":42} (8 ns against 35
// for 7 octets, 25 against 37 for 31).
const shortLen = 32

// structureShort is Structure for at most shortLen octets, an octet at a
// time.
func structureShort(p []byte, colons []uint64) (brackets int, backslash, amp bool) {
	var c uint64
	var seen uint8
	for i, b := range p {
		if k := shortKinds[b]; k != 0 {
			seen |= k
			c |= uint64(k&kindColon) >> 3 << i
			brackets += int(k & kindBracket)
		}
	}
	if len(colons) != 0 { // none for an empty p
		colons[0] = c
	}
	return brackets, seen&kindBackslash != 0, seen&kindAmp != 0
}

// The kinds of octet structureShort looks for, by octet.
const (
	kindBracket   = 1 << 0 // '{' or '['
	kindBackslash = 1 << 1
	kindAmp       = 1 << 2
	kindColon     = 1 << 3
)

var shortKinds = [256]uint8{'{': kindBracket, '[': kindBracket, '\\': kindBackslash, '&': kindAmp, ':': kindColon}

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
