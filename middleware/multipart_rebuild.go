package middleware

import (
	"bytes"
	"crypto/rand"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Rebuilding a multipart body. On a route that normalizes (or applies
// PRECIS profiles to multipart fields), the handler must read the
// canonical form of every field name, file name and text content, and a
// multipart body cannot be rewritten in place: it is written anew. The
// danger is that canonical text written between delimiters is syntax to
// the handler's parser: a quoted-printable part whose decoded content holds
// "\r\n--BOUNDARY" and a header block, or text that normalization turns
// into a delimiter (U+1FEF is '`' in NFC, so "--\u1FEFX" is "--`X"),
// would become parts of the attacker's choosing. So the rebuilt body
//
//   - holds exactly the parts a handler read in the body as sent (the
//     parts the check saw), in the same order, with the same header fields
//     but for the canonical names, and their contents as NextPart read
//     them, text ones in canonical form;
//   - is delimited by a fresh random boundary that occurs in none of
//     them, header blocks included (checked; drawn again if it does), and
//     announced in the request's Content-Type, rewritten with the same
//     media type and parameters (mime.FormatMediaType);
//   - carries no Content-Transfer-Encoding a parser would decode again: a
//     quoted-printable part is written decoded, without the header, as
//     NextPart presents it;
//   - is parsed again with multipart.Reader before the handler sees it,
//     and refused (canonical_syntax) unless it gives back exactly those
//     parts; and then checked again, whole, as the body as sent was
//     (checkParts), so that canonical names and contents meet the same
//     policy: classes, field length and counts; it must also fit the body
//     limit (too_large, 413);
//   - has no preamble or epilogue, which no form parser reads.
//
// Two distinct field names whose canonical forms are equal ("\u00e9" and
// "e\u0301" under NFC, "ｑ" and "q" under NFKC) would become one field for
// the handler, its values merged or the first or last one taken: such a
// body is refused (key_collision) on routes that normalize, whether or
// not it is rebuilt, in Monitor mode flagged. Canonical equality is the
// test: Echo's binder also matches form names to struct tags without
// regard to case, but only as a fallback when no exact match exists, as
// the query and form checks leave it too.

// canonMultipart canonicalizes a multipart body that checkMultipart
// accepted: field names and file names are brought to the route's
// normalization, the contents of fields and text file parts normalized or
// PRECIS-enforced by field name, and the body rebuilt as described above.
// It returns nil when nothing changes, and otherwise the new body, having
// set r's Content-Type to announce its boundary.
//
// A body that is not well-formed to its end cannot be rebuilt, but a
// streaming handler (Request.MultipartReader) would still read the parts
// before the break, and after a syntax error the parts a retrying reader
// finds. If one of those is not in its canonical form, the request is
// rejected, not_normalized at the first such text (a PRECIS field whose
// enforced form differs counts), rather than passed on with that text as
// it came.
func (p *policy) canonMultipart(r *http.Request, body []byte) ([]byte, *Rejection) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, nil
	}
	rb := &rebuilder{p: p, boundary: rand.Text}
	lv, rj := rb.level(body, params["boundary"], 0)
	switch {
	case rj != nil:
		return nil, rj
	case !lv.changed:
		return nil, nil // nothing changes
	case !lv.complete && rb.first != nil:
		return nil, rb.first
	case !lv.complete:
		return nil, multipartSyntax("") // cannot happen: every change sets first
	}
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(lv.out)) > lim {
		return nil, tooLarge(rules.Multipart, "")
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, err := mime.ParseMediaType(ct); err != nil || ps["boundary"] != lv.boundary {
		return nil, multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if field, ok := lv.verify(); !ok {
		return nil, multipartSyntax(field)
	}
	if rj := p.checkParts(lv.out, lv.boundary); rj != nil {
		return nil, rj
	}
	r.Header.Set("Content-Type", ct)
	return lv.out, nil
}

// multipartSyntax refuses a rebuilt body that its parser would not read as
// the parts it was built from: canonical_syntax, the reason of a canonical
// form that holds syntax its input did not. field is the part's field
// name, in canonical form, or "".
func multipartSyntax(field string) *Rejection {
	return &Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Multipart, Field: safeField(field),
		Err: &sanitize.Error{Reason: sanitize.CanonicalSyntax}}
}

// rebuilder rebuilds one multipart body, nested ones included.
type rebuilder struct {
	p        *policy
	boundary func() string // draws a boundary: crypto/rand.Text
	// first is the not_normalized rejection of the first text that
	// changes, for a body that cannot be rebuilt.
	first *Rejection
	// keys maps each field name's canonical form to the first name seen
	// as sent, across the whole body.
	keys map[string]string
	// leaves is the length of the contents of the parts that are not
	// themselves multipart bodies, in the form they will be written:
	// the rebuilt body holds each of them, so it bounds the body's size
	// while it is built.
	leaves int64
}

// rebuiltLevel is one multipart body, rebuilt.
type rebuiltLevel struct {
	parts    []rebuiltPart
	changed  bool   // a part's name or content changes
	complete bool   // well formed to its closing delimiter, nested bodies included
	boundary string // the fresh boundary, once written
	out      []byte // the body, once written
}

// rebuiltPart is one part of a rebuilt body: what is written, and what a
// handler's parser must read back.
type rebuiltPart struct {
	header  textproto.MIMEHeader
	head    []byte // header, written: fields sorted by name, then an empty line
	content []byte
	// The part's Content-Disposition parameters "name" and "filename", in
	// canonical form, and whether it has one that parses.
	name, file string
	hasDisp    bool
	nested     *rebuiltLevel // the content is this rebuilt nested body
}

// level reads one multipart body, the top-level one at depth 0 or a
// nested one, canonicalizing every part, and writes it anew when something
// changes and the body is complete.
func (rb *rebuilder) level(body []byte, boundary string, depth int) (*rebuiltLevel, *Rejection) {
	if rj := boundaryRejection(boundary, depth); rj != nil {
		return nil, rj // refused by the check already
	}
	lv := &rebuiltLevel{complete: true}
	s := newScanner(body, boundary)
	for pt := s.next(); pt != nil; pt = s.next() {
		part, changed, complete, rj := rb.part(pt, depth)
		if rj != nil {
			return nil, rj
		}
		lv.parts = append(lv.parts, part)
		lv.changed = lv.changed || changed
		lv.complete = lv.complete && complete
	}
	lv.complete = lv.complete && !s.broken
	if lv.changed && lv.complete {
		if rj := lv.write(rb.boundary); rj != nil {
			return nil, rj
		}
	}
	return lv, nil
}

// text canonicalizes one name or content (canonValue), and keeps the
// not_normalized rejection of the first text that changes.
func (rb *rebuilder) text(field string, v []byte, content bool) ([]byte, bool, *Rejection) {
	out, changed, rj := rb.p.canonValue(rules.Multipart, field, v, content)
	if changed && rb.first == nil {
		off := 0 // a PRECIS field: the enforced form differs
		if n := rb.p.form.FirstNonNormal(v); n >= 0 {
			off = n
		}
		rb.first = reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, rules.Multipart, safeField(field), v)
	}
	return out, changed, rj
}

// checkFileNameSyntax refuses a file name whose canonical form holds
// syntax it did not (a '/', '\\' or '%', or a dot segment: NFKC maps
// "．．／x" to "../x"), as a path's is refused (canonical_syntax): a
// handler that joins the name it reads from the Content-Disposition (not
// FileHeader.Filename, which net/http cuts to its base) into a path would
// otherwise get a traversal the checks never saw. In Monitor mode too, so
// that it is flagged.
func checkFileNameSyntax(p *policy, field, v string) *Rejection {
	cf, changed, _ := p.canonOf(rules.Multipart, field, stringBytes(v), false)
	if !changed || !addsSyntaxOf(fileNameSyntax, stringBytes(v), cf) {
		return nil
	}
	return &Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Multipart, Field: safeField(field),
		Sample: sample(v, 0), Err: &sanitize.Error{Reason: sanitize.CanonicalSyntax}}
}

// collide refuses name, a field name as sent, when an earlier field name
// of the body that differs from it as sent has the same canonical form.
func (rb *rebuilder) collide(name string) *Rejection {
	if rb.p.form == normalize.None || name == "" {
		return nil
	}
	key := rb.p.form.String(name)
	prev, ok := rb.keys[key]
	switch {
	case !ok:
		if rb.keys == nil {
			rb.keys = make(map[string]string)
		}
		rb.keys[key] = name
	case prev != name:
		return &Rejection{Reason: sanitize.KeyCollision, Location: rules.Multipart, Field: safeField(name),
			Sample: sample(name, 0), Err: &sanitize.Error{Reason: sanitize.KeyCollision}}
	}
	return nil
}

// part canonicalizes one part: its names, then its content. changed says
// whether anything in it changes; complete is false when the body ends
// inside it or a nested body in it is not complete.
func (rb *rebuilder) part(pt *mimePart, depth int) (out rebuiltPart, changed, complete bool, rj *Rejection) {
	p := rb.p
	hdr := pt.header // the part's own: NextRawPart made it for this part
	out = rebuiltPart{header: hdr, hasDisp: pt.dispParams != nil}
	field := pt.name // as sent, until its canonical form is known
	if params := pt.dispParams; params != nil {
		touched := false
		for _, key := range [...]string{"name", "filename"} {
			v, ok := params[key]
			if !ok {
				continue
			}
			if key == "filename" {
				if rj := checkFileNameSyntax(p, field, v); rj != nil {
					return out, false, false, rj
				}
			}
			nv, ch, rj := rb.text(field, stringBytes(v), false)
			if rj != nil {
				return out, false, false, rj
			}
			if ch {
				params[key], touched = string(nv), true
			}
		}
		if rj := rb.collide(pt.name); rj != nil {
			return out, false, false, rj
		}
		field = params["name"] // the canonical name names the field
		out.name, out.file = field, params["filename"]
		if touched {
			cd := mime.FormatMediaType(pt.disp, params)
			if cd == "" {
				return out, false, false, multipartSyntax(field) // cannot happen: parsed as tokens
			}
			hdr.Set("Content-Disposition", cd)
			changed = true
		}
	}

	content, raw, truncated, qpOff := pt.readContent()
	if qpOff >= 0 {
		return out, false, false, qpRejection(safeField(field), raw, qpOff) // refused by the check already
	}
	complete = !truncated
	text, _ := p.textPart(pt) // a refused charset was refused by the check
	if nb := pt.nestedBoundary(); nb != "" {
		sub, rj := rb.level(content, nb, depth+1)
		if rj != nil {
			return out, false, false, rj
		}
		if sub.changed {
			changed = true
			complete = complete && sub.complete
			if sub.complete {
				content, out.nested = sub.out, sub
				tp := maps.Clone(pt.typeParams)
				tp["boundary"] = sub.boundary
				ct := mime.FormatMediaType(pt.media, tp)
				if ct == "" {
					return out, false, false, multipartSyntax(field) // cannot happen: parsed as tokens
				}
				hdr.Set("Content-Type", ct)
			}
		}
		if text {
			// A field: Request.ParseMultipartForm makes the same
			// octets one form value, which must be canonical as it
			// is. Normalizing it as text would rewrite the nested
			// body's syntax (its delimiters, its headers) behind its
			// parser's back, so a body that is not is refused.
			if _, ch, rj := p.canonValue(rules.Multipart, field, content, true); rj != nil || ch {
				if rj == nil {
					rj = reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: max(p.form.FirstNonNormal(content), 0)},
						rules.Multipart, safeField(field), content)
				}
				return out, false, false, rj
			}
		}
	} else {
		if text {
			nc, ch, rj := rb.text(field, content, true)
			if rj != nil {
				return out, false, false, rj
			}
			if ch {
				content, changed = nc, true
			}
		}
		// Only once something changes: a body passed on as it came is
		// within the limit already.
		rb.leaves += int64(len(content))
		if lim := p.Limits.BodyBytes; lim >= 0 && rb.leaves > lim && rb.first != nil {
			return out, false, false, tooLarge(rules.Multipart, "")
		}
	}
	out.content = content
	return out, changed, complete, nil
}

// write writes the parts of lv as multipart.Writer writes a body (each
// part's delimiter, its header fields sorted by name, an empty line, its
// content; then the closing delimiter), with a fresh boundary that occurs
// in no header block and no content. draw draws candidates; after a few
// that all occur, which with 128 random bits does not happen, the body is
// refused rather than written with one that does.
func (lv *rebuiltLevel) write(draw func() string) *Rejection {
	size := 0
	for i := range lv.parts {
		pt := &lv.parts[i]
		pt.head = appendHeader(nil, pt.header)
		size += len(pt.head) + len(pt.content)
	}
	var b string
	for range 4 {
		if c := draw(); c != "" && !lv.holds(c) {
			b = c
			break
		}
	}
	if b == "" {
		return multipartSyntax("")
	}
	out := make([]byte, 0, size+len(lv.parts)*(len(b)+8)+len(b)+8)
	for i, pt := range lv.parts {
		if i > 0 {
			out = append(out, "\r\n"...)
		}
		out = append(append(append(out, "--"...), b...), "\r\n"...)
		out = append(append(out, pt.head...), pt.content...)
	}
	out = append(append(append(out, "\r\n--"...), b...), "--\r\n"...)
	lv.boundary, lv.out = b, out
	return nil
}

// holds reports whether boundary occurs in a header block or a content of
// lv's parts.
func (lv *rebuiltLevel) holds(boundary string) bool {
	bb := []byte(boundary)
	return slices.ContainsFunc(lv.parts, func(pt rebuiltPart) bool {
		return bytes.Contains(pt.head, bb) || bytes.Contains(pt.content, bb)
	})
}

// appendHeader appends hdr to dst as a part's header block: one
// "Name: value" line per value, names sorted, values in order, and the
// empty line that ends the block. Values read by net/textproto hold no CR
// or LF (it refuses them), so each is one line.
func appendHeader(dst []byte, hdr textproto.MIMEHeader) []byte {
	for _, k := range slices.Sorted(maps.Keys(hdr)) {
		for _, v := range hdr[k] {
			dst = append(append(append(append(dst, k...), ": "...), v...), "\r\n"...)
		}
	}
	return append(dst, "\r\n"...)
}

// verify parses lv.out again as a handler does (multipart.Reader.NextPart,
// quoted-printable decoding and all) and reports whether it gives exactly
// lv.parts: as many, in order, each with the header written, the field
// name and file name meant (as mime.ParseMediaType reads the written
// Content-Disposition) and the content written; and, for a rebuilt nested
// body, its own parts, read with the boundary its Content-Type announces.
// When it does not, field names the first part that differs.
func (lv *rebuiltLevel) verify() (field string, ok bool) {
	mr := multipart.NewReader(bytes.NewReader(lv.out), lv.boundary)
	for i := 0; ; i++ {
		got, err := mr.NextPart()
		if err == io.EOF {
			if i != len(lv.parts) {
				return "", false
			}
			return "", true
		}
		if err != nil || i == len(lv.parts) {
			return "", false
		}
		want := &lv.parts[i]
		if !maps.EqualFunc(got.Header, want.header, slices.Equal) {
			return want.name, false
		}
		_, params, derr := mime.ParseMediaType(got.Header.Get("Content-Disposition"))
		if (derr == nil) != want.hasDisp || params["name"] != want.name || params["filename"] != want.file {
			return want.name, false
		}
		content, err := io.ReadAll(got)
		if err != nil || !bytes.Equal(content, want.content) {
			return want.name, false
		}
		if want.nested != nil {
			_, _, _, tp := partType(got.Header)
			if tp["boundary"] != want.nested.boundary {
				return want.name, false
			}
			if f, ok := want.nested.verify(); !ok {
				return f, false
			}
		}
	}
}
