package adaptertest

import (
	"strings"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// jsonLinesRows are JSON lines (NDJSON, JSON Lines) bodies.
func jsonLinesRows() []row {
	rej := func(reason, field string, offset int) *rejection {
		return &rejection{reason: reason, location: "json", field: field, offset: offset}
	}
	none := map[string]string{}
	reads := func(body string) *Reads { return &Reads{Path: "/api/e", Params: none, Body: body} }
	flagged := func(r *rejection) *rejection { r.mode = "monitor"; return r }
	post := func(c row) row {
		c.method, c.target = "POST", "/api/e"
		if c.ct == "" {
			c.ct = "application/x-ndjson"
		}
		return c
	}
	at := func(body, s string) int { return strings.Index(body, s) }
	const clean = "{\"user\":\"Zo\u00eb\",\"n\":1}\r\n\n  \n[1,2,{\"k\":\"\U0001F600\"}]\n\"just a string\"\n42\n"
	surrogate := `{"a":1}` + "\n\n" + `{"b":[true]}` + "\n" + `{"c":{"d":"\ud800"}}` + "\n"
	dup := `{"a":1,"b":2}` + "\n" + `{"a":1,"A":2}` + "\n"
	badOctet := `{"a":"ok"}` + "\n" + `{"a":"x` + "\xff" + `"}`
	bidi := `{"a":"ok"}` + "\n" + `{"t":"a` + "\u202e" + `b"}` + "\n"
	xmlRef := `{"a":"ok"}` + "\n" + `{"t":"&#x202E;"}` + "\n"
	pretty := "{\n  \"a\": 1,\n  \"a\": 2\n}\n"
	unterminated := `"x` + "\n" + `{"a":"` + "\u202e" + `"}` + "\n"
	crUnterminated := `"x` + "\r" + `{"a":"` + "\u202e" + `"}` + "\r"
	crLines := `{"a":1}` + "\r" + `{"b":"\ud800"}` + "\r"
	lastOpen := `{"a":1}` + "\n" + `{"b":`
	twoOnALine := `{"a":1} {"a":2}` + "\n"
	nulEscape := `{"a":1}` + "\n" + `{"b":"\u0000"}` + "\n"
	deep := "[1]\n" + strings.Repeat("[", 5) + strings.Repeat("]", 5) + "\n"

	jsonOff := with(func(p *rules.Policy) { p.JSON.On = false })
	def := func() *rules.Table { return &rules.Table{Default: rules.Default()} }
	depth4 := with(func(p *rules.Policy) { p.Limits.JSONDepth = 4 })
	reject := with(func(p *rules.Policy) { p.Normalization, p.RejectUnnormalized = normalize.NFC, true })
	precis := with(func(p *rules.Policy) {
		p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/user", Profile: normalize.UsernameCaseMapped}}
	})

	return []row{
		// Clean bodies of each JSON-lines type pass as sent (415 under the
		// strict preset before).
		post(row{name: "clean NDJSON", body: clean, status: 200, reads: reads(clean)}),
		post(row{name: "clean ndjson", ct: "application/ndjson", body: clean, status: 200, reads: reads(clean)}),
		post(row{name: "clean JSON Lines", ct: "application/jsonl", body: clean, status: 200, reads: reads(clean)}),
		post(row{name: "clean jsonlines, charset", ct: "application/x-jsonlines; charset=utf-8", body: clean, status: 200, reads: reads(clean)}),
		post(row{name: "a last line left open is the decoder's", body: lastOpen, status: 200, reads: reads(lastOpen)}),
		post(row{name: "two values on a line", body: twoOnALine, status: 200, reads: reads(twoOnALine)}),

		// Each line is checked as JSON: the field is the line's index and
		// the pointer within it; the offset is into the body.
		post(row{name: "lone surrogate escape", body: surrogate, status: 400, rej: rej("surrogate", "/2/c/d", at(surrogate, `\ud800`))}),
		post(row{name: "lone surrogate escape, jsonl", ct: "application/jsonl", body: surrogate,
			status: 400, rej: rej("surrogate", "/2/c/d", at(surrogate, `\ud800`))}),
		post(row{name: "duplicate key in a line", body: dup, status: 400, rej: rej("duplicate_key", "/1/A", at(dup, `"A"`)+1)}),
		post(row{name: "ill-formed octet", body: badOctet, status: 400, rej: rej("invalid_byte", "/1/a", at(badOctet, "\xff"))}),
		post(row{name: "raw bidi control", body: bidi,
			status: 400, rej: &rejection{reason: "forbidden_char", location: "json", field: "/1/t", offset: at(bidi, "\u202e"), class: "bidi_control"}}),
		post(row{name: "XML reference to a bidi control", body: xmlRef,
			status: 400, rej: &rejection{reason: "forbidden_char", location: "json", field: "/1", offset: at(xmlRef, "&#x"), class: "bidi_control"}}),
		post(row{name: "nesting over the limit", table: depth4, body: deep, status: 400,
			rej: &rejection{reason: "too_large", location: "json", field: "/1/0/0/0/0", offset: 4 + 4, limit: 4}}),

		// Lines that are not JSON lines: a value left open on one line and
		// continued on the next.
		post(row{name: "a value across lines", body: pretty, status: 400, rej: rej("bad_media_type", "/0", 1)}),
		post(row{name: "a string left open", body: unterminated, status: 400, rej: rej("bad_media_type", "/0", 2)}),
		post(row{name: "a string left open before a carriage return", body: crUnterminated, status: 400, rej: rej("bad_media_type", "/0", 2)}),
		post(row{name: "lines ended by carriage returns", body: crLines, status: 400, rej: rej("surrogate", "/1/b", at(crLines, `\ud800`))}),

		// The JSON check decides: off, and under the default preset.
		post(row{name: "JSON off", table: jsonOff, body: surrogate, status: 200, reads: reads(surrogate)}),
		post(row{name: "default preset, NUL escape", table: def, body: nulEscape,
			status: 400, rej: &rejection{reason: "forbidden_char", location: "json", field: "/1/b", offset: at(nulEscape, `\u0000`), class: "nul"}}),
		post(row{name: "default preset, bidi control passes", table: def, body: bidi, status: 200, reads: reads(bidi)}),

		// Canonical forms, line by line.
		post(row{name: "NFC", table: with(nfc), body: `{"k":"` + decomposed + `"}` + "\n" + `{"k":"e\u0301"}` + "\n",
			status: 200, reads: reads(`{"k":"` + composed + `"}` + "\n" + `{"k":"` + composed + `"}` + "\n")}),
		post(row{name: "not normalized", table: reject, body: `{"k":"a"}` + "\n\n" + `{"k":"` + decomposed + `"}`,
			status: 400, rej: rej("not_normalized", "/1/k", 17)}),
		post(row{name: "PRECIS on each line", table: precis, body: `{"user":"MIKE"}` + "\n" + `{"user":"Zo"}`,
			status: 200, reads: reads(`{"user":"mike"}` + "\n" + `{"user":"zo"}`)}),

		// Coded and monitored.
		post(row{name: "gzip NDJSON", body: gzipOf(surrogate), header: []string{"Content-Encoding: gzip"},
			status: 400, rej: rej("surrogate", "/2/c/d", at(surrogate, `\ud800`))}),
		post(row{name: "monitor", table: with(monitor), body: surrogate,
			status: 200, rej: flagged(rej("surrogate", "/2/c/d", at(surrogate, `\ud800`))), reads: reads(surrogate)}),
	}
}
