package adaptertest

// A multipart part's header block as text: the escapes a JSON or XML
// decoder would read in it, extended parameter values Go drops, fields and
// parameters given twice, and a field's declared charset.

import (
	"net/url"
	"strings"

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

func partHeaderRows() []row {
	none := map[string]string{}
	post := func(c row) row {
		c.method, c.target, c.ct = "POST", "/api/e", ctMP
		return c
	}
	mp := func(reason, field string, offset int, class, sample string) *rejection {
		return &rejection{reason: reason, location: "multipart", field: field, offset: offset, class: class, sample: sample}
	}
	reads := func(body string, form url.Values) *Reads {
		return &Reads{Path: "/api/e", Params: none, Body: body, Form: form}
	}
	def := func() *rules.Table { return &rules.Table{Default: rules.Default()} }
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
	jsonInHeader := rawMP(field("y", "1", `X-Note: "\u202e"`)) // in a string, where a decoder reads it
	dataPartHeader := rawMP(file(`; filename="a.bin"`, "\xff\x00\xfe",
		"Content-Type: application/octet-stream", "X-Note: &#x202e;"))
	cleanRefs := rawMP(field("y", "1", "X-Note: caf&#233; &amp; co"))

	twoDispositions := rawMP(rawPart("1", cd(`; name="a"`), cd(`; name="b"`)))
	twoTypes := rawMP(field("a", "1", "Content-Type: text/plain", "content-type: text/html"))
	twoOthers := rawMP(field("a", "1", "X-Note: 1", "X-NOTE: 2"))
	nameTwice := rawMP(rawPart("1", cd(`; name="a"; name="a"`)))
	nameTwiceOther := rawMP(rawPart("1", cd(`; name="a"; name="b"`)))
	plainAndExt := rawMP(file(`; filename="a.txt"; filename*=UTF-8''b.exe`, "x"))
	plainAndExtAlike := rawMP(file(`; filename="a.txt"; filename*=UTF-8''a.txt`, "x"))
	extAndPieces := rawMP(file(`; filename*=UTF-8''a.txt; filename*0=b.exe`, "x"))
	pieceGap := rawMP(file(`; filename*0=a; filename*2=.exe`, "x"))

	badU := rawMP(file(`; filename*=UTF-8''%u202E`, "x"))
	badNUL := rawMP(file(`; filename*=UTF-8''%u0000`, "x"))
	badHex := rawMP(file(`; filename*=UTF-8''a%ZZ`, "x"))
	lonePct := rawMP(file(`; filename*=UTF-8''a%`, "x"))
	bogus := rawMP(file(`; filename*=x-bogus''%E2%80%AE`, "x"))
	plainBesideBad := rawMP(file(`; filename="a.txt"; filename*=UTF-8''a%u202Etxt.exe`, "x"))
	badPiece := rawMP(file(`; filename*0*=UTF-8''a; filename*1*=%ZZ`, "x"))
	badTypeParam := rawMP(field("a", "1", "Content-Type: text/plain; x*=UTF-8''%u202E"))
	cleanExt := rawMP(file(`; filename*=utf-8''caf%C3%A9.txt`, "x"))

	utf7RLO := rawMP(field("a", "invoice+IC4-txt.exe", "Content-Type: text/plain; charset=utf-7"))
	utf7NUL := rawMP(field("a", "+AAA-", "Content-Type: text/plain; charset=UTF-7"))
	utf8Field := rawMP(field("a", "caf\u00e9", "Content-Type: text/plain; charset=UTF-8"))
	utf7Data := rawMP(file(`; filename="a.txt"`, "+IC4-", "Content-Type: application/octet-stream; charset=utf-7"))

	return []row{
		// Escapes in a part's header block, under the names classes.
		post(row{name: "XML reference in the next part's header", body: xmlAcross,
			status: 400, rej: mp("forbidden_char", "X-Note", 0, "bidi_control", "&#x202e;")}),
		post(row{name: "XML reference in a field name", body: escapedName,
			status: 400, rej: mp("forbidden_char", "b&#x202e;", 1, "bidi_control", "")}),
		post(row{name: "JSON escape in a part header", body: jsonInHeader,
			status: 400, rej: mp("forbidden_char", "X-Note", 1, "bidi_control", "")}),
		post(row{name: "XML reference in a data file part's header", table: upload, body: dataPartHeader,
			status: 400, rej: mp("forbidden_char", "X-Note", 0, "bidi_control", "")}),
		post(row{name: "references of allowed characters in a part header pass", body: cleanRefs,
			status: 200, reads: reads(cleanRefs, url.Values{"y": {"1"}})}),

		// Fields and parameters given twice.
		post(row{name: "two Content-Disposition fields", body: twoDispositions,
			status: 400, rej: mp("ambiguous_header", "a", 0, "", "form-dat")}),
		post(row{name: "two Content-Type fields, in other cases", body: twoTypes,
			status: 400, rej: mp("ambiguous_header", "a", 0, "", "text/htm")}),
		post(row{name: "any header field twice", body: twoOthers,
			status: 400, rej: mp("ambiguous_header", "a", 0, "", "2")}),
		post(row{name: "name twice, alike", body: nameTwice,
			status: 400, rej: mp("ambiguous_header", "a", 0, "", "")}),
		post(row{name: "name twice, otherwise: no field name Go reads", body: nameTwiceOther,
			status: 400, rej: mp("ambiguous_header", "Content-Disposition", 0, "", "")}),
		post(row{name: "filename and filename* that read otherwise", body: plainAndExt,
			status: 400, rej: mp("ambiguous_header", "f", 0, "", "")}),
		post(row{name: "filename and filename* that read alike pass", body: plainAndExtAlike,
			status: 200, reads: reads(plainAndExtAlike, url.Values{})}),
		post(row{name: "filename* beside continuations", body: extAndPieces,
			status: 400, rej: mp("ambiguous_header", "f", 0, "", "")}),
		post(row{name: "continuations with a gap", body: pieceGap,
			status: 400, rej: mp("ambiguous_header", "f", 0, "", "")}),
		post(row{name: "default: two Content-Disposition fields pass", table: def, body: twoDispositions,
			status: 200, reads: reads(twoDispositions, url.Values{"a": {"1"}})}),

		// Extended values Go drops.
		post(row{name: "filename* with %u", body: badU,
			status: 400, rej: mp("bad_escape", "f", 0, "", "%u202E")}),
		post(row{name: "filename* with %u0000", body: badNUL,
			status: 400, rej: mp("bad_escape", "f", 0, "", "")}),
		post(row{name: "filename* with %ZZ", body: badHex,
			status: 400, rej: mp("bad_escape", "f", 1, "", "")}),
		post(row{name: "filename* with a lone %", body: lonePct,
			status: 400, rej: mp("bad_escape", "f", 1, "", "")}),
		post(row{name: "filename* in a charset Go does not decode", body: bogus,
			status: 400, rej: mp("bad_charset", "f", 0, "", "")}),
		post(row{name: "filename beside a filename* Go drops", body: plainBesideBad,
			status: 400, rej: mp("bad_escape", "f", 1, "", "")}),
		post(row{name: "a continuation with %ZZ", body: badPiece,
			status: 400, rej: mp("bad_escape", "f", 0, "", "")}),
		post(row{name: "a Content-Type parameter with %u", body: badTypeParam,
			status: 400, rej: mp("bad_escape", "a", 0, "", "")}),
		post(row{name: "default: filename* with %u", table: def, body: badU,
			status: 400, rej: mp("bad_escape", "f", 0, "", "")}),
		post(row{name: "a well-formed filename* passes", body: cleanExt,
			status: 200, reads: reads(cleanExt, url.Values{})}),

		// A field's charset follows the body's rule.
		post(row{name: "a field in UTF-7 with a bidi control", body: utf7RLO,
			status: 400, rej: mp("bad_charset", "a", 0, "", "")}),
		post(row{name: "a field in UTF-7 with NUL", body: utf7NUL,
			status: 400, rej: mp("bad_charset", "a", 0, "", "")}),
		post(row{name: "a field in UTF-8 passes", body: utf8Field,
			status: 200, reads: reads(utf8Field, url.Values{"a": {"caf\u00e9"}})}),
		post(row{name: "default: a field in UTF-7 passes", table: def, body: utf7RLO,
			status: 200, reads: reads(utf7RLO, url.Values{"a": {"invoice+IC4-txt.exe"}})}),
		post(row{name: "a data file part's charset is not checked", table: upload, body: utf7Data,
			status: 200, reads: reads(utf7Data, url.Values{})}),
	}
}
