// Package jsonscan finds, in one pass over a JSON text, what the
// middleware's quick checks of a JSON body need to know before they look
// at any token: whether the text holds a backslash (an escape to decode)
// or an ampersand (what an XML decoder might read as a reference), and
// how many '{' and '[' it holds (a bound on its nesting depth); and, for
// the walk over an object's member names, where its quotes, braces and
// colons are (Marks).
//
// On amd64 with AVX-512 (F and BW) the pass is a SIMD loop, 64 octets at
// a time, and so are the marks; with AVX2 and not AVX-512, the pass is a
// SIMD loop of 32 octets at a time and the marks are found an octet at a
// time; elsewhere, and under the purego build tag, the pass is the
// standard library's bytes.IndexByte and bytes.Count.
package jsonscan

import (
	"bytes"
)

// Words returns how many blocks of 64 octets n octets span: the Blocks
// of Marks.
func Words(n int) int { return (n + 63) / 64 }

// Structure returns the number of '{' and '[' octets in p, and whether p
// holds a '\' octet and a '&' octet. It looks at octets, not at JSON:
// inside strings too.
func Structure(p []byte) (brackets int, backslash, amp bool) {
	switch {
	case len(p) >= minLen:
		return structure(p)
	case len(p) <= shortLen:
		return structureShort(p)
	}
	return structureGeneric(p)
}

// shortLen is the longest input structureShort takes: up to it, one loop
// over the octets costs less than the standard library's passes, whose
// set-up is most of their time on a body like {"id":42} (8 ns against 35
// for 7 octets, 25 against 37 for 31).
const shortLen = 32

// structureShort is Structure for at most shortLen octets, an octet at a
// time.
func structureShort(p []byte) (brackets int, backslash, amp bool) {
	var seen uint8
	for _, b := range p {
		if k := shortKinds[b]; k != 0 {
			seen |= k
			brackets += int(k & kindBracket)
		}
	}
	return brackets, seen&kindBackslash != 0, seen&kindAmp != 0
}

// The kinds of octet structureShort looks for, by octet.
const (
	kindBracket   = 1 << 0 // '{' or '['
	kindBackslash = 1 << 1
	kindAmp       = 1 << 2
)

var shortKinds = [256]uint8{'{': kindBracket, '[': kindBracket, '\\': kindBackslash, '&': kindAmp}

// structureGeneric is Structure with the standard library.
func structureGeneric(p []byte) (brackets int, backslash, amp bool) {
	return bytes.Count(p, []byte{'{'}) + bytes.Count(p, []byte{'['}),
		bytes.IndexByte(p, '\\') >= 0, bytes.IndexByte(p, '&') >= 0
}
