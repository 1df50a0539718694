package middleware

import (
	"bytes"
	"encoding/base64"

	"github.com/utf8guard/utf8guard/sanitize"
)

// binaryEscapes returns the first YAML binary scalar in p that a YAML
// decoder would hand a handler as text no check saw, or nil. A scalar
// tagged !!binary (or !<tag:yaml.org,2002:binary>, or a handle of a %TAG
// directive, !x!binary) is base64, and a YAML decoder decodes it: yaml.v3
// into a Go string, whatever its octets. So its decoded octets are checked
// as the text around it is, and one that is not well-formed UTF-8, or
// holds a character of a class in forbid, refuses the body, with the
// reason and class of what it holds, at the offset of the tag. A scalar
// whose text is not base64 a decoder refuses, and reads nothing of.
func binaryEscapes(p []byte, forbid sanitize.Class) *sanitize.Error {
	for i := 0; ; {
		k := bytes.Index(p[i:], yamlBinary)
		if k < 0 {
			return nil
		}
		at, end := i+k, i+k+len(yamlBinary)
		i = end
		// A tag: a handle before it (!!, !x!), or the verbatim form.
		switch {
		case at > 0 && p[at-1] == '!':
			at--
			for at > 0 && isWordByte(p[at-1]) || at > 0 && p[at-1] == '!' {
				at--
			}
		case bytes.HasSuffix(p[:at], yamlCore) && end < len(p) && p[end] == '>':
			at -= len(yamlCore)
			end++
		default:
			continue
		}
		if end < len(p) && !isYAMLSpace(p[end]) && p[end] != '"' && p[end] != '\'' {
			continue // a longer tag
		}
		text := yamlScalar(p, at, end)
		data, err := base64.StdEncoding.DecodeString(string(text))
		if err != nil || len(data) == 0 {
			continue
		}
		if err := sanitize.Check(data, forbid); err != nil {
			e := err.(*sanitize.Error)
			e.Offset = at
			return e
		}
	}
}

var (
	yamlBinary = []byte("binary")
	yamlCore   = []byte("!<tag:yaml.org,2002:")
)

// yamlScalar returns the base64 text of the scalar after the tag at
// p[at:end]: a quoted one to its closing quote, a plain one to its line's
// end, and a block one (| or >) over the lines after the tag's that are
// indented further; a plain one continues there too, as YAML folds it.
// Spaces and line breaks are left out, as a decoder leaves them out of
// base64.
func yamlScalar(p []byte, at, end int) []byte {
	lineStart := at
	for lineStart > 0 && p[lineStart-1] != '\n' {
		lineStart--
	}
	indent := 0
	for lineStart+indent < len(p) && p[lineStart+indent] == ' ' {
		indent++
	}
	var out []byte
	j := end
	for j < len(p) && (p[j] == ' ' || p[j] == '\t') {
		j++
	}
	if j < len(p) && (p[j] == '"' || p[j] == '\'') {
		q := p[j]
		for j++; j < len(p) && p[j] != q; j++ {
			out = appendBase64(out, p[j])
		}
		return out
	}
	// The rest of the tag's line (a block indicator is no base64), then
	// the lines indented further.
	for ; j < len(p) && p[j] != '\n'; j++ {
		if p[j] == '#' {
			break // a comment
		}
		out = appendBase64(out, p[j])
	}
	for j < len(p) {
		line := j + 1
		k := line
		for k < len(p) && p[k] == ' ' {
			k++
		}
		if k < len(p) && p[k] != '\n' && k-line <= indent {
			break // a line indented no further: the scalar has ended
		}
		for j = k; j < len(p) && p[j] != '\n'; j++ {
			out = appendBase64(out, p[j])
		}
	}
	return out
}

// appendBase64 appends c to out if it is of the base64 alphabet.
func appendBase64(out []byte, c byte) []byte {
	if isASCIIAlnum(c) || c == '+' || c == '/' || c == '=' {
		return append(out, c)
	}
	return out
}

func isYAMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
