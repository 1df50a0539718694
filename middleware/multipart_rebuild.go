package middleware

import (
	"bytes"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/textproto"
	"slices"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// textFn brings one field's text to its canonical form: the text itself
// and false when nothing changes, a Rejection when the text may not pass.
// content says whether text is a part's content (PRECIS applies to the
// field's content) or one of its names; field is the part's field name in
// its canonical form.
type textFn func(field string, text []byte, content bool) ([]byte, bool, *Rejection)

// rebuildMultipart returns a multipart/form-data body equal to body but for
// field names, file names and the contents of text parts, which pass
// through fn. The boundary is kept, whatever its characters (Go's reader
// takes boundaries that multipart.Writer.SetBoundary refuses, so the parts
// are written here); file parts that are not text are copied byte for
// byte; a quoted-printable text part is written decoded, as
// Request.ParseMultipartForm would have read it. The preamble and
// epilogue, which no form parser reads, are dropped. body has passed
// checkMultipart.
//
// Which parts are text follows checkMultipart: a part with a file name
// (a non-empty filename parameter) is a file, text when the policy lists
// its media type; every other part, including one whose
// Content-Disposition does not parse, is a form field.
//
// complete is false when body is not a well-formed multipart body to its
// end (a part or the closing delimiter is missing or broken): then out is
// nil, and fn has seen the parts before the break.
func rebuildMultipart(body []byte, boundary string, p *policy, fn textFn) (out []byte, complete bool, rj *Rejection) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	out = make([]byte, 0, len(body)+64)
	first := true
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, nil
		}
		hdr := textproto.MIMEHeader{}
		for k, v := range part.Header {
			hdr[k] = append([]string(nil), v...)
		}
		disp, params, perr := mime.ParseMediaType(hdr.Get("Content-Disposition"))
		field := params["name"]
		if perr == nil {
			changed := false
			for _, key := range [...]string{"name", "filename"} {
				v, ok := params[key]
				if !ok {
					continue
				}
				nv, ch, rj := fn(field, []byte(v), false)
				if rj != nil {
					return nil, false, rj
				}
				if ch {
					params[key], changed = string(nv), true
				}
			}
			field = params["name"] // the canonical name names the field
			if changed {
				cd := mime.FormatMediaType(disp, params)
				if cd == "" {
					// Cannot happen: disp and the parameter names
					// were parsed as tokens.
					return nil, false, nil
				}
				hdr.Set("Content-Disposition", cd)
			}
		}
		content, err := io.ReadAll(part)
		if err != nil {
			return nil, false, nil
		}
		if isFile := perr == nil && params["filename"] != ""; !isFile || p.isTextPart(hdr) {
			if strings.EqualFold(hdr.Get("Content-Transfer-Encoding"), "quoted-printable") {
				if content, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(content))); err != nil {
					return nil, false, nil
				}
				hdr.Del("Content-Transfer-Encoding")
			}
			nc, _, rj := fn(field, content, true)
			if rj != nil {
				return nil, false, rj
			}
			content = nc
		}
		// As multipart.Writer writes a part: the delimiter, the header
		// fields sorted by name, an empty line, the content.
		if !first {
			out = append(out, "\r\n"...)
		}
		first = false
		out = append(append(append(out, "--"...), boundary...), "\r\n"...)
		for _, k := range slices.Sorted(maps.Keys(hdr)) {
			for _, v := range hdr[k] {
				out = append(append(append(append(out, k...), ": "...), v...), "\r\n"...)
			}
		}
		out = append(append(out, "\r\n"...), content...)
	}
	out = append(append(append(out, "\r\n--"...), boundary...), "--\r\n"...)
	return out, true, nil
}

// isTextPart reports whether a file part's media type is one the policy
// checks as text, as checkMultipart reads it (a part without a
// Content-Type is text/plain).
func (p *policy) isTextPart(hdr textproto.MIMEHeader) bool {
	_, typ, sub, params := partType(hdr)
	return matchMedia(p.multiTypes, typ, sub) && utf8Charset(params["charset"])
}

// canonMultipart canonicalizes a multipart body: field names and file
// names are normalized, the contents of form fields and text file parts
// normalized or PRECIS-enforced by field name. It returns nil when nothing
// changes.
//
// A body that is not well-formed to its end cannot be rebuilt, but a
// streaming handler (Request.MultipartReader) would still read the parts
// before the break. If one of those is not in its canonical form, the
// request is rejected, not_normalized at the first such text (a PRECIS
// field whose enforced form differs counts), rather than passed on with
// that text as it came.
func (p *policy) canonMultipart(r *http.Request, body []byte) ([]byte, *Rejection) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, nil
	}
	var first *Rejection // the first text that changes
	fn := func(field string, text []byte, content bool) ([]byte, bool, *Rejection) {
		out, ch, rj := p.canonValue(rules.Multipart, field, text, content)
		if ch && first == nil {
			off := 0 // a PRECIS field: the enforced form differs
			if n := p.form.FirstNonNormal(text); n >= 0 {
				off = n
			}
			first = reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, rules.Multipart, safeField(field), text)
		}
		return out, ch, rj
	}
	out, complete, rj := rebuildMultipart(body, params["boundary"], p, fn)
	switch {
	case rj != nil:
		return nil, rj
	case first == nil:
		return nil, nil // nothing changes
	case !complete:
		return nil, first
	}
	return out, nil
}
