package middleware

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
)

// textFn brings one field's text to its canonical form: the text itself
// and false when nothing changes, a Rejection when the text may not pass.
// content says whether text is a part's content (PRECIS applies to the
// field's content) or one of its names.
type textFn func(field string, text []byte, content bool) ([]byte, bool, *Rejection)

// rebuildMultipart returns a multipart/form-data body equal to body but for
// field names, file names and the contents of text parts, which pass
// through fn. The boundary is kept; file parts that are not text are copied
// byte for byte; a quoted-printable text part is written decoded, as
// Request.ParseMultipartForm would have read it. The preamble and epilogue,
// which no form parser reads, are dropped. body has passed checkMultipart.
func rebuildMultipart(body []byte, boundary string, p *policy, fn textFn) ([]byte, *Rejection) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var out bytes.Buffer
	out.Grow(len(body) + 64)
	mw := multipart.NewWriter(&out)
	if err := mw.SetBoundary(boundary); err != nil {
		return body, nil // a boundary Go would not write: leave the body as it is
	}
	for {
		part, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return body, nil
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
					return nil, rj
				}
				if ch {
					params[key], changed = string(nv), true
				}
			}
			if changed {
				hdr.Set("Content-Disposition", mime.FormatMediaType(disp, params))
			}
		}
		content, err := io.ReadAll(part)
		if err != nil {
			return body, nil
		}
		if _, isFile := params["filename"]; perr == nil && (!isFile || p.isTextPart(hdr)) {
			if strings.EqualFold(hdr.Get("Content-Transfer-Encoding"), "quoted-printable") {
				if content, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(content))); err != nil {
					return body, nil
				}
				hdr.Del("Content-Transfer-Encoding")
			}
			nc, _, rj := fn(field, content, true)
			if rj != nil {
				return nil, rj
			}
			content = nc
		}
		w, err := mw.CreatePart(hdr)
		if err != nil {
			return body, nil
		}
		_, _ = w.Write(content) // a bytes.Buffer does not fail
	}
	if err := mw.Close(); err != nil {
		return body, nil
	}
	return out.Bytes(), nil
}

// isTextPart reports whether a file part's media type is one the policy
// checks as text.
func (p *policy) isTextPart(hdr textproto.MIMEHeader) bool {
	typ, sub, charset := contentType(hdr.Get("Content-Type"))
	return matchMedia(p.multiTypes, typ, sub) && utf8Charset(charset)
}
