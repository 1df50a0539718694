package rules_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// The query limit in policy files: "query_bytes" under "limits", read as
// the other limits are (a positive integer or -1; 0, fractions, strings
// and values out of range refused with the key path and the position),
// and a default for a policy that does not give it.

// limitsRoute returns a policy file whose route "/q" is the strict preset
// with the limits object limits.
func limitsRoute(limits string) string {
	return `{"routes": {"/q": {"preset": "strict", "limits": ` + limits + `}}}`
}

func TestParseQueryBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits string
		want   int
	}{
		{"given", `{"query_bytes": 4096}`, 4096},
		{"one", `{"query_bytes": 1}`, 1},
		{"no limit", `{"query_bytes": -1}`, -1},
		{"with the others", `{"path_bytes": 100, "query_bytes": 200, "field_bytes": 300}`, 200},
		{"largest int", `{"query_bytes": ` + strconv.Itoa(int(^uint(0)>>1)) + `}`, int(^uint(0) >> 1)},
		{"left out: the default", `{"path_bytes": 100}`, rules.DefaultQueryBytes},
		{"empty limits: the default", `{}`, rules.DefaultQueryBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tab, err := rules.Parse([]byte(limitsRoute(tt.limits)))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := tab.Routes["/q"].Limits.QueryBytes; got != tt.want {
				t.Errorf("QueryBytes = %d, want %d", got, tt.want)
			}
		})
	}
	// Every preset carries the default.
	for _, preset := range []string{"strict", "default", "unchecked"} {
		tab, err := rules.Parse([]byte(`{"default": {"preset": "` + preset + `"}}`))
		if err != nil {
			t.Fatalf("Parse %s: %v", preset, err)
		}
		if got := tab.Default.Limits.QueryBytes; got != rules.DefaultQueryBytes {
			t.Errorf("preset %s: QueryBytes = %d, want %d", preset, got, rules.DefaultQueryBytes)
		}
	}
}

func TestParseQueryBytesErrors(t *testing.T) {
	t.Parallel()
	const key = `routes["/q"].limits.query_bytes`
	tests := []struct {
		name, limits string
		msg          string // in the error
	}{
		{"zero", `{"query_bytes": 0}`, "0 is not a limit"},
		{"negative zero", `{"query_bytes": -0}`, "0 is not a limit"},
		{"negative", `{"query_bytes": -2}`, "or -1 for no limit, not -2"},
		{"fraction", `{"query_bytes": 1.5}`, "want an integer, not 1.5"},
		{"exponent", `{"query_bytes": 64e3}`, "want an integer"},
		{"string", `{"query_bytes": "65536"}`, "want a number, not a string"},
		{"null", `{"query_bytes": null}`, "want a number, not null"},
		{"out of range", `{"query_bytes": 99999999999999999999}`, "out of range"},
		{"twice", `{"query_bytes": 1, "query_bytes": 2}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := limitsRoute(tt.limits)
			_, err := rules.Parse([]byte(in))
			var pe *rules.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%s): %v, want a *ParseError", in, err)
			}
			if tt.msg != "" && (pe.Key != key || !strings.Contains(pe.Err.Error(), tt.msg)) {
				t.Errorf("Parse(%s): key %s, error %q; want key %s, error holding %q", in, pe.Key, pe.Err, key, tt.msg)
			}
			if pe.Line != 1 || pe.Column < 1 {
				t.Errorf("Parse(%s): position %d:%d, want line 1", in, pe.Line, pe.Column)
			}
		})
	}
	// A misspelt key names the known ones, query_bytes among them.
	_, err := rules.Parse([]byte(limitsRoute(`{"query_byte": 1}`)))
	if err == nil || !strings.Contains(err.Error(), `routes["/q"].limits.query_byte: unknown key`) ||
		!strings.Contains(err.Error(), `"query_bytes"`) {
		t.Errorf("misspelt key: %v, want an unknown key error listing \"query_bytes\"", err)
	}
}

// TestLoadFileQueryBytesPosition checks that LoadFile places a bad
// query_bytes at its file, line and column.
func TestLoadFileQueryBytesPosition(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.json")
	text := "{\n  \"routes\": {\n    \"/q\": {\n      \"preset\": \"strict\",\n      \"limits\": {\"query_bytes\": 0}\n    }\n  }\n}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := rules.LoadFile(file)
	want := "rules: " + file + `:5:33: routes["/q"].limits.query_bytes: 0 is not a limit`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("LoadFile: %v\nwant an error starting %q", err, want)
	}
}

// The multipart header limit in policy files: "multipart_header_lines"
// under "limits", read as the other limits are, with a default for a
// policy that does not give it.
func TestParseMultipartHeaderLines(t *testing.T) {
	t.Parallel()
	const key = `routes["/q"].limits.multipart_header_lines`
	tests := []struct {
		name, limits string
		want         int
		msg          string // in the error, when there is one
	}{
		{name: "given", limits: `{"multipart_header_lines": 3}`, want: 3},
		{name: "no limit", limits: `{"multipart_header_lines": -1}`, want: -1},
		{name: "with the others", limits: `{"multipart_parts": 10, "multipart_header_lines": 20}`, want: 20},
		{name: "left out: the default", limits: `{"multipart_parts": 10}`, want: rules.DefaultMultipartHeaderLines},
		{name: "zero", limits: `{"multipart_header_lines": 0}`, msg: "0 is not a limit"},
		{name: "negative", limits: `{"multipart_header_lines": -2}`, msg: "or -1 for no limit, not -2"},
		{name: "fraction", limits: `{"multipart_header_lines": 2.5}`, msg: "want an integer, not 2.5"},
		{name: "string", limits: `{"multipart_header_lines": "8"}`, msg: "want a number, not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := limitsRoute(tt.limits)
			tab, err := rules.Parse([]byte(in))
			if tt.msg != "" {
				var pe *rules.ParseError
				if !errors.As(err, &pe) || pe.Key != key || !strings.Contains(pe.Err.Error(), tt.msg) {
					t.Fatalf("Parse(%s): %v, want a *ParseError at %s holding %q", in, err, key, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%s): %v", in, err)
			}
			if got := tab.Routes["/q"].Limits.MultipartHeaderLines; got != tt.want {
				t.Errorf("MultipartHeaderLines = %d, want %d", got, tt.want)
			}
		})
	}
	// A policy made in Go is held to the same: below -1 is refused.
	p := rules.Strict()
	p.Limits.MultipartHeaderLines = -3
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "MultipartHeaderLines") {
		t.Errorf("Validate with MultipartHeaderLines -3: %v, want an error naming the field", err)
	}
}
