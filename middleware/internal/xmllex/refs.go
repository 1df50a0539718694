package xmllex

import (
	"bytes"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/octets"
)

// PIOpen opens a processing instruction.
var PIOpen = []byte("<?")

// Ref reads the reference at the start of p, which is '&', and returns
// the character it stands for and its length in octets, or a length of 0
// when it is none this package accepts. A character reference is "&#"
// followed by decimal digits, or "&#x" followed by hexadecimal digits (a
// lowercase x, as XML and encoding/xml have it), and ';'; leading zeros
// are allowed and any value above U+10FFFF comes back as
// utf8.MaxRune+1, however many digits it has. The predefined entities are
// &lt; &gt; &amp; &apos; &quot;, spelled in lower case.
//
// A body can be made of nothing but references, so this is written for
// speed: a table for the hexadecimal digits, a switch for the entities.
func Ref(p []byte) (rune, int) {
	if len(p) < 2 || p[1] != '#' {
		return Entity(p)
	}
	var r rune
	j := 2
	if j < len(p) && p[j] == 'x' {
		j = 3
		for ; j < len(p); j++ {
			d := HexDigits[p[j]]
			if d > 0xF {
				break
			}
			r = min(r, utf8.MaxRune+1)<<4 | rune(d) // no overflow, no branch
		}
		if j == 3 {
			return 0, 0
		}
	} else {
		for ; j < len(p); j++ {
			d := p[j] - '0'
			if d > 9 {
				break
			}
			r = min(r, utf8.MaxRune+1)*10 + rune(d)
		}
		if j == 2 {
			return 0, 0
		}
	}
	if j >= len(p) || p[j] != ';' {
		return 0, 0
	}
	return min(r, utf8.MaxRune+1), j + 1
}

// Entity reads the predefined entity at the start of p, which is '&',
// as xmlRef does.
func Entity(p []byte) (rune, int) {
	if len(p) < 4 {
		return 0, 0
	}
	switch p[1] {
	case 'l':
		if p[2] == 't' && p[3] == ';' {
			return '<', 4
		}
	case 'g':
		if p[2] == 't' && p[3] == ';' {
			return '>', 4
		}
	case 'a':
		if len(p) >= 5 && p[2] == 'm' && p[3] == 'p' && p[4] == ';' {
			return '&', 5
		}
		if len(p) >= 6 && p[2] == 'p' && p[3] == 'o' && p[4] == 's' && p[5] == ';' {
			return '\'', 6
		}
	case 'q':
		if len(p) >= 6 && p[2] == 'u' && p[3] == 'o' && p[4] == 't' && p[5] == ';' {
			return '"', 6
		}
	}
	return 0, 0
}

// HexDigits maps an octet to the value of the hexadecimal digit it is,
// or to 0xFF.
var HexDigits = func() (t [256]uint8) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = uint8(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = uint8(c-'a') + 10
		case 'A' <= c && c <= 'F':
			t[c] = uint8(c-'A') + 10
		default:
			t[c] = 0xFF
		}
	}
	return t
}()

// DeclTarget reports whether a processing instruction's target is
// "xml", in any case: encoding/xml reads the encoding of "xml" alone, but
// "XML" is reserved as well and another parser may read it.
func DeclTarget(target []byte) bool {
	return len(target) == 3 && target[0]|0x20 == 'x' && target[1]|0x20 == 'm' && target[2]|0x20 == 'l'
}

// ForeignEncoding returns the offset of the first encoding name in the
// processing instruction content p[v[0]:v[1]] that is neither UTF-8 nor,
// in an all-ASCII body, US-ASCII, or -1. An encoding name is whatever
// follows "encoding", optional white space, '=', optional white space and
// a quote, up to the same quote: every one of them, wherever it is, since
// encoding/xml takes the first "encoding=" followed by a quote anywhere in
// the instruction (even inside another pseudo-attribute's value) and
// another parser the one the grammar says. *ascii caches whether p is all
// ASCII (-1: not known yet).
func ForeignEncoding(p []byte, v [2]int, ascii *int) int {
	s := p[v[0]:v[1]]
	for j := 0; ; {
		k := bytes.Index(s[j:], []byte("encoding"))
		if k < 0 {
			return -1
		}
		j += k + len("encoding")
		q := SkipSpace(s, j)
		if q >= len(s) || s[q] != '=' {
			continue
		}
		q = SkipSpace(s, q+1)
		if q >= len(s) || s[q] != '"' && s[q] != '\'' {
			continue
		}
		end := bytes.IndexByte(s[q+1:], s[q])
		if end < 0 {
			continue // unterminated: encoding/xml reads no encoding
		}
		// encoding="" is no encoding to encoding/xml, and an error to
		// parsers that follow the grammar: none reads another.
		if name := s[q+1 : q+1+end]; len(name) > 0 && !UTF8Name(p, name, ascii) {
			return v[0] + q + 1
		}
	}
}

// UTF8Name reports whether an encoding name found in p leaves p UTF-8:
// UTF-8's (xmlUTF8Label), or US-ASCII's (xmlASCIILabel) when p is all
// ASCII. *ascii caches whether p is all ASCII (-1: not known yet).
func UTF8Name(p, name []byte, ascii *int) bool {
	if UTF8Label(name) {
		return true
	}
	if !ASCIILabel(name) {
		return false
	}
	if *ascii < 0 {
		*ascii = 0
		if octets.IsASCII(p) {
			*ascii = 1
		}
	}
	return *ascii == 1
}

// UTF8Label reports whether an encoding name is UTF-8's: "UTF-8" or
// "utf8", in any case (ASCII case folding only).
func UTF8Label(name []byte) bool {
	return octets.EqualFoldASCII(name, "utf-8") || octets.EqualFoldASCII(name, "utf8")
}

// ASCIILabel reports whether an encoding name is one of US-ASCII's
// (the IANA aliases and "ascii"), in any case.
func ASCIILabel(name []byte) bool {
	for _, l := range [...]string{"us-ascii", "ascii", "iso-ir-6", "ansi_x3.4-1968", "ansi_x3.4-1986",
		"iso_646.irv:1991", "iso646-us", "us", "ibm367", "cp367", "csascii"} {
		if octets.EqualFoldASCII(name, l) {
			return true
		}
	}
	return false
}
