package rules_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
		{"headers", `"headers": ["user-agent", "X-Request-Id", "!#$%&'*+-.^_|~09azAZ"]`, func(p *rules.Policy) {
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
		{"multipart text types", `"multipart_text_types": ["text/*", "application/json"]`, func(p *rules.Policy) {
			p.MultipartTextTypes = []string{"text/*", "application/json"}
		}},
		{"no multipart text types", `"multipart_text_types": []`, func(p *rules.Policy) { p.MultipartTextTypes = []string{} }},
		{"limits", `"limits": {"body_bytes": 9007199254740993, "fields": 1, "field_bytes": 2, "path_bytes": 3, "json_depth": 4, "multipart_parts": 5}`,
			func(p *rules.Policy) {
				p.Limits = rules.Limits{BodyBytes: 9007199254740993, Fields: 1, FieldBytes: 2, PathBytes: 3, QueryBytes: rules.DefaultQueryBytes, JSONDepth: 4, MultipartParts: 5}
			}},
		{"unlimited", `"limits": {"body_bytes": -1, "fields": -1, "field_bytes": -1, "path_bytes": -1, "query_bytes": -1, "json_depth": -1, "multipart_parts": -1}`,
			func(p *rules.Policy) {
				p.Limits = rules.Limits{BodyBytes: -1, Fields: -1, FieldBytes: -1, PathBytes: -1, QueryBytes: -1, JSONDepth: -1, MultipartParts: -1}
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

// strictWith wraps members as a strict policy of route "/r".
func strictWith(members string) string { return route(`{"preset": "strict", ` + members + `}`) }

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		key  string // the ParseError's Key
		msg  string // a part of the message
	}{
		// The file as a whole.
		{"empty", ``, "", "empty file"},
		{"blank", " \n\t ", "", "empty file"},
		{"bom", "\uFEFF{}", "", "byte order mark"},
		{"invalid utf-8", "{\"routes\": {\"/\xC0\xAE\": {}}}", "", "not valid UTF-8 (overlong)"},
		{"invalid utf-8 outside strings", "{}\xFF", "", "not valid UTF-8 (invalid_byte)"},
		{"lone high surrogate", route(`{"preset": "strict", "headers": ["\ud800"]}`), "", `lone surrogate`},
		{"lone low surrogate", `{"routes": {"/\udc00": {"preset": "strict"}}}`, "", `lone surrogate`},
		{"high surrogate then no low", `{"routes": {"/\ud83d\u0041": {"preset": "strict"}}}`, "", `lone surrogate`},
		{"two high surrogates", `{"routes": {"/\ud83d\ud83d": {"preset": "strict"}}}`, "", `lone surrogate`},
		{"high surrogate at end", `{"routes": {"/\ud83d"`, "", `lone surrogate`},
		{"syntax", `{"routes": {"/r": {"preset": "strict",}}}`, "", "syntax error"},
		{"missing colon", `{"routes" {}}`, "", "syntax error"},
		{"missing comma", `{"default": {"preset": "strict"} "routes": {}}`, "", "syntax error"},
		{"single quotes", `{'routes': {}}`, "", "syntax error"},
		{"comment", "{// no comments in JSON\n}", "", "syntax error"},
		{"truncated", `{"routes": {"/r": {"preset": "strict"`, "", "unexpected end of file"},
		{"bad unicode escape", `{"routes": {"/\uZZZZ": {"preset": "strict"}}}`, "", "syntax error: invalid character 'Z' in \\u hexadecimal character escape"},
		{"truncated unicode escape", `{"routes": {"/\u00`, "", "syntax error"},
		{"truncated string", `{"routes": {"/r`, "", "syntax error"},
		{"trailing object", `{}{}`, "", "unexpected data after the top-level object"},
		{"trailing garbage", "{}\n x", "", "unexpected data after the top-level object"},
		{"trailing comma", `{},`, "", "unexpected data after the top-level object"},
		{"not an object", `[]`, "", "must hold a JSON object, not an array"},
		{"null", `null`, "", "must hold a JSON object, not null"},
		{"string", `"routes"`, "", "must hold a JSON object, not a string"},
		{"too deep", route(`{"preset": "strict", "headers": ` + strings.Repeat("[", 20) + strings.Repeat("]", 20) + `}`),
			`routes["/r"].headers` + strings.Repeat("[0]", 13), "nested too deeply"},

		// Unknown and duplicate keys.
		{"unknown top key", `{"rotes": {}}`, "rotes", "unknown key"},
		{"unknown top key quoted", `{"Routes": {}}`, `["Routes"]`, `unknown key: want one of "default", "routes"`},
		{"unknown policy key", strictWith(`"qurey": {}`), `routes["/r"].qurey`, `unknown key`},
		{"unknown location", strictWith(`"cookie": {"on": true}`), `routes["/r"].cookie`, `unknown key`},
		{"precis location unknown", strictWith(`"precis": {"user": "username_case_mapped"}`), `routes["/r"].precis.user`, `unknown key`},
		{"precis in header", strictWith(`"precis": {"header": {"X-User": "nickname"}}`), `routes["/r"].precis.header`, `unknown key`},
		{"precis profile unknown", strictWith(`"precis": {"query": {"user": "UsernameCaseMapped"}}`), `routes["/r"].precis.query.user`, `unknown PRECIS profile`},
		{"precis json not pointer", strictWith(`"precis": {"json": {"user": "nickname"}}`), `routes["/r"].precis.json.user`, `JSON pointer`},
		{"precis empty field", strictWith(`"precis": {"form": {"": "nickname"}}`), `routes["/r"].precis.form[""]`, `must not be empty`},
		{"precis as array", strictWith(`"precis": []`), `routes["/r"].precis`, `want an object, not an array`},
		{"precis profile as number", strictWith(`"precis": {"query": {"u": 1}}`), `routes["/r"].precis.query.u`, `want a string, not a number`},
		{"unknown key before preset", route(`{"Preset": "strict"}`), `routes["/r"]["Preset"]`, `unknown key`},
		{"unknown check key", strictWith(`"query": {"on": true, "of": false}`), `routes["/r"].query.of`, `unknown key: want one of "on", "forbid"`},
		{"unknown limit", strictWith(`"limits": {"body": 5}`), `routes["/r"].limits.body`, `unknown key: want one of "body_bytes"`},
		{"unknown key in default", `{"default": {"preset": "default", "x": 1}}`, `default.x`, `unknown key`},
		{"duplicate top key", `{"routes": {}, "routes": {}}`, "routes", "key given twice (first at line 1, column 2)"},
		{"duplicate route", `{"routes": {"/a": {"preset": "strict"}, "/a": {"preset": "unchecked"}}}`, `routes["/a"]`, "route given twice"},
		{"duplicate route escaped", `{"routes": {"/a": {"preset": "strict"}, "\/a": {"preset": "unchecked"}}}`, `routes["/a"]`, "route given twice"},
		{"duplicate preset", route(`{"preset": "strict", "preset": "unchecked"}`), `routes["/r"].preset`, "key given twice"},
		{"duplicate location", strictWith(`"query": {}, "query": {"on": false}`), `routes["/r"].query`, "key given twice"},
		{"duplicate check key", strictWith(`"query": {"on": false, "on": true}`), `routes["/r"].query.on`, "key given twice"},
		{"duplicate limit", strictWith(`"limits": {"fields": 1, "fields": 2}`), `routes["/r"].limits.fields`, "key given twice"},

		// Presets, modes, normalizations, classes.
		{"missing preset", route(`{"mode": "monitor"}`), `routes["/r"]`, `missing "preset"`},
		{"missing preset in default", `{"default": {}}`, `default`, `missing "preset"`},
		{"unknown preset", route(`{"preset": "Strict"}`), `routes["/r"].preset`, `unknown preset "Strict"`},
		{"monitor is no preset", route(`{"preset": "monitor"}`), `routes["/r"].preset`, `unknown preset "monitor"`},
		{"unknown mode", strictWith(`"mode": "log"`), `routes["/r"].mode`, `unknown mode "log": want "enforce" or "monitor"`},
		{"unknown normalization", strictWith(`"normalization": "NFC"`), `routes["/r"].normalization`, `unknown normalization "NFC"`},
		{"unknown class", strictWith(`"query": {"forbid": ["bidy"]}`), `routes["/r"].query.forbid[0]`, `unknown character class "bidy": want one of "nul", "c0"`},
		{"unknown class allowed", strictWith(`"path": {"allow": ["nul", "BOM"]}`), `routes["/r"].path.allow[1]`, `unknown character class "BOM"`},
		{"class twice", strictWith(`"json": {"forbid": ["del", "c1", "del"]}`), `routes["/r"].json.forbid[2]`, `class "del" listed twice`},
		{"class forbidden and allowed", strictWith(`"json": {"allow": ["bom", "del"], "forbid": ["del"]}`), `routes["/r"].json.allow[1]`, `class "del" is also in "forbid"`},
		{"double encoding in json", strictWith(`"json": {"refuse_double_encoding": true}`), `routes["/r"].json.refuse_double_encoding`, "only in the path, the query and form"},
		{"double encoding in header", strictWith(`"header": {"refuse_double_encoding": true}`), `routes["/r"].header.refuse_double_encoding`, "only in the path"},
		{"reject unnormalized without normalization", strictWith(`"reject_unnormalized": true`), `routes["/r"].reject_unnormalized`, `needs "normalization"`},
		{"reject unnormalized with none", strictWith(`"reject_unnormalized": true, "normalization": "none"`), `routes["/r"].reject_unnormalized`, `needs "normalization"`},
		{"header on without headers", strictWith(`"header": {"on": true}`), `routes["/r"].header`, `"headers" lists no header names`},
		{"header on with empty headers", strictWith(`"header": {"on": true}, "headers": []`), `routes["/r"].headers`, `"headers" lists no header names`},

		// Routes.
		{"empty route", `{"routes": {"": {"preset": "strict"}}}`, `routes[""]`, `must start with "/"`},
		{"relative route", `{"routes": {"users/:id": {"preset": "strict"}}}`, `routes["users/:id"]`, `must start with "/"`},
		{"identifier route", `{"routes": {"users": {"preset": "strict"}}}`, `routes["users"]`, `must start with "/"`},
		{"route with control", `{"routes": {"/a\u0000b": {"preset": "strict"}}}`, `routes["/a\x00b"]`, `control characters`},
		{"route with newline", `{"routes": {"/a\nb": {"preset": "strict"}}}`, `routes["/a\nb"]`, `control characters`},

		// Limits.
		{"zero limit", strictWith(`"limits": {"body_bytes": 0}`), `routes["/r"].limits.body_bytes`, `0 is not a limit`},
		{"negative zero limit", strictWith(`"limits": {"fields": -0}`), `routes["/r"].limits.fields`, `0 is not a limit`},
		{"negative limit", strictWith(`"limits": {"fields": -2}`), `routes["/r"].limits.fields`, `or -1 for no limit, not -2`},
		{"fractional limit", strictWith(`"limits": {"field_bytes": 1.5}`), `routes["/r"].limits.field_bytes`, `want an integer, not 1.5`},
		{"float limit", strictWith(`"limits": {"field_bytes": 100.0}`), `routes["/r"].limits.field_bytes`, `want an integer`},
		{"exponent limit", strictWith(`"limits": {"path_bytes": 1e3}`), `routes["/r"].limits.path_bytes`, `want an integer`},
		{"huge limit", strictWith(`"limits": {"body_bytes": 9223372036854775808}`), `routes["/r"].limits.body_bytes`, `out of range`},
		{"huge negative limit", strictWith(`"limits": {"json_depth": -9223372036854775809}`), `routes["/r"].limits.json_depth`, `out of range`},
		{"string limit", strictWith(`"limits": {"multipart_parts": "100"}`), `routes["/r"].limits.multipart_parts`, `want a number, not a string`},

		// Header names and media types.
		{"header with space", strictWith(`"headers": ["User Agent"]`), `routes["/r"].headers[0]`, `invalid header name "User Agent"`},
		{"header with colon", strictWith(`"headers": ["Referer", "X-A:"]`), `routes["/r"].headers[1]`, `invalid header name "X-A:"`},
		{"empty header", strictWith(`"headers": [""]`), `routes["/r"].headers[0]`, `invalid header name ""`},
		{"non-ASCII header", strictWith(`"headers": ["X-\u00e9"]`), `routes["/r"].headers[0]`, `invalid header name "X-é"`},
		{"header twice", strictWith(`"headers": ["User-Agent", "Referer", "user-agent"]`), `routes["/r"].headers[2]`, `already listed as routes["/r"].headers[0]`},
		{"media type without slash", strictWith(`"body_types": ["xml"]`), `routes["/r"].body_types[0]`, `invalid media type "xml"`},
		{"any media type", strictWith(`"body_types": ["*/*"]`), `routes["/r"].body_types[0]`, `the type must be named`},
		{"wildcard type", strictWith(`"body_types": ["*/xml"]`), `routes["/r"].body_types[0]`, `the type must be named`},
		{"partial wildcard", strictWith(`"body_types": ["application/*+json"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
		{"wildcard in type", strictWith(`"body_types": ["app*/json"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
		{"media type parameters", strictWith(`"body_types": ["text/plain; charset=utf-8"]`), `routes["/r"].body_types[0]`, `without parameters`},
		{"media type no subtype", strictWith(`"multipart_text_types": ["text/"]`), `routes["/r"].multipart_text_types[0]`, `must be tokens`},
		{"media type no type", strictWith(`"multipart_text_types": ["/plain"]`), `routes["/r"].multipart_text_types[0]`, `must be tokens`},
		{"media type two slashes", strictWith(`"multipart_text_types": ["a/b/c"]`), `routes["/r"].multipart_text_types[0]`, `must be tokens`},
		{"media type twice", strictWith(`"body_types": ["application/xml", "Application/XML"]`), `routes["/r"].body_types[1]`, `already listed`},

		// Types.
		{"routes not object", `{"routes": []}`, `routes`, `want an object, not an array`},
		{"route not object", `{"routes": {"/r": "strict"}}`, `routes["/r"]`, `want an object, not a string`},
		{"default not object", `{"default": "strict"}`, `default`, `want an object, not a string`},
		{"preset not string", route(`{"preset": 1}`), `routes["/r"].preset`, `want a string, not a number`},
		{"preset null", route(`{"preset": null}`), `routes["/r"].preset`, `want a string, not null`},
		{"mode null", strictWith(`"mode": null`), `routes["/r"].mode`, `want a string, not null`},
		{"normalization bool", strictWith(`"normalization": true`), `routes["/r"].normalization`, `want a string, not a boolean`},
		{"bool as string", strictWith(`"refuse_charsets": "true"`), `routes["/r"].refuse_charsets`, `want a boolean, not a string`},
		{"bool as number", strictWith(`"reject_unnormalized": 1`), `routes["/r"].reject_unnormalized`, `want a boolean, not a number`},
		{"headers as string", strictWith(`"headers": "User-Agent"`), `routes["/r"].headers`, `want an array, not a string`},
		{"header as number", strictWith(`"headers": ["A", 1]`), `routes["/r"].headers[1]`, `want a string, not a number`},
		{"body types as object", strictWith(`"body_types": {}`), `routes["/r"].body_types`, `want an array, not an object`},
		{"limits as array", strictWith(`"limits": []`), `routes["/r"].limits`, `want an object, not an array`},
		{"location as bool", strictWith(`"query": true`), `routes["/r"].query`, `want an object, not a boolean`},
		{"on as string", strictWith(`"query": {"on": "yes"}`), `routes["/r"].query.on`, `want a boolean, not a string`},
		{"repair null", strictWith(`"form": {"repair": null}`), `routes["/r"].form.repair`, `want a boolean, not null`},
		{"forbid as string", strictWith(`"form": {"forbid": "nul"}`), `routes["/r"].form.forbid`, `want an array, not a string`},
		{"class as array", strictWith(`"form": {"allow": [["nul"]]}`), `routes["/r"].form.allow[0]`, `want a string, not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			table, err := rules.Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.in, table)
			}
			if table != nil {
				t.Errorf("Parse(%q) returned a table with its error", tt.in)
			}
			var pe *rules.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): error %T %v, want a *ParseError", tt.in, err, err)
			}
			if pe.Key != tt.key {
				t.Errorf("Parse(%q): Key = %s, want %s", tt.in, pe.Key, tt.key)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "rules: ") || !strings.Contains(msg, tt.key) || !strings.Contains(msg, tt.msg) {
				t.Errorf("Parse(%q): error %q, want one that names %s and says %q", tt.in, msg, tt.key, tt.msg)
			}
			if pe.Line < 1 || pe.Column < 1 || pe.File != "" {
				t.Errorf("Parse(%q): Line, Column, File = %d, %d, %q", tt.in, pe.Line, pe.Column, pe.File)
			}
			if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7F }) {
				t.Errorf("Parse(%q): error %q holds a control character", tt.in, msg)
			}
			if errors.Unwrap(err) == nil {
				t.Errorf("Parse(%q): error does not unwrap", tt.in)
			}
		})
	}
}

func TestParseErrorPosition(t *testing.T) {
	t.Parallel()
	in := "{\n" +
		"  \"routes\": {\n" +
		"    \"/users/:id\": {\"preset\": \"strict\",\n" +
		"                   \"query\": {\"forbid\": [\"bidi\", \"bidy\"]}}\n" +
		"  }\n" +
		"}\n"
	_, err := rules.Parse([]byte(in))
	var pe *rules.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("Parse: %v, want a *ParseError", err)
	}
	if pe.Line != 4 || pe.Column != 49 {
		t.Errorf("position %d:%d, want 4:49", pe.Line, pe.Column)
	}
	const want = `rules: routes["/users/:id"].query.forbid[1]: unknown character class "bidy": want one of ` +
		`"nul", "c0", "tab_newline", "del", "c1", "bidi", "noncharacter", "private_use", "bom", "default_ignorable"`
	if got := err.Error(); got != want {
		t.Errorf("error\n %s\nwant\n %s", got, want)
	}

	tests := []struct {
		in         string
		line, col  int
		wantSuffix string
	}{
		{"{\n  \"routes\": {},\n  \"routes\": {}\n}", 3, 3, `routes: key given twice (first at line 2, column 3)`},
		{"{\n  \"routes\": {\n}", 3, 2, `line 3, column 2: syntax error: unexpected end of file`},
		{"{\n\n  x}", 3, 3, `line 3, column 3: syntax error: invalid character 'x' looking for beginning of object key string`},
		{"{\"a\":\n  -}", 2, 4, `line 2, column 4: syntax error: invalid character '}' in numeric literal`},
		{"{\"a\": \"\\q\"}", 1, 9, `line 1, column 9: syntax error: invalid character 'q' in string escape code`},
		{"{\"a\": \"x\x01\"}", 1, 9, `line 1, column 9: syntax error: invalid character '\x01' in string literal`},
		{"{\"a\": [1 2]}", 1, 10, `line 1, column 10: syntax error: invalid character '2' after array element`},
		{"{}\n\n   {}", 3, 4, `line 3, column 4: unexpected data after the top-level object`},
		{"{\"routes\": {\"/\xC0\xAE\": {}}}", 1, 15, `line 1, column 15: not valid UTF-8 (overlong)`},
		{"{\"routes\": {\n\"/\\udc00\": {}}}", 2, 3, `line 2, column 3: a \u escape of a lone surrogate: JSON text must be valid Unicode`},
	}
	for _, tt := range tests {
		_, err := rules.Parse([]byte(tt.in))
		if !errors.As(err, &pe) {
			t.Errorf("Parse(%q): %v, want a *ParseError", tt.in, err)
			continue
		}
		if pe.Line != tt.line || pe.Column != tt.col || !strings.HasSuffix(err.Error(), tt.wantSuffix) {
			t.Errorf("Parse(%q): %d:%d %q, want %d:%d ...%q", tt.in, pe.Line, pe.Column, err, tt.line, tt.col, tt.wantSuffix)
		}
	}
}

func TestParseTooLarge(t *testing.T) {
	t.Parallel()
	// Valid JSON, white space padded past the limit.
	big := append([]byte("{}"), bytes.Repeat([]byte(" "), rules.MaxFileBytes)...)
	if _, err := rules.Parse(big); err == nil || !strings.Contains(err.Error(), "file larger than 4 MiB") {
		t.Errorf("Parse of %d octets: %v, want a too-large error", len(big), err)
	}
	if _, err := rules.ParseReader(bytes.NewReader(big)); err == nil || !strings.Contains(err.Error(), "file larger than 4 MiB") {
		t.Errorf("ParseReader of %d octets: %v, want a too-large error", len(big), err)
	}
	// The limit itself is fine.
	if _, err := rules.Parse(big[:rules.MaxFileBytes]); err != nil {
		t.Errorf("Parse of %d octets: %v", rules.MaxFileBytes, err)
	}
}

func TestParseReaderError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := rules.ParseReader(iotest.ErrReader(boom))
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "rules: ") {
		t.Errorf("ParseReader of a failing reader: %v, want rules: boom", err)
	}
	_, err = rules.ParseReader(strings.NewReader(`{"rotes": {}}`))
	var pe *rules.ParseError
	if !errors.As(err, &pe) || pe.Key != "rotes" {
		t.Errorf("ParseReader: %v, want a *ParseError for rotes", err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.json")
	_, err := rules.LoadFile(missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "rules: ") || !strings.Contains(err.Error(), missing) {
		t.Errorf("LoadFile(missing): %v, want a not-exist error naming the file", err)
	}

	_, err = rules.LoadFile(dir)
	if err == nil || !strings.HasPrefix(err.Error(), "rules: ") {
		t.Errorf("LoadFile(directory): %v, want an error", err)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"routes\": {\"/r\": {\"preset\": \"strict\", \"mode\": \"log\"}}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = rules.LoadFile(bad)
	var pe *rules.ParseError
	if !errors.As(err, &pe) || pe.File != bad || pe.Key != `routes["/r"].mode` || pe.Line != 2 || pe.Column != 49 {
		t.Fatalf("LoadFile(bad): %#v, want a *ParseError for the mode at 2:49", err)
	}
	want := "rules: " + bad + `:2:49: routes["/r"].mode: unknown mode "log": want "enforce" or "monitor"`
	if err.Error() != want {
		t.Errorf("LoadFile(bad):\n %s\nwant\n %s", err, want)
	}

	syntax := filepath.Join(dir, "syntax.json")
	if err := os.WriteFile(syntax, []byte("{\n  \"routes\": {,}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = rules.LoadFile(syntax)
	if want := "rules: " + syntax + ":2:14: syntax error: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("LoadFile(syntax): %v, want %s...", err, want)
	}
}

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
