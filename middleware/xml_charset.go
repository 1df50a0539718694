package middleware

import (
	"bytes"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// xmlCharset looks at the start of body for what says it is not UTF-8: a
// UTF-16 or UTF-32 byte order mark (bad_charset with refuse, otherwise
// nothing: the UTF-8 check will refuse it), or an XML declaration, after
// an optional UTF-8 BOM, naming another encoding: bad_charset with refuse,
// and otherwise, when encoding/xml reads the encoding there too, foreign:
// not ours to check. Where encoding/xml reads on in UTF-8 but another
// parser might not (<?XML ...?>, encoding = "latin1" with spaces, a
// second encoding after a first one), it is bad_charset whatever refuse
// says: the body would be checked as UTF-8 for one reader and reach
// another in a charset never checked.
func xmlCharset(body []byte, refuse bool) (rj *Rejection, foreign bool) {
	if refuse && (bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || bytes.HasPrefix(body, []byte{0xFF, 0xFE}) ||
		bytes.HasPrefix(body, []byte{0, 0, 0xFE, 0xFF})) {
		return xmlReject(body, &sanitize.Error{Reason: sanitize.BadCharset}), false
	}
	off, goForeign := xmlDeclEncoding(body)
	if off < 0 {
		return nil, false
	}
	if refuse || !goForeign {
		return xmlReject(body, &sanitize.Error{Reason: sanitize.BadCharset, Offset: off}), false
	}
	return nil, true
}

// xmlDeclEncoding looks at the processing instruction that body starts
// with (after an optional UTF-8 BOM), if its target is "xml" in any case.
// It returns the offset of the first encoding name there that is not
// UTF-8's (xmlForeignEncoding), or -1; and whether encoding/xml reads it as
// a declaration of an encoding that is not UTF-8's: the target is "xml"
// in lower case and the name procInst finds is such a one.
func xmlDeclEncoding(body []byte) (int, bool) {
	i := 0
	if bytes.HasPrefix(body, xmlBOM) {
		i = len(xmlBOM)
	}
	if !bytes.HasPrefix(body[i:], piOpen) {
		return -1, false
	}
	lx := xmlLexer{p: body, i: i}
	t := lx.next()
	if t.kind != xmlPI || !xmlDeclTarget(body[t.name[0]:t.name[1]]) {
		return -1, false
	}
	ascii := -1
	off := xmlForeignEncoding(body, t.val, &ascii)
	if off < 0 || string(body[t.name[0]:t.name[1]]) != "xml" {
		return off, false
	}
	name, ok := xmlGoEncoding(body[t.val[0]:t.val[1]])
	return off, ok && len(name) > 0 && !xmlUTF8Name(body, name, &ascii)
}

// xmlGoEncoding returns the encoding name that encoding/xml's procInst
// reads in the content s of an <?xml ...?> instruction: after the first
// "encoding=" that is followed by a quote, up to the same quote; false when
// there is none.
func xmlGoEncoding(s []byte) ([]byte, bool) {
	const param = "encoding="
	var quote byte
	i := 0
	for i < len(s) {
		k := bytes.Index(s[i:], []byte(param))
		if k < 0 || i+k+len(param) >= len(s) {
			return nil, false
		}
		c := s[i+k+len(param)]
		i += k + len(param) + 1
		if c == '"' || c == '\'' {
			quote = c
			break
		}
	}
	if quote == 0 {
		return nil, false
	}
	j := bytes.IndexByte(s[i:], quote)
	if j < 0 {
		return nil, false
	}
	return s[i : i+j], true
}

// xmlDeclTarget reports whether a processing instruction's target is
// "xml", in any case: encoding/xml reads the encoding of "xml" alone, but
// "XML" is reserved as well and another parser may read it.
func xmlDeclTarget(target []byte) bool {
	return len(target) == 3 && target[0]|0x20 == 'x' && target[1]|0x20 == 'm' && target[2]|0x20 == 'l'
}

// xmlForeignEncoding returns the offset of the first encoding name in the
// processing instruction content p[v[0]:v[1]] that is neither UTF-8 nor,
// in an all-ASCII body, US-ASCII, or -1. An encoding name is whatever
// follows "encoding", optional white space, '=', optional white space and
// a quote, up to the same quote: every one of them, wherever it is, since
// encoding/xml takes the first "encoding=" followed by a quote anywhere in
// the instruction (even inside another pseudo-attribute's value) and
// another parser the one the grammar says. *ascii caches whether p is all
// ASCII (-1: not known yet).
func xmlForeignEncoding(p []byte, v [2]int, ascii *int) int {
	s := p[v[0]:v[1]]
	for j := 0; ; {
		k := bytes.Index(s[j:], []byte("encoding"))
		if k < 0 {
			return -1
		}
		j += k + len("encoding")
		q := xmlSkipSpace(s, j)
		if q >= len(s) || s[q] != '=' {
			continue
		}
		q = xmlSkipSpace(s, q+1)
		if q >= len(s) || s[q] != '"' && s[q] != '\'' {
			continue
		}
		end := bytes.IndexByte(s[q+1:], s[q])
		if end < 0 {
			continue // unterminated: encoding/xml reads no encoding
		}
		// encoding="" is no encoding to encoding/xml, and an error to
		// parsers that follow the grammar: none reads another.
		if name := s[q+1 : q+1+end]; len(name) > 0 && !xmlUTF8Name(p, name, ascii) {
			return v[0] + q + 1
		}
	}
}

// xmlUTF8Name reports whether an encoding name found in p leaves p UTF-8:
// UTF-8's (xmlUTF8Label), or US-ASCII's (xmlASCIILabel) when p is all
// ASCII. *ascii caches whether p is all ASCII (-1: not known yet).
func xmlUTF8Name(p, name []byte, ascii *int) bool {
	if xmlUTF8Label(name) {
		return true
	}
	if !xmlASCIILabel(name) {
		return false
	}
	if *ascii < 0 {
		*ascii = 0
		if isASCII(p) {
			*ascii = 1
		}
	}
	return *ascii == 1
}

// xmlUTF8Label reports whether an encoding name is UTF-8's: "UTF-8" or
// "utf8", in any case (ASCII case folding only).
func xmlUTF8Label(name []byte) bool {
	return asciiEqualFold(name, "utf-8") || asciiEqualFold(name, "utf8")
}

// xmlASCIILabel reports whether an encoding name is one of US-ASCII's
// (the IANA aliases and "ascii"), in any case.
func xmlASCIILabel(name []byte) bool {
	for _, l := range [...]string{"us-ascii", "ascii", "iso-ir-6", "ansi_x3.4-1968", "ansi_x3.4-1986",
		"iso_646.irv:1991", "iso646-us", "us", "ibm367", "cp367", "csascii"} {
		if asciiEqualFold(name, l) {
			return true
		}
	}
	return false
}

// asciiEqualFold reports whether b equals the lower-case ASCII s, ignoring
// the case of ASCII letters only (strings.EqualFold would also match "ſ"
// to "s" and "K" to "k").
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// isASCII reports whether every octet of p is below 0x80.
func isASCII(p []byte) bool {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if load64LE(p, i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(p); i++ {
		if p[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// load64LE returns the eight octets of p at i as a little-endian word.
func load64LE(p []byte, i int) uint64 {
	q := p[i : i+8]
	return uint64(q[0]) | uint64(q[1])<<8 | uint64(q[2])<<16 | uint64(q[3])<<24 |
		uint64(q[4])<<32 | uint64(q[5])<<40 | uint64(q[6])<<48 | uint64(q[7])<<56
}
