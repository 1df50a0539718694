package decoders

import (
	"strings"
)

// A docCase is one request body and its Content-Type.
type docCase struct {
	name        string
	contentType string
	body        string
}

const boundary = "oracle-boundary"

// multipartBody joins raw parts, each "headers\r\n\r\ncontent", into a
// multipart body with boundary.
func multipartBody(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--" + boundary + "\r\n" + p + "\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.String()
}

const multipartType = "multipart/form-data; boundary=" + boundary

// shiftJISDoc is valid UTF-8 (U+0100) that an XML decoder honouring its
// declaration reads as Shift_JIS: 0xC4 is U+FF84, and 0x80 is U+0080, a
// C1 control, in the WHATWG Shift_JIS.
const shiftJISDoc = `<?xml version="1.0" encoding="shift_jis"?><a>` + "\xc4\x80" + `</a>`

// hostileCases are bodies that carry, in some decoder's escapes or
// encodings, a character the strict preset refuses in values. Each must
// be refused, or, if accepted, decode to nothing refused by every decoder.
func hostileCases() []docCase {
	var cs []docCase
	add := func(name, body string, types ...string) {
		for _, ct := range types {
			cs = append(cs, docCase{name: name + " as " + ct, contentType: ct, body: body})
		}
	}

	// YAML double-quoted escapes, and !!binary, whose base64 YAML decodes.
	for _, y := range []struct{ name, body string }{
		{`YAML \0`, `a: "x\0y"`},
		{`YAML \x85 \N`, `a: "\x85\N"`},
		{`YAML \U0000202E`, `a: "\U0000202E"`},
		{`YAML \e`, `a: "\e[31m"`},
		{`YAML !!binary U+202E`, `a: !!binary 4oCu`},
		{`YAML !!binary U+009D`, `a: !!binary wp0=`},
	} {
		add(y.name, y.body, "text/yaml", "application/yaml", "text/plain")
	}
	add(`YAML flow \U0000202E\0 in JSON`, `{"a":"\U0000202E\0"}`, "application/json", "application/x-ndjson")
	add(`YAML flow \x9b in JSON`, `{"a":"\x9b"}`, "application/json", "application/x-ndjson")
	add(`JSON lone surrogate \ud800`, `{"a":"\ud800"}`, "application/json", "text/plain")

	// An XML declaration naming another encoding, in bodies that are not
	// XML.
	add("XML shift_jis declaration", shiftJISDoc, "text/plain", "application/json")
	add("XML shift_jis declaration in a form value", "x="+shiftJISDoc, "application/x-www-form-urlencoded")
	add("XML shift_jis declaration in a multipart field", multipartBody(
		"Content-Disposition: form-data; name=\"x\"\r\n\r\n"+shiftJISDoc,
	), multipartType)

	// JSON escapes of C0 controls outside JSON bodies.
	add(`JSON \b in text`, `{"a":"x\by"}`, "text/plain")
	add(`JSON \f in text`, `{"a":"x\fy"}`, "text/plain")

	// XML character references that span multipart part headers.
	add("XML references in a part header between <a> and </a>", multipartBody(
		"Content-Disposition: form-data; name=\"p1\"\r\n\r\n<a>",
		"Content-Disposition: form-data; name=\"p2\"\r\nX-Note: &#x202e;&#x85;\r\n\r\n</a>",
	), multipartType)
	add("XML reference in a field name", multipartBody(
		"Content-Disposition: form-data; name=\"b&#x202e;\"\r\n\r\nv",
	), multipartType)

	// Content-Disposition lines and parameters a handler may read as the
	// middleware does not.
	add("two Content-Disposition lines, the second with U+202E", multipartBody(
		"Content-Disposition: form-data; name=\"a\"\r\n"+
			"Content-Disposition: form-data; name=\"a\"; filename=\"invoice\u202etxt.exe\"\r\n\r\nv",
	), multipartType)
	add("two Content-Disposition lines, the second with filename*", multipartBody(
		"Content-Disposition: form-data; name=\"a\"\r\n"+
			"Content-Disposition: form-data; name=\"a\"; filename*=UTF-8''invoice%E2%80%AEtxt.exe\r\n"+
			"Content-Type: text/plain\r\n\r\nv",
	), multipartType)
	add("filename* with %u202E", multipartBody(
		"Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%u202E.txt\r\n"+
			"Content-Type: text/plain\r\n\r\nv",
	), multipartType)
	add("filename* with a bogus charset", multipartBody(
		"Content-Disposition: form-data; name=\"f\"; filename*=x-bogus''%E2%80%AE.txt\r\n"+
			"Content-Type: text/plain\r\n\r\nv",
	), multipartType)
	add("UTF-7 text part", multipartBody(
		"Content-Disposition: form-data; name=\"note\"\r\n"+
			"Content-Type: text/plain; charset=utf-7\r\n\r\ninvoice+IC4-txt.exe",
	), multipartType)
	add("UTF-7 text body", "invoice+IC4-txt.exe", "text/plain; charset=utf-7")
	add("quoted-printable text part", multipartBody(
		"Content-Disposition: form-data; name=\"note\"\r\n"+
			"Content-Transfer-Encoding: quoted-printable\r\n\r\ninvoice=E2=80=AEtxt.exe",
	), multipartType)

	// GraphQL and JavaScript escapes.
	gqlJS := []string{"application/graphql", "application/javascript", "text/javascript"}
	add(`GraphQL \u{202E} in an argument`, `{ a(x: "\u{202E}evil") }`, gqlJS...)
	add(`string \u{0}`, `"\u{0}"`, gqlJS...)
	add(`string \u{9B}`, `"\u{9B}31m"`, gqlJS...)
	add(`string \u{0000202e}`, `"\u{0000202e}"`, gqlJS...)
	add(`GraphQL block string \u202E`, `{ a(x: """\u202E""") }`, gqlJS...)
	add(`JavaScript \x9b \0 \33 \205`, `var a = "\x9b"; var b = '\0'; var c = "\33"; var d = "\205";`,
		"application/javascript", "text/javascript")
	add(`JavaScript template \u{202E}`, "var t = `\\u{202E}${x}`;", "application/javascript", "text/javascript")

	// A quote that a syntax takes for no delimiter, before a string
	// literal with an escape: the scan must not lose track of the string.
	for _, y := range []struct{ name, body string }{
		{"YAML comment with a quote", "# say \"\nb: \"\\x85\"\n"},
		{"YAML single-quoted scalar over lines with a quote", "a: 'foo\n \" bar'\nb: \"\\x85\"\n"},
		{"YAML plain scalar with a quote", "a: 5\" x\nb: \"\\x85\"\n"},
		{"YAML block scalar with a quote", "a: |\n  he said \"\nb: \"\\x85\"\n"},
	} {
		add(y.name, y.body, "text/yaml", "application/yaml", "text/plain")
	}
	for _, j := range []struct{ name, body string }{
		{"JavaScript line comment with a quote", "// say \"\nvar s = \"\\x85\";\n"},
		{"JavaScript block comment with a quote", "/* \" */ var s = \"\\x85\";\n"},
		{"JavaScript regular expression with a quote", "var r = /\"/; var s = \"\\x85\";\n"},
		{"JavaScript line continuation of CR LF", "var s = 'a\\\r\n\\x85';\n"},
	} {
		add(j.name, j.body, "application/javascript", "text/javascript")
	}
	add("GraphQL comment with a quote", "# \"\n{ a(x: \"\\u{202E}\") }", "application/graphql")
	add("GraphQL block string with a quote", "{ a(x: \"\"\"a\"b\"\"\", y: \"\\u{202E}\") }", "application/graphql")

	// HTML character references, some without their semicolon.
	for _, h := range []string{
		`<p>&#x202e x</p>`,
		`<p>&#8238 x</p>`,
		`&#27`,
		`&#x8D`,
		`&#X202E;`,
		`&ZeroWidthSpace;`,
		`&NoBreak;`,
		`&InvisibleTimes;`,
		`&lrm`,
		`<a title="&#x202e">x</a>`,
	} {
		add("HTML "+h, h, "text/html")
	}
	return cs
}

// cleanCases are ordinary documents that the strict preset must accept
// and in which no decoder finds anything refused.
func cleanCases() []docCase {
	compose := `version: "3.9"
services:
  web:
    image: "nginx:1.27"
    ports:
      - "8080:80"
    environment:
      GREETING: "Hello,\tworld\n"
      WINDOWS_DIR: "C:\\tools\\bin"
      QUOTE: "say \"hi\""
    command: ["sh", "-c", "echo ready"]
`
	pkg := `{
  "name": "@acme/widgets",
  "version": "1.4.2",
  "description": "Widgets, caf\u00e9 edition",
  "main": "dist/index.js",
  "scripts": {"build": "tsc -p .", "test": "node --test"},
  "dependencies": {"left-pad": "^1.3.0"},
  "license": "MIT"
}
`
	js := "const greeting = \"Hello\\n\";\n" +
		"const tab = 'a\\tb';\n" +
		"const e = '\\u00e9t\\u00e9';\n" +
		"const x = 3;\n" +
		"const t = `t ${x}`;\n" +
		"console.log(greeting, tab, e, t);\n"
	gql := `query Hero($id: ID!, $first: Int = 10) {
  hero(id: $id) {
    name
    friends(first: $first) { name }
  }
}
`
	gqlJSON := `{"query":"query Hero($id: ID!) { hero(id: $id) { name } }","variables":{"id":"1000"}}`
	page := `<!DOCTYPE html>
<html><head><title>Tom &amp; Jerry</title></head>
<body><p>Price:&nbsp;10&nbsp;EUR &copy; 2024 Caf&#233;</p>
<a href="/a?x=1&amp;y=2" title="Tom &amp; Jerry">link</a></body></html>
`
	hebrew := "שלום\u200f עולם: the order (RLM) is kept.\n"
	windows := `Build artifacts are in C:\build\files; the logs are in C:\build\files\logs.` + "\n"
	upload := "--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"title\"\r\n\r\n" +
		"Quarterly report\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"description\"\r\n\r\n" +
		"Résumé — café, שלום\u200f\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\n" +
		"Content-Type: text/plain\r\n\r\n" +
		"line 1\r\nline 2\tand a tab\r\n\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"data\"; filename=\"data.json\"\r\n" +
		"Content-Type: application/json\r\n\r\n" +
		"{\"a\": 1}\r\n" +
		"--" + boundary + "--\r\n"
	return []docCase{
		{"docker-compose YAML as application/yaml", "application/yaml", compose},
		{"docker-compose YAML as text/yaml", "text/yaml", compose},
		{"package.json", "application/json", pkg},
		{"JavaScript with ordinary escapes as text/javascript", "text/javascript", js},
		{"JavaScript with ordinary escapes as application/javascript", "application/javascript", js},
		{"GraphQL query with variables", "application/graphql", gql},
		{"GraphQL request as JSON", "application/json", gqlJSON},
		{"HTML page with entities", "text/html; charset=utf-8", page},
		{"Hebrew text with RLM", "text/plain; charset=utf-8", hebrew},
		{"Hebrew JSON value with RLM", "application/json", `{"greeting":"שלום\u200f"}`},
		{"Windows path in prose", "text/plain", windows},
		{"browser-like multipart upload", multipartType, upload},
	}
}
