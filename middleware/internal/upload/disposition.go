package upload

import (
	"maps"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/media"
)

// Rewriting a Content-Disposition in the form the client wrote it. When
// normalization changes a part's field name or file name, the header
// must carry the canonical one. mime.FormatMediaType would write the
// whole header anew: parameters sorted, and a non-ASCII value as an RFC
// 2231 extended value (filename*=utf-8''Caf%C3%A9.jpg), which browsers do
// not send and which some parsers downstream of the handler (other
// languages' form libraries, a proxy, a virus scanner) do not read. So the
// value is replaced where it stands, in the form it had: a quoted string
// stays quoted (filename="Café.jpg", as browsers write it), a token a
// token where the new value is one, an extended value an extended value;
// the other parameters, their order and their spelling are left as they
// came. Where that cannot be done exactly (RFC 2231 continuations, a
// parameter given twice), or the result does not parse back to the same
// parameters with the new values, FormatMediaType's form is the fallback.

// rewriteDisposition returns the header value v, a Content-Disposition of
// type disp, with the parameters named in changed given their values in
// params (the parameters it must parse as, the new values included), in
// the form v wrote them, as the comment above says; false where it
// cannot.
func rewriteDisposition(v, disp string, params map[string]string, changed []string) (string, bool) {
	// A disposition has a few parameters: name, filename, and their
	// extended forms, which fit on the stack.
	var arr [4]media.Param
	ps, ok := media.Params(arr[:0], v)
	if !ok {
		return "", false
	}
	// A plain value is written straight into the result (text empty,
	// value set): a long name is copied once, not once into a value and
	// again into the header.
	type edit struct {
		start, end int
		text       string
		plain      bool
		value      string
	}
	var editArr [4]edit
	edits := editArr[:0]
	for _, key := range changed {
		nv := params[key]
		plain, ext := -1, -1
		for i, p := range ps {
			switch {
			case p.Key == key && plain < 0:
				plain = i
			case p.Key == key+"*" && ext < 0:
				ext = i
			case p.Key == key, p.Key == key+"*", strings.HasPrefix(p.Key, key+"*"):
				return "", false // twice, or in continuations
			}
		}
		if plain < 0 && ext < 0 {
			return "", false
		}
		if plain >= 0 {
			p := ps[plain]
			edits = append(edits, edit{start: p.ValueStart, end: p.ValueEnd, plain: true, value: nv})
		}
		if ext >= 0 {
			p := ps[ext]
			text, ok := extValue(v[p.ValueStart:p.ValueEnd], nv)
			if !ok {
				return "", false
			}
			edits = append(edits, edit{start: p.ValueStart, end: p.ValueEnd, text: text})
		}
	}
	// Apply the edits from the first to the last, into one builder
	// sized for the result.
	for i := range edits {
		for j := i + 1; j < len(edits); j++ {
			if edits[j].start < edits[i].start {
				edits[i], edits[j] = edits[j], edits[i]
			}
		}
	}
	size := len(v)
	for _, e := range edits {
		size += len(e.text) - (e.end - e.start)
		if e.plain {
			size += plainLen(v[e.start:e.end], e.value)
		}
	}
	var b strings.Builder
	b.Grow(size)
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			return "", false // cannot happen: parameters do not overlap
		}
		b.WriteString(v[pos:e.start])
		if e.plain {
			writePlain(&b, v[e.start:e.end], e.value)
		} else {
			b.WriteString(e.text)
		}
		pos = e.end
	}
	b.WriteString(v[pos:])
	out := b.String()
	// It must read back as the parameters meant, and nothing else.
	gotDisp, got, parsed := media.Read(out)
	if !parsed || gotDisp != disp || !maps.Equal(got, params) {
		return "", false
	}
	return out, true
}

// plainToken reports whether nv is written as a token, where old was
// written as one (writePlain).
func plainToken(old, nv string) bool {
	return !strings.HasPrefix(old, `"`) && nv != "" && strings.IndexFunc(nv, func(r rune) bool { return r >= 0x80 || !media.IsTokenByte(byte(r)) }) < 0
}

// plainLen is the length writePlain writes.
func plainLen(old, nv string) int {
	if plainToken(old, nv) {
		return len(nv)
	}
	return len(nv) + 2 + strings.Count(nv, `"`) + strings.Count(nv, `\`)
}

// writePlain writes nv to b as old was written: a quoted string, or a
// token where nv is one.
func writePlain(b *strings.Builder, old, nv string) {
	if plainToken(old, nv) {
		b.WriteString(nv)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(nv); i++ {
		if c := nv[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(nv[i])
	}
	b.WriteByte('"')
}

// extValue writes nv as the RFC 2231 extended value old was written
// (charset'language'percent-encoded, quoted or not), keeping its charset
// name and language; false when old is not one Go decodes.
func extValue(old, nv string) (string, bool) {
	quoted := strings.HasPrefix(old, `"`)
	raw := old
	if quoted {
		raw = old[1 : len(old)-1]
	}
	charset, rest, ok := strings.Cut(raw, "'")
	if !ok {
		return "", false
	}
	lang, _, ok := strings.Cut(rest, "'")
	if !ok || strings.ContainsAny(charset+lang, `\"`) {
		return "", false
	}
	switch strings.ToLower(charset) {
	case "utf-8":
	case "us-ascii":
		for i := 0; i < len(nv); i++ {
			if nv[i] >= 0x80 {
				charset = "utf-8"
				break
			}
		}
	default:
		return "", false
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(charset) + len(lang) + 3*len(nv) + 4) // every octet escaped, at most
	if quoted {
		b.WriteByte('"')
	}
	b.WriteString(charset + "'" + lang + "'")
	for i := 0; i < len(nv); i++ {
		c := nv[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if quoted {
		b.WriteByte('"')
	}
	return b.String(), true
}
