package escape

import (
	"bytes"
	"encoding/base64"
	"net/url"

	"github.com/utf8guard/utf8guard/sanitize"
)

// binaryEscapes returns the first YAML binary scalar in p that a YAML
// decoder would hand a handler as text no check saw, or nil. A scalar
// tagged as binary is base64, and a YAML decoder decodes it: yaml.v3 into
// a Go string, whatever its octets. So its decoded octets are checked as
// the text around it is, and one that is not well-formed UTF-8, or holds a
// character of a class in forbid, refuses the body, with the reason and
// class of what it holds, at the offset of the tag.
//
// It fails closed where a document could mean binary: a tag is taken for
// binary when it ends in "!binary" (!!binary, a %TAG handle's !x!binary,
// and the local !binary too), when it is a verbatim tag, percent-decoded,
// that ends in ":binary" (!<tag:yaml.org,2002:binary>, ...%62inary>), or
// when it is a %TAG handle whose prefix is the start of the core schema's
// binary tag, followed by the rest of it (%TAG !x! tag:yaml.org,2002:bi,
// then !x!nary). The scalar is the first base64 text after the tag and
// its properties (an anchor, a block indicator, comments, line breaks),
// quoted or not, read both alone and joined with the base64 lines that
// follow (a block scalar, a plain one over lines): either reading that
// decodes counts. Text a decoder refuses as base64 reads nothing.
func binaryEscapes(p []byte, forbid sanitize.Class) *sanitize.Error {
	if bytes.IndexByte(p, '!') < 0 {
		return nil
	}
	var first *sanitize.Error
	for _, tag := range binaryTags(p) {
		for i := 0; ; {
			k := bytes.Index(p[i:], tag)
			if k < 0 {
				break
			}
			at, end := i+k, i+k+len(tag)
			i = end
			if end < len(p) && !isYAMLSpace(p[end]) && !bytes.ContainsRune([]byte(`"',]}&`), rune(p[end])) {
				continue // a longer tag
			}
			for at > 0 && (p[at-1] == '!' || isWordByte(p[at-1])) {
				at-- // the handle's start: !!binary, !x!binary
			}
			for _, text := range yamlScalars(p, end) {
				data, err := base64.StdEncoding.DecodeString(string(text))
				if err != nil || len(data) == 0 {
					continue
				}
				if err := sanitize.Check(data, forbid); err != nil {
					e := err.(*sanitize.Error)
					e.Offset = at
					first = earlier(first, e)
					break
				}
			}
		}
	}
	if first != nil {
		return first
	}
	return verbatimBinary(p, forbid)
}

// binaryTags returns the tags, as written, that binaryEscapes takes for
// binary in p: "!binary", and for each %TAG directive whose prefix starts
// the core schema's binary tag, its handle followed by the rest.
func binaryTags(p []byte) [][]byte {
	if !bytes.Contains(p, yamlTagDirective) {
		return plainBinaryTag // the common case: nothing to allocate
	}
	tags := plainBinaryTag[:1:1]
	for i := 0; ; {
		k := bytes.Index(p[i:], yamlTagDirective)
		if k < 0 {
			return tags
		}
		line := p[i+k:]
		if e := bytes.IndexByte(line, '\n'); e >= 0 {
			line = line[:e]
		}
		i += k + 4
		f := bytes.Fields(line)
		if len(f) < 3 {
			continue
		}
		prefix, err := url.PathUnescape(string(f[2]))
		if err != nil {
			continue
		}
		const core = "tag:yaml.org,2002:binary"
		if len(prefix) < len(core) && core[:len(prefix)] == prefix {
			tags = append(tags, append(append([]byte(nil), f[1]...), core[len(prefix):]...))
		}
	}
}

var (
	plainBinaryTag   = [][]byte{[]byte("!binary")}
	yamlTagDirective = []byte("%TAG")
	verbatimTagOpen  = []byte("!<")
)

// verbatimBinary checks the scalars of the verbatim tags of p, !<...>,
// whose percent-decoded text ends in ":binary", as binaryEscapes checks
// the others.
func verbatimBinary(p []byte, forbid sanitize.Class) *sanitize.Error {
	for i := 0; ; {
		k := bytes.Index(p[i:], verbatimTagOpen)
		if k < 0 {
			return nil
		}
		at := i + k
		e := bytes.IndexByte(p[at:], '>')
		if e < 0 {
			return nil
		}
		end := at + e + 1
		i = end
		tag, err := url.PathUnescape(string(p[at+2 : end-1]))
		if err != nil || len(tag) < len(":binary") || tag[len(tag)-len(":binary"):] != ":binary" {
			continue
		}
		for _, text := range yamlScalars(p, end) {
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
}

// yamlScalars returns the readings of the base64 scalar after a tag that
// ends at p[end]: past its properties (spaces, line breaks, an anchor, a
// block indicator, comments), the first base64 text, quoted or not; and
// that text joined with the lines after it that hold base64 only.
func yamlScalars(p []byte, j int) [][]byte {
	for j < len(p) {
		switch c := p[j]; {
		case isYAMLSpace(c):
			j++
		case c == '&' || c == '|' || c == '>':
			for j++; j < len(p) && !isYAMLSpace(p[j]); j++ {
			}
		case c == '#':
			for j < len(p) && p[j] != '\n' {
				j++
			}
		default:
			goto scalar
		}
	}
	return nil
scalar:
	if q := p[j]; q == '"' || q == '\'' {
		var out []byte
		for j++; j < len(p) && p[j] != q; j++ {
			if isBase64(p[j]) {
				out = append(out, p[j])
			}
		}
		return [][]byte{out}
	}
	k := j
	for k < len(p) && isBase64(p[k]) {
		k++
	}
	one := p[j:k]
	joined := append([]byte(nil), one...)
	for k < len(p) {
		// To the end of the line, then every following line of base64
		// alone.
		for k < len(p) && p[k] != '\n' {
			k++
		}
		s := k + 1
		for s < len(p) && (p[s] == ' ' || p[s] == '\t') {
			s++
		}
		e := s
		for e < len(p) && isBase64(p[e]) {
			e++
		}
		if e == s || e < len(p) && p[e] != '\n' && p[e] != '\r' {
			break
		}
		joined = append(joined, p[s:e]...)
		k = e
	}
	return [][]byte{one, joined}
}

// isBase64 reports whether c is of the base64 alphabet.
func isBase64(c byte) bool { return isASCIIAlnum(c) || c == '+' || c == '/' || c == '=' }

func isYAMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
