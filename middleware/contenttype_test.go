package middleware

import (
	"mime"
	"strings"
	"testing"
)

// TestContentType checks contentType, its shortcuts for common values
// included, against mime.ParseMediaType: the same type and subtype, lower
// case, and the same charset parameter.
func TestContentType(t *testing.T) {
	for _, ct := range []string{
		"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8",
		"application/json; charset=UTF-8", "application/x-www-form-urlencoded",
		"text/plain; charset=utf-8", "Application/JSON", "text/plain;charset=\"latin1\"",
		"multipart/form-data; boundary=x", "application/problem+json", " text/html ; charset=ascii ",
		"applİcation/json", "application/vnd.api+json; charset=utf-8; x=1",
	} {
		typ, sub, charset := contentType(ct)
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("%q: %v", ct, err)
		}
		wantTyp, wantSub, _ := strings.Cut(mt, "/")
		if typ != wantTyp || sub != wantSub || charset != params["charset"] {
			t.Errorf("contentType(%q) = %q, %q, %q; mime says %q, %q, %q", ct, typ, sub, charset, wantTyp, wantSub, params["charset"])
		}
		if gt, gs, gc := parseContentType(ct); gt != typ || gs != sub || gc != charset {
			t.Errorf("%q: the shortcut gives %q, %q, %q, the parse %q, %q, %q", ct, typ, sub, charset, gt, gs, gc)
		}
	}
}
