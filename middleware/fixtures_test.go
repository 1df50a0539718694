package middleware_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
)

// gzipOf is s compressed as one gzip member.
func gzipOf(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// mpBody is a multipart/form-data body of name and value pairs, with
// ctMP's boundary.
func mpBody(pairs ...string) string {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary("conformance-boundary")
	for i := 0; i+1 < len(pairs); i += 2 {
		_ = w.WriteField(pairs[i], pairs[i+1])
	}
	_ = w.Close()
	return b.String()
}

const ctMP = "multipart/form-data; boundary=conformance-boundary"
