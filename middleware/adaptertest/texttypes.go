package adaptertest

// The media types each preset checks as text (rules.TextTypes), and the
// suffix patterns of BodyTypes, BinaryTypes and MultipartTextTypes.

import (
	"bytes"
	"mime/multipart"
	"net/textproto"

	"github.com/utf8guard/utf8guard/rules"
)

func textTypesRows() []row {
	none := map[string]string{}
	reads := func(body string) *Reads { return &Reads{Path: "/api/e", Params: none, Body: body} }
	body := func(reason string, offset int, class string) *rejection {
		return &rejection{reason: reason, location: "body", offset: offset, class: class}
	}
	post := func(c row) row {
		c.method, c.target = "POST", "/api/e"
		return c
	}
	def := func() *rules.Table { return &rules.Table{Default: rules.Default()} }
	unchecked := func() *rules.Table { return &rules.Table{Default: rules.Unchecked()} }
	const yaml = "name: Zo\u00eb\nlist:\n  - a\n  - b\n"
	suffixYAML := with(func(p *rules.Policy) { p.BodyTypes = []string{"application/*+yaml"} })
	suffixXML := with(func(p *rules.Policy) { p.XML.On, p.BodyTypes = false, []string{"application/*+xml"} })
	suffixZip := with(func(p *rules.Policy) { p.BinaryTypes = []string{"application/*+zip"} })
	partJSON := with(func(p *rules.Policy) { p.MultipartTextTypes = []string{"text/*", "application/*+json"} })
	filePart := func(ct, content string) (string, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		_ = w.SetBoundary("conformance-boundary")
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="f"; filename="a.bin"`)
		h.Set("Content-Type", ct)
		pw, _ := w.CreatePart(h)
		_, _ = pw.Write([]byte(content))
		_ = w.Close()
		return ctMP, b.String()
	}
	partCT, part := filePart("application/vnd.x+json", "{\"a\":\"\xff\"}")

	return []row{
		// The strict preset checks them as text (415 before).
		post(row{name: "YAML", ct: "application/yaml", body: yaml, status: 200, reads: reads(yaml)}),
		post(row{name: "YAML with an ill-formed octet", ct: "application/yaml", body: "name: \xc0\xae",
			status: 400, rej: body("overlong", 6, "")}),
		post(row{name: "x-yaml with a C1 control", ct: "application/x-yaml", body: "a: \u0085",
			status: 400, rej: body("forbidden_char", 3, "c1")}),
		post(row{name: "GraphQL with a bidi control", ct: "application/graphql", body: "{ user(name: \"a\u202eb\") { id } }",
			status: 400, rej: body("forbidden_char", 15, "bidi_control")}),
		post(row{name: "GraphQL with an escaped bidi control", ct: "application/graphql", body: `{ user(name: "a\u202eb") { id } }`,
			status: 400, rej: body("forbidden_char", 15, "bidi_control")}),
		post(row{name: "JavaScript with NUL", ct: "application/javascript; charset=utf-8", body: "var a = '\x00';",
			status: 400, rej: body("forbidden_char", 9, "nul")}),
		post(row{name: "YAML in another charset", ct: "application/yaml; charset=iso-8859-1", body: "a: \xe9",
			status: 400, rej: &rejection{reason: "bad_charset", location: "body", field: "iso-8859-1"}}),
		post(row{name: "TOML is not listed", ct: "application/toml", body: "a = 1",
			status: 415, rej: &rejection{reason: "unsupported_media_type", location: "body", field: "Content-Type"}}),

		// The default preset checks them for malformations and NUL; the
		// unchecked one not at all.
		post(row{name: "default: YAML with an ill-formed octet", table: def, ct: "application/yaml", body: "a: \xff",
			status: 400, rej: body("invalid_byte", 3, "")}),
		post(row{name: "default: JavaScript with a bidi control passes", table: def, ct: "application/javascript", body: "'\u202e'",
			status: 200, reads: reads("'\u202e'")}),
		post(row{name: "unchecked: YAML with an ill-formed octet passes", table: unchecked, ct: "application/yaml", body: "a: \xff",
			status: 200, reads: reads("a: \xff")}),

		// Suffix patterns.
		post(row{name: "body_types application/*+yaml", table: suffixYAML, ct: "application/vnd.k8s+yaml", body: "a: \xff",
			status: 400, rej: body("invalid_byte", 3, "")}),
		post(row{name: "body_types application/*+yaml, clean", table: suffixYAML, ct: "application/vnd.k8s+yaml", body: yaml,
			status: 200, reads: reads(yaml)}),
		post(row{name: "a suffix pattern matches its suffix only", table: suffixYAML, ct: "application/yaml-ish", body: "a",
			status: 415, rej: &rejection{reason: "unsupported_media_type", location: "body", field: "Content-Type"}}),
		post(row{name: "+json is JSON, listed or not", ct: "application/vnd.api+json", body: `{"a":"\udc00"}`,
			status: 400, rej: &rejection{reason: "surrogate", location: "json", field: "/a", offset: 6}}),
		post(row{name: "body_types application/*+xml changes nothing: XML off, unchecked", table: suffixXML,
			ct: "application/atom+xml", body: "<a>\xff</a>", status: 200, reads: reads("<a>\xff</a>")}),
		post(row{name: "binary_types application/*+zip", table: suffixZip, ct: "application/epub+zip", body: "PK\x03\x04\xff",
			status: 200, reads: reads("PK\x03\x04\xff")}),
		post(row{name: "multipart_text_types application/*+json", table: partJSON, ct: partCT, body: part,
			status: 400, rej: &rejection{reason: "invalid_byte", location: "multipart", field: "f", offset: 6}}),
		post(row{name: "a file part of a type not listed is binary", ct: partCT, body: part,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: part, Form: map[string][]string{}}}),
	}
}
