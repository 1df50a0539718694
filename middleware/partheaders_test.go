package middleware_test

// A multipart part's header block as text, through the three adapters on
// the conformance table's machinery (in process, and over HTTP/1.1, h2c
// and h2): the escapes a JSON or XML decoder would read in it.

import (
	"net/url"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// rawPart is one part of a body written as it is: header lines, then
// the content.
func rawPart(content string, header ...string) string {
	return strings.Join(header, "\r\n") + "\r\n\r\n" + content
}

// rawMP is a multipart body of the parts, with ctMP's boundary.
func rawMP(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--conformance-boundary\r\n" + p + "\r\n")
	}
	b.WriteString("--conformance-boundary--\r\n")
	return b.String()
}

func partHeaderCases() []confCase {
	none := map[string]string{}
	post := func(c confCase) confCase {
		c.method, c.target, c.ct = "POST", "/api/e", ctMP
		return c
	}
	mp := func(reason, field string, offset int, class, sample string) *confRej {
		return &confRej{reason: reason, location: "multipart", field: field, offset: offset, class: class, sample: sample}
	}
	reads := func(body string, form url.Values) *confReads {
		return &confReads{Path: "/api/e", Params: none, Body: body, Form: form}
	}
	upload := with(func(p *rules.Policy) { p.FileContents = rules.DataFiles })
	cd := func(params string) string { return "Content-Disposition: form-data" + params }
	field := func(name, content string, header ...string) string {
		return rawPart(content, append([]string{cd(`; name="` + name + `"`)}, header...)...)
	}
	file := func(params, content string, header ...string) string {
		return rawPart(content, append([]string{cd(`; name="f"` + params)}, header...)...)
	}

	// The XML a handler's decoder reads across two parts: <a>, the
	// next part's header, </a>.
	xmlAcross := rawMP(field("x", "<a>"), field("y", "</a>", "X-Note: &#x202e;&#x85;"))
	escapedName := rawMP(rawPart("1", cd(`; name="b&#x202e;"`)))
	jsonInHeader := rawMP(field("y", "1", `X-Note: \u202e`))
	dataPartHeader := rawMP(file(`; filename="a.bin"`, "\xff\x00\xfe",
		"Content-Type: application/octet-stream", "X-Note: &#x202e;"))
	cleanRefs := rawMP(field("y", "1", "X-Note: caf&#233; &amp; co"))

	return []confCase{
		// Escapes in a part's header block, under the names classes.
		post(confCase{name: "XML reference in the next part's header", body: xmlAcross,
			status: 400, rej: mp("forbidden_char", "X-Note", 0, "bidi_control", "&#x202e;")}),
		post(confCase{name: "XML reference in a field name", body: escapedName,
			status: 400, rej: mp("forbidden_char", "b&#x202e;", 1, "bidi_control", "")}),
		post(confCase{name: "JSON escape in a part header", body: jsonInHeader,
			status: 400, rej: mp("forbidden_char", "X-Note", 0, "bidi_control", "")}),
		post(confCase{name: "XML reference in a data file part's header", table: upload, body: dataPartHeader,
			status: 400, rej: mp("forbidden_char", "X-Note", 0, "bidi_control", "")}),
		post(confCase{name: "references of allowed characters in a part header pass", body: cleanRefs,
			status: 200, reads: reads(cleanRefs, url.Values{"y": {"1"}})}),
	}
}

// TestPartHeadersConformance runs the part-header rows on every target of
// the conformance table.
func TestPartHeadersConformance(t *testing.T) {
	t.Parallel()
	runConformance(t, partHeaderCases())
}
