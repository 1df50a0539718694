package middleware

// The handler-side oracle of issues 12 and 13: a handler that reads a
// request every way real handlers do (Echo's c.Param, c.QueryParams,
// c.FormParams, c.FormFile, c.Bind; net/http's URL, ParseMultipartForm,
// MultipartReader, Cookies, Trailer; encoding/json and encoding/xml) and
// re-checks every value against the route's rules.Policy with packages
// sanitize and normalize directly, sharing no code with the middleware; and
// compares what it read with what the client sent (orcOrig): keys that
// became one, multipart parts that appeared or vanished, path syntax that
// appeared. What it reports about an accepted request in Enforce mode is a
// bug in the middleware, never in the oracle: it holds only what the policy
// documents (rules/policy.go, rules/presets.go) and the issues require.
//
// This file holds the checks; oracle_fuzz_test.go the handlers, servers,
// request harness and FuzzOracle; oracle_mechanisms_test.go the named
// regressions and the clean clients.

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// orcReport is what the oracle found in one request. The harness makes one
// per request and passes it in the request's context.
type orcReport struct {
	mount orcMount
	orig  *orcOrig

	mu       sync.Mutex // the handler may run on a server goroutine
	ran      bool
	route    string
	problems []string
	path     string // URL.Path, RawQuery and the body as the handler read them
	rawQuery string
	body     []byte
}

func (rep *orcReport) add(format string, args ...any) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.problems = append(rep.problems, fmt.Sprintf(format, args...))
}

// result returns whether the handler ran and what it found.
func (rep *orcReport) result() (bool, []string) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	return rep.ran, append([]string(nil), rep.problems...)
}

type orcKey struct{}

func orcReportOf(ctx context.Context) *orcReport {
	rep, _ := ctx.Value(orcKey{}).(*orcReport)
	return rep
}

// orcOrig is the request as the client sent it, parsed by net/http alone.
type orcOrig struct {
	path, rawPath, rawQuery, ctype string
	body                           []byte
}

// orcCheck checks the values one handler read against one policy.
type orcCheck struct {
	rep  *orcReport
	pol  *rules.Policy
	form normalize.Form
}

func newOrcCheck(rep *orcReport, pol *rules.Policy) *orcCheck {
	k := &orcCheck{rep: rep, pol: pol}
	switch pol.Normalization {
	case normalize.NFC:
		k.form = normalize.NFC
	case normalize.NFKC:
		k.form = normalize.NFKC
	}
	return k
}

func (k *orcCheck) bad(format string, args ...any) { k.rep.add(format, args...) }

// names is the class set of names: multipart field and file names.
func (k *orcCheck) names() sanitize.Class { return k.pol.Multipart.Forbid | k.pol.Header.Forbid }

// profile returns the PRECIS profile of the field name at loc, or 0. Names
// match without regard to case, as the policy documents.
func (k *orcCheck) profile(loc rules.Location, name string) normalize.Profile {
	for _, f := range k.pol.Precis {
		if f.Location == loc && strings.EqualFold(f.Field, name) {
			return f.Profile
		}
	}
	return 0
}

// text checks one value: well-formed UTF-8 and none of forbid; then, with
// a PRECIS profile, in the profile's enforced form (merely allowed by it,
// with allowedOnly); without one and with norm, in the route's form.
func (k *orcCheck) text(what, v string, forbid sanitize.Class, norm bool, prof normalize.Profile, allowedOnly bool) {
	if err := sanitize.CheckString(v, forbid); err != nil {
		k.bad("%s %+q: %v", what, orcCut(v), err)
		return
	}
	switch {
	case prof != 0:
		if e, err := normalize.Enforce(prof, v); err != nil {
			k.bad("%s %+q: PRECIS %v refuses it: %v", what, orcCut(v), prof, err)
		} else if e != v && !allowedOnly {
			k.bad("%s %+q: not in the enforced form %+q of PRECIS %v", what, orcCut(v), orcCut(e), prof)
		}
	case norm && k.form != normalize.None && !k.form.IsNormalString(v):
		k.bad("%s %+q: not %s", what, orcCut(v), k.form.Name())
	}
}

// limit checks a length against a limit (negative: none).
func (k *orcCheck) limit(what string, n int, limit int64) {
	if limit >= 0 && int64(n) > limit {
		k.bad("%s: %d octets, over the limit of %d", what, n, limit)
	}
}

// orcCut bounds a value for a failure message.
func orcCut(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// path checks URL.Path and the path parameters (names, values; wild says
// which parameters may span segments).
func (k *orcCheck) path(u *url.URL, names, values []string, wild func(string) bool) {
	p, orig := k.pol, k.rep.orig
	if !p.Path.On {
		return
	}
	k.text("URL.Path", u.Path, p.Path.Forbid, true, 0, false)
	k.limit("URL.EscapedPath()", len(u.EscapedPath()), int64(p.Limits.PathBytes))
	if p.Path.RefuseDoubleEncoding && orcHasEscape(u.Path) {
		k.bad("URL.Path %+q holds an escape (double encoding)", u.Path)
	}
	if dec, err := url.PathUnescape(u.RawPath); u.RawPath != "" && (err != nil || dec != u.Path) {
		k.bad("URL.RawPath %q does not decode to URL.Path %+q", u.RawPath, u.Path)
	}
	k.syntax("URL.Path", u.Path, orig.path)
	// Under e.Pre with an encoded slash Echo hands on the raw escaped
	// values, as ToMiddleware documents: a handler must decode them.
	rawParams := k.rep.mount == orcPre && orcEncodedSlash(orig.rawPath)
	for i, name := range names {
		v, what := values[i], "path parameter "+name
		if rawParams && strings.Contains(v, "%") {
			d, err := url.PathUnescape(v)
			if err != nil {
				k.bad("%s %q: %v", what, v, err)
				continue
			}
			v = d
		}
		// Under e.Pre the enforced form of a PRECIS parameter cannot reach
		// the handler (Echo routes again), as ToMiddleware documents.
		k.text(what, v, p.Path.Forbid, true, k.profile(rules.Path, name), k.rep.mount == orcPre)
		k.syntax(what, v, orig.path)
		// A '/' in a parameter must come from the client: an encoded
		// slash, or the path itself (Echo's router puts "4/1" in :id when
		// the param ends the route: /p/:id matches /p/4/1). A value that
		// is not in the decoded path, in the route's form, got its '/'
		// from a rewrite.
		if !wild(name) && strings.Contains(v, "/") && !orcEncodedSlash(orig.rawPath) &&
			!strings.Contains(k.form.String(orig.path), v) {
			k.bad("%s %+q holds a '/' that no %%2F or '/' in the request explains", what, v)
		}
		if p.Path.RefuseDoubleEncoding && orcHasEscape(v) {
			k.bad("%s %+q holds an escape (double encoding)", what, v)
		}
	}
}

// syntax reports path syntax in v (a '/', '\', '%', ';', '?', '#' or a dot
// segment) that the decoded request path did not hold: a canonical form
// must not create it.
func (k *orcCheck) syntax(what, v, orig string) {
	for _, c := range `/\%;?#` {
		if n, m := strings.Count(v, string(c)), strings.Count(orig, string(c)); n > m {
			k.bad("%s %+q holds %d %q, the decoded request path %+q %d", what, v, n, c, orig, m)
		}
	}
	if n, m := orcDots(v), orcDots(orig); n > m {
		k.bad("%s %+q holds %d dot segments, the decoded request path %+q %d", what, v, n, orig, m)
	}
}

func orcDots(s string) (n int) {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "." || seg == ".." {
			n++
		}
	}
	return n
}

var orcEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)

func orcHasEscape(s string) bool { return orcEscape.MatchString(s) }

func orcEncodedSlash(raw string) bool {
	return strings.Contains(raw, "%2F") || strings.Contains(raw, "%2f")
}

// pairs checks the keys and values of a query or a form body at loc.
func (k *orcCheck) pairs(what string, loc rules.Location, vals url.Values) {
	c, lim := k.pol.Location(loc), int64(k.pol.Limits.FieldBytes)
	if !c.On {
		return
	}
	n := 0
	for key, vs := range vals {
		n += len(vs)
		k.text(what+" key", key, c.Forbid, true, 0, false)
		k.limit(what+" key "+strconv.Quote(key), len(key), lim)
		for _, v := range vs {
			k.text(what+"["+strconv.Quote(key)+"]", v, c.Forbid, true, k.profile(loc, key), false)
			k.limit(what+"["+strconv.Quote(key)+"]", len(v), lim)
		}
	}
	k.limit(what+" field count", n, int64(k.pol.Limits.Fields))
}

// rawPairs checks a raw query or form text as a handler that splits it
// itself reads it: every pair, those url.ParseQuery drops too.
func (k *orcCheck) rawPairs(what string, loc rules.Location, raw string) {
	if !k.pol.Location(loc).On {
		return
	}
	vals := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		key, val, _ := strings.Cut(pair, "=")
		dk, err1 := url.QueryUnescape(key)
		dv, err2 := url.QueryUnescape(val)
		if err := errors.Join(err1, err2); err != nil {
			k.bad("%s pair %q: %v", what, pair, err)
		} else if pair != "" {
			vals[dk] = append(vals[dk], dv)
		}
	}
	k.pairs(what, loc, vals)
}

// orcRawKeys returns the decoded keys of a raw query or form text.
func orcRawKeys(raw string) (keys []string) {
	for pair := range strings.SplitSeq(raw, "&") {
		key, _, _ := strings.Cut(pair, "=")
		if d, err := url.QueryUnescape(key); err == nil && pair != "" {
			keys = append(keys, d)
		}
	}
	return keys
}

// collisions reports distinct keys the client sent that are one key in the
// route's normalization form: the handler would see them merged.
func (k *orcCheck) collisions(what string, keys []string) {
	if k.form == normalize.None {
		return
	}
	first := map[string]string{}
	for _, key := range keys {
		c := k.form.String(key)
		if f, ok := first[c]; ok && f != key {
			k.bad("%s keys %+q and %+q are one key %+q in %s", what, f, key, c, k.form.Name())
		} else if !ok {
			first[c] = key
		}
	}
}

// cookies checks every cookie's name and value as r.Cookies returns them
// and as a handler splitting the Cookie headers itself reads them, trimming
// only SP and HTAB, as RFC 6265 allows.
func (k *orcCheck) cookies(r *http.Request) {
	p := k.pol
	if !p.Cookies {
		return
	}
	for _, c := range r.Cookies() {
		k.text("r.Cookies() "+c.Name, c.Name+c.Value, p.Header.Forbid, false, 0, false)
	}
	for _, line := range r.Header["Cookie"] {
		for piece := range strings.SplitSeq(line, ";") {
			if piece = strings.Trim(piece, " \t"); piece != "" {
				name, value, _ := strings.Cut(piece, "=")
				k.text("Cookie header name", name, p.Header.Forbid, false, 0, false)
				k.text("Cookie header value of "+strconv.Quote(name), value, p.Header.Forbid, false, 0, false)
				k.limit("cookie "+strconv.Quote(name), len(value), int64(p.Limits.FieldBytes))
			}
		}
	}
}

// headers checks the listed headers in h (the header or the trailer).
func (k *orcCheck) headers(what string, h http.Header) {
	if p := k.pol; p.Header.On {
		for _, name := range p.Headers {
			for _, v := range h.Values(name) {
				k.text(what+" "+name, v, p.Header.Forbid, false, 0, false)
				k.limit(what+" "+name, len(v), int64(p.Limits.FieldBytes))
			}
		}
	}
}

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
	mt, _, _ := orcMediaType(http.Header(h).Get("Content-Type"))
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

// bound checks every string a binder put into v.
func (k *orcCheck) bound(what string, v reflect.Value, forbid sanitize.Class, norm bool) {
	switch v.Kind() {
	case reflect.String:
		k.text(what, v.String(), forbid, norm, 0, false)
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			k.bound(what, v.Elem(), forbid, norm)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			k.bound(what, v.Index(i), forbid, norm)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k.bound(what+" key", it.Key(), forbid, norm)
			k.bound(what+"["+fmt.Sprint(it.Key())+"]", it.Value(), forbid, norm)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			k.bound(what+"."+v.Type().Field(i).Name, v.Field(i), forbid, norm)
		}
	}
}

// bindClasses returns the classes that every value a binder may take from
// locs has passed, and whether all of them are checked.
func (k *orcCheck) bindClasses(locs ...rules.Location) (sanitize.Class, bool) {
	forbid := sanitize.AllClasses
	for _, l := range locs {
		if c := k.pol.Location(l); c.On {
			forbid &= c.Forbid
		} else {
			return 0, false
		}
	}
	return forbid, true
}
