package rules_test

import (
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

func TestLocationString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		l    rules.Location
		want string
	}{
		{rules.Path, "path"},
		{rules.Query, "query"},
		{rules.Form, "form"},
		{rules.JSON, "json"},
		{rules.Multipart, "multipart"},
		{rules.Body, "body"},
		{rules.Header, "header"},
		{rules.XML, "xml"},
		{rules.NumLocations, "Location(8)"},
		{255, "Location(255)"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Location(%d).String() = %q, want %q", uint8(tt.l), got, tt.want)
		}
	}
	if rules.NumLocations != 8 {
		t.Errorf("NumLocations = %d, want 8", rules.NumLocations)
	}
}

func TestModeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    rules.Mode
		want string
	}{
		{rules.Enforce, "enforce"},
		{rules.Monitor, "monitor"},
		{rules.Mode(0), "enforce"}, // the zero Mode enforces
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("Mode(%d).String() = %q, want %q", uint8(tt.m), got, tt.want)
		}
	}
}

func TestPolicyLocation(t *testing.T) {
	t.Parallel()
	var p rules.Policy
	fields := [rules.NumLocations]*rules.Check{
		rules.Path: &p.Path, rules.Query: &p.Query, rules.Form: &p.Form, rules.JSON: &p.JSON,
		rules.Multipart: &p.Multipart, rules.Body: &p.Body, rules.Header: &p.Header, rules.XML: &p.XML,
	}
	for l := range rules.Location(rules.NumLocations) {
		if got := p.Location(l); got != fields[l] {
			t.Errorf("Location(%v) points at the wrong field", l)
		}
		// The pointer is into p: editing through it edits p.
		p.Location(l).On = true
		if !fields[l].On {
			t.Errorf("Location(%v).On = true did not reach the field", l)
		}
	}
	for _, l := range []rules.Location{rules.NumLocations, 255} {
		if c := p.Location(l); c != nil {
			t.Errorf("Location(%d) = %p, want nil", uint8(l), c)
		}
	}
}

func TestPolicyOff(t *testing.T) {
	t.Parallel()
	if p := (rules.Policy{}); !p.Off() {
		t.Error("zero Policy: Off() = false, want true")
	}
	if p := rules.Unchecked(); !p.Off() {
		t.Error("Unchecked: Off() = false, want true")
	}
	for _, p := range []rules.Policy{rules.Strict(), rules.Default()} {
		if p.Off() {
			t.Errorf("%+v: Off() = true, want false", p)
		}
	}
	// Any one location turns the policy on; a Forbid set alone does not.
	for l := range rules.Location(rules.NumLocations) {
		var p rules.Policy
		p.Location(l).Forbid = 1
		if !p.Off() {
			t.Errorf("only %v.Forbid set: Off() = false, want true", l)
		}
		p.Location(l).On = true
		if p.Off() {
			t.Errorf("only %v.On: Off() = true, want false", l)
		}
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	t.Parallel()
	def := defaultLimits()
	tests := []struct {
		name string
		in   rules.Limits
		want rules.Limits
	}{
		{"zero", rules.Limits{}, def},
		{"negative kept", rules.Limits{BodyBytes: -1, BinaryBodyBytes: -1, FileBytes: -1, Fields: -1, FieldBytes: -1, PathBytes: -1, QueryBytes: -1, JSONDepth: -1, MultipartParts: -1, MultipartHeaderLines: -1},
			rules.Limits{BodyBytes: -1, BinaryBodyBytes: -1, FileBytes: -1, Fields: -1, FieldBytes: -1, PathBytes: -1, QueryBytes: -1, JSONDepth: -1, MultipartParts: -1, MultipartHeaderLines: -1}},
		{"positive kept", rules.Limits{BodyBytes: 5, BinaryBodyBytes: 11, FileBytes: 12, Fields: 6, FieldBytes: 7, PathBytes: 8, QueryBytes: 13, JSONDepth: 9, MultipartParts: 10, MultipartHeaderLines: 14},
			rules.Limits{BodyBytes: 5, BinaryBodyBytes: 11, FileBytes: 12, Fields: 6, FieldBytes: 7, PathBytes: 8, QueryBytes: 13, JSONDepth: 9, MultipartParts: 10, MultipartHeaderLines: 14}},
		{"mixed", rules.Limits{BodyBytes: 4 << 20, JSONDepth: -1, FileBytes: -1},
			rules.Limits{BodyBytes: 4 << 20, BinaryBodyBytes: def.BinaryBodyBytes, FileBytes: -1, Fields: def.Fields, FieldBytes: def.FieldBytes, PathBytes: def.PathBytes, QueryBytes: def.QueryBytes, JSONDepth: -1, MultipartParts: def.MultipartParts, MultipartHeaderLines: def.MultipartHeaderLines}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.in
			if got := tt.in.WithDefaults(); got != tt.want {
				t.Errorf("WithDefaults() = %+v, want %+v", got, tt.want)
			}
			if in != tt.in {
				t.Error("WithDefaults changed its receiver")
			}
			if got := tt.want.WithDefaults(); got != tt.want {
				t.Errorf("WithDefaults is not idempotent: %+v", got)
			}
		})
	}
	if def != (rules.Limits{
		BodyBytes: rules.DefaultBodyBytes, Fields: rules.DefaultFields, FieldBytes: rules.DefaultFieldBytes,
		PathBytes: rules.DefaultPathBytes, QueryBytes: rules.DefaultQueryBytes, JSONDepth: rules.DefaultJSONDepth, MultipartParts: rules.DefaultMultipartParts,
		MultipartHeaderLines: rules.DefaultMultipartHeaderLines,
		BinaryBodyBytes:      rules.DefaultBinaryBodyBytes, FileBytes: rules.DefaultFileBytes,
	}) {
		t.Error("the Default* constants differ from the values their doc comments give")
	}
}
