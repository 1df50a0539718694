package rules

import (
	"errors"
	"testing"
)

// TestLoaderValidatePositions: a Validate error on a policy read from a
// file points at the value at fault, or, when the preset gave that value,
// at the policy. The loader's own checks come first, so these policies
// are edited after reading, as only a mistake that the loader missed would
// reach ld.validate.
func TestLoaderValidatePositions(t *testing.T) {
	t.Parallel()
	data := []byte(`{"default": {"preset": "strict"},
"routes": {
  "/r": {"preset": "strict", "header": {"on": true}, "headers": ["A", "B"],
         "limits": {"fields": 5}, "query": {"on": true}}}}`)
	for _, tc := range []struct {
		name      string
		edit      func(t *Table)
		key       string
		line, col int
	}{
		{"listed header", func(t *Table) { p := t.Routes["/r"]; p.Headers[1] = "a"; t.Routes["/r"] = p },
			`routes["/r"].headers[1]`, 3, 71},
		{"limit in the file", func(t *Table) { p := t.Routes["/r"]; p.Limits.Fields = -7; t.Routes["/r"] = p },
			`routes["/r"].limits.fields`, 4, 31},
		{"limit from the preset", func(t *Table) { p := t.Routes["/r"]; p.Limits.JSONDepth = -7; t.Routes["/r"] = p },
			`routes["/r"].limits`, 4, 20},
		{"check in the file", func(t *Table) {
			p := t.Routes["/r"]
			p.Query.RefuseDoubleEncoding = false
			p.JSON.RefuseDoubleEncoding = true
			t.Routes["/r"] = p
		},
			`routes["/r"]`, 3, 9},
		{"class from the preset", func(t *Table) { p := t.Routes["/r"]; p.Query.Forbid = 1 << 15; t.Routes["/r"] = p },
			`routes["/r"].query`, 4, 44},
		{"default", func(t *Table) { t.Default.Header.On = true }, `default`, 1, 13},
		{"route key not in the file", func(t *Table) { t.Routes["/\x00"] = Strict() }, `routes`, 2, 11},
	} {
		ld := &loader{data: data}
		root, err := readTree(ld)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := ld.table(root)
		if err != nil {
			t.Fatal(err)
		}
		tc.edit(tbl)
		err = ld.validate(root, tbl)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Key != tc.key || pe.Line != tc.line || pe.Column != tc.col {
			t.Errorf("%s: %v (key %s at %d:%d), want %s at %d:%d", tc.name, err, pe.Key, pe.Line, pe.Column, tc.key, tc.line, tc.col)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"RefuseDoubleEncoding": "refuse_double_encoding", "JSONDepth": "json_depth", "JSON": "json",
		"XML": "xml", "BodyBytes": "body_bytes", "Headers": "headers", "MultipartTextTypes": "multipart_text_types",
		"On": "on", "Forbid": "forbid", "BinaryTypes": "binary_types", "RejectUnnormalized": "reject_unnormalized",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
