package upload

import (
	"mime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// TestRewriteDispositionAllocs: rewriting a long name costs what
// mime.ParseMediaType, which reads the result back, costs, and a few
// allocations of its own (the new value and the header written): none
// that grows with the name's length.
func TestRewriteDispositionAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation counts differ under the race detector")
	}
	for _, tc := range []struct{ name, sent, unit string }{
		{"quoted", `form-data; name="NAME"; filename="f.txt"`, "e\u0301a"},
		{"extended", `form-data; name*=utf-8''NAME`, "e%CC%81a"},
		{"extended, quoted", `form-data; name*="utf-8''NAME"`, "e%CC%81a"},
	} {
		for _, n := range []int{1, 16, 256, 4096} {
			nv := strings.Repeat("\u00e9a", n)
			sent := strings.Replace(tc.sent, "NAME", strings.Repeat(tc.unit, n), 1)
			disp, params, err := mime.ParseMediaType(sent)
			if err != nil {
				t.Fatal(err)
			}
			params["name"] = nv
			out, ok := rewriteDisposition(sent, disp, params, []string{"name"})
			if !ok {
				t.Fatalf("%s, %d: not rewritten", tc.name, n)
			}
			parse := testing.AllocsPerRun(20, func() { _, _, _ = mime.ParseMediaType(out) })
			got := testing.AllocsPerRun(20, func() { _, _ = rewriteDisposition(sent, disp, params, []string{"name"}) })
			if got > parse+3 {
				t.Errorf("%s, %d runes: %v allocations, ParseMediaType of the result %v: want at most 3 more", tc.name, 2*n, got, parse)
			}
		}
	}
}

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
