package decoders

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	gojaast "github.com/dop251/goja/ast"
	gojaparser "github.com/dop251/goja/parser"
	gqlast "github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
	gqlparser "github.com/vektah/gqlparser/v2/parser"
	"go.yaml.in/yaml/v3"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// refusedInValues names the class of r when the strict preset refuses it
// in values (rules.Strict: NUL, C0 but TAB LF CR, C1, the bidi controls),
// and "" when values may hold it. The bidi marks (U+200E, U+200F, U+061C)
// are allowed in values. A surrogate cannot be in a Go string as a rune:
// a decoder that read one (a JSON or JavaScript \ud800) hands back U+FFFD,
// which oracle.scan catches.
func refusedInValues(r rune) string {
	switch {
	case r == 0:
		return "NUL"
	case r < 0x20 && r != '\t' && r != '\n' && r != '\r':
		return "C0 control"
	case r == 0x7f:
		return "" // DEL is not refused in values by the strict preset
	case r >= 0x80 && r <= 0x9f:
		return "C1 control"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "bidi control"
	case r >= 0xd800 && r <= 0xdfff:
		return "surrogate"
	}
	return ""
}

// A finding is one refused character a decoder read from an accepted
// request.
type finding struct {
	Doc     string `json:"doc"`     // what was decoded: "body", "part 2 content", ...
	Decoder string `json:"decoder"` // which decoder read it
	Char    string `json:"char"`    // U+XXXX and its class
	In      string `json:"in"`      // the decoded string, quoted, cut short
}

func (f finding) String() string {
	return fmt.Sprintf("%s read %s from the %s, in %s", f.Decoder, f.Char, f.Doc, f.In)
}

// oracle collects what the decoders read from one request.
type oracle struct {
	raw      []byte // the body as the handler read it
	findings []finding
	seen     map[[3]string]bool // Decoder, Char and In of each finding
	handed   map[[2]string]bool // Char and In of what a step handed over
}

// scan reports every refused character of s, which decoder read from doc.
// A step that hands text over (io.ReadAll, mime.ParseMediaType) is a
// decoder too, and names it; a decoder that then reads that very string
// back (YAML reads a plain scalar as it is) adds nothing and is not named.
func (o *oracle) scan(doc, decoder, s string) { o.scanAs(doc, decoder, s, false) }

func (o *oracle) scanAs(doc, decoder, s string, handed bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var class string
		switch {
		case r == utf8.RuneError && size == 1:
			class = fmt.Sprintf("invalid UTF-8 (octet %#02x)", s[i])
		case r == utf8.RuneError && !bytes.Contains(o.raw, []byte("\uFFFD")):
			// The body holds no U+FFFD, so the decoder made it: from a
			// lone surrogate (\ud800) or from input it could not decode.
			class = "U+FFFD not in the body (a replaced surrogate or undecodable input)"
		default:
			if c := refusedInValues(r); c != "" {
				class = fmt.Sprintf("U+%04X (%s)", r, c)
			}
		}
		if class != "" {
			in := s
			if len(in) > 60 {
				in = in[:60] + "..."
			}
			f := finding{Doc: doc, Decoder: decoder, Char: class, In: fmt.Sprintf("%+q", in)}
			h := [2]string{f.Char, f.In}
			if handed {
				o.handed[h] = true
			} else if o.handed[h] {
				i += size
				continue
			}
			if k := [3]string{f.Decoder, f.Char, f.In}; !o.seen[k] {
				o.seen[k] = true
				o.findings = append(o.findings, f)
			}
		}
		i += size
	}
}

// decodeAll scans text as via, the step that produced it, hands it over
// (io.ReadAll for the body, mime.ParseMediaType for a parameter, ...), and
// then hands it to every decoder and scans all they read. A decoder that
// fails reads nothing: what it read before the error still counts, as a
// handler that streams would have acted on it.
func (o *oracle) decodeAll(doc, via string, text []byte) {
	o.scanAs(doc, via, string(text), true)
	decodeYAML(text, func(s string) { o.scan(doc, "yaml.v3", s) })
	decodeXML(text, false, func(s string) { o.scan(doc, "encoding/xml (Strict false, HTMLEntity, charset.NewReaderLabel)", s) })
	decodeXML(text, true, func(s string) { o.scan(doc, "encoding/xml (Strict true, charset.NewReaderLabel)", s) })
	decodeHTML(text, func(s string) { o.scan(doc, "x/net/html.Parse", s) })
	o.scan(doc, "html.UnescapeString", html.UnescapeString(string(text)))
	decodeGraphQLTokens(text, func(s string) { o.scan(doc, "gqlparser lexer", s) })
	decodeGraphQLQuery(text, func(s string) { o.scan(doc, "gqlparser parser.ParseQuery", s) })
	decodeJS(text, func(s string) { o.scan(doc, "goja parser (string and template literals)", s) })
	decodeJSON(text, func(s string) { o.scan(doc, "encoding/json", s) })
}

// decodeCharset decodes text from the charset its media type declares, as
// a handler that honours charset= does, and hands the result to every
// decoder. UTF-7 is decoded here, since x/net/html/charset (the WHATWG
// encodings) has no UTF-7 and a handler that meets it reaches for one.
func (o *oracle) decodeCharset(doc, contentType string, text []byte) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return
	}
	label := strings.ToLower(strings.TrimSpace(params["charset"]))
	if label == "" || label == "utf-8" || label == "utf8" {
		return
	}
	var decoded []byte
	if label == "utf-7" || label == "utf7" || label == "unicode-1-1-utf-7" {
		decoded = []byte(decodeUTF7(string(text)))
	} else {
		r, err := charset.NewReaderLabel(label, bytes.NewReader(text))
		if err != nil {
			return
		}
		decoded, _ = io.ReadAll(r)
	}
	o.decodeAll(doc, "charset "+label+" decoder", decoded)
}

// walkStrings calls emit for every string reachable from v: map keys and
// values, slice elements, exported struct fields, and values of named
// string types that have a String method (goja's unistring.String keeps
// non-ASCII text as UTF-16, which only its String method turns into Go
// text).
func walkStrings(v reflect.Value, emit func(string), seen map[uintptr]bool) {
	if !v.IsValid() {
		return
	}
	if v.Kind() == reflect.String {
		if v.Type() != reflect.TypeFor[string]() && v.CanInterface() {
			if s, ok := v.Interface().(fmt.Stringer); ok {
				emit(s.String())
				return
			}
		}
		emit(v.String())
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walkStrings(v.Elem(), emit, seen)
	case reflect.Interface:
		walkStrings(v.Elem(), emit, seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walkStrings(v.Field(i), emit, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			emit(string(v.Bytes())) // yaml !!binary and the like
			return
		}
		for i := 0; i < v.Len(); i++ {
			walkStrings(v.Index(i), emit, seen)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			walkStrings(it.Key(), emit, seen)
			walkStrings(it.Value(), emit, seen)
		}
	}
}

func walk(v any, emit func(string)) { walkStrings(reflect.ValueOf(v), emit, map[uintptr]bool{}) }

// decodeYAML reads every document of text into any.
func decodeYAML(text []byte, emit func(string)) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for range 64 {
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		walk(v, emit)
	}
}

// decodeXML reads tokens as a handler's xml.Decoder does, honouring the
// encoding the XML declaration names.
func decodeXML(text []byte, strict bool, emit func(string)) {
	d := xml.NewDecoder(bytes.NewReader(text))
	d.CharsetReader = charset.NewReaderLabel
	d.Strict = strict
	if !strict {
		d.Entity = xml.HTMLEntity
		d.AutoClose = xml.HTMLAutoClose
	}
	for range 10000 {
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			emit(t.Name.Local)
			emit(t.Name.Space)
			for _, a := range t.Attr {
				emit(a.Name.Local)
				emit(a.Value)
			}
		case xml.EndElement:
			emit(t.Name.Local)
		case xml.CharData:
			emit(string(t))
		case xml.Comment:
			emit(string(t))
		case xml.ProcInst:
			emit(t.Target)
			emit(string(t.Inst))
		case xml.Directive:
			emit(string(t))
		}
	}
}

// decodeHTML parses text as an HTML document: text, comments and
// attribute values.
func decodeHTML(text []byte, emit func(string)) {
	doc, err := html.Parse(bytes.NewReader(text))
	if err != nil {
		return
	}
	for n := range doc.Descendants() {
		switch n.Type {
		case html.TextNode, html.CommentNode:
			emit(n.Data)
		case html.ElementNode:
			for _, a := range n.Attr {
				emit(a.Key)
				emit(a.Val)
			}
		}
	}
}

func decodeGraphQLTokens(text []byte, emit func(string)) {
	lx := lexer.New(&gqlast.Source{Input: string(text)})
	for range 100000 {
		tok, err := lx.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			return
		}
		emit(tok.Value)
	}
}

func decodeGraphQLQuery(text []byte, emit func(string)) {
	doc, err := gqlparser.ParseQuery(&gqlast.Source{Input: string(text)})
	if err != nil {
		return
	}
	// The AST's values are *ast.Value with Raw the string's cooked value;
	// walking every exported string covers them and the names.
	walk(doc.Operations, emit)
	walk(doc.Fragments, emit)
}

// decodeJS parses text as a JavaScript program, and then as an
// expression (a JSON-ish body in parentheses), and reads every string and
// template literal: their cooked values.
func decodeJS(text []byte, emit func(string)) {
	for _, src := range []string{string(text), "(" + string(text) + "\n)"} {
		prog, err := gojaparser.ParseFile(nil, "", src, gojaparser.IgnoreRegExpErrors, gojaparser.WithDisableSourceMaps)
		if err != nil || prog == nil {
			continue
		}
		walkJS(reflect.ValueOf(prog), emit, map[uintptr]bool{})
	}
}

// walkJS finds the string and template literals of a goja AST.
func walkJS(v reflect.Value, emit func(string), seen map[uintptr]bool) {
	if !v.IsValid() {
		return
	}
	if v.CanInterface() {
		switch n := v.Interface().(type) {
		case *gojaast.StringLiteral:
			if n != nil {
				emit(n.Value.String())
			}
			return
		case *gojaast.TemplateElement:
			if n != nil {
				emit(n.Parsed.String())
			}
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walkJS(v.Elem(), emit, seen)
	case reflect.Interface:
		walkJS(v.Elem(), emit, seen)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walkJS(v.Field(i), emit, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkJS(v.Index(i), emit, seen)
		}
	}
}

// decodeJSON reads every JSON text of text (JSON lines included) into any.
func decodeJSON(text []byte, emit func(string)) {
	dec := json.NewDecoder(bytes.NewReader(text))
	for range 10000 {
		var v any
		if err := dec.Decode(&v); err != nil {
			return
		}
		walk(v, emit)
	}
}

// decodeUTF7 decodes RFC 2152 UTF-7, leniently as decoders do: a '+'
// starts modified base64 of UTF-16BE, up to the first octet outside the
// base64 alphabet ('-' is absorbed); "+-" is '+'.
func decodeUTF7(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '+' {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte(alphabet, s[j]) >= 0 {
			j++
		}
		if j == i+1 && j < len(s) && s[j] == '-' {
			b.WriteByte('+')
			i = j
			continue
		}
		seg := s[i+1 : j]
		if len(seg)%4 == 1 {
			seg = seg[:len(seg)-1]
		}
		raw, _ := base64.RawStdEncoding.DecodeString(seg)
		units := make([]uint16, 0, len(raw)/2)
		for k := 0; k+1 < len(raw); k += 2 {
			units = append(units, uint16(raw[k])<<8|uint16(raw[k+1]))
		}
		b.WriteString(string(utf16.Decode(units)))
		if j < len(s) && s[j] == '-' {
			j++
		}
		i = j - 1
	}
	return b.String()
}

// decodeRFC2231 reads an extended parameter value (charset'lang'%XX) as a
// lenient handler does: whatever the charset says, the octets as UTF-8.
func decodeRFC2231(v string) (string, bool) {
	parts := strings.SplitN(v, "'", 3)
	if len(parts) != 3 {
		return "", false
	}
	s, err := url.PathUnescape(parts[2])
	return s, err == nil
}

// inspect is the handler's work: it reads the whole body, then decodes it,
// the form's keys and values, and every multipart part's header values and
// contents, with every decoder.
func inspect(r *http.Request) []finding {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return []finding{{Doc: "body", Decoder: "io.ReadAll", Char: "read error: " + err.Error()}}
	}
	o := &oracle{raw: raw, seen: map[[3]string]bool{}, handed: map[[2]string]bool{}}
	deadline := time.Now().Add(2 * time.Second)
	ct := r.Header.Get("Content-Type")
	o.decodeAll("body", "io.ReadAll", raw)
	o.decodeCharset("body", ct, raw)

	mt, params, _ := mime.ParseMediaType(ct)
	if mt == "application/x-www-form-urlencoded" {
		if vals, err := url.ParseQuery(string(raw)); err == nil {
			for k, vs := range vals {
				o.decodeAll("form key", "url.ParseQuery", []byte(k))
				for _, v := range vs {
					o.decodeAll("form value "+k, "url.ParseQuery", []byte(v))
				}
			}
		}
	}
	if strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" {
		o.parts(multipart.NewReader(bytes.NewReader(raw), params["boundary"]))
	}
	if time.Now().After(deadline) {
		o.findings = append(o.findings, finding{Doc: "body", Decoder: "all", Char: "the decoders took over 2s"})
	}
	return o.findings
}

// parts decodes every part as a handler on r.MultipartReader sees it. The
// content of a file part of a type that is not text/* is data the strict
// preset passes unread (rules.Policy.FileContents), so it is not decoded.
func (o *oracle) parts(mr *multipart.Reader) {
	for n := 1; n <= 1000; n++ {
		// A body the middleware passed that a handler cannot walk any
		// further is not a decoding finding; what was read so far counts.
		p, err := mr.NextRawPart()
		if err != nil {
			return
		}
		// NextRawPart keeps quoted-printable as it came; a handler's
		// NextPart decodes it, so both are read.
		pn := fmt.Sprintf("part %d", n)
		for k, vs := range p.Header {
			for _, v := range vs {
				doc := pn + " header " + k
				o.decodeAll(doc, "multipart.Part.Header", []byte(v))
				if _, ps, err := mime.ParseMediaType(v); err == nil {
					for pk, pv := range ps {
						o.decodeAll(doc+" parameter "+pk, "mime.ParseMediaType", []byte(pv))
					}
				}
				for _, f := range strings.Split(v, ";") {
					name, val, ok := strings.Cut(strings.TrimSpace(f), "=")
					if ok && strings.HasSuffix(name, "*") {
						if s, ok := decodeRFC2231(strings.Trim(val, `"`)); ok {
							o.decodeAll(doc+" parameter "+name, "RFC 2231 decoding, charset ignored", []byte(s))
						}
					}
				}
				if s, err := new(mime.WordDecoder).DecodeHeader(v); err == nil && s != v {
					o.decodeAll(doc, "mime.WordDecoder", []byte(s))
				}
			}
		}
		o.decodeAll(pn+" file name", "multipart.Part.FileName", []byte(p.FileName()))
		o.decodeAll(pn+" field name", "multipart.Part.FormName", []byte(p.FormName()))

		content, _ := io.ReadAll(p)
		pct := p.Header.Get("Content-Type")
		if p.FileName() != "" && pct != "" {
			if mt, _, err := mime.ParseMediaType(pct); err != nil || !strings.HasPrefix(mt, "text/") {
				continue
			}
		}
		o.decodeAll(pn+" content", "io.ReadAll", content)
		o.decodeCharset(pn+" content", pct, content)
		if strings.EqualFold(p.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			qp, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(content)))
			o.decodeAll(pn+" content", "quoted-printable decoding", qp)
		}
	}
}
