package middleware

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// orcMediaType returns the media type of ct as mime.ParseMediaType reads
// it, its parameters and its error; for a value it cannot parse at all,
// the lower-cased text before ';', as a lenient handler reads it.
func orcMediaType(ct string) (string, map[string]string, error) {
	mt, params, err := mime.ParseMediaType(ct)
	if mt == "" {
		base, _, _ := strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(base))
	}
	return mt, params, err
}

func orcIsJSON(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

func orcIsXML(mt string) bool {
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}

// orcIsMultipart reports whether mt is a multipart type with a subtype:
// Request.MultipartReader reads form-data and mixed, and a handler's own
// multipart.Reader reads any of them, so the middleware checks them all.
func orcIsMultipart(mt string) bool {
	return strings.HasPrefix(mt, "multipart/") && len(mt) > len("multipart/")
}

// orcMatch reports whether mt matches one of the patterns ("type/*" too).
func orcMatch(pats []string, mt string) bool {
	typ, _, _ := strings.Cut(mt, "/")
	for _, p := range pats {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == mt || p == typ+"/*" {
			return true
		}
	}
	return false
}

// bodyLoc returns the location whose check a body of media type mt gets,
// and whether the policy checks it as text.
func (k *orcCheck) bodyLoc(mt string) (rules.Location, bool) {
	var loc rules.Location
	switch {
	case mt == "application/x-www-form-urlencoded":
		loc = rules.Form
	case orcIsJSON(mt):
		loc = rules.JSON
	case orcIsXML(mt):
		loc = rules.XML
	case orcIsMultipart(mt):
		loc = rules.Multipart
	case strings.HasPrefix(mt, "text/") || orcMatch(k.pol.BodyTypes, mt):
		loc = rules.Body
	default:
		return 0, false
	}
	return loc, k.pol.Location(loc).On
}

func orcUTF8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// body checks the raw body the handler read: its media type and charset as
// mime.ParseMediaType reads them, its size, and its text as a JSON, XML or
// text body. Forms and multipart bodies are read through their APIs.
func (k *orcCheck) body(ct string, body []byte) {
	p := k.pol
	mt, params, err := orcMediaType(ct)
	loc, text := k.bodyLoc(mt)
	if len(body) > 0 && (p.Form.On || p.JSON.On || p.XML.On || p.Multipart.On || p.Body.On) {
		if ct != "" && err != nil {
			k.bad("accepted a body whose Content-Type %q mime.ParseMediaType refuses: %v", ct, err)
		}
		if p.RefuseUnlistedTypes && !text && !orcMatch(p.BinaryTypes, mt) {
			k.bad("accepted a body of unlisted media type %q (Content-Type %q)", mt, ct)
		}
		if text && p.RefuseCharsets && !orcUTF8Charset(params["charset"]) {
			k.bad("accepted a body of location %v with charset %q", loc, params["charset"])
		}
		if text {
			k.limit("the body", len(body), p.Limits.BodyBytes)
		}
	}
	switch {
	case !text:
	case loc == rules.JSON:
		k.json(body)
	case loc == rules.XML:
		k.xml(body)
	case loc == rules.Body:
		k.text("text body", string(body), p.Body.Forbid, true, 0, false)
	}
}

// json reads every JSON value of body with encoding/json's token reader
// and checks every string and member name, the member names of each object
// (duplicates) and the nesting depth. A U+FFFD the body does not hold is a
// lone surrogate escape that encoding/json replaced.
func (k *orcCheck) json(body []byte) {
	p := k.pol
	if !utf8.Valid(body) {
		k.bad("JSON body is not UTF-8")
	}
	hasFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
	depth := orcJSONWalk(body, func(ptr, s string, name bool) {
		what, prof := "JSON string at "+ptr, k.profile(rules.JSON, ptr)
		if name {
			what, prof = "JSON member name at "+ptr, 0
		}
		k.text(what, s, p.JSON.Forbid, true, prof, false)
		if !hasFFFD && strings.ContainsRune(s, utf8.RuneError) {
			k.bad("%s %+q: U+FFFD that the body does not hold", what, orcCut(s))
		}
	}, func(names []string) {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] && p.RefuseDuplicateKeys {
				k.bad("JSON body: duplicate member name %+q", n)
			}
			seen[n] = true
		}
	})
	k.limit("JSON nesting", depth, int64(p.Limits.JSONDepth))
}

// orcJSONWalk reads every JSON value of body with json.Decoder.Token, which
// unescapes strings as json.Unmarshal does: str gets each string and member
// name with its JSON pointer, obj the member names of each object (nil:
// none). It returns the deepest nesting of arrays and objects.
func orcJSONWalk(body []byte, str func(ptr, s string, name bool), obj func(names []string)) (depth int) {
	type frame struct {
		obj, wantName bool
		names         []string
		index         int
	}
	var st []frame
	ptr := func() string {
		var b strings.Builder
		for _, f := range st {
			if b.WriteByte('/'); f.obj {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.names[len(f.names)-1]))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return depth
		}
		top := len(st) - 1
		if s, ok := tok.(string); ok && top >= 0 && st[top].obj && st[top].wantName {
			st[top].names, st[top].wantName = append(st[top].names, s), false
			str(ptr(), s, true)
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			st = append(st, frame{obj: tok == json.Delim('{'), wantName: true})
			depth = max(depth, len(st))
			continue
		case json.Delim('}'), json.Delim(']'):
			if st[top].obj && obj != nil {
				obj(st[top].names)
			}
			st = st[:top]
		default:
			if s, ok := tok.(string); ok {
				str(ptr(), s, false)
			}
		}
		if top = len(st) - 1; top >= 0 { // a value has ended
			st[top].wantName, st[top].index = st[top].obj, st[top].index+1
		}
	}
}

// xml checks an XML body: its raw octets, its numeric character references
// against XML's Char production, its declared encoding, and every token
// as encoding/xml decodes it, strictly (as c.Bind does) and leniently (as
// Decoder.Strict's documentation advises for HTML).
func (k *orcCheck) xml(body []byte) {
	p := k.pol
	k.text("XML body, raw", string(body), p.XML.Forbid, false, 0, false)
	for _, v := range orcXMLCharRefs(body) {
		if !(v == 0x9 || v == 0xA || v == 0xD || 0x20 <= v && v <= 0xD7FF || 0xE000 <= v && v <= 0xFFFD || 0x10000 <= v && v <= 0x10FFFF) {
			k.bad("XML character reference to %#x, not an XML Char", v)
		}
	}
	if m := orcXMLDecl.FindSubmatch(body); m != nil && p.RefuseCharsets && !orcUTF8Charset(string(m[1])) {
		k.bad("accepted an XML body declaring encoding %q", m[1])
	}
	for _, strict := range []bool{true, false} {
		d, what := xml.NewDecoder(bytes.NewReader(body)), "XML (strict) "
		if d.Strict = strict; !strict {
			d.AutoClose, d.Entity, what = xml.HTMLAutoClose, xml.HTMLEntity, "XML (lenient) "
		}
		str := func(where, s string, norm bool) { k.text(what+where, s, p.XML.Forbid, norm && strict, 0, false) }
		for n := 0; n < 10000; n++ {
			tok, err := d.Token()
			if err != nil {
				break
			}
			switch t := tok.(type) {
			case xml.StartElement:
				str("element name", t.Name.Space+" "+t.Name.Local, true)
				for _, a := range t.Attr {
					str("attribute name", a.Name.Space+" "+a.Name.Local, true)
					str("attribute "+a.Name.Local, a.Value, true)
				}
			case xml.CharData:
				str("text", string(t), true)
			case xml.Comment:
				str("comment", string(t), false)
			case xml.ProcInst:
				str("processing instruction", t.Target+" "+string(t.Inst), false)
			case xml.Directive:
				str("directive", string(t), false)
			}
		}
	}
}

var (
	// orcXMLNoRefs is where "&#" is not a reference: comments, CDATA
	// sections, processing instructions and declarations (a DOCTYPE with
	// its internal subset), each to its end or to the end of the text.
	orcXMLNoRefs = regexp.MustCompile(`(?s)<!--.*?(?:-->|\z)|<!\[CDATA\[.*?(?:\]\]>|\z)|<\?.*?(?:\?>|\z)|<![^\[>]*(?:\[.*?(?:\]|\z))?[^>]*(?:>|\z)`)
	// orcXMLRef is a numeric character reference as encoding/xml reads it
	// (a lower-case x only).
	orcXMLRef  = regexp.MustCompile(`&#(x[0-9a-fA-F]+|[0-9]+);`)
	orcXMLDecl = regexp.MustCompile(`^(?:\xEF\xBB\xBF)?<\?xml\s[^>]*?encoding\s*=\s*["']([^"']*)`)
)

// orcXMLCharRefs returns the values of the numeric character references in
// the content and the attribute values of an XML text (-1 for one too
// large for an int64).
func orcXMLCharRefs(b []byte) (out []int64) {
	for _, m := range orcXMLRef.FindAllSubmatch(orcXMLNoRefs.ReplaceAll(b, nil), -1) {
		num, base := string(m[1]), 10
		if num[0] == 'x' {
			num, base = num[1:], 16
		}
		v, err := strconv.ParseInt(num, base, 64)
		if err != nil {
			v = -1
		}
		out = append(out, v)
	}
	return out
}

// orcPart is one multipart part as a handler reads it.
type orcPart struct {
	name, file, content string
	text, precis        bool // text under the policy; a field with a PRECIS profile
}

// part checks one multipart part (from ParseMultipartForm or
// MultipartReader): its names, its headers, and its contents when it is
// text under the policy: a form field (a form-data part without a file
// name, as ReadForm tells), or a part whose media type MultipartTextTypes
// lists; without a Content-Type a part is text/plain (RFC 7578, section
// 4.4; RFC 2046, section 5.1). In multipart/mixed (mixed) there are no
// fields: a part's media type alone decides.
func (k *orcCheck) part(name, file string, h map[string][]string, content []byte, mixed bool) orcPart {
	p := k.pol
	k.text("multipart field name", name, k.names(), true, 0, false)
	k.text("multipart file name", file, k.names(), true, 0, false)
	for key, vs := range h {
		for _, v := range vs {
			k.text("multipart part header "+key, v, p.Multipart.Forbid, false, 0, false)
		}
	}
	// A part without a Content-Type is text/plain (RFC 7578, 4.4), and so
	// is one whose Content-Type mime.ParseMediaType reads no type from:
	// the middleware checks (and canonicalizes) such content as text
	// rather than skip it.
	mt, _, _ := mime.ParseMediaType(http.Header(h).Get("Content-Type"))
	if mt == "" {
		mt = "text/plain"
	}
	pats := p.MultipartTextTypes
	if pats == nil {
		pats = []string{"text/*"}
	}
	field := file == "" && !mixed
	op := orcPart{name, file, string(content), field || orcMatch(pats, mt), false}
	if op.text {
		prof := normalize.Profile(0)
		if field {
			prof = k.profile(rules.Multipart, name)
			op.precis = prof != 0
			k.limit("multipart field "+strconv.Quote(name), len(content), int64(p.Limits.FieldBytes))
		}
		k.text("multipart part "+strconv.Quote(name)+" contents", op.content, p.Multipart.Forbid, true, prof, false)
	}
	return op
}

// orcReadParts reads a multipart body part by part, as
// Request.MultipartReader hands it out (quoted-printable parts decoded), up
// to the first error; clean says whether it ended at the closing delimiter.
func orcReadParts(mr *multipart.Reader, visit func(*multipart.Part, []byte)) (clean bool) {
	for range 10000 {
		part, err := mr.NextPart()
		if err != nil {
			return err == io.EOF
		}
		data, _ := io.ReadAll(io.LimitReader(part, 4<<20))
		visit(part, data)
	}
	return false
}

// multipart streams the handler's multipart body (form-data or mixed) with
// r.MultipartReader, checks every part, and compares the part list with
// what the client sent: the same parts, names and contents, canonical.
func (k *orcCheck) multipart(r *http.Request, body []byte, mt string) {
	if !k.pol.Multipart.On || !orcIsMultipart(mt) {
		return
	}
	orcRestore(r, body)
	var mr *multipart.Reader
	if mt == "multipart/form-data" || mt == "multipart/mixed" {
		var err error
		if mr, err = r.MultipartReader(); err != nil {
			return
		}
	} else {
		// Another subtype: what a handler's own multipart.Reader reads.
		_, ps, _ := orcMediaType(r.Header.Get("Content-Type"))
		if ps["boundary"] == "" {
			return
		}
		mr = multipart.NewReader(bytes.NewReader(body), ps["boundary"])
	}
	var got, want []orcPart
	orcReadParts(mr, func(part *multipart.Part, data []byte) {
		got = append(got, k.part(part.FormName(), part.FileName(), part.Header, data, mt == "multipart/mixed"))
	})
	k.limit("multipart part count", len(got), int64(k.pol.Limits.MultipartParts))
	omt, params, _ := orcMediaType(k.rep.orig.ctype)
	if !orcIsMultipart(omt) || params["boundary"] == "" {
		return
	}
	var names []string
	clean := orcReadParts(multipart.NewReader(bytes.NewReader(k.rep.orig.body), params["boundary"]),
		func(part *multipart.Part, data []byte) {
			names = append(names, part.FormName())
			want = append(want, orcPart{part.FormName(), part.FileName(), string(data), false, false})
		})
	k.collisions("multipart field", names)
	if clean && len(got) != len(want) || len(got) < len(want) {
		k.bad("the handler reads %d multipart parts, the client sent %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.name != k.form.String(w.name) || g.file != k.form.String(w.file) {
			k.bad("multipart part %d is %+q (file %+q), the client sent %+q (file %+q)", i, g.name, g.file, w.name, w.file)
		} else if exp := w.content; g.content != exp && (!g.text || g.content != k.form.String(exp)) &&
			!g.precis {
			k.bad("multipart part %d %+q holds %+q, the client sent %+q", i, g.name, orcCut(g.content), orcCut(w.content))
		}
	}
}

// multipartForm checks what ParseMultipartForm read: r.MultipartForm,
// c.FormFile (fileHeader) and the files' contents.
func (k *orcCheck) multipartForm(mf *multipart.Form, fileHeader func(name string) *multipart.FileHeader) {
	if !k.pol.Multipart.On || mf == nil {
		return
	}
	for name, vs := range mf.Value {
		for _, v := range vs {
			k.part(name, "", nil, []byte(v), false)
		}
	}
	for name, fhs := range mf.File {
		if fh := fileHeader(name); fh != nil {
			fhs = append(fhs, fh)
		}
		for _, fh := range fhs {
			var data []byte
			if f, err := fh.Open(); err == nil {
				data, _ = io.ReadAll(f)
				f.Close()
			}
			k.part(name, fh.Filename, fh.Header, data, false)
		}
	}
}
