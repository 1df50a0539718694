package adaptertest

import "strings"

// escapesRows are the escapes of every syntax the strict preset accepts,
// in bodies of other types, on the conformance table's machinery.
func escapesRows() []row {
	none := map[string]string{}
	post := func(name, ct, body string, rej *rejection) row {
		c := row{name: name, method: "POST", target: "/api/e", ct: ct, body: body, status: 400, rej: rej}
		if rej == nil {
			c.status, c.reads = 200, &Reads{Path: "/api/e", Params: none, Body: body}
		}
		return c
	}
	at := func(loc, reason string, offset int, class string) *rejection {
		return &rejection{reason: reason, location: loc, offset: offset, class: class}
	}
	field := func(r *rejection, f string) *rejection { r.field = f; return r }
	decl := `<?xml version="1.0" encoding="shift_jis"?><a/>`
	declAt := strings.Index(decl, "shift_jis")
	ndjson := "application/x-ndjson"
	plainRefs := `<p>Caf&eacute; &amp; &nbsp;&copy; &#233; &#x80; in &euro;</p>`
	return []row{
		// YAML's escapes, in every body checked as text, and refused in
		// JSON as escapes JSON does not have.
		post("YAML \\0 in YAML", "application/yaml", `a: "x\0y"`, at("body", "forbidden_char", 5, "nul")),
		post("YAML \\x85 \\N in text/yaml", "text/yaml", `a: "\x85\N"`, at("body", "forbidden_char", 4, "c1")),
		post("YAML \\U in text", "text/plain", `a: "\U0000202E"`, at("body", "forbidden_char", 4, "bidi_control")),
		post("YAML \\e in a form", "application/x-www-form-urlencoded", `a="\e[31m"`, field(at("form", "forbidden_char", 1, "c0"), "a")),
		post("YAML \\e in a form, percent-encoded", "application/x-www-form-urlencoded", `x=1&a=%22%5Ce%5B31m%22`, field(at("form", "forbidden_char", 1, "c0"), "a")),
		post("YAML \\e in a multipart part", ctMP, mpBody("t", `a: "\e[31m"`), field(at("multipart", "forbidden_char", 4, "c0"), "t")),
		post("YAML \\e in JSON", "application/json", `{"a":"\e[31m"}`, field(at("json", "bad_escape", 6, ""), "/a")),
		post("YAML \\0 in JSON lines", ndjson, "{\"a\":\"ok\"}\n{\"b\":\"x\\0y\"}\n", field(at("json", "bad_escape", 18, ""), "/1/b")),
		post("a short \\u in JSON", "application/json", `{"a":["\u00"]}`, field(at("json", "bad_escape", 7, ""), "/a/0")),

		// JSON's \b and \f where a JSON decoder reads them; prose passes.
		post("\\b in a string in text", "text/plain", `{"path":"C:\build\files"}`, at("body", "forbidden_char", 11, "c0")),
		post("Windows paths in prose", "text/plain", `Files in C:\2024\x64\files, C:\build\files and \\server\share\new.`, nil),

		// GraphQL's and JavaScript's.
		post("GraphQL \\u{}", "application/graphql", `{ a(x: "\u{202E}evil") }`, at("body", "forbidden_char", 8, "bidi_control")),
		post("\\u{110000}", "application/graphql", `{ a(x: "\u{110000}") }`, at("body", "out_of_range", 8, "")),
		post("JavaScript \\x9b", "text/javascript", `var s = "\x9b";`, at("body", "forbidden_char", 9, "c1")),
		post("JavaScript octal ESC", "application/javascript", `var s = '\33[31m';`, at("body", "forbidden_char", 9, "c0")),
		post("JavaScript \\205 in JSON sent as text", "text/plain", `{"a":"\205"}`, at("body", "forbidden_char", 6, "c1")),

		// HTML's references as html.UnescapeString reads them.
		post("&#x202e without ';'", "text/html", `<p>&#x202e x</p>`, at("body", "forbidden_char", 3, "bidi_control")),
		post("&#X202E; in an attribute", "text/html", `<a title="&#X202E;">x</a>`, at("body", "forbidden_char", 10, "bidi_control")),
		post("&#27 in JSON", "application/json", `["&#27[31m"]`, field(at("json", "forbidden_char", 2, "c0"), "")),
		post("&#x8D in a form", "application/x-www-form-urlencoded", `a=&#x8D`, at("form", "forbidden_char", 2, "c1")), // the whole text's
		post("&#x202E; in a form, percent-encoded", "application/x-www-form-urlencoded", `a=%26%23x202E%3B`, field(at("form", "forbidden_char", 0, "bidi_control"), "a")),
		post("HTML's plain references, and XML's U+0080", "text/html", plainRefs,
			at("body", "forbidden_char", strings.Index(plainRefs, "&#x80;"), "c1")), // HTML reads €

		// XML declarations in bodies that are not XML.
		post("an XML declaration in text", "text/plain", decl, at("body", "bad_charset", declAt, "")),
		post("an XML declaration in JSON", "application/json", `["<?xml version='1.0' encoding='latin1'?>"]`, field(at("json", "bad_charset", 32, ""), "")),
		post("an XML declaration in a multipart part", ctMP, mpBody("t", decl), field(at("multipart", "bad_charset", declAt, ""), "t")),
		post("a UTF-8 XML declaration in text", "text/plain", `<?xml version="1.0" encoding="UTF-8"?><a/>`, nil),
	}
}
