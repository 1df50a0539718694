package rules_test

import (
	"reflect"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// samples are texts of one character class each (or of none), for checking
// what a Check refuses against what the preset docs say, independently of
// the Class constants the presets are written with.
var samples = []struct {
	name, text string
}{
	{"plain", "abc é 日本"},
	{"nul", "a\x00b"},
	{"c0", "a\x01b"},
	{"c0-esc", "a\x1bb"},
	{"tab", "a\tb"},
	{"lf", "a\nb"},
	{"cr", "a\rb"},
	{"del", "a\x7fb"},
	{"c1", "a\u0085b"},
	{"bidi", "a\u202eb"},
	{"bidi-isolate", "a\u2066b"},
	{"lrm", "a\u200eb"},
	{"rlm", "\u05d1-10:00\u200f"},
	{"alm", "\u0663\u061c"},
	{"zwj", "\U0001f469\u200d\U0001f4bb"},
	{"zwnj", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"},
	{"leading-bom", "\ufeffab"},
	{"inner-bom", "a\ufeffb"}, // not a BOM: a default-ignorable character
	{"noncharacter", "a\ufdd0b"},
	{"private-use", "a\ue000b"},
	{"zwsp", "a\u200bb"},
	{"soft-hyphen", "a\u00adb"},
}

// refusedBy lists, per preset doc comment, which samples each location
// refuses. Samples not listed must pass.
var (
	strictURL    = []string{"nul", "c0", "c0-esc", "tab", "lf", "cr", "c1", "bidi", "bidi-isolate", "leading-bom"}
	strictBody   = []string{"nul", "c0", "c0-esc", "c1", "bidi", "bidi-isolate"}
	strictHeader = []string{"nul", "c0", "c0-esc", "tab", "lf", "cr", "c1", "bidi", "bidi-isolate"}
	defaultAll   = []string{"nul"}
	// "the bidi marks (...) where text is an identifier or a name: in the
	// whole path, in query and form keys, JSON member names, XML element
	// and attribute names and processing-instruction targets, multipart
	// field names, file names and part headers, and cookie names".
	marks = []string{"lrm", "rlm", "alm"}
)

func TestPresetClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		preset string
		policy rules.Policy
		refuse [rules.NumLocations][]string
		// names, where not nil, is what the location refuses in its
		// names (Forbid|Names); otherwise, refuse.
		names [rules.NumLocations][]string
	}{
		{"strict", rules.Strict(), [rules.NumLocations][]string{
			rules.Path: append(marks, strictURL...), rules.Query: strictURL,
			rules.Form: strictBody, rules.JSON: strictBody, rules.XML: strictBody,
			rules.Multipart: strictBody, rules.Body: strictBody,
			// "in names and header text (... cookie names and values,
			// checked header values): every C0 control, TAB, LF and CR
			// included".
			rules.Header: strictHeader,
		}, [rules.NumLocations][]string{
			rules.Query: append(marks, strictURL...), rules.Form: append(marks, strictBody...),
			rules.JSON: append(marks, strictBody...), rules.XML: append(marks, strictBody...),
			rules.Multipart: append(marks, strictBody...),
			rules.Header:    append(marks, strictHeader...),
		}},
		{"default", rules.Default(), [rules.NumLocations][]string{
			rules.Path: defaultAll, rules.Query: defaultAll, rules.Form: defaultAll, rules.JSON: defaultAll,
			rules.Multipart: defaultAll, rules.Body: defaultAll, rules.Header: defaultAll, rules.XML: defaultAll,
		}, [rules.NumLocations][]string{}},
		{"unchecked", rules.Unchecked(), [rules.NumLocations][]string{}, [rules.NumLocations][]string{}},
	}
	for _, tt := range tests {
		for l := range rules.Location(rules.NumLocations) {
			t.Run(tt.preset+"/"+l.String(), func(t *testing.T) {
				t.Parallel()
				p := tt.policy
				c := p.Location(l)
				names := tt.names[l]
				if names == nil {
					names = tt.refuse[l]
				}
				for _, s := range samples {
					want := contains(tt.refuse[l], s.name)
					err := sanitize.CheckString(s.text, c.Forbid)
					if got := err != nil; got != want {
						t.Errorf("%s: refused = %v (%v), want %v", s.name, got, err, want)
					}
					want = contains(names, s.name)
					err = sanitize.CheckString(s.text, c.Forbid|c.Names)
					if got := err != nil; got != want {
						t.Errorf("%s in a name: refused = %v (%v), want %v", s.name, got, err, want)
					}
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func defaultLimits() rules.Limits {
	// The values the Limits doc comments give.
	return rules.Limits{
		BodyBytes:            1 << 20,
		Fields:               1000,
		FieldBytes:           64 << 10,
		PathBytes:            8 << 10,
		QueryBytes:           64 << 10,
		JSONDepth:            512,
		MultipartParts:       100,
		MultipartHeaderLines: 6,

		// "Default 32 MiB", both: the size of Go's own form parser.
		BinaryBodyBytes: 32 << 20,
		FileBytes:       32 << 20,
	}
}

func TestStrict(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	if p.Mode != rules.Enforce {
		t.Errorf("Mode = %v, want enforce", p.Mode)
	}
	for l := range rules.Location(rules.NumLocations) {
		c := p.Location(l)
		// "It checks every location but headers".
		if want := l != rules.Header; c.On != want {
			t.Errorf("%v.On = %v, want %v", l, c.On, want)
		}
		// "double encoding ("%252e") in the path".
		if want := l == rules.Path; c.RefuseDoubleEncoding != want {
			t.Errorf("%v.RefuseDoubleEncoding = %v, want %v", l, c.RefuseDoubleEncoding, want)
		}
		// "every malformation": nothing is repaired.
		if c.Repair {
			t.Errorf("%v.Repair = true, want false", l)
		}
	}
	if !p.RefuseCharsets {
		t.Error("RefuseCharsets = false, want true")
	}
	if p.Normalization != normalize.None || p.RejectUnnormalized {
		t.Errorf("Normalization = %v, RejectUnnormalized = %v, want none, false", p.Normalization, p.RejectUnnormalized)
	}
	if p.Headers != nil {
		t.Errorf("Headers = %q, want nil", p.Headers)
	}
	if want := []string{"application/yaml", "application/x-yaml", "application/graphql", "application/javascript"}; !reflect.DeepEqual(p.BodyTypes, want) {
		t.Errorf("BodyTypes = %q, want %q", p.BodyTypes, want)
	}
	if want := []string{"text/*"}; !reflect.DeepEqual(p.MultipartTextTypes, want) {
		t.Errorf("MultipartTextTypes = %q, want %q", p.MultipartTextTypes, want)
	}
	if p.Limits != defaultLimits() {
		t.Errorf("Limits = %+v, want %+v", p.Limits, defaultLimits())
	}
}

func TestDefault(t *testing.T) {
	t.Parallel()
	p := rules.Default()
	if p.Mode != rules.Enforce {
		t.Errorf("Mode = %v, want enforce", p.Mode)
	}
	for l := range rules.Location(rules.NumLocations) {
		c := p.Location(l)
		if want := l != rules.Header; c.On != want {
			t.Errorf("%v.On = %v, want %v", l, c.On, want)
		}
		// "and nothing else".
		if c.RefuseDoubleEncoding || c.Repair {
			t.Errorf("%v: RefuseDoubleEncoding = %v, Repair = %v, want false, false", l, c.RefuseDoubleEncoding, c.Repair)
		}
	}
	// "Bodies that declare a charset other than UTF-8 or US-ASCII are
	// passed on unchecked".
	if p.RefuseCharsets {
		t.Error("RefuseCharsets = true, want false")
	}
	if p.Normalization != normalize.None || p.RejectUnnormalized {
		t.Errorf("Normalization = %v, RejectUnnormalized = %v, want none, false", p.Normalization, p.RejectUnnormalized)
	}
	if p.Headers != nil {
		t.Errorf("Headers = %q, want nil", p.Headers)
	}
	if want := []string{"application/yaml", "application/x-yaml", "application/graphql", "application/javascript"}; !reflect.DeepEqual(p.BodyTypes, want) {
		t.Errorf("BodyTypes = %q, want %q", p.BodyTypes, want)
	}
	if want := []string{"text/*"}; !reflect.DeepEqual(p.MultipartTextTypes, want) {
		t.Errorf("MultipartTextTypes = %q, want %q", p.MultipartTextTypes, want)
	}
	if p.Limits != defaultLimits() {
		t.Errorf("Limits = %+v, want %+v", p.Limits, defaultLimits())
	}
}

func TestUnchecked(t *testing.T) {
	t.Parallel()
	p := rules.Unchecked()
	if !p.Off() {
		t.Error("Off() = false, want true")
	}
	want := rules.Policy{Limits: defaultLimits()}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Unchecked() = %+v, want %+v", p, want)
	}
}

func TestPresetsAreFresh(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		fn   func() rules.Policy
	}{
		{"strict", rules.Strict},
		{"default", rules.Default},
		{"unchecked", rules.Unchecked},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.fn()
			p := tt.fn()
			if !reflect.DeepEqual(p, want) {
				t.Fatalf("two calls differ: %+v and %+v", p, want)
			}
			// Edit everything, in place where there is a slice.
			for i := range p.MultipartTextTypes {
				p.MultipartTextTypes[i] = "edited/edited"
			}
			for i := range p.BodyTypes {
				p.BodyTypes[i] = "edited/edited"
			}
			p.MultipartTextTypes = append(p.MultipartTextTypes, "image/*")
			p.Headers = append(p.Headers, "X-Edited")
			p.BodyTypes = append(p.BodyTypes, "application/edited")
			p.Path.Forbid = 0
			p.Limits.BodyBytes = 1
			if got := tt.fn(); !reflect.DeepEqual(got, want) {
				t.Errorf("after editing one value, the next is %+v, want %+v", got, want)
			}
		})
	}
}

func TestAsMonitor(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	p.Headers = []string{"User-Agent"}
	p.BodyTypes = []string{"application/xml"}
	orig := rules.Strict()
	orig.Headers = []string{"User-Agent"}
	orig.BodyTypes = []string{"application/xml"}

	m := p.AsMonitor()
	if m.Mode != rules.Monitor {
		t.Errorf("Mode = %v, want monitor", m.Mode)
	}
	if p.Mode != rules.Enforce {
		t.Errorf("AsMonitor changed the receiver's Mode to %v", p.Mode)
	}
	rest := m
	rest.Mode = rules.Enforce
	if !reflect.DeepEqual(rest, p) {
		t.Errorf("AsMonitor changed more than Mode: %+v", m)
	}
	m.Headers[0] = "X-Edited"
	m.BodyTypes[0] = "edited/edited"
	m.MultipartTextTypes[0] = "edited/edited"
	if !reflect.DeepEqual(p, orig) {
		t.Errorf("editing the copy's slices changed the original: %+v", p)
	}

	// Nil slices stay nil.
	u := rules.Unchecked().AsMonitor()
	if u.Headers != nil || u.BodyTypes != nil || u.MultipartTextTypes != nil {
		t.Errorf("AsMonitor of nil slices = %#v, %#v, %#v, want nil", u.Headers, u.BodyTypes, u.MultipartTextTypes)
	}
	// Monitor of monitor is monitor.
	if mm := m.AsMonitor(); mm.Mode != rules.Monitor {
		t.Errorf("AsMonitor().AsMonitor().Mode = %v", mm.Mode)
	}
}
