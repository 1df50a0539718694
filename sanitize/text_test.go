package sanitize

// Texts for the differential tests of the kernels (simd_test.go) and of
// Check (check_test.go).

import (
	"math/rand/v2"
	"strings"
)

// The malformations the differential test injects, and valid characters
// for contrast.
var injected = []string{
	// Overlong.
	hx("C0 AF"), hx("C1 BF"), hx("E0 80 AF"), hx("E0 9F BF"), hx("F0 80 80 AF"), hx("F0 8F BF BF"),
	// Surrogates.
	hx("ED A0 80"), hx("ED BF BF"), hx("ED A0 BD ED B8 80"),
	// Above U+10FFFF.
	hx("F4 90 80 80"), hx("F4 BF BF BF"), hx("F5 80 80 80"), hx("F7 BF BF BF"),
	// The 5- and 6-octet forms of RFC 2279.
	hx("F8 88 80 80 80"), hx("FB BF BF BF BF"), hx("FC 84 80 80 80 80"), hx("FD BF BF BF BF BF"),
	// Invalid octets.
	hx("FE"), hx("FF"), hx("C0"), hx("F5"), hx("F8"),
	// Stray continuations.
	hx("80"), hx("BF"), hx("80 80"), hx("BF BF BF BF"),
	// Truncated: the octets after them are the text's.
	hx("C2"), hx("DF"), hx("E2 82"), hx("E0"), hx("ED 9F"), hx("F0 9F 98"), hx("F4 8F"), hx("F1"),
	// Too many continuations.
	hx("C2 80 80"), hx("E2 82 AC 80"), hx("F0 9F 98 80 80"),
	// Valid: the edges of each length.
	hx("7F"), hx("C2 80"), hx("DF BF"), hx("E0 A0 80"), hx("ED 9F BF"), hx("EE 80 80"), hx("EF BF BF"),
	hx("F0 90 80 80"), hx("F4 8F BF BF"),
}

// fills are the texts of the differential test: characters the random
// text is made of.
var fills = []struct {
	name  string
	chars []string
}{
	{"ascii", []string{"a", "Z", " ", "\x00", "\x7F"}},
	{"latin", []string{"a", "e", " ", "é", "ß", "\u0080", "\u07FF"}},
	{"2-octet", []string{"é", "Ж", "\u0080", "\u07FF"}},
	{"3-octet", []string{"€", "日", "\u0800", "\uD7FF", "\uE000", "\uFFFF"}},
	{"4-octet", []string{"😀", "\U00010000", "\U0010FFFF", "\U000F0000"}},
	{"mix", []string{"a", "b", " ", "é", "Ж", "€", "日", "😀", "\U0010FFFF"}},
}

// randomText returns n octets of valid text made of chars, padded with
// ASCII to a character boundary at n.
func randomText(r *rand.Rand, chars []string, n int) []byte {
	var b []byte
	for len(b) < n {
		c := chars[r.IntN(len(chars))]
		if len(b)+len(c) > n {
			c = strings.Repeat("x", n-len(b))
		}
		b = append(b, c...)
	}
	return b
}
