package bench

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
)

// mwBoundary is the boundary of every multipart body here.
const mwBoundary = "hostile-mw-boundary-7f3a"

// mwProse is benign running text: NFC, mixed scripts, nothing any route
// refuses.
var mwProse = []string{
	"Lorem ipsum dolor sit amet, été à Zürich, straße und Müßiggang. ",
	"Привет мир, как дела? Съешь же ещё этих мягких французских булок. ",
	"你好世界，今天天气很好。日本語のテキストも少し。 ",
	"Ζωή Ångström écrit « naïve café » — déjà vu. ",
	"Consectetur adipiscing elit, sed do eiusmod tempor incididunt 12345. ",
}

// mwProseOf returns at least n octets of mwProse, starting at sentence i.
func mwProseOf(n, i int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(mwProse[i%len(mwProse)])
		i++
	}
	return b.String()
}

// mwFit returns b, which must be at most n octets long, padded with pad to
// exactly n octets and then end; it panics if b and end are longer.
func mwFit(b *bytes.Buffer, n int, pad byte, end string) []byte {
	if k := n - len(end) - b.Len(); k > 0 {
		b.Write(bytes.Repeat([]byte{pad}, k))
	}
	b.WriteString(end)
	if b.Len() != n {
		panic(fmt.Sprintf("input of %d octets, want %d", b.Len(), n))
	}
	return b.Bytes()
}

// mwRepeatTo writes head, then unit as often as fits in n octets less
// len(tail) and len(head), then pads with pad and writes tail.
func mwRepeatTo(n int, head, unit, tail string, pad byte) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for b.Len()+len(unit)+len(tail) <= n {
		b.WriteString(unit)
	}
	return mwFit(&b, n, pad, tail)
}

// mwPairsText returns an application/x-www-form-urlencoded text of exactly
// n octets: fields named by name(i), each value val(i, room) escaped,
// where room is the octets of escaped value the field may take, fields
// many at most, the last of them a field "z" padded with 'x'.
func mwPairsText(n, fields int, name func(i int) string, val func(i, room int) string) []byte {
	var b bytes.Buffer
	for i := 0; i < fields-1; i++ {
		key := url.QueryEscape(name(i))
		// What is left, shared among the fields still to come, and the
		// final pad's few octets.
		room := (n-b.Len()-8)/(fields-1-i) - len(key) - 2
		if room < 8 {
			break
		}
		v := val(i, room)
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(key + "=" + v)
	}
	if b.Len() >= n {
		panic(fmt.Sprintf("pairs of %d octets, want %d", b.Len(), n))
	}
	if b.Len() > 0 && b.Len()+len("&z=") <= n {
		b.WriteString("&z=")
	}
	return mwFit(&b, n, 'x', "")
}

// mwEscapedProse returns mwProse, query-escaped, cut at an escape boundary
// to at most room octets.
func mwEscapedProse(i, room int) string {
	s := url.QueryEscape(mwProseOf(room, i))
	return mwCutEscaped(s, room)
}

// mwCutEscaped cuts the escaped text s to at most n octets, at a character
// boundary of the text it encodes.
func mwCutEscaped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	// Back to the start of an escape, then back over continuation octets
	// (%80 to %BF) to the first octet of a character.
	if k := strings.LastIndexByte(s, '%'); k >= 0 && k > len(s)-3 {
		s = s[:k]
	}
	for len(s) >= 3 && s[len(s)-3] == '%' && strings.ContainsRune("89ABab", rune(s[len(s)-2])) {
		s = s[:len(s)-3]
	}
	if len(s) >= 3 && s[len(s)-3] == '%' && s[len(s)-2] >= 'C' {
		s = s[:len(s)-3] // a lead octet without its continuations
	}
	return s
}

// mwBenign returns the benign text of n octets for an entry point.
func mwBenign(e mwEntry, n int) []byte {
	switch e {
	case mwQuery, mwForm:
		// A form a person fills in: short fields, then a few long text
		// fields as large as the field limit allows, at most 200 fields.
		short := []string{"name", "Zoë Ångström", "email", "zoe@example.com", "city", "Zürich",
			"nick", "zoë", "user", "zoe", "lang", "de-CH", "page", "2"}
		return mwPairsText(n, min(200, max(len(short)/2+1, n/(16<<10)+len(short)/2)),
			func(i int) string {
				if 2*i < len(short) {
					return short[2*i]
				}
				return fmt.Sprintf("comment%d", i)
			},
			func(i, room int) string {
				if 2*i < len(short) {
					return mwCutEscaped(url.QueryEscape(short[2*i+1]), room)
				}
				return mwEscapedProse(i, min(room, 60<<10))
			})
	case mwJSON:
		return hostileBenign(n)
	case mwXML:
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<users>")
		for i := 0; ; i++ {
			rec := fmt.Sprintf(`<user id="%d" lang="de"><name>Zoë Ångström %d</name><email>zoe%d@example.com</email>`+
				`<bio>Lorem ipsum, été über straße &amp; Привет мир, 你好世界</bio><tags><tag>café</tag><tag>naïve</tag></tags></user>`+"\n",
				i, i, i)
			if b.Len()+len(rec)+len("<pad></pad></users>") > n {
				break
			}
			b.WriteString(rec)
		}
		b.WriteString("<pad>")
		return mwFit(&b, n, 'x', "</pad></users>")
	case mwMultipart:
		// A profile form with an uploaded text file that takes the rest.
		var m mwMPBuilder
		for _, f := range [][2]string{{"name", "Zoë Ångström"}, {"email", "zoe@example.com"},
			{"nick", "zoë"}, {"user", "zoe"}, {"bio", mwProseOf(300, 0)}} {
			m.field(f[0], f[1])
		}
		m.open(`Content-Disposition: form-data; name="notes"; filename="notes.txt"`, "Content-Type: text/plain; charset=utf-8")
		room := n - m.Len() - len("\r\n--"+mwBoundary+"--\r\n")
		notes := mwProseOf(room, 1)[:room]
		for notes[len(notes)-1] >= 0x80 {
			notes = notes[:len(notes)-1]
		}
		m.WriteString(notes)
		return m.close(n, ' ')
	}
	s := mwProseOf(n, 0)[:n]
	for s[len(s)-1] >= 0x80 {
		s = s[:len(s)-1]
	}
	var b bytes.Buffer
	b.WriteString(s)
	return mwFit(&b, n, ' ', "")
}

// mwMPBuilder writes a multipart body with mwBoundary.
type mwMPBuilder struct{ bytes.Buffer }

// part writes one part: its header lines, then its content.
func (m *mwMPBuilder) part(header []string, content string) {
	m.WriteString("--" + mwBoundary + "\r\n")
	for _, h := range header {
		m.WriteString(h + "\r\n")
	}
	m.WriteString("\r\n" + content + "\r\n")
}

// field writes a form field.
func (m *mwMPBuilder) field(name, value string) {
	m.part([]string{`Content-Disposition: form-data; name="` + name + `"`}, value)
}

// close writes the closing delimiter, padding the last part's content
// with pad so that the body is n octets; the last part must be open
// (written with open).
func (m *mwMPBuilder) close(n int, pad byte) []byte {
	return mwFit(&m.Buffer, n, pad, "\r\n--"+mwBoundary+"--\r\n")
}

// open writes a part's delimiter and header, leaving its content to come.
func (m *mwMPBuilder) open(header ...string) {
	m.WriteString("--" + mwBoundary + "\r\n")
	for _, h := range header {
		m.WriteString(h + "\r\n")
	}
	m.WriteString("\r\n")
}

// mwMPFields returns a multipart body of n octets of count fields named by
// name(i), each with the content val(i, room), room the octets it may
// take; the last part is padded with pad.
func mwMPFields(n, count int, name func(i int) string, val func(i, room int) string, pad string) []byte {
	var m mwMPBuilder
	per := n/count - 80
	for i := 0; i < count-1; i++ {
		m.field(name(i), val(i, per))
	}
	m.open(`Content-Disposition: form-data; name="` + name(count-1) + `"`)
	room := n - m.Len() - len("\r\n--"+mwBoundary+"--\r\n")
	v := val(count-1, room)
	for len(v) > room {
		v = v[:len(v)-1]
	}
	m.WriteString(v)
	return m.close(n, pad[0])
}

// mwRepeatRunes returns s repeated to at most room octets.
func mwRepeatRunes(s string, room int) string {
	return strings.Repeat(s, max(0, room/len(s)))
}

const (
	mwNFDE   = "e\u0301"      // e and COMBINING ACUTE ACCENT: NFC makes é
	mwAcute  = "\u0301"       // COMBINING ACUTE ACCENT
	mwFDFA   = "\ufdfa"       // 3 octets, 33 in NFKC
	mwFullA  = "\uff21"       // FULLWIDTH A: "A" in NFKC
	mwEscNFD = "e%CC%81"      // mwNFDE, query-escaped
	mwEscE   = "%C3%A9"       // é, query-escaped
	mwJSONU  = `\u0065\u0301` // mwNFDE as JSON escapes
)

// mwMPNested returns a multipart body of n octets nested depth times: at
// each level fields of text (as many as the field limit needs) and a
// file part holding the next level.
func mwMPNested(n, depth int, text string) []byte {
	per := n/(depth+1) - 600
	fields := func(w *bytes.Buffer, boundary string) {
		for left := per; left > 0; left -= 32 << 10 {
			w.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\n")
			w.WriteString(mwRepeatRunes(text, min(left, 32<<10)) + "\r\n")
		}
	}
	var inner []byte
	for d := depth; d >= 1; d-- {
		var m bytes.Buffer
		b := fmt.Sprintf("%s-%d", mwBoundary, d)
		fields(&m, b)
		if inner != nil {
			// A file part: a field is as long as FieldBytes at most.
			m.WriteString("--" + b + "\r\nContent-Disposition: attachment; filename=\"n.txt\"\r\nContent-Type: multipart/mixed; boundary=" +
				fmt.Sprintf("%s-%d", mwBoundary, d+1) + "\r\n\r\n")
			m.Write(inner)
			m.WriteString("\r\n")
		}
		m.WriteString("--" + b + "--\r\n")
		inner = m.Bytes()
	}
	var m mwMPBuilder
	fields(&m.Buffer, mwBoundary)
	m.part([]string{`Content-Disposition: form-data; name="nested"; filename="n.txt"`,
		"Content-Type: multipart/mixed; boundary=" + mwBoundary + "-1"}, string(inner))
	m.open(`Content-Disposition: form-data; name="z"`)
	return m.close(n, 'x')
}
