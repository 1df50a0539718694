package rules_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestValidatePresets: the presets, their monitor forms and the zero Policy
// are valid.
func TestValidatePresets(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]rules.Policy{
		"strict": rules.Strict(), "default": rules.Default(), "unchecked": rules.Unchecked(),
		"strict monitor": rules.Strict().AsMonitor(), "zero": {},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := (rules.Table{Default: p, Routes: map[string]rules.Policy{"/x": p}}).Validate(); err != nil {
			t.Errorf("%s in a table: %v", name, err)
		}
	}
	if err := (rules.Table{}).Validate(); err != nil {
		t.Errorf("zero Table: %v", err)
	}
}

// TestValidatePolicy: each mistake a Go policy can hold, with the field
// the error names and what it says.
func TestValidatePolicy(t *testing.T) {
	t.Parallel()
	strict := func(edit func(p *rules.Policy)) rules.Policy {
		p := rules.Strict()
		edit(&p)
		return p
	}
	cases := []struct {
		name  string
		p     rules.Policy
		field string
		msg   string
	}{
		{"unknown mode", strict(func(p *rules.Policy) { p.Mode = 7 }), "Mode", "unknown mode 7; want rules.Enforce or rules.Monitor"},
		{"unknown normalization", strict(func(p *rules.Policy) { p.Normalization = 9 }), "Normalization", "unknown form Form(9)"},
		{"reject unnormalized without a form", strict(func(p *rules.Policy) { p.RejectUnnormalized = true }), "RejectUnnormalized", "needs a Normalization"},
		{"header on without headers", strict(func(p *rules.Policy) { p.Header.On = true }), "Header.On", "Headers lists no header names"},
		{"headers without header on", strict(func(p *rules.Policy) { p.Headers = []string{"User-Agent"} }), "Headers", "Headers lists header names, but header checks are off: set Header.On"},
		{"header name not a token", strict(func(p *rules.Policy) { p.Header.On, p.Headers = true, []string{"X-A", "X B"} }), "Headers[1]", `invalid header name "X B"`},
		{"header listed twice", strict(func(p *rules.Policy) { p.Header.On, p.Headers = true, []string{"X-A", "x-a"} }), "Headers[1]", `header "x-a" already listed as Headers[0]`},
		{"body type with a parameter", strict(func(p *rules.Policy) { p.BodyTypes = []string{"text/csv; charset=utf-8"} }), "BodyTypes[0]", "without parameters"},
		{"body type without a subtype", strict(func(p *rules.Policy) { p.BodyTypes = []string{"application"} }), "BodyTypes[0]", `want "type/subtype"`},
		{"body type with a space", strict(func(p *rules.Policy) { p.BodyTypes = []string{" text/csv"} }), "BodyTypes[0]", "without parameters"},
		{"binary type with a parameter", strict(func(p *rules.Policy) { p.BinaryTypes = []string{"image/png", "application/octet-stream;q=1"} }), "BinaryTypes[1]", "without parameters"},
		{"binary type */*", strict(func(p *rules.Policy) { p.BinaryTypes = []string{"*/*"} }), "BinaryTypes[0]", "the type must be named"},
		{"binary type listed twice", strict(func(p *rules.Policy) { p.BinaryTypes = []string{"image/*", "IMAGE/*"} }), "BinaryTypes[1]", "already listed as BinaryTypes[0]"},
		{"multipart text type malformed", strict(func(p *rules.Policy) { p.MultipartTextTypes = []string{"text/pl*"} }), "MultipartTextTypes[0]", `"*" stands only for a whole subtype`},
		{"negative body limit", strict(func(p *rules.Policy) { p.Limits.BodyBytes = -2 }), "Limits.BodyBytes", "-2 is not a limit"},
		{"negative field limit", strict(func(p *rules.Policy) { p.Limits.Fields = -100 }), "Limits.Fields", "-100 is not a limit: want a positive number, 0 for the default, or -1 for no limit"},
		{"negative depth", strict(func(p *rules.Policy) { p.Limits.JSONDepth = -5 }), "Limits.JSONDepth", "-5 is not a limit"},
		{"unknown class bits", strict(func(p *rules.Policy) { p.Query.Forbid |= 1 << 14 }), "Query.Forbid", "no character class"},
		{"unknown name class bits", strict(func(p *rules.Policy) { p.JSON.Names |= 1 << 15 }), "JSON.Names", "no character class"},
		{"names in the path", strict(func(p *rules.Policy) { p.Path.Names = sanitize.BidiMark }), "Path.Names", "no names apart from its text; put the classes in Path.Forbid"},
		{"names in a text body", strict(func(p *rules.Policy) { p.Body.Names = sanitize.DEL }), "Body.Names", "no names"},
		{"double encoding in JSON", strict(func(p *rules.Policy) { p.JSON.RefuseDoubleEncoding = true }), "JSON.RefuseDoubleEncoding", "only in the path, the query and form bodies"},
		{"PRECIS zero profile", strict(func(p *rules.Policy) { p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/user"}} }), "Precis[0].Profile", "zero profile; want normalize.UsernameCaseMapped"},
		{"PRECIS unknown profile", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: rules.Query, Field: "u", Profile: normalize.Nickname}, {Location: rules.Query, Field: "v", Profile: 42}}
		}), "Precis[1].Profile", "unknown profile Profile(42)"},
		{"PRECIS in a header", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: rules.Header, Field: "X-User", Profile: normalize.Nickname}}
		}), "Precis[0].Location", "not in header"},
		{"PRECIS unknown location", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: 99, Field: "u", Profile: normalize.Nickname}}
		}), "Precis[0].Location", "not in Location(99)"},
		{"PRECIS JSON field not a pointer", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "user", Profile: normalize.Nickname}}
		}), "Precis[0].Field", "JSON pointer"},
		{"PRECIS empty field", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{{Location: rules.Form, Profile: normalize.Nickname}}
		}), "Precis[0].Field", "must not be empty"},
		{"PRECIS on an unchecked location", func() rules.Policy {
			p := rules.Unchecked()
			p.Precis = []rules.PrecisField{{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped}}
			return p
		}(), "Precis[0]", "the query is not checked (Query.On is false), so the profile would never apply"},
		{"PRECIS field named twice", strict(func(p *rules.Policy) {
			p.Precis = []rules.PrecisField{
				{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
				{Location: rules.Form, Field: "user", Profile: normalize.Nickname}, // another location: fine
				{Location: rules.Query, Field: "USER", Profile: normalize.Nickname},
			}
		}), "Precis[2].Field", `"USER" names the query field of Precis[0] ("user")`},
	}
	for _, tc := range cases {
		err := tc.p.Validate()
		var ve *rules.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: Validate() = %v, want a *rules.ValidationError", tc.name, err)
			continue
		}
		if ve.Field != tc.field || ve.InRoutes || ve.Default || !strings.Contains(ve.Err.Error(), tc.msg) {
			t.Errorf("%s: %+v\n got: %v\nwant field %s, message with %q", tc.name, *ve, err, tc.field, tc.msg)
		}
		if want := "rules: " + tc.field + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %q does not start with %q", tc.name, err, want)
		}
		// The same policy in a table names where it is.
		err = rules.Table{Default: rules.Default(), Routes: map[string]rules.Policy{"/users/:id": tc.p, "/a": rules.Strict()}}.Validate()
		if want := `rules: route "/users/:id": ` + tc.field + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s in a route: %v, want %s...", tc.name, err, want)
		}
		err = rules.Table{Default: tc.p}.Validate()
		if want := "rules: default policy: " + tc.field + ": "; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &ve) || !ve.Default {
			t.Errorf("%s as the default: %v, want %s...", tc.name, err, want)
		}
	}
}

// TestValidatePolicyAccepts: what Validate must not refuse.
func TestValidatePolicyAccepts(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	p.Mode = rules.Monitor
	p.Normalization, p.RejectUnnormalized = normalize.NFKC, true
	p.Header.On, p.Headers = true, []string{"User-Agent", "x-forwarded-for"}
	p.BodyTypes = []string{"Application/CSV", "application/vnd.api+json"} // media types ignore case
	p.BinaryTypes = []string{"image/*", "application/octet-stream"}
	p.MultipartTextTypes = []string{} // no file part is text
	p.Limits = rules.Limits{BodyBytes: -1, Fields: 0, FieldBytes: 1, PathBytes: -1}
	p.Query.RefuseDoubleEncoding, p.Form.RefuseDoubleEncoding = true, true
	p.Body.Forbid = sanitize.AllClasses
	for _, l := range []rules.Location{rules.Query, rules.Form, rules.JSON, rules.Multipart, rules.Header} {
		p.Location(l).Names = sanitize.AllClasses
	}
	p.Precis = []rules.PrecisField{
		{Location: rules.Path, Field: "id", Profile: normalize.UsernameCasePreserved},
		{Location: rules.JSON, Field: "", Profile: normalize.OpaqueString},
		{Location: rules.JSON, Field: "/user/name", Profile: normalize.Nickname},
		{Location: rules.Multipart, Field: "name", Profile: normalize.Nickname},
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}

// TestValidateTableKeys: a route key must be one a router can name.
func TestValidateTableKeys(t *testing.T) {
	t.Parallel()
	for key, msg := range map[string]string{
		"":          "must not be empty",
		"/a\x00b":   "control characters",
		"/a\nb":     "control characters",
		"/a\u0085b": "control characters",
		"/a\x7fb":   "control characters",
		"/a\xffb":   "valid UTF-8",
	} {
		err := rules.Table{Routes: map[string]rules.Policy{key: rules.Strict(), "/ok": rules.Strict()}}.Validate()
		var ve *rules.ValidationError
		if !errors.As(err, &ve) || ve.Route != key || !ve.InRoutes || ve.Field != "" || !strings.Contains(err.Error(), msg) {
			t.Errorf("key %q: %v, want an error with %q", key, err, msg)
		}
	}
	// Keys in any router's syntax are the adapters' to judge.
	for _, key := range []string{"/users/:id", "/users/{id}", "GET /users/{id}", "open", "example.com/"} {
		if err := (rules.Table{Routes: map[string]rules.Policy{key: rules.Strict()}}).Validate(); err != nil {
			t.Errorf("key %q: %v", key, err)
		}
	}
	// The first mistake in sorted order, whatever the map's order.
	bad := rules.Strict()
	bad.Header.On = true
	tbl := rules.Table{Routes: map[string]rules.Policy{"/c": bad, "/b": bad, "/d": bad}}
	for range 20 {
		if err := tbl.Validate(); err == nil || !strings.HasPrefix(err.Error(), `rules: route "/b": Header.On: `) {
			t.Fatalf("%v, want the error of /b", err)
		}
	}
}

// TestParseRunsValidate: what Validate refuses, the file loader refuses
// too, at the position of the value at fault: here two checks the loader
// leaves to Validate.
func TestParseRunsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, key string
		line, col int
		msg       string
	}{
		{`{"routes": {"/r": {"preset": "unchecked",
  "precis": {"query": {"user": "nickname"}}}}}`,
			`routes["/r"].precis.query.user`, 2, 24, "Precis[0]: the query is not checked"},
		{`{"default": {"preset": "strict",
  "precis": {"query": {"user": "nickname", "User": "username_case_mapped"}}}}`,
			`default.precis.query["User"]`, 2, 44, `Precis[1].Field: "User" names the query field of Precis[0]`},
	} {
		_, err := rules.Parse([]byte(tc.file))
		var pe *rules.ParseError
		if !errors.As(err, &pe) || pe.Key != tc.key || pe.Line != tc.line || pe.Column != tc.col || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%s):\n got %v (%d:%d)\nwant %s at %d:%d with %q", tc.file, err, pe.Line, pe.Column, tc.key, tc.line, tc.col, tc.msg)
		}
	}
}

func ExamplePolicy_Validate() {
	p := rules.Strict()
	p.Header.On = true // but no Headers: nothing would be checked
	fmt.Println(p.Validate())

	p = rules.Strict()
	p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/user/name"}} // no Profile
	fmt.Println(p.Validate())

	p.Precis[0].Profile = normalize.UsernameCaseMapped
	fmt.Println(p.Validate())
	// Output:
	// rules: Header.On: header checks are on, but Headers lists no header names
	// rules: Precis[0].Profile: zero profile; want normalize.UsernameCaseMapped, normalize.UsernameCasePreserved, normalize.OpaqueString or normalize.Nickname
	// <nil>
}

func ExampleTable_Validate() {
	upload := rules.Strict()
	upload.BinaryTypes = []string{"image/png; q=1"}
	t := rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/upload": upload, "/open/*": rules.Unchecked()},
	}
	err := t.Validate()
	fmt.Println(err)
	var ve *rules.ValidationError
	if errors.As(err, &ve) {
		fmt.Printf("route %q, field %s\n", ve.Route, ve.Field)
	}
	// Output:
	// rules: route "/upload": BinaryTypes[0]: invalid media type "image/png; q=1": want "type/subtype" without parameters
	// route "/upload", field BinaryTypes[0]
}
