package rules_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// TestFileContentsPresets: the strict and default presets check the
// contents of text/* file parts (TextFiles, the zero value, so that a
// Policy built by hand fails closed); String gives the file's names.
func TestFileContentsPresets(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]rules.Policy{"strict": rules.Strict(), "default": rules.Default(), "unchecked": rules.Unchecked()} {
		if p.FileContents != rules.TextFiles {
			t.Errorf("%s: FileContents = %v, want text", name, p.FileContents)
		}
	}
	if rules.TextFiles != 0 {
		t.Error("TextFiles is not the zero value")
	}
	for f, want := range map[rules.FileContents]string{rules.TextFiles: "text", rules.DataFiles: "data", 7: "FileContents(7)"} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", f, got, want)
		}
	}
}

// TestParseUploadPolicy: "file_contents" and the binary limits, as a
// route that stores uploads writes them.
func TestParseUploadPolicy(t *testing.T) {
	t.Parallel()
	tab, err := rules.Parse([]byte(`{"routes": {"/upload/*": {"preset": "strict", "file_contents": "data",
		"binary_types": ["application/octet-stream"],
		"limits": {"binary_body_bytes": 268435456, "file_bytes": 134217728}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := rules.Strict()
	want.FileContents = rules.DataFiles
	want.BinaryTypes = []string{"application/octet-stream"}
	want.Limits.BinaryBodyBytes = 256 << 20
	want.Limits.FileBytes = 128 << 20
	got := tab.Routes["/upload/*"]
	if got.FileContents != want.FileContents || got.Limits != want.Limits {
		t.Errorf("got FileContents %v, Limits %+v; want %v, %+v", got.FileContents, got.Limits, want.FileContents, want.Limits)
	}
	// "text" is accepted too, and keeps the preset's list.
	tab, err = rules.Parse([]byte(`{"default": {"preset": "default", "file_contents": "text", "limits": {"file_bytes": -1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tab.Default.FileContents != rules.TextFiles || len(tab.Default.MultipartTextTypes) != 1 || tab.Default.Limits.FileBytes != -1 {
		t.Errorf("default: %v %q %d", tab.Default.FileContents, tab.Default.MultipartTextTypes, tab.Default.Limits.FileBytes)
	}
}

// TestParseUploadErrors: the new keys are checked as strictly as the
// others, with the key path, line and column of the value at fault.
func TestParseUploadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, key, msg string
		line, col          int
	}{
		{"unknown file contents", "{\"routes\": {\"/r\": {\"preset\": \"strict\",\n  \"file_contents\": \"binary\"}}}",
			`routes["/r"].file_contents`, `unknown file contents "binary": want "text" or "data"`, 2, 20},
		{"file contents not a string", `{"default": {"preset": "strict", "file_contents": true}}`,
			`default.file_contents`, `want a string, not a boolean`, 1, 51},
		{"data with text types", "{\"default\": {\"preset\": \"strict\", \"file_contents\": \"data\",\n \"multipart_text_types\": [\"text/*\"]}}",
			`default.multipart_text_types`, `"file_contents" is "data"`, 2, 2},
		{"zero file limit", `{"default": {"preset": "strict", "limits": {"file_bytes": 0}}}`,
			`default.limits.file_bytes`, `0 is not a limit`, 1, 59},
		{"negative binary limit", `{"default": {"preset": "strict", "limits": {"binary_body_bytes": -5}}}`,
			`default.limits.binary_body_bytes`, `or -1 for no limit, not -5`, 1, 66},
		{"huge binary limit", `{"default": {"preset": "strict", "limits": {"binary_body_bytes": 9223372036854775808}}}`,
			`default.limits.binary_body_bytes`, `out of range`, 1, 66},
		{"misspelt limit", `{"default": {"preset": "strict", "limits": {"file_size": 5}}}`,
			`default.limits.file_size`, `"binary_body_bytes", "file_bytes"`, 1, 45},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rules.Parse([]byte(tc.in))
			var pe *rules.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %v, want a *ParseError", err)
			}
			if pe.Key != tc.key || !strings.Contains(pe.Error(), tc.msg) || pe.Line != tc.line || pe.Column != tc.col {
				t.Errorf("error %q at %d:%d (key %s), want key %s at %d:%d with %q", pe, pe.Line, pe.Column, pe.Key, tc.key, tc.line, tc.col, tc.msg)
			}
		})
	}
	// From a file: the message names the file, the line and the column.
	name := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(name, []byte("{\"default\": {\"preset\": \"strict\",\n  \"file_contents\": \"blob\"}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := rules.LoadFile(name)
	if err == nil || !strings.Contains(err.Error(), name+":2:20: default.file_contents: unknown file contents") {
		t.Errorf("LoadFile = %v", err)
	}
}

// TestValidateFileContents: Validate refuses a FileContents that is
// neither TextFiles nor DataFiles, and takes DataFiles with the preset's
// MultipartTextTypes left as it is (it is not used then).
func TestValidateFileContents(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	p.FileContents = rules.DataFiles
	if err := p.Validate(); err != nil {
		t.Errorf("DataFiles: %v", err)
	}
	p.FileContents = 2
	var ve *rules.ValidationError
	if err := p.Validate(); !errors.As(err, &ve) || ve.Field != "FileContents" {
		t.Errorf("FileContents 2: %v", err)
	}
	p = rules.Strict()
	p.Limits.FileBytes = -2
	if err := p.Validate(); !errors.As(err, &ve) || ve.Field != "Limits.FileBytes" {
		t.Errorf("FileBytes -2: %v", err)
	}
}
