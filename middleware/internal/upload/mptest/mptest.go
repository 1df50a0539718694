// Package mptest holds what the multipart tests of package upload and of
// package middleware both use: building bodies part by part (Spec, Field,
// Build), reading them as the most trusting handler does (Stream), and
// the oracle's reading of a rebuilt body (CanonParts, SameParts). It is
// imported by tests only.
package mptest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
	"golang.org/x/text/unicode/norm"
)

// Read is one part as the handler's stream read it.
type Read struct {
	Depth      int    // 0 for a part of the body, 1 for a part of a part's nested body, ...
	Name, File string // the name and filename parameters, as mime.ParseMediaType decodes them
	FormName   string // Part.FormName
	FileName   string // Part.FileName
	Header     textproto.MIMEHeader
	Content    []byte
}

// Stream reads every part mr hands out, as a handler that ignores read
// errors and calls NextPart again after one that fails (up to 50 times in
// a row), and the parts of every nested multipart body it finds.
func Stream(mr *multipart.Reader, depth int, out []Read) []Read {
	for fails := 0; fails < 50; {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			fails++
			continue
		}
		fails = 0
		rd := Read{Depth: depth, FormName: part.FormName(), FileName: part.FileName(), Header: part.Header}
		if _, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition")); err == nil {
			rd.Name, rd.File = params["name"], params["filename"]
		}
		rd.Content, _ = io.ReadAll(part) // errors ignored: the content so far is read
		out = append(out, rd)
		if mt, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" && depth < 10 {
			out = Stream(multipart.NewReader(bytes.NewReader(rd.Content), params["boundary"]), depth+1, out)
		}
	}
	return out
}

// IsText is the oracle's own reading of RFC 7578 and the policy: a part
// without a file name is a field, text; a file part is text when it has no
// Content-Type (text/plain, section 4.4) or one whose media type the
// policy lists as text, with no charset or a UTF-8 one. A Content-Type
// without a readable media type is taken as text (fail closed).
func IsText(pol rules.Policy, file string, hdr textproto.MIMEHeader) bool {
	if file == "" {
		return true
	}
	ct := strings.TrimSpace(hdr.Get("Content-Type"))
	if ct == "" {
		return true
	}
	mt, params, _ := mime.ParseMediaType(ct)
	if mt == "" {
		return true
	}
	types := pol.MultipartTextTypes
	if types == nil {
		types = []string{"text/*"}
	}
	listed := false
	for _, pat := range types {
		typ, sub, _ := strings.Cut(strings.ToLower(pat), "/")
		if t, s, _ := strings.Cut(mt, "/"); t == typ && (sub == "*" || sub == s) {
			listed = true
		}
	}
	switch strings.ToLower(params["charset"]) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return listed
	}
	return false
}

// Names lists the field names of a stream, in order.
func Names(parts []Read) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Name)
	}
	return out
}

// Spec is a part to build a body from: raw header lines (each without
// its CRLF) and content, written as they are.
type Spec struct {
	Header []string
	Data   string
}

// Field is a form-data field named name.
func Field(name, data string, header ...string) Spec {
	return Spec{Header: append([]string{`Content-Disposition: form-data; name="` + name + `"`}, header...), Data: data}
}

// Build writes a multipart body delimited by boundary, with nl as line
// break ("\r\n", or "\n" as some clients send).
func Build(boundary, nl string, parts ...Spec) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--" + boundary + nl)
		for _, h := range p.Header {
			b.WriteString(h + nl)
		}
		b.WriteString(nl + p.Data + nl)
	}
	b.WriteString("--" + boundary + "--" + nl)
	return b.String()
}

// QPAll encodes every octet of s as a quoted-printable escape, in lines of
// at most 76 octets joined by soft line breaks: quoted-printable that
// decodes to s.
func QPAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && i%25 == 0 {
			b.WriteString("=\r\n")
		}
		fmt.Fprintf(&b, "=%02X", s[i])
	}
	return b.String()
}

// Smuggled is a part header block and content as an attacker would have
// the rebuilt body carry it: a part named "evil" with its own
// quoted-printable encoding, which Go would decode again to U+202E and
// NUL. Every octet of it passes the strict preset as a field's content.
func Smuggled(nl string) string {
	return `Content-Disposition: form-data; name="evil"` + nl + "Content-Transfer-Encoding: quoted-printable" + nl + nl + "=E2=80=AE=00"
}

func StrictForm(n normalize.Form) func() rules.Policy {
	return func() rules.Policy { p := rules.Strict(); p.Normalization = n; return p }
}

// CanonParts returns the parts a handler must read from the rebuilt form
// of body: the parts Go's reader reads from body itself, the oracle's
// reading of the body as sent, with field names, file names and text
// contents in the form n (golang.org/x/text's norm, not the package under
// test).
func CanonParts(pol rules.Policy, ct, body string) []Read {
	_, params, _ := mime.ParseMediaType(ct)
	parts := Stream(multipart.NewReader(strings.NewReader(body), params["boundary"]), 0, nil)
	form := norm.NFC
	if pol.Normalization == normalize.NFKC {
		form = norm.NFKC
	}
	for i := range parts {
		p := &parts[i]
		if IsText(pol, p.File, p.Header) {
			p.Content = form.Bytes(p.Content)
		}
		p.Name, p.File = form.String(p.Name), form.String(p.File)
	}
	return parts
}

// SameParts reports how the parts the handler read differ from want:
// count, order, names, file names, contents, and every header field but
// the Content-Disposition (rewritten with the canonical names).
func SameParts(got, want []Read) []string {
	var diff []string
	if len(got) != len(want) {
		return []string{fmt.Sprintf("%d parts %q, want %d %q", len(got), Names(got), len(want), Names(want))}
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.File != w.File || g.Depth != w.Depth {
			diff = append(diff, fmt.Sprintf("part %d: name %+q file %+q depth %d, want %+q %+q %d", i, g.Name, g.File, g.Depth, w.Name, w.File, w.Depth))
		}
		gh, wh := maps.Clone(g.Header), maps.Clone(w.Header)
		delete(gh, "Content-Disposition")
		delete(wh, "Content-Disposition")
		if mt, _, _ := mime.ParseMediaType(w.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") {
			// A nested body: rebuilt with a boundary of its own, its
			// parts compared one by one.
			delete(gh, "Content-Type")
			delete(wh, "Content-Type")
			g.Content, w.Content = nil, nil
		}
		if !maps.EqualFunc(gh, wh, slices.Equal) {
			diff = append(diff, fmt.Sprintf("part %d header %q, want %q", i, gh, wh))
		}
		if !bytes.Equal(g.Content, w.Content) {
			diff = append(diff, fmt.Sprintf("part %d content %+q, want %+q", i, g.Content, w.Content))
		}
	}
	return diff
}

// HeaderLines returns the header lines of a form-data field named name
// with extra more lines after its Content-Disposition.
func HeaderLines(name string, extra int) []string {
	h := []string{`Content-Disposition: form-data; name="` + name + `"`}
	for i := range extra {
		h = append(h, fmt.Sprintf("X-H%d: v", i))
	}
	return h
}

// File is a file of the parsed form.
type File struct {
	Field, Filename string
	Header          textproto.MIMEHeader
	Content         []byte
}

// Seen is what the handler read.
type Seen struct {
	ContentType string
	Body        []byte
	Stream      []Read
	Form        map[string][]string // the form's multipart values (c.FormParams holds them)
	Files       []File
	FormErr     error
}

// Collect reads r as the handler does: the octets, then the form with
// parseForm (for multipart/form-data, the one type the form parsers take),
// then the stream of parts.
func Collect(r *http.Request, parseForm func(*http.Request) (map[string][]string, *multipart.Form, error)) *Seen {
	s := &Seen{ContentType: r.Header.Get("Content-Type")}
	s.Body, _ = io.ReadAll(r.Body)
	mt, _, _ := mime.ParseMediaType(s.ContentType)
	if mt == "multipart/form-data" {
		r.Body = io.NopCloser(bytes.NewReader(s.Body))
		var mf *multipart.Form
		s.Form, mf, s.FormErr = parseForm(r)
		if mf != nil {
			for field, fhs := range mf.File {
				for _, fh := range fhs {
					f := File{Field: field, Filename: fh.Filename, Header: fh.Header}
					if rc, err := fh.Open(); err == nil {
						f.Content, _ = io.ReadAll(rc)
						_ = rc.Close()
					}
					s.Files = append(s.Files, f)
				}
			}
			_ = mf.RemoveAll()
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(s.Body))
	r.MultipartForm, r.Form, r.PostForm = nil, nil, nil
	if mr, err := r.MultipartReader(); err == nil {
		s.Stream = Stream(mr, 0, nil)
	}
	return s
}

// Oracle reports every value the handler read that the policy refuses:
// names (field names, file names, header values) under the multipart and
// header classes, text contents under the multipart classes, and, on a
// route that normalizes, every name and text content not in the route's
// form.
func Oracle(pol rules.Policy, s *Seen) []string {
	var bad []string
	names := pol.Multipart.Forbid | pol.Header.Forbid
	var form norm.Form
	normal := pol.Normalization != normalize.None && pol.Mode == rules.Enforce
	if pol.Normalization == normalize.NFKC {
		form = norm.NFKC
	}
	decoded := func(what, v string) {
		for _, d := range Decoded(v) {
			if err := sanitize.CheckString(d, names); err != nil {
				bad = append(bad, fmt.Sprintf("%s %+q, decoded %+q: %v", what, v, d, err))
			}
		}
	}
	name := func(what, v string) {
		if err := sanitize.CheckString(v, names); err != nil {
			bad = append(bad, fmt.Sprintf("%s %+q: %v", what, v, err))
		}
		decoded(what, v)
		if normal && !form.IsNormalString(v) {
			bad = append(bad, fmt.Sprintf("%s %+q: not in %v", what, v, pol.Normalization))
		}
	}
	text := func(what string, v []byte) {
		if err := sanitize.Check(v, pol.Multipart.Forbid); err != nil {
			bad = append(bad, fmt.Sprintf("%s %+q: %v", what, v, err))
		}
		if normal && !form.IsNormal(v) {
			bad = append(bad, fmt.Sprintf("%s %+q: not in %v", what, v, pol.Normalization))
		}
	}
	header := func(what string, hdr textproto.MIMEHeader) {
		for k, vs := range hdr {
			if len(vs) > 1 && pol.RefuseAmbiguousParts {
				bad = append(bad, fmt.Sprintf("%s header %s given %d times", what, k, len(vs)))
			}
			for _, v := range vs {
				if err := sanitize.CheckString(v, names); err != nil {
					bad = append(bad, fmt.Sprintf("%s header %s %+q: %v", what, k, v, err))
				}
				decoded(what+" header "+k, v)
			}
		}
	}
	for i, p := range s.Stream {
		what := fmt.Sprintf("stream part %d", i)
		name(what+" name", p.Name)
		name(what+" filename", p.File)
		name(what+" FileName", p.FileName)
		header(what, p.Header)
		if IsText(pol, p.File, p.Header) {
			text(what+" content", p.Content)
		}
	}
	for k, vs := range s.Form {
		name("form key", k)
		for _, v := range vs {
			text("form value of "+k, []byte(v))
		}
	}
	for _, f := range s.Files {
		name("file field", f.Field)
		name("file name", f.Filename)
		header("file "+f.Field, f.Header)
		if IsText(pol, f.Filename, f.Header) {
			text("file content of "+f.Field, f.Content)
		}
	}
	return bad
}

// Decoded returns the texts that decoders a handler may hand a name or
// header value to read in it: encoding/xml's, lenient and with HTML's
// entities, reading it as an element's text; and encoding/json's reading
// it as a string, where every escape in it is \uXXXX or \\ (the
// one-letter escapes, "\b" in a Windows path, are no escape the check
// counts).
func Decoded(v string) []string {
	var out []string
	d := xml.NewDecoder(strings.NewReader("<x>" + v + "</x>"))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
	out = append(out, b.String())
	// A JSON decoder reads escapes inside a string: each double-quoted
	// run of v (name="a\u202e"), where the escape scan looks for them.
	for i := 0; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(v) && v[j] != '"' {
			if v[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(v) {
			break // no closing quote on the line
		}
		var s string
		if json.Unmarshal([]byte(v[i:j+1]), &s) == nil {
			out = append(out, s)
		}
		i = j
	}
	return out
}
