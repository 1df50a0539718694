package corpus

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A Seq is a short octet sequence at a boundary of UTF-8, and whether it is
// valid UTF-8 on its own.
type Seq struct {
	Name  string // what it is, such as "surrogate-ED-A0-80"
	Bytes []byte
	Valid bool
}

// Seqs returns the malformed sequences that a validator must reject, as
// RFC 3629 and unicode/utf8 define them (overlong forms, UTF-16 surrogates,
// code points above U+10FFFF, truncated sequences, lone and surplus
// continuation octets, the octets F5 to FF), followed by the valid
// sequences right next to them (the first and last code point of each
// length and range).
func Seqs() []Seq {
	bad := func(name string, p ...byte) Seq { return Seq{name + "-" + hex(p), p, false} }
	good := func(name string, p ...byte) Seq { return Seq{name + "-" + hex(p), p, true} }
	s := []Seq{
		bad("overlong", 0xC0, 0xAE), // '.'
		bad("overlong", 0xC0, 0x80), // NUL
		bad("overlong", 0xC1, 0xBF),
		bad("overlong", 0xE0, 0x80, 0xAF), // '/'
		bad("overlong", 0xE0, 0x9F, 0xBF),
		bad("overlong", 0xF0, 0x80, 0x80, 0xAF),
		bad("overlong", 0xF0, 0x8F, 0xBF, 0xBF),
		bad("surrogate", 0xED, 0xA0, 0x80),
		bad("surrogate", 0xED, 0xBF, 0xBF),
		bad("surrogate-pair", 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80),
		bad("above-max", 0xF4, 0x90, 0x80, 0x80),
		bad("above-max", 0xF4, 0xBF, 0xBF, 0xBF),
		bad("above-max", 0xF5, 0x80, 0x80, 0x80),
		bad("above-max", 0xF7, 0xBF, 0xBF, 0xBF),
		bad("five-octet", 0xF8, 0x88, 0x80, 0x80, 0x80),
		bad("six-octet", 0xFC, 0x84, 0x80, 0x80, 0x80, 0x80),
		bad("truncated", 0xC3),
		bad("truncated", 0xE2),
		bad("truncated", 0xE2, 0x82),
		bad("truncated", 0xF0),
		bad("truncated", 0xF0, 0x9F),
		bad("truncated", 0xF0, 0x9F, 0x98),
		bad("truncated-then-ascii", 0xC3, 'A'),
		bad("truncated-then-ascii", 0xE2, 0x82, 'A'),
		bad("truncated-then-ascii", 0xF0, 0x9F, 0x98, 'A'),
		bad("truncated-then-lead", 0xE2, 0x82, 0xC3, 0xA9),
		bad("lone-continuation", 0x80),
		bad("lone-continuation", 0xBF),
		bad("lone-continuations", 0x80, 0x80, 0x80),
		bad("surplus-continuation", 0xC3, 0xA9, 0x80),
		bad("surplus-continuation", 0xE2, 0x82, 0xAC, 0x80),
		bad("surplus-continuation", 0xF0, 0x9F, 0x98, 0x80, 0x80),
		bad("lead-then-lead", 0xC3, 0xC3),
	}
	for b := 0xF8; b <= 0xFF; b++ {
		s = append(s, bad("never-used", byte(b)))
	}
	s = append(s, bad("bom-utf16", 0xFE, 0xFF))
	s = append(s,
		good("ascii", 0x00),
		good("ascii", 0x7F),
		good("two-octet", 0xC2, 0x80),
		good("two-octet", 0xDF, 0xBF),
		good("three-octet", 0xE0, 0xA0, 0x80),
		good("three-octet", 0xE2, 0x82, 0xAC),
		good("below-surrogates", 0xED, 0x9F, 0xBF),
		good("above-surrogates", 0xEE, 0x80, 0x80),
		good("three-octet", 0xEF, 0xBF, 0xBF),
		good("bom", 0xEF, 0xBB, 0xBF),
		good("four-octet", 0xF0, 0x90, 0x80, 0x80),
		good("four-octet", 0xF0, 0x9F, 0x98, 0x80),
		good("max", 0xF4, 0x8F, 0xBF, 0xBF),
	)
	return s
}

// A Case is one input for checking that validators agree.
type Case struct {
	Name  string // the sequence's name and its place, "seq@place"
	Bytes []byte
	Valid bool // whether Bytes is valid UTF-8
}

// cyrillicFill is 2-octet text, so that a sequence can follow non-ASCII
// octets in the validators' vector loops.
const cyrillicFill = "съешь же ещё этих мягких французских булок да выпей чаю "

// Cases returns every sequence of Seqs in each of these places, so that
// validators with vector code meet it in their vector loops and in their
// scalar heads and tails, not only at the start of the input:
//
//	alone      the sequence by itself
//	start      at the start, followed by 60 ASCII octets
//	after45    after 45 ASCII octets, at the end
//	mid        after 45 ASCII octets, followed by 80 more
//	cross32    across the boundary between octets 31 and 32, in 100
//	cross64    across the boundary between octets 63 and 64, in 150
//	end64      ending at octet 64 of 64, after ASCII
//	after128   after 128 ASCII octets, followed by 128 more
//	cyrillic   after 100 octets of 2-octet text, followed by 100 more
//
// A Case is valid exactly when its sequence is.
func Cases() []Case {
	asc := Text("ascii", 512)
	ascii := func(n int) string { return string(asc[:n]) }
	cyr := func(n int) string {
		s := strings.Repeat(cyrillicFill, n/len(cyrillicFill)+1)[:n]
		for !utf8.ValidString(s) { // cut in a letter: drop its first half
			s = s[:len(s)-1]
		}
		return s + strings.Repeat(" ", n-len(s))
	}
	type place struct {
		name          string
		before, after func(seq []byte) string
	}
	fixed := func(s string) func([]byte) string { return func([]byte) string { return s } }
	places := []place{
		{"alone", fixed(""), fixed("")},
		{"start", fixed(""), fixed(ascii(60))},
		{"after45", fixed(ascii(45)), fixed("")},
		{"mid", fixed(ascii(45)), fixed(ascii(80))},
		{"cross32", func(seq []byte) string { return ascii(32 - (len(seq)+1)/2) },
			func(seq []byte) string { return ascii(100 - 32 - len(seq)/2) }},
		{"cross64", func(seq []byte) string { return ascii(64 - (len(seq)+1)/2) },
			func(seq []byte) string { return ascii(150 - 64 - len(seq)/2) }},
		{"end64", func(seq []byte) string { return ascii(64 - len(seq)) }, fixed("")},
		{"after128", fixed(ascii(128)), fixed(ascii(128))},
		{"cyrillic", fixed(cyr(100)), fixed(cyr(100))},
	}
	var c []Case
	for _, s := range Seqs() {
		for _, pl := range places {
			p := []byte(pl.before(s.Bytes))
			p = append(p, s.Bytes...)
			p = append(p, pl.after(s.Bytes)...)
			c = append(c, Case{s.Name + "@" + pl.name, p, s.Valid})
		}
	}
	return c
}

func hex(p []byte) string {
	var b strings.Builder
	for i, c := range p {
		if i > 0 {
			b.WriteByte('-')
		}
		fmt.Fprintf(&b, "%02X", c)
	}
	return b.String()
}
