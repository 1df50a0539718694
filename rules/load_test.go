package rules_test

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

const exampleFile = "../testdata/rules/example.json"

// exampleTable is the Table that exampleFile describes, built with the Go
// API.
func exampleTable() *rules.Table {
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC

	users := rules.Strict()
	users.Query.Forbid = users.Query.Forbid&^sanitize.BOM | sanitize.DefaultIgnorable
	users.Query.Repair = true
	users.Path.RefuseDoubleEncoding = true
	users.Header.On = true
	users.Headers = []string{"User-Agent", "X-Forwarded-For"}
	users.Limits.BodyBytes = 4 << 20
	users.Limits.Fields = 100

	return &rules.Table{
		Default: rules.Default(),
		Routes: map[string]rules.Policy{
			"/strict/*":  rules.Strict(),
			"/nfc/*":     nfc,
			"/monitor/*": rules.Strict().AsMonitor(),
			"/open/*":    rules.Unchecked(),
			"/users/:id": users,
		},
	}
}

func TestParseExampleFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	want := exampleTable()

	fromFile, err := rules.LoadFile(exampleFile)
	if err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	fromBytes, err := rules.Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	fromReader, err := rules.ParseReader(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatalf("ParseReader: %v", err)
	}
	for name, got := range map[string]*rules.Table{"LoadFile": fromFile, "Parse": fromBytes, "ParseReader": fromReader} {
		if !reflect.DeepEqual(got.Default, want.Default) {
			t.Errorf("%s: Default = %+v, want %+v", name, got.Default, want.Default)
		}
		if len(got.Routes) != len(want.Routes) {
			t.Errorf("%s: %d routes, want %d", name, len(got.Routes), len(want.Routes))
		}
		for route, wp := range want.Routes {
			gp, ok := got.Lookup(route)
			if !ok {
				t.Errorf("%s: route %q missing", name, route)
				continue
			}
			if !reflect.DeepEqual(gp, wp) {
				t.Errorf("%s: route %q:\n got %+v\nwant %+v", name, route, gp, wp)
			}
		}
	}
}

// The example in Parse's doc comment is the example file.
func TestParseDocExample(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("load.go")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" {
			doc.WriteString("//\t" + line + "\n")
		}
	}
	if !strings.Contains(string(src), doc.String()) {
		t.Errorf("the example in Parse's doc comment is not %s:\n%s", exampleFile, doc.String())
	}
}

func TestParseFresh(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	a, err := rules.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rules.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// Edit every slice of a in place; b and the presets must not change.
	edit := func(p rules.Policy) {
		for _, s := range [][]string{p.Headers, p.BodyTypes, p.MultipartTextTypes} {
			for i := range s {
				s[i] = "edited/edited"
			}
		}
	}
	edit(a.Default)
	for _, p := range a.Routes {
		edit(p)
	}
	want := exampleTable()
	if !reflect.DeepEqual(b.Default, want.Default) || !reflect.DeepEqual(b.Routes, want.Routes) {
		t.Error("editing one parsed table changed another")
	}
	// Routes of one table share nothing either.
	c, err := rules.Parse([]byte(`{"routes": {"/a": {"preset": "strict"}, "/b": {"preset": "strict"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c.Routes["/a"].MultipartTextTypes[0] = "edited/edited"
	if got := c.Routes["/b"].MultipartTextTypes[0]; got != "text/*" {
		t.Errorf("editing route /a changed route /b: %q", got)
	}
}

func TestParseTopLevel(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{}`, ` {} `, "{}\n", `{"routes": {}}`, `{"default": {"preset": "default"}}`} {
		table, err := rules.Parse([]byte(in))
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if !reflect.DeepEqual(table.Default, rules.Default()) || len(table.Routes) != 0 || table.Routes == nil {
			t.Errorf("Parse(%q) = %+v, want the Default preset and an empty, non-nil Routes", in, table)
		}
	}
	table, err := rules.Parse([]byte(`{"default": {"preset": "strict", "mode": "monitor"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := rules.Strict().AsMonitor(); !reflect.DeepEqual(table.Default, want) {
		t.Errorf("Default = %+v, want %+v", table.Default, want)
	}
}

// TestParseOverrides checks each key of a policy object, on top of each
// preset.
func TestParseOverrides(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keys string // the members after "preset"
		edit func(*rules.Policy)
	}{
		{"nothing", ``, func(*rules.Policy) {}},
		{"mode enforce", `"mode": "enforce"`, func(p *rules.Policy) { p.Mode = rules.Enforce }},
		{"mode monitor", `"mode": "monitor"`, func(p *rules.Policy) { p.Mode = rules.Monitor }},
		{"normalization none", `"normalization": "none"`, func(p *rules.Policy) { p.Normalization = normalize.None }},
		{"normalization nfc", `"normalization": "nfc"`, func(p *rules.Policy) { p.Normalization = normalize.NFC }},
		{"normalization nfkc", `"normalization": "nfkc"`, func(p *rules.Policy) { p.Normalization = normalize.NFKC }},
		{"reject unnormalized", `"normalization": "nfc", "reject_unnormalized": true`, func(p *rules.Policy) {
			p.Normalization, p.RejectUnnormalized = normalize.NFC, true
		}},
		{"reject unnormalized first", `"reject_unnormalized": true, "normalization": "nfkc"`, func(p *rules.Policy) {
			p.Normalization, p.RejectUnnormalized = normalize.NFKC, true
		}},
		{"reject unnormalized false", `"reject_unnormalized": false`, func(p *rules.Policy) { p.RejectUnnormalized = false }},
		{"refuse charsets", `"refuse_charsets": true`, func(p *rules.Policy) { p.RefuseCharsets = true }},
		{"accept charsets", `"refuse_charsets": false`, func(p *rules.Policy) { p.RefuseCharsets = false }},
		{"headers", `"header": {"on": true}, "headers": ["user-agent", "X-Request-Id", "!#$%&'*+-.^_|~09azAZ"]`, func(p *rules.Policy) {
			p.Header.On = true
			p.Headers = []string{"user-agent", "X-Request-Id", "!#$%&'*+-.^_|~09azAZ"}
		}},
		{"no headers", `"headers": []`, func(p *rules.Policy) { p.Headers = []string{} }},
		{"header on", `"header": {"on": true}, "headers": ["Referer"]`, func(p *rules.Policy) {
			p.Header.On = true
			p.Headers = []string{"Referer"}
		}},
		{"body types", `"body_types": ["application/xml", "Application/VND.A+XML", "application/*"]`, func(p *rules.Policy) {
			p.BodyTypes = []string{"application/xml", "application/vnd.a+xml", "application/*"}
		}},
		{"suffix patterns", `"body_types": ["application/*+yaml", "Application/*+XML"], "binary_types": ["application/*+zip"]`, func(p *rules.Policy) {
			p.BodyTypes = []string{"application/*+yaml", "application/*+xml"}
			p.BinaryTypes = []string{"application/*+zip"}
		}},
		{"multipart text types", `"multipart_text_types": ["text/*", "application/json"]`, func(p *rules.Policy) {
			p.MultipartTextTypes = []string{"text/*", "application/json"}
		}},
		{"no multipart text types", `"multipart_text_types": []`, func(p *rules.Policy) { p.MultipartTextTypes = []string{} }},
		{"limits", `"limits": {"body_bytes": 9007199254740993, "binary_body_bytes": 6, "file_bytes": 7, "fields": 1, "field_bytes": 2, "path_bytes": 3, "json_depth": 4, "multipart_parts": 5, "multipart_header_lines": 6}`,
			func(p *rules.Policy) {
				p.Limits = rules.Limits{BodyBytes: 9007199254740993, BinaryBodyBytes: 6, FileBytes: 7, Fields: 1, FieldBytes: 2, PathBytes: 3, QueryBytes: rules.DefaultQueryBytes, JSONDepth: 4, MultipartParts: 5, MultipartHeaderLines: 6}
			}},
		{"unlimited", `"limits": {"body_bytes": -1, "binary_body_bytes": -1, "file_bytes": -1, "fields": -1, "field_bytes": -1, "path_bytes": -1, "query_bytes": -1, "json_depth": -1, "multipart_parts": -1, "multipart_header_lines": -1}`,
			func(p *rules.Policy) {
				p.Limits = rules.Limits{BodyBytes: -1, BinaryBodyBytes: -1, FileBytes: -1, Fields: -1, FieldBytes: -1, PathBytes: -1, QueryBytes: -1, JSONDepth: -1, MultipartParts: -1, MultipartHeaderLines: -1}
			}},
		{"some limits", `"limits": {"json_depth": 32}`, func(p *rules.Policy) { p.Limits.JSONDepth = 32 }},
		{"empty limits", `"limits": {}`, func(*rules.Policy) {}},
		{"empty location", `"json": {}`, func(*rules.Policy) {}},
		{"location on", `"multipart": {"on": true}`, func(p *rules.Policy) { p.Multipart.On = true }},
		{"location off", `"body": {"on": false}`, func(p *rules.Policy) { p.Body.On = false }},
		{"repair", `"form": {"repair": true}`, func(p *rules.Policy) { p.Form.Repair = true }},
		{"no repair", `"form": {"repair": false}`, func(p *rules.Policy) { p.Form.Repair = false }},
		{"double encoding path", `"path": {"refuse_double_encoding": true}`, func(p *rules.Policy) { p.Path.RefuseDoubleEncoding = true }},
		{"double encoding query", `"query": {"refuse_double_encoding": true}`, func(p *rules.Policy) { p.Query.RefuseDoubleEncoding = true }},
		{"double encoding form", `"form": {"refuse_double_encoding": true}`, func(p *rules.Policy) { p.Form.RefuseDoubleEncoding = true }},
		{"double encoding off", `"path": {"refuse_double_encoding": false}, "json": {"refuse_double_encoding": false}`, func(p *rules.Policy) {
			p.Path.RefuseDoubleEncoding = false
		}},
		{"forbid", `"json": {"forbid": ["noncharacter", "private_use"]}`, func(p *rules.Policy) {
			p.JSON.Forbid |= sanitize.Noncharacter | sanitize.PrivateUse
		}},
		{"allow", `"path": {"allow": ["nul", "bom", "del"]}`, func(p *rules.Policy) {
			p.Path.Forbid &^= sanitize.NUL | sanitize.BOM | sanitize.DEL
		}},
		{"forbid and allow", `"header": {"allow": ["tab_newline"], "forbid": ["del"]}`, func(p *rules.Policy) {
			p.Header.Forbid = p.Header.Forbid&^sanitize.TabNewline | sanitize.DEL
		}},
		{"every class", `"body": {"forbid": ["nul", "c0", "tab_newline", "del", "c1", "bidi", "noncharacter", "private_use", "bom", "default_ignorable"]}`,
			func(p *rules.Policy) { p.Body.Forbid = sanitize.AllClasses }},
		{"no class", `"body": {"allow": ["nul", "c0", "tab_newline", "del", "c1", "bidi", "noncharacter", "private_use", "bom", "default_ignorable"]}`,
			func(p *rules.Policy) { p.Body.Forbid = 0 }},
		{"empty class lists", `"query": {"forbid": [], "allow": []}`, func(*rules.Policy) {}},
		{"bidi is both bidi classes", `"body": {"forbid": ["bidi"]}`, func(p *rules.Policy) { p.Body.Forbid |= sanitize.Bidi }},
		{"marks allowed in the path", `"path": {"allow": ["bidi_mark"]}`, func(p *rules.Policy) { p.Path.Forbid &^= sanitize.BidiMark }},
		{"forbid names", `"form": {"forbid_names": ["default_ignorable", "private_use"]}`, func(p *rules.Policy) {
			p.Form.Names |= sanitize.DefaultIgnorable | sanitize.PrivateUse
		}},
		{"forbid names in every location with names", `"query": {"forbid_names": ["del"]}, "form": {"forbid_names": ["del"]}, "json": {"forbid_names": ["del"]}, "xml": {"forbid_names": ["del"]}, "multipart": {"forbid_names": ["del"]}, "header": {"forbid_names": ["del"]}`,
			func(p *rules.Policy) {
				for _, l := range []rules.Location{rules.Query, rules.Form, rules.JSON, rules.XML, rules.Multipart, rules.Header} {
					p.Location(l).Names |= sanitize.DEL
				}
			}},
		{"allow takes a class out of names too", `"json": {"allow": ["bidi_mark"]}`, func(p *rules.Policy) {
			p.JSON.Forbid &^= sanitize.BidiMark
			p.JSON.Names &^= sanitize.BidiMark
		}},
		{"allow in values, forbid in names", `"query": {"allow": ["default_ignorable"], "forbid_names": ["default_ignorable"]}`, func(p *rules.Policy) {
			p.Query.Forbid &^= sanitize.DefaultIgnorable
			p.Query.Names |= sanitize.DefaultIgnorable
		}},
		{"marks refused in values too", `"json": {"forbid": ["bidi_mark"]}`, func(p *rules.Policy) { p.JSON.Forbid |= sanitize.BidiMark }},
		{"every location", `"path": {"on": false}, "query": {"on": false}, "form": {"on": false}, "json": {"on": false}, "multipart": {"on": false}, "body": {"on": false}, "header": {"on": false}, "xml": {"on": false}`,
			func(p *rules.Policy) {
				for l := range rules.Location(rules.NumLocations) {
					p.Location(l).On = false
				}
			}},
		{"media type list", `"refuse_unlisted_types": true, "binary_types": ["Application/Octet-Stream", "image/*"]`, func(p *rules.Policy) {
			p.RefuseUnlistedTypes, p.BinaryTypes = true, []string{"application/octet-stream", "image/*"}
		}},
		{"no media type list", `"refuse_unlisted_types": false, "binary_types": []`, func(p *rules.Policy) {
			p.RefuseUnlistedTypes, p.BinaryTypes = false, []string{}
		}},
		{"duplicate keys", `"refuse_duplicate_keys": false`, func(p *rules.Policy) { p.RefuseDuplicateKeys = false }},
		{"ambiguous parts", `"refuse_ambiguous_parts": false`, func(p *rules.Policy) { p.RefuseAmbiguousParts = false }},
		{"xml", `"xml": {"forbid": ["private_use"]}`, func(p *rules.Policy) { p.XML.Forbid |= sanitize.PrivateUse }},
		{"escaped keys and values", `"mod\u0065": "m\u006fnitor", "\u0071uery": {"forbid": ["\u0064el"]}`, func(p *rules.Policy) {
			p.Mode = rules.Monitor
			p.Query.Forbid |= sanitize.DEL
		}},
	}
	presets := []struct {
		name string
		fn   func() rules.Policy
	}{
		{"strict", rules.Strict},
		{"default", rules.Default},
		{"unchecked", rules.Unchecked},
	}
	for _, tt := range tests {
		for _, pr := range presets {
			t.Run(tt.name+"/"+pr.name, func(t *testing.T) {
				t.Parallel()
				obj := `{"preset": "` + pr.name + `"`
				if tt.keys != "" {
					obj += ", " + tt.keys
				}
				obj += "}"
				want := pr.fn()
				tt.edit(&want)
				in := `{"default": ` + obj + `, "routes": {"/r": ` + obj + `}}`
				table, err := rules.Parse([]byte(in))
				if err != nil {
					t.Fatalf("Parse(%s): %v", in, err)
				}
				if !reflect.DeepEqual(table.Default, want) {
					t.Errorf("Parse(%s).Default =\n %+v\nwant %+v", in, table.Default, want)
				}
				if got := table.Routes["/r"]; !reflect.DeepEqual(got, want) {
					t.Errorf("Parse(%s).Routes[/r] =\n %+v\nwant %+v", in, got, want)
				}
			})
		}
	}
}

func TestParseRoutes(t *testing.T) {
	t.Parallel()
	in := `{"routes": {
		"/": {"preset": "strict"},
		"/*": {"preset": "strict"},
		"/users/:id": {"preset": "strict"},
		"/users/:id/": {"preset": "strict"},
		"/files/*": {"preset": "strict"},
		"/\u00e9t\u00e9": {"preset": "strict"},
		"/\ud83d\ude00": {"preset": "strict"},
		"/\\ud800": {"preset": "strict"}
	}}`
	table, err := rules.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, route := range []string{"/", "/*", "/users/:id", "/users/:id/", "/files/*", "/été", "/😀", `/\ud800`} {
		if _, ok := table.Lookup(route); !ok {
			t.Errorf("route %q missing", route)
		}
	}
	if len(table.Routes) != 8 {
		t.Errorf("%d routes, want 8", len(table.Routes))
	}
}

// route wraps a policy object as the policy of route "/r".
func route(policy string) string { return `{"routes": {"/r": ` + policy + `}}` }

func TestParsePrecis(t *testing.T) {
	t.Parallel()
	table, err := rules.Parse([]byte(`{"routes": {"/users/:id": {"preset": "strict", "precis": {
		"path": {"id": "username_case_mapped"},
		"query": {"nick": "nickname"},
		"json": {"/user/password": "opaque_string", "": "username_case_preserved"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := table.Lookup("/users/:id")
	if !ok {
		t.Fatal("route missing")
	}
	want := []rules.PrecisField{
		{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Query, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.JSON, Field: "/user/password", Profile: normalize.OpaqueString},
		{Location: rules.JSON, Field: "", Profile: normalize.UsernameCasePreserved},
	}
	if !slices.Equal(p.Precis, want) {
		t.Errorf("Precis = %+v, want %+v", p.Precis, want)
	}
	m := p.AsMonitor()
	m.Precis[0].Field = "changed"
	if p.Precis[0].Field != "id" {
		t.Error("AsMonitor shares the Precis slice")
	}
}

// TestParseAcceptsEveryAdapterKeySyntax: a file holds the keys a Go table
// can: Echo templates, ServeMux patterns with a method or a host, and
// names HTTPConfig.Route gives. Their syntax is the adapter's to judge.
func TestParseAcceptsEveryAdapterKeySyntax(t *testing.T) {
	t.Parallel()
	keys := []string{"/users/:id", "GET /users/{id}", "POST example.com/notes/{rest...}", "example.com/", "users.show", "users/:id"}
	var members []string
	for _, k := range keys {
		members = append(members, strconv.Quote(k)+`: {"preset": "strict"}`)
	}
	table, err := rules.Parse([]byte(`{"routes": {` + strings.Join(members, ", ") + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, ok := table.Lookup(k); !ok {
			t.Errorf("route %q missing", k)
		}
	}
}

// TestParseTopLevelMonitorMonitorsEveryPolicy: "mode": "monitor" at the
// top puts the default and every route in monitor mode, a route that says
// "enforce" included, wherever the key stands in the file.
func TestParseTopLevelMonitorMonitorsEveryPolicy(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"mode": "monitor", "default": {"preset": "strict"}, "routes": {"/a": {"preset": "strict", "mode": "enforce"}, "/b": {"preset": "default"}}}`,
		`{"default": {"preset": "strict"}, "routes": {"/a": {"preset": "strict", "mode": "enforce"}, "/b": {"preset": "default"}}, "mode": "monitor"}`,
	} {
		table, err := rules.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		want := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/a": rules.Strict(), "/b": rules.Default()}}.AsMonitor()
		if !reflect.DeepEqual(*table, want) {
			t.Errorf("Parse(%s) =\n %+v\nwant %+v", in, *table, want)
		}
	}
}
