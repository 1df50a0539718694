package rules_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/utf8guard/utf8guard/rules"
)

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
		{"unknown top key quoted", `{"Routes": {}}`, `["Routes"]`, `unknown key: want one of "default", "routes", "mode"`},
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
		{"bidi and a bidi class", strictWith(`"json": {"forbid": ["bidi_mark", "bidi"]}`), `routes["/r"].json.forbid[1]`, `class "bidi" listed twice`},
		{"name class twice", strictWith(`"query": {"forbid_names": ["del", "del"]}`), `routes["/r"].query.forbid_names[1]`, `class "del" listed twice`},
		{"unknown name class", strictWith(`"form": {"forbid_names": ["mark"]}`), `routes["/r"].form.forbid_names[0]`, `unknown character class "mark"`},
		{"names in the path", strictWith(`"path": {"forbid_names": ["bidi_mark"]}`), `routes["/r"].path.forbid_names`, `the path location has no names apart from its text`},
		{"names in a text body", strictWith(`"body": {"forbid_names": []}`), `routes["/r"].body.forbid_names`, `no names`},
		{"names as a string", strictWith(`"json": {"forbid_names": "bidi_mark"}`), `routes["/r"].json.forbid_names`, `want an array, not a string`},
		{"double encoding in json", strictWith(`"json": {"refuse_double_encoding": true}`), `routes["/r"].json.refuse_double_encoding`, "only in the path, the query and form"},
		{"double encoding in header", strictWith(`"header": {"refuse_double_encoding": true}`), `routes["/r"].header.refuse_double_encoding`, "only in the path"},
		{"reject unnormalized without normalization", strictWith(`"reject_unnormalized": true`), `routes["/r"].reject_unnormalized`, `needs "normalization"`},
		{"reject unnormalized with none", strictWith(`"reject_unnormalized": true, "normalization": "none"`), `routes["/r"].reject_unnormalized`, `needs "normalization"`},
		{"header on without headers", strictWith(`"header": {"on": true}`), `routes["/r"].header`, `"headers" lists no header names`},
		{"header on with empty headers", strictWith(`"header": {"on": true}, "headers": []`), `routes["/r"].headers`, `"headers" lists no header names`},
		{"headers without header on", strictWith(`"headers": ["User-Agent"]`), `routes["/r"].headers`, `"headers" lists header names, but header checks are off: set "header": {"on": true}`},
		{"headers with header off", strictWith(`"header": {"on": false}, "headers": ["User-Agent"]`), `routes["/r"].headers`, `set "header": {"on": true}`},

		// Routes.
		{"empty route", `{"routes": {"": {"preset": "strict"}}}`, `routes[""]`, `a route key must not be empty`},
		{"top-level mode enforce", `{"mode": "enforce"}`, `mode`, `the top-level "mode" takes only "monitor"`},
		{"top-level mode unknown", `{"mode": "monitr"}`, `mode`, `takes only "monitor"`},
		{"top-level mode not a string", `{"mode": true}`, `mode`, `want a string, not a boolean`},
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
		{"partial wildcard", strictWith(`"body_types": ["application/x-*"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
		{"wildcard after a suffix", strictWith(`"body_types": ["application/x+*"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
		{"suffix pattern without a suffix", strictWith(`"body_types": ["application/*+"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
		{"suffix pattern with two suffixes", strictWith(`"binary_types": ["application/*+a+b"]`), `routes["/r"].binary_types[0]`, `"*" stands only for a whole subtype`},
		{"suffix pattern with two stars", strictWith(`"body_types": ["application/*+*"]`), `routes["/r"].body_types[0]`, `"*" stands only for a whole subtype`},
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
		`"nul", "c0", "tab_newline", "del", "c1", "bidi_control", "bidi_mark", "bidi", "noncharacter", "private_use", "bom", "default_ignorable"`
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
