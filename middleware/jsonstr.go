package middleware

import "unicode/utf8"

// appendJSONUnquote appends the text of the JSON string literal content raw
// (what lies between the quotes) to dst, with its escapes decoded: a
// well-formed surrogate pair becomes its supplementary character. It
// reports false for an escape that is not JSON or a lone surrogate; the
// middleware has rejected or repaired those before it rewrites a body.
func appendJSONUnquote(dst, raw []byte) ([]byte, bool) {
	for j := 0; j < len(raw); {
		c := raw[j]
		if c != '\\' {
			k := j + 1
			for k < len(raw) && raw[k] != '\\' {
				k++
			}
			dst = append(dst, raw[j:k]...)
			j = k
			continue
		}
		r, size, ok := jsonEscape(raw, j)
		if !ok || utf16IsSurrogate(r) {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
		j += size
	}
	return dst, true
}

// appendJSONQuote appends s as a JSON string literal, quotes included. It
// escapes only what JSON requires ('"', '\' and the C0 controls) and
// writes every other character as itself, so the literal is as close to
// the text as JSON allows.
func appendJSONQuote(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	lit := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[lit:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		lit = i + 1
	}
	dst = append(dst, s[lit:]...)
	return append(dst, '"')
}

// jsonQuotedLen returns len(appendJSONQuote(nil, s)).
func jsonQuotedLen(s []byte) int {
	n := len(s) + 2
	for _, c := range s {
		switch {
		case c >= 0x20 && c != '"' && c != '\\':
		case c == '"', c == '\\', c == '\n', c == '\r', c == '\t':
			n++
		default:
			n += 5
		}
	}
	return n
}

// appendFoldKey appends foldKey(s) to dst: every character replaced by
// the representative of its case-folding orbit, an ASCII letter by its
// lower case.
func appendFoldKey(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += size
	}
	return dst
}
