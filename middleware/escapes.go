package middleware

import (
	"encoding/xml"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Escapes a handler may decode in a body of another kind.
//
// A handler does not always decode a body as its Content-Type says:
// json.NewDecoder(r.Body) reads whatever it is given, and so does an XML
// decoder, which skips the text before the first element. A text/plain
// body {"a":"\u202e"}, or a form body ["<a>&#x202E;</a>"], is checked
// octet by octet as text, and its octets are all harmless, but such a
// handler reads a bidi control. So every body checked as text is also
// scanned for the escapes of those two decoders, wherever they stand:
// JSON's \uXXXX (a well-formed surrogate pair is its supplementary
// character) and XML's numeric character references (&#NNN; and
// &#xHHH;). One that decodes to a lone surrogate (surrogate), or to a
// character of a class the location refuses (forbidden_char), refuses
// the body, failing closed: the scan cannot tell whether a handler will
// decode it, nor, outside a JSON or XML body, whether the escape stands
// where that decoder would read it. An escape of an allowed character
// ("\u00e9", "&#233;") passes; so does anything that is no such escape
// ("C:\users", "&amp;"). JSON's one-letter escapes are left alone: "\b"
// and "\f" are too common in Windows paths to refuse.
//
// An XML decoder a handler sets up with Strict = false and Entity =
// xml.HTMLEntity, the one entity map encoding/xml ships, also decodes the
// named references of HTML (&rlm; is U+200F, a bidi mark; &shy; U+00AD):
// a reference to one of those names, ';' included, counts as the
// characters it stands for. (A map of the handler's own this package
// cannot know: in an XML body every named reference but the five
// predefined ones is refused, checkXML; elsewhere such a name is text.)
//
// The text parts of a multipart body are scanned one by one
// (checkPartText), and its preamble and epilogue (checkOutsideParts). The
// contents of its data parts, like a body of a binary type, are not read.
//
// JSON and XML bodies are checked as what they are first (checkJSON,
// checkXML), where an escape is decoded only where it is one; the scan
// then covers the other decoder.

// checkEscapes scans body, checked as text at loc under forbid, for JSON
// and XML escapes that decode to a refused character. off is where body
// starts in what the log's offsets count from.
func checkEscapes(body []byte, loc rules.Location, forbid sanitize.Class, off int) *Rejection {
	forbid &^= sanitize.BOM // a BOM counts at the start of a value, which the scan cannot tell
	// In a JSON body checkJSON has decoded every \u escape where it is
	// one, and in an XML body checkXML every reference: there the scan
	// covers the other decoder only.
	jsonEsc, xmlRefs := loc != rules.JSON, loc != rules.XML
	// The next '\\' and the next '&' at or after i, each searched for
	// again only once passed: linear however many there are.
	nextBS, nextAmp := -1, -1
	if !jsonEsc {
		nextBS = len(body)
	}
	if !xmlRefs {
		nextAmp = len(body)
	}
	for i := 0; i < len(body); {
		if nextBS < i && nextBS != len(body) {
			nextBS = nextIndex(body, i, '\\')
		}
		if nextAmp < i && nextAmp != len(body) {
			nextAmp = nextIndex(body, i, '&')
		}
		at := min(nextBS, nextAmp)
		if at == len(body) {
			return nil
		}
		var r rune
		n := 0
		if body[at] == '\\' {
			switch {
			case at+1 < len(body) && body[at+1] == '\\':
				i = at + 2 // an escaped backslash: what follows is text
				continue
			case at+1 < len(body) && body[at+1] == 'u':
				if c, size, ok := jsonEscape(body, at); ok {
					r, n = c, size
				}
			}
		} else if at+1 < len(body) && body[at+1] == '#' {
			r, n = xmlRef(body[at:])
		} else if text, size := htmlEntity(body[at:]); size > 0 {
			// Checked as the characters it stands for; the first of a
			// refused class stands for the entity.
			r, n = ' ', size
			for _, c := range text {
				if sanitize.ClassOf(c)&forbid != 0 {
					r = c
					break
				}
			}
		}
		if n == 0 {
			i = at + 1
			continue
		}
		var e *sanitize.Error
		switch {
		case utf16IsSurrogate(r):
			e = &sanitize.Error{Reason: sanitize.Surrogate, Offset: at}
		case r > utf8.MaxRune:
			e = &sanitize.Error{Reason: sanitize.OutOfRange, Offset: at}
		default:
			if cl := sanitize.ClassOf(r) & forbid; cl != 0 {
				e = &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: at, Class: cl}
			}
		}
		if e != nil {
			e.Offset += off
			rj := reject(e, loc, "", body)
			rj.Sample = sample(body, at)
			return rj
		}
		i = at + n
	}
	return nil
}

// htmlEntity reads the reference to a name of xml.HTMLEntity at the start
// of p, which is '&': the name, as letters and digits, then ';'. It
// returns the text the name stands for and the reference's length, or 0
// when p starts with no such reference. encoding/xml reads a reference's
// name up to the first octet that cannot be in a name and takes it only
// when ';' follows; every name of xml.HTMLEntity is letters and digits.
func htmlEntity(p []byte) (string, int) {
	j := 1
	for j < len(p) && j <= maxHTMLEntityName && isASCIIAlnum(p[j]) {
		j++
	}
	if j == 1 || j >= len(p) || p[j] != ';' {
		return "", 0
	}
	text, ok := xml.HTMLEntity[string(p[1:j])]
	if !ok {
		return "", 0
	}
	return text, j + 1
}

// maxHTMLEntityName is the length of the longest name of xml.HTMLEntity.
var maxHTMLEntityName = func() int {
	n := 0
	for name := range xml.HTMLEntity {
		n = max(n, len(name))
	}
	return n
}()

func isASCIIAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z'
}
