package media

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/utf8guard/utf8guard/middleware/internal/octets"
)

// ContentType splits a Content-Type value into its type and subtype, lower
// case, and its charset parameter, exactly as mime.ParseMediaType reads
// them (and so Request.ParseForm, Request.MultipartReader and the handlers
// that call it): quoted strings, RFC 2231 continuations and "charset*"
// included. A value mime.ParseMediaType refuses gives three empty strings.
// It does not allocate for the most common values.
func ContentType(ct string) (typ, sub, charset string) {
	typ, sub, charset, _ = Parse(ct)
	return typ, sub, charset
}

// Parse is ContentType that also reports whether ct parses: an
// empty ct does (no media type), a value mime.ParseMediaType refuses does
// not.
func Parse(ct string) (typ, sub, charset string, ok bool) {
	// The most common values, without the general parse below.
	switch ct {
	case "":
		return "", "", "", true
	case "application/json":
		return "application", "json", "", true
	case "application/json; charset=utf-8", "application/json;charset=utf-8":
		return "application", "json", "utf-8", true
	case "application/json; charset=UTF-8":
		return "application", "json", "UTF-8", true
	case "application/x-www-form-urlencoded":
		return "application", "x-www-form-urlencoded", "", true
	case "text/plain; charset=utf-8":
		return "text", "plain", "utf-8", true
	}
	if typ, sub, charset, ok := simpleMediaType(ct); ok {
		return typ, sub, charset, true
	}
	mt, params, ok := Read(ct)
	if !ok {
		return "", "", "", false
	}
	typ, sub, _ = strings.Cut(mt, "/")
	return typ, sub, params["charset"], true
}

// simpleMediaType parses, without allocating, the Content-Type values
// whose reading by mime.ParseMediaType is plain: a lower-case type/subtype
// of token characters, optionally followed by one parameter
// "charset=token" (the name in any case), with spaces and tabs around the
// parts. It reports false for every other value, which Parse
// leaves to mime.ParseMediaType itself (TestSimpleMediaType and
// FuzzMediaType hold the two to the same answers).
func simpleMediaType(ct string) (typ, sub, charset string, ok bool) {
	mt, param, hasParam := strings.Cut(ct, ";")
	typ, sub, slash := strings.Cut(trimSpaceTab(mt), "/")
	if !slash || !isLowerToken(typ) || !isLowerToken(sub) {
		return "", "", "", false
	}
	if !hasParam {
		return typ, sub, "", true
	}
	k, v, eq := strings.Cut(param, "=")
	k, v = trimSpaceTab(k), trimSpaceTab(v)
	if !eq || len(k) != len("charset") || !strings.EqualFold(k, "charset") || !isToken(v) {
		return "", "", "", false
	}
	return typ, sub, v, true
}

// trimSpaceTab trims the white space mime.ParseMediaType trims around the
// parts of a media type that matter here: SP and HTAB. (It trims any
// Unicode white space; a value holding other white space is not simple.)
func trimSpaceTab(s string) string { return strings.Trim(s, " \t") }

// isToken reports whether s is a non-empty RFC 2045 token: ASCII
// printable characters but SP and tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// isLowerToken is isToken without upper-case letters, which
// mime.ParseMediaType would lower-case.
func isLowerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return isToken(s)
}

// UTF8Charset reports whether a declared charset leaves the body UTF-8:
// none declared, UTF-8 or US-ASCII (a subset), under their common names.
func UTF8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// Read reads a Content-Type or Content-Disposition value as
// mime.ParseMediaType does, and so as multipart.Part.FormName and
// FileName, Request.ParseMultipartForm and every handler that calls
// ParseMediaType read a part's header: the media type or disposition type,
// lower case, and the parameters, RFC 2231 extended values and
// continuations decoded. ok is ParseMediaType's err == nil; where it is
// false, mediatype is what ParseMediaType returns with its error ("" or
// the type) and params is nil. FuzzReadMediaType holds the two to the same
// answers.
//
// Only the cost differs. ParseMediaType builds every quoted value one
// octet at a time, in memory that grows by about a quarter each time it
// is full: some five times the value's length allocated, on every call,
// where a part's header can carry a parameter as long as the body allows.
// Here a quoted value without an escape is the header's own octets, one
// with escapes is built in memory of its length, and the pieces of a
// continued value are joined in memory of their total length.
func Read(v string) (mediatype string, params map[string]string, ok bool) {
	base, _, _ := strings.Cut(v, ";")
	mediatype = strings.TrimSpace(strings.ToLower(base))
	if !typeOrDisposition(mediatype) {
		return "", nil, false
	}
	var arr [8]Param
	ps, good := Params(arr[:0], v)
	params = make(map[string]string)
	// The parameters whose name holds a '*', by the name before it.
	var continued map[string]map[string]string
	for _, mp := range ps {
		key, value := mp.Key, v[mp.ValueStart:mp.ValueEnd]
		if value[0] == '"' {
			value = Unquote(value[1 : len(value)-1])
		}
		pm := params
		if name, _, star := strings.Cut(key, "*"); star {
			if continued == nil {
				continued = make(map[string]map[string]string)
			}
			if pm = continued[name]; pm == nil {
				pm = make(map[string]string)
				continued[name] = pm
			}
		}
		if old, dup := pm[key]; dup && old != value {
			return "", nil, false // the same name twice, with other values
		}
		pm[key] = value
	}
	if !good {
		// Refused after the parameters before it, as ParseMediaType
		// reads them in order: a duplicate among those comes first.
		return mediatype, nil, false
	}
	for name, pieces := range continued {
		if ext, ok := pieces[name+"*"]; ok {
			if dec, ok := decode2231(ext); ok {
				params[name] = dec
			}
			continue
		}
		if s, ok := joinPieces(name, pieces); ok {
			params[name] = s
		}
	}
	return mediatype, params, true
}

// typeOrDisposition reports whether mt, lower case and trimmed, is a
// media type ("type/subtype") or a disposition type (one token) as
// mime.ParseMediaType takes it.
func typeOrDisposition(mt string) bool {
	typ, rest := cutToken(mt)
	if typ == "" {
		return false
	}
	if rest == "" {
		return true
	}
	rest, slash := strings.CutPrefix(rest, "/")
	if !slash {
		return false
	}
	sub, rest := cutToken(rest)
	return sub != "" && rest == ""
}

// cutToken splits v after the token it starts with, possibly empty.
func cutToken(v string) (token, rest string) {
	for i := 0; i < len(v); i++ {
		if !IsTokenByte(v[i]) {
			return v[:i], v[i:]
		}
	}
	return v, ""
}

// Unquote returns the text of a quoted string, q without its quotes, as
// mime.ParseMediaType reads it: a backslash before a tspecial stands for
// the tspecial, any other backslash for itself. Without such an escape it
// is q itself.
func Unquote(q string) string {
	n := 0 // escapes
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+1 < len(q) && IsTSpecial(q[i+1]) {
			n++
			i++
		}
	}
	if n == 0 {
		return q
	}
	b := make([]byte, 0, len(q)-n)
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+1 < len(q) && IsTSpecial(q[i+1]) {
			i++
		}
		b = append(b, q[i])
	}
	return octets.BytesString(b)
}

// decode2231 decodes an RFC 2231 extended value, charset'language'text,
// as mime.ParseMediaType does: only the charsets UTF-8 and US-ASCII (the
// octets are taken as they are), the language ignored.
func decode2231(v string) (string, bool) {
	charset, v, ok := strings.Cut(v, "'")
	if !ok {
		return "", false
	}
	_, text, ok := strings.Cut(v, "'")
	if !ok {
		return "", false
	}
	switch strings.ToLower(charset) {
	case "us-ascii", "utf-8":
	default:
		return "", false
	}
	escapes := percentEscapes(text)
	switch {
	case escapes < 0:
		return "", false
	case escapes == 0:
		return text, true
	}
	return octets.BytesString(appendUnescaped(make([]byte, 0, len(text)-2*escapes), text)), true
}

// joinPieces joins the pieces of the continued parameter name, name*0,
// name*1, ... up to the first missing, each plain or, as name*n*,
// extended (the first with a charset and language, the others
// percent-escaped only), as mime.ParseMediaType joins them: an extended
// piece that does not decode adds nothing. It reports false when there is
// no name*0.
func joinPieces(name string, pieces map[string]string) (string, bool) {
	var kb [64]byte
	key := func(n int, ext bool) []byte {
		k := strconv.AppendInt(append(append(kb[:0], name...), '*'), int64(n), 10)
		if ext {
			k = append(k, '*')
		}
		return k
	}
	// The pieces' total length first, which the joined value is at most:
	// the memory it is joined in.
	n, size := 0, 0
	for ; ; n++ {
		if p, ok := pieces[string(key(n, false))]; ok {
			size += len(p)
		} else if p, ok := pieces[string(key(n, true))]; ok {
			size += len(p)
		} else {
			break
		}
	}
	if n == 0 {
		return "", false
	}
	b := make([]byte, 0, size)
	for i := range n {
		if p, ok := pieces[string(key(i, false))]; ok {
			b = append(b, p...)
			continue
		}
		p := pieces[string(key(i, true))]
		if i == 0 {
			if dec, ok := decode2231(p); ok {
				b = append(b, dec...)
			}
		} else if percentEscapes(p) >= 0 {
			b = appendUnescaped(b, p)
		}
	}
	return octets.BytesString(b), true
}

// percentEscapes returns the number of percent-escapes in s, or -1 when a
// '%' in s does not start an escape of two hex digits (mime's
// percentHexUnescape refuses s then).
func percentEscapes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !octets.IsHex(s[i+1]) || !octets.IsHex(s[i+2]) {
				return -1
			}
			n++
			i += 2
		}
	}
	return n
}

// appendUnescaped appends s, which percentEscapes takes, with its escapes
// decoded.
func appendUnescaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, hexVal(s[i+1])<<4|hexVal(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return b
}

// hexVal is the value of the hex digit c.
func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// Param is where one parameter of a header value stands.
type Param struct {
	Key        string // lower case, as mime.ParseMediaType keys it
	ValueStart int    // the value, as written (quotes included)
	ValueEnd   int
}

// Params finds the parameters of v as mime.ParseMediaType reads
// them, appended to out, or reports false for a value it would refuse,
// with the parameters before the one it refuses.
func Params(out []Param, v string) ([]Param, bool) {
	i := strings.IndexByte(v, ';')
	if i < 0 {
		return nil, true
	}
	for i < len(v) {
		i = skipSpace(v, i)
		if i == len(v) {
			break
		}
		if v[i] != ';' {
			return out, false
		}
		i = skipSpace(v, i+1)
		ks := i
		for i < len(v) && IsTokenByte(v[i]) {
			i++
		}
		if i == ks {
			if strings.TrimSpace(v[ks:]) == "" {
				break // a trailing ';', which mime.ParseMediaType ignores
			}
			return out, false
		}
		key := strings.ToLower(v[ks:i])
		i = skipSpace(v, i)
		if i == len(v) || v[i] != '=' {
			return out, false
		}
		i = skipSpace(v, i+1)
		vs := i
		if i < len(v) && v[i] == '"' {
			end := quotedEnd(v, i)
			if end < 0 {
				return out, false
			}
			i = end
		} else {
			for i < len(v) && IsTokenByte(v[i]) {
				i++
			}
		}
		if i == vs {
			return out, false
		}
		out = append(out, Param{Key: key, ValueStart: vs, ValueEnd: i})
	}
	return out, true
}

// skipSpace skips the white space mime.ParseMediaType skips
// (unicode.IsSpace) from i.
func skipSpace(v string, i int) int {
	return len(v) - len(strings.TrimLeftFunc(v[i:], unicode.IsSpace))
}

// quotedEnd returns the end of the quoted string that starts at v[i], as
// mime's consumeValue reads it (a backslash escapes a tspecial; a line
// break ends it in error), or -1.
func quotedEnd(v string, i int) int {
	for j := i + 1; j < len(v); j++ {
		switch c := v[j]; {
		case c == '"':
			return j + 1
		case c == '\\' && j+1 < len(v) && IsTSpecial(v[j+1]):
			j++
		case c == '\r' || c == '\n':
			return -1
		}
	}
	return -1
}

func IsTSpecial(c byte) bool { return strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 }

func IsTokenByte(c byte) bool { return c > 0x20 && c < 0x7f && !IsTSpecial(c) }
