package middleware

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// canonJSON canonicalizes every string and key of a JSON body, escapes
// decoded first: "e\u0301" is normalized as much as a raw e+U+0301. A
// string that changes is written back as a JSON string with only the
// escapes JSON requires; every other octet of the body stays as it was. It
// returns nil when nothing changes.
func (p *policy) canonJSON(body []byte) ([]byte, *Rejection) {
	sc := jsonScanner{p: body, maxDepth: -1}
	var out, buf, ptrBuf []byte
	last := 0
	wantPointer := p.precisLocs&(1<<rules.JSON) != 0
	sc.onString = func(i, end int, isKey bool) *Rejection {
		if end-1 <= i || body[end-1] != '"' {
			return nil // unterminated: the decoder's to report
		}
		raw := body[i+1 : end-1]
		text, escaped := raw, bytes.IndexByte(raw, '\\') >= 0
		if escaped {
			var ok bool
			if buf, ok = appendJSONUnquote(buf[:0], raw); !ok {
				return nil // not JSON: the decoder's to report
			}
			text = buf
		}
		field := ""
		if wantPointer && !isKey {
			field, ptrBuf = p.canonPointer(&sc, ptrBuf)
		}
		nt, changed, rj := p.canonValue(rules.JSON, field, text, !isKey)
		if rj != nil {
			if isKey {
				// The pointer of the member whose key this is.
				sc.inKey, sc.keySpan = true, [2]int{i + 1, end - 1}
			}
			if rj.Field == "" || isKey {
				rj.Field = sc.pointer()
			}
			rj.Offset += i + 1 // into the body, as the other JSON offsets
			if escaped {
				rj.Offset = i + 1 // the offset within decoded text is not the body's
			}
			rj.Sample = sample(body, rj.Offset)
			return rj
		}
		if changed {
			out = append(out, body[last:i]...)
			out = appendJSONQuote(out, nt)
			last = end
		}
		return nil
	}
	if rj := sc.scan(); rj != nil {
		return nil, rj
	}
	if out == nil {
		return nil, nil
	}
	return append(out, body[last:]...), nil
}

// canonPointer returns the RFC 6901 JSON pointer of the value sc is at, as
// the handler sees it: every key with its escapes decoded and in the
// route's normalization form, so that a key written "n\u0061me" or, under
// NFKC, "ｎａｍｅ" names the same field as "name". buf is scratch space,
// returned for reuse.
func (p *policy) canonPointer(sc *jsonScanner, buf []byte) (string, []byte) {
	var b strings.Builder
	for k := range sc.depth {
		f := sc.frame(k)
		b.WriteByte('/')
		switch {
		case f.object && f.hasKey:
			var ok bool
			raw := sc.p[f.key[0]:f.key[1]]
			tok := raw
			if bytes.IndexByte(raw, '\\') >= 0 {
				if buf, ok = appendJSONUnquote(buf[:0], raw); ok {
					tok = buf
				}
			}
			tok = p.form.Bytes(tok)
			for _, c := range tok {
				switch c {
				case '~':
					b.WriteString("~0")
				case '/':
					b.WriteString("~1")
				default:
					b.WriteByte(c)
				}
			}
		case !f.object:
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String(), buf
}
