package upload

import (
	"mime"
	"testing"
)

// TestRewriteDispositionForm: the values rewritten stand where they were,
// in the form they had (quoted with its escapes, a token, an extended
// value), one or both of them, and the rest as it came.
func TestRewriteDispositionForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sent    string
		changed map[string]string
		want    string
	}{
		{"form-data; name=\"e\u0301\"; filename=\"f.txt\"", map[string]string{"name": "\u00e9"},
			"form-data; name=\"\u00e9\"; filename=\"f.txt\""},
		{"form-data; name=a;  filename=\"e\u0301 \\\"q\\\".txt\"", map[string]string{"name": "b", "filename": "\u00e9 \"q\".txt"},
			"form-data; name=b;  filename=\"\u00e9 \\\"q\\\".txt\""},
		{"form-data; filename=\"e\u0301.txt\"; name=x", map[string]string{"filename": "\u00e9.txt", "name": "\u00e9"},
			"form-data; filename=\"\u00e9.txt\"; name=\"\u00e9\""},
		{"form-data; name*=utf-8''e%CC%81; filename=\"e\u0301\"", map[string]string{"name": "\u00e9", "filename": "\u00e9"},
			"form-data; name*=utf-8''%C3%A9; filename=\"\u00e9\""},
		{"attachment; filename=\"a\\\\b\"", map[string]string{"filename": "c\\d"},
			"attachment; filename=\"c\\\\d\""},
	} {
		disp, params, err := mime.ParseMediaType(tc.sent)
		if err != nil {
			t.Fatalf("%s: %v", tc.sent, err)
		}
		var keys []string
		for _, k := range []string{"name", "filename"} {
			if v, ok := tc.changed[k]; ok {
				params[k] = v
				keys = append(keys, k)
			}
		}
		got, ok := rewriteDisposition(tc.sent, disp, params, keys)
		if !ok || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.sent, got, ok, tc.want)
		}
	}
}
