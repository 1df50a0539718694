package middleware

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkMultipart checks a multipart/form-data body: every part's header
// values, field name and file name (filename and RFC 5987/8187 filename*,
// as mime decodes them), the contents of form fields, and the contents of
// file parts whose media type the policy lists as text. Other file parts
// are binary and not read as text.
//
// Multipart bodies are never repaired: rebuilding one is left to a later
// version, so under Repair an ill-formed part is rejected all the same.
func checkMultipart(r *http.Request, body []byte, p *policy) *Rejection {
	c := &p.Multipart
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	boundary := params["boundary"]
	if err != nil || boundary == "" {
		return nil // not parseable as multipart: the handler's parser fails too
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	fields := 0
	for n := 1; ; n++ {
		part, err := mr.NextPart()
		if err != nil {
			return nil // io.EOF, or a syntax error the handler's parser meets too
		}
		if p.Limits.MultipartParts >= 0 && n > p.Limits.MultipartParts {
			return tooMany(rules.Multipart)
		}
		// The field name and the file name first, so that the Rejection
		// names the field rather than the Content-Disposition header that
		// carries them; then every header value, the rest of that one
		// included.
		cd := part.Header.Get("Content-Disposition")
		_, disp, derr := mime.ParseMediaType(cd)
		field, file := disp["name"], disp["filename"]
		if err := sanitize.CheckString(field, c.Forbid); err != nil {
			return reject(err, rules.Multipart, safeField(field), field)
		}
		if err := sanitize.CheckString(file, c.Forbid); err != nil {
			return reject(err, rules.Multipart, safeField(field), file)
		}
		for name, vals := range part.Header {
			for _, v := range vals {
				if err := sanitize.CheckString(v, c.Forbid); err != nil {
					return reject(err, rules.Multipart, safeField(name), v)
				}
			}
		}
		// A file part is one with a file name, as multipart.Part.FileName
		// and Reader.ReadForm tell: an empty filename="" is a form value,
		// and so is a field named "filename". A part whose
		// Content-Disposition does not parse (or is missing) has none:
		// Request.ParseMultipartForm skips it, but a handler streaming with
		// Request.MultipartReader reads it, so it is checked as a field
		// (fail closed).
		isFile := derr == nil && file != ""
		if !isFile {
			if fields++; p.Limits.Fields >= 0 && fields > p.Limits.Fields {
				return tooMany(rules.Multipart)
			}
		}
		if isFile {
			typ, sub, charset := contentType(part.Header.Get("Content-Type"))
			if !matchMedia(p.multiTypes, typ, sub) {
				continue // a binary file
			}
			if !utf8Charset(charset) {
				if p.RefuseCharsets {
					return &Rejection{Reason: sanitize.BadCharset, Location: rules.Multipart, Field: safeField(field), Err: sanitize.ErrBadCharset}
				}
				continue
			}
		}
		limit := int64(p.Limits.FieldBytes)
		if isFile || limit < 0 {
			limit = p.Limits.BodyBytes // file parts are bounded by the body
		}
		data, err := readLimited(part, limit)
		if errors.Is(err, errTooLong) {
			return tooLarge(rules.Multipart, safeField(field))
		}
		// A broken part (the body ends inside it) fails the handler's
		// parser too, but only after a streaming handler has read what
		// came before the break: that much is checked all the same.
		if cerr := sanitize.Check(data, c.Forbid); cerr != nil {
			return reject(cerr, rules.Multipart, safeField(field), data)
		}
		if err != nil {
			return nil
		}
	}
}

var errTooLong = errors.New("over the limit")

// readLimited reads r to its end, or to limit octets and then fails with
// errTooLong. On another error it returns what it read with the error.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	if limit < 0 {
		return io.ReadAll(r)
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = errTooLong
	}
	return data, err
}
