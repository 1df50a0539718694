package escape

import (
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/xmllex"
)

// The escape syntaxes of the structured text types the strict preset
// accepts, one decoder each, for the escape scan (escape.go). A type
// added to the preset brings its syntax here: a row of quotedSyntaxes for
// escapes in string literals, or a pass of checkEscapes for text read
// anywhere (references, declarations).

// quotedSyntax is the syntax of the escapes a decoder reads in string
// literals: the quotes that open them and the decoder of one escape.
type quotedSyntax struct {
	name   string
	quotes string
	// decode reads the escape at p[j] ('\\'): the character it stands for
	// (above utf8.MaxRune when out of range; a lone surrogate as itself)
	// and its length, or a length of 0 when the syntax reads no escape of
	// a character there (an error to that decoder, or a letter for
	// itself).
	decode func(p []byte, j int) (rune, int)
}

// quotedSyntaxes are the string literals whose escapes the scan decodes:
// JSON (and JSON lines), YAML's double-quoted scalars (its single-quoted
// ones have no escapes), GraphQL's strings (a block string's only escape is
// \"""), and JavaScript's three kinds of string literal.
var quotedSyntaxes = [...]quotedSyntax{
	{"JSON", `"`, jsonQuoted},
	{"YAML", `"`, yamlQuoted},
	{"GraphQL", `"`, graphqlQuoted},
	{"JavaScript", "\"'`", jsQuoted},
}

// runDecoders are the decoders of the escapes in a run opened by each
// quote, from quotedSyntaxes.
var runDecoders = func() (t [128][]func([]byte, int) (rune, int)) {
	for _, s := range quotedSyntaxes {
		for _, q := range []byte(s.quotes) {
			t[q] = append(t[q], s.decode)
		}
	}
	return t
}()

// noEscape marks, in a table of one-letter escapes, a letter that is no
// escape of a character.
const noEscape = -1

// letterEscapes builds a table of one-letter escapes from pairs of a
// letter and the character it stands for.
func letterEscapes(pairs string) (t [128]rune) {
	for i := range t {
		t[i] = noEscape
	}
	r := []rune(pairs)
	for i := 0; i+1 < len(r); i += 2 {
		t[r[i]] = r[i+1]
	}
	return t
}

// letter looks the escape at p[j] up in t.
func letter(t *[128]rune, p []byte, j int) (rune, int) {
	if j+1 < len(p) && p[j+1] < 128 {
		if r := t[p[j+1]]; r != noEscape {
			return r, 2
		}
	}
	return 0, 0
}

// jsonQuoted is JSON's escapes (RFC 8259, section 7): \" \\ \/ \b \f \n \r
// \t and \uXXXX, a surrogate pair of them one character.
func jsonQuoted(p []byte, j int) (rune, int) {
	if r, n, ok := JSON(p, j); ok {
		return r, n
	}
	return 0, 0
}

// yamlLetters are the one-letter escapes of YAML 1.2 (section 5.7): \0 \a
// \b \t (and a TAB) \n \v \f \r \e, a space, \" \/ \\, \N (U+0085 NEL), \_
// (U+00A0), \L (U+2028) and \P (U+2029).
var yamlLetters = letterEscapes("0\x00a\ab\bt\t\t\tn\nv\vf\fr\re\x1b  \"\"//\\\\N\u0085_\u00a0L\u2028P\u2029")

// yamlQuoted is YAML 1.2's escapes in a double-quoted scalar: the letters,
// \xXX, \uXXXX and \UXXXXXXXX. (A YAML parser refuses a surrogate; the
// scan reads \uXXXX as JSON does, a pair as one character, a lone one as
// what it is.)
func yamlQuoted(p []byte, j int) (rune, int) {
	if j+1 >= len(p) {
		return 0, 0
	}
	switch p[j+1] {
	case 'x':
		return hexEscape(p, j, 2)
	case 'u':
		return uEscape(p, j, false)
	case 'U':
		return hexEscape(p, j, 8)
	}
	return letter(&yamlLetters, p, j)
}

// graphqlLetters are GraphQL's one-letter escapes (October 2021, section
// 2.9.4): \" \\ \/ \b \f \n \r \t.
var graphqlLetters = letterEscapes("\"\"\\\\//b\bf\fn\nr\rt\t")

// graphqlQuoted is GraphQL's escapes in a string: the letters, \uXXXX and
// \u{H...}.
func graphqlQuoted(p []byte, j int) (rune, int) {
	if j+1 < len(p) && p[j+1] == 'u' {
		return uEscape(p, j, true)
	}
	return letter(&graphqlLetters, p, j)
}

// jsLetters are JavaScript's one-letter escapes (ECMAScript,
// SingleEscapeCharacter): \b \f \n \r \t \v, and \' \" \\ for themselves.
// Any other letter stands for itself.
var jsLetters = letterEscapes("b\bf\fn\nr\rt\tv\v''\"\"\\\\")

// jsQuoted is JavaScript's escapes in a string or template literal: the
// letters, \xHH, \uXXXX and \u{H...} (with surrogate pairs, as a string
// of UTF-16 code units holds them), and the legacy octal escapes \0 to
// \377 (\0 not followed by a digit is NUL in strict code too). Octal
// escapes are an error in a template literal; the scan reads them there
// all the same.
func jsQuoted(p []byte, j int) (rune, int) {
	if j+1 >= len(p) {
		return 0, 0
	}
	switch c := p[j+1]; {
	case c == 'x':
		return hexEscape(p, j, 2)
	case c == 'u':
		return uEscape(p, j, true)
	case '0' <= c && c <= '7':
		// LegacyOctalEscapeSequence: up to three digits from 0-3, up to
		// two from 4-7.
		r, n, most := rune(c-'0'), 2, 3
		if c >= '4' {
			most = 2
		}
		for n <= most && j+n < len(p) && '0' <= p[j+n] && p[j+n] <= '7' {
			r = r<<3 | rune(p[j+n]-'0')
			n++
		}
		return r, n
	}
	return letter(&jsLetters, p, j)
}

// hexEscape reads the escape at p[j], a letter and exactly digits hex
// digits.
func hexEscape(p []byte, j, digits int) (rune, int) {
	if j+2+digits > len(p) {
		return 0, 0
	}
	var r rune
	for _, c := range p[j+2 : j+2+digits] {
		d := xmllex.HexDigits[c]
		if d > 0xF {
			return 0, 0
		}
		r = min(r, utf8.MaxRune+1)<<4 | rune(d)
	}
	return min(r, utf8.MaxRune+1), 2 + digits
}

// uEscape reads the \u escape at p[j]: \uXXXX, or with braces also
// \u{H...} (any number of hex digits, above utf8.MaxRune read as
// utf8.MaxRune+1). A high surrogate followed at once by a \u escape of a
// low one is the pair's character, both escapes long.
func uEscape(p []byte, j int, braces bool) (rune, int) {
	r, n := uUnit(p, j, braces)
	if n > 0 && 0xD800 <= r && r <= 0xDBFF {
		if lo, m := uUnit(p, j+n, braces); m > 0 && 0xDC00 <= lo && lo <= 0xDFFF {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), n + m
		}
	}
	return r, n
}

// uUnit reads one \u escape at p[j], without pairing.
func uUnit(p []byte, j int, braces bool) (rune, int) {
	if j+2 >= len(p) || p[j] != '\\' || p[j+1] != 'u' {
		return 0, 0
	}
	if p[j+2] != '{' || !braces {
		return hexEscape(p, j, 4)
	}
	var r rune
	k := j + 3
	for ; k < len(p) && xmllex.HexDigits[p[k]] <= 0xF; k++ {
		r = min(r, utf8.MaxRune+1)<<4 | rune(xmllex.HexDigits[p[k]])
	}
	if k == j+3 || k >= len(p) || p[k] != '}' {
		return 0, 0
	}
	return min(r, utf8.MaxRune+1), k + 1 - j
}

// htmlNumeric reads the numeric character reference at the start of p
// ("&#"), as html.UnescapeString and golang.org/x/net/html read it (the
// WHATWG tokenizer's rules): 'x' or 'X' for hex, the digits, and a ';'
// that may be missing. The value wraps around as a rune does in their
// arithmetic (&#x10000202E; is U+202E); U+0080-U+009F are mapped as
// Windows-1252 (five of them, U+0081 U+008D U+008F U+0090 U+009D, to
// themselves); NUL, a surrogate and a value above U+10FFFF are U+FFFD.
// It returns the character and the reference's length, 0 for none. (A
// quirk of their count leaves a one-digit decimal reference without ';',
// "&#1 ", alone; the scan reads it, as the WHATWG tokenizer does.)
func htmlNumeric(p []byte) (rune, int) {
	i := 2
	hex := i < len(p) && p[i]|0x20 == 'x'
	if hex {
		i++
	}
	start := i
	var x rune
	for ; i < len(p); i++ {
		c := p[i]
		if hex {
			d := xmllex.HexDigits[c]
			if d > 0xF {
				break
			}
			x = 16*x + rune(d)
		} else {
			if c < '0' || c > '9' {
				break
			}
			x = 10*x + rune(c-'0')
		}
	}
	if i == start {
		if hex && i < len(p) && p[i] == ';' {
			return 0xFFFD, i + 1 // "&#x;" is U+FFFD to them
		}
		return 0, 0
	}
	if i < len(p) && p[i] == ';' {
		i++
	}
	switch {
	case 0x80 <= x && x <= 0x9F:
		x = windows1252[x-0x80]
	case x <= 0 || 0xD800 <= x && x <= 0xDFFF || x > utf8.MaxRune:
		x = 0xFFFD
	}
	return x, i
}

// windows1252 is the WHATWG tokenizer's table for numeric references to
// U+0080-U+009F.
var windows1252 = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// maxHTMLName bounds the name of a named reference the scan reads: the
// longest in HTML is 32 octets with its ';' (&CounterClockwiseContourIntegral;).
const maxHTMLName = 32

// htmlNamed reads the named character reference at the start of p ('&')
// as html.UnescapeString reads it: the longest run of ASCII letters and
// digits, and a ';' if one follows; that name when HTML has it, and
// otherwise the longest of the names HTML reads without a ';' that starts
// it. It returns the text when it holds a character of some sanitize
// class (htmlClassed), and the reference's length; 0 for no such
// reference. encoding/xml with xml.HTMLEntity reads a subset of these
// names (with their ';'), to the same characters.
func htmlNamed(p []byte) (string, int) {
	i := 1
	for i < len(p) && i <= maxHTMLName && isASCIIAlnum(p[i]) {
		i++
	}
	if i == 1 {
		return "", 0
	}
	if i < len(p) && p[i] == ';' {
		i++
	} else if !legacyPrefixed(p[1:i]) {
		// Every classed name ends in ';' but the legacy ones: a name
		// without it that starts with none of them reads as nothing
		// classed. (A form body is a run of such names, one per '&'.)
		return "", 0
	}
	if i > maxHTMLName+1 {
		// Longer than any name: only a legacy name can prefix it.
		i = maxHTMLName + 1
	}
	if text, ok := htmlClassed[string(p[1:i])]; ok {
		return text, i
	}
	// Not a classed name. A legacy name prefixing it is read only when
	// HTML has no such name, and only the longest that does; none starts
	// with a classed legacy name L but L itself and "L;" (htmlentgen
	// checks), so a classed L that prefixes the name is read.
	for _, l := range htmlLegacyClassed {
		if i-1 > len(l) && string(p[1:1+len(l)]) == l {
			return htmlClassed[l], 1 + len(l)
		}
	}
	return "", 0
}

// legacyPrefixed reports whether name starts with a name of
// htmlLegacyClassed.
func legacyPrefixed(name []byte) bool {
	for _, l := range htmlLegacyClassed {
		if len(name) >= len(l) && string(name[:len(l)]) == l {
			return true
		}
	}
	return false
}

func isASCIIAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z'
}

// JSON decodes the escape at p[j] ('\\'). It returns the code point
// (a well-formed surrogate pair decodes to its supplementary character, a
// lone surrogate to itself), the escape's length, and false for an escape
// that is not JSON.
func JSON(p []byte, j int) (rune, int, bool) {
	if j+1 >= len(p) {
		return 0, 1, false
	}
	switch p[j+1] {
	case '"', '\\', '/':
		return rune(p[j+1]), 2, true
	case 'b':
		return '\b', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'u':
		r, ok := Hex4(p, j+2)
		if !ok {
			return 0, 2, false
		}
		if r >= 0xD800 && r <= 0xDBFF && j+11 < len(p) && p[j+6] == '\\' && p[j+7] == 'u' {
			if lo, ok := Hex4(p, j+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, true
			}
		}
		return r, 6, true
	}
	return 0, 2, false
}

func Hex4(p []byte, k int) (rune, bool) {
	if k+4 > len(p) {
		return 0, false
	}
	var r rune
	for _, c := range p[k : k+4] {
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

func IsSurrogate(r rune) bool { return 0xD800 <= r && r <= 0xDFFF }
