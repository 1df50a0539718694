package adaptertest

import (
	"net/url"
	"strings"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// hebrewTitle is a Hebrew meeting title as people type it: an RLM after
// the time keeps "10:00" where a reader of Hebrew expects it.
const (
	hebrewTitle = "פגישה \u200fב-10:00\u200f"
	hebrewJSON  = `{"title":"` + hebrewTitle + `"}`
)

// confRows are the conformance table's main rows, by location: clean
// requests, right-to-left text, bodyless requests, the path, the request
// target, the query, bodies, headers and trailers, canonical forms, moves
// before routing, Monitor mode, the log's identity fields, and a form
// parsed before the check.
func confRows() []row {
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	id := func(v string) map[string]string { return map[string]string{"id": v} }
	star := func(v string) map[string]string { return map[string]string{"rest": v} }
	none := map[string]string{}
	rej := func(reason, location, field string, offset int) *rejection {
		return &rejection{reason: reason, location: location, field: field, offset: offset}
	}
	withClass := func(r *rejection, class string) *rejection { r.class = class; return r }
	withSample := func(r *rejection, s string) *rejection { r.sample = s; return r }
	flagged := func(r *rejection) *rejection { r.mode = "monitor"; return r }
	withLimit := func(r *rejection, limit int64) *rejection { r.limit = limit; return r }
	onRoute := func(r *rejection, route string) *rejection { r.route = route; return r }
	jsonDoc := `{"s":"h` + composed + `llo","a":[1,true,null],"o":{"k":"` + "\U0001F600" + `"}}`
	form := "a=1&a=2&t=h%C3%A9llo+w%C3%B6rld&raw=Zo" + composed
	mp := mpBody("name", "Zo\u00eb", "emoji", "\U0001F600")
	moveTable := func() *rules.Table {
		def := checked()
		nfc(&def)
		tight := def
		tight.Query.Forbid |= sanitize.DefaultIgnorable
		ligature := def
		nfkc(&ligature)
		return &rules.Table{Default: def, Routes: map[string]rules.Policy{
			"/api/café": tight, "/api/\ufb01é": ligature, "/api/fié": checked(),
		}}
	}
	precisPath := with(func(p *rules.Policy) {
		p.Precis = []rules.PrecisField{{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped}}
	})
	precisQuery := with(func(p *rules.Policy) {
		p.Precis = []rules.PrecisField{{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped}}
	})

	return []row{
		// Clean requests: the handler reads them as sent, decoded.
		{name: "clean GET", target: "/api/t/42?name=alice&x=1&x=2&k%C3%A9y=%E2%82%AC&plus=a+b",
			status: 200, reads: &Reads{Path: "/api/t/42", Params: id("42"),
				Query: q("name", "alice", "x", "1", "x", "2", "k"+composed+"y", "\u20ac", "plus", "a b")}},
		{name: "clean GET, two parameters", target: "/api/u/%C3%A9/p/b%20c",
			status: 200, reads: &Reads{Path: "/api/u/" + composed + "/p/b c", Params: map[string]string{"id": composed, "post": "b c"}}},
		{name: "clean GET, wildcard", target: "/api/f/a/b%20c/%C3%A9",
			status: 200, reads: &Reads{Path: "/api/f/a/b c/" + composed, Params: star("a/b c/" + composed)}},
		{name: "lower-case escapes: parameters decoded", target: "/api/t/%c3%a9",
			status: 200, reads: &Reads{Path: "/api/t/" + composed, Params: id(composed)}},
		{name: "clean form", method: "POST", target: "/api/e?src=x", ct: "application/x-www-form-urlencoded", body: form,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: q("src", "x"), Body: form,
				Form: q("a", "1", "a", "2", "t", "h"+composed+"llo w\u00f6rld", "raw", "Zo"+composed)}},
		{name: "clean JSON", method: "POST", target: "/api/e", ct: "application/json", body: jsonDoc,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: jsonDoc}},

		// Right-to-left text: the bidi marks pass in values, raw or
		// escaped; the bidi controls are refused on the same route, and
		// the marks in names.
		{name: "JSON Hebrew sentence with RLM", method: "POST", target: "/api/e", ct: "application/json", body: hebrewJSON,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: hebrewJSON}},
		{name: "JSON escaped RLM and ALM in values", method: "POST", target: "/api/e", ct: "application/json", body: `{"t":"\u05e9\u200f","u":"\u0663\u061c"}`,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: `{"t":"\u05e9\u200f","u":"\u0663\u061c"}`}},
		{name: "JSON escaped RLO beside a Hebrew sentence", method: "POST", target: "/api/e", ct: "application/json",
			body:   `{"title":"\u202e` + hebrewTitle + `"}`,
			status: 400, rej: withClass(rej("forbidden_char", "json", "/title", 10), "bidi_control")},
		{name: "JSON RLM in a member name", method: "POST", target: "/api/e", ct: "application/json", body: "{\"a\u200fb\":1}",
			status: 400, rej: withClass(rej("forbidden_char", "json", `/a\xe2\x80\x8fb`, 3), "bidi_mark")},
		{name: "JSON escaped RLM in a member name", method: "POST", target: "/api/e", ct: "application/json", body: `{"a\u200fb":1}`,
			status: 400, rej: withClass(rej("forbidden_char", "json", `/a\xe2\x80\x8fb`, 3), "bidi_mark")},
		{name: "query value with RLM", target: "/api/e?t=%D7%91-10%3A00%E2%80%8F",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: q("t", "\u05d1-10:00\u200f")}},
		{name: "query key with RLM", target: "/api/e?a%E2%80%8Fb=1",
			status: 400, rej: withClass(rej("forbidden_char", "query", "a%E2%80%8Fb", 1), "bidi_mark")},
		{name: "form key with LRM", method: "POST", target: "/api/e", ct: "application/x-www-form-urlencoded", body: "a%E2%80%8E=1",
			status: 400, rej: withClass(rej("forbidden_char", "form", "a%E2%80%8E", 1), "bidi_mark")},
		{name: "multipart field name with ALM", method: "POST", target: "/api/e", ct: ctMP, body: mpBody("a\u061c", "x"),
			status: 400, rej: withClass(rej("forbidden_char", "multipart", "a\\xd8\\x9c", 1), "bidi_mark")},
		{name: "XML ALM in an element name", method: "POST", target: "/api/e", ct: "application/xml", body: "<a\u061c>x</a\u061c>",
			status: 400, rej: withClass(rej("forbidden_char", "xml", "/a\\xd8\\x9c", 2), "bidi_mark")},
		{name: "XML RLM and ALM in text and an attribute value", method: "POST", target: "/api/e", ct: "application/xml", body: "<a t=\"\u061c\">\u05d1\u200f&#x200F;</a>",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: "<a t=\"\u061c\">\u05d1\u200f&#x200F;</a>"}},
		{name: "clean multipart", method: "POST", target: "/api/e", ct: ctMP, body: mp,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: mp, Form: q("name", "Zo\u00eb", "emoji", "\U0001F600")}},
		{name: "clean text", method: "PUT", target: "/api/e", ct: "text/plain; charset=utf-8", body: "line\r\n\tZo" + composed,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: "line\r\n\tZo" + composed}},

		// Bodyless requests: the strict preset refuses a body without a
		// Content-Type, but a request that carries no octet has no body
		// to refuse, however the protocol frames it (HTTP/2 hands a
		// bodyless GET a body of length 0; one whose DATA frames or chunks
		// hold nothing, a body of unknown length).
		{name: "bodyless HEAD", method: "HEAD", target: "/api/t/1", status: 200,
			reads: &Reads{Path: "/api/t/1", Params: id("1")}},
		{name: "bodyless OPTIONS", method: "OPTIONS", target: "/api/t/1", status: 200,
			reads: &Reads{Path: "/api/t/1", Params: id("1")}},
		{name: "bodyless DELETE", method: "DELETE", target: "/api/t/1", status: 200,
			reads: &Reads{Path: "/api/t/1", Params: id("1")}},
		{name: "POST of length 0 without a Content-Type", method: "POST", target: "/api/e", status: 200,
			reads: &Reads{Path: "/api/e", Params: none}},
		{name: "empty body of unknown length without a Content-Type", method: "POST", target: "/api/e", trailer: []string{},
			status: 200, reads: &Reads{Path: "/api/e", Params: none}},
		{name: "empty body of unknown length, its trailer checked", method: "POST", target: "/api/e",
			trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status:  400, rej: withClass(rej("forbidden_char", "header", "Trailer:X-Name", 1), "bidi_control")},
		{name: "body of unknown length without a Content-Type", method: "POST", target: "/api/e", body: "x", trailer: []string{},
			status: 415, rej: rej("unsupported_media_type", "body", "Content-Type", 0)},
		{name: "JSON of unknown length", method: "POST", target: "/api/e", ct: "application/json", body: jsonDoc, trailer: []string{},
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: jsonDoc}},
		{name: "JSON of unknown length, bidi control", method: "POST", target: "/api/e", ct: "application/json",
			body: `{"a":"x\u202e"}`, trailer: []string{},
			status: 400, rej: withClass(rej("forbidden_char", "json", "/a", 7), "bidi_control")},

		// Path.
		{name: "path overlong", target: "/api/f/%C0%AE", status: 400,
			rej: withSample(rej("overlong", "path", "", 7), `/api/f/\xc0\xae`)},
		{name: "path raw surrogate", target: "/api/t/\xED\xA0\x80", status: 400, rej: rej("surrogate", "path", "", 7)},
		{name: "path lower-case surrogate escape", target: "/api/t/%ed%a0%80", status: 400, rej: rej("surrogate", "path", "", 7)},
		{name: "path double encoding", target: "/api/f/%252e%252e/x", status: 400,
			rej: withSample(rej("double_encoding", "path", "", 7), "/api/f/%252e%25")},
		// Offsets count decoded octets ("/api/f/AA/" is 10), the sample
		// shows the escaped text around the offending escape.
		{name: "path double encoding after escapes", target: "/api/f/%41%41/%252F", status: 400,
			rej: withSample(rej("double_encoding", "path", "", 10), "/%41%41/%252F")},
		{name: "path double encoding after a two-octet character", target: "/api/f/%C3%A9%25%32%65", status: 400,
			rej: withSample(rej("double_encoding", "path", "", 9), "f/%C3%A9%25%32%6")},
		{name: "path bidi", target: "/api/f/a%E2%80%AEb", status: 400, rej: withClass(rej("forbidden_char", "path", "", 8), "bidi_control")},
		{name: "path too long", table: with(func(p *rules.Policy) { p.Limits.PathBytes = 64 }),
			target: "/api/f/" + strings.Repeat("a", 64), status: 400, rej: withLimit(rej("too_large", "path", "", 0), 64)},
		{name: "parameter led by a BOM", target: "/api/t/%EF%BB%BFx", status: 400,
			rej: withClass(rej("forbidden_char", "path", "id", 0), "bom")},
		{name: "encoded slash in a parameter", target: "/api/t/a%2Fb",
			status: 200, reads: &Reads{Path: "/api/t/a/b", Params: id("a/b")},
			diffs: []diff{{when: SlashKeepsRawPath, reads: &Reads{Path: "/api/t/a/b", Params: id("a%2Fb")}}}},

		// The request target beyond the path: an absolute-form target's
		// authority and user information, which net/url decodes into
		// Request.Host and URL.User.
		{name: "absolute-form target", target: "http://h.example/api/t/42",
			status: 200, reads: &Reads{Path: "/api/t/42", Params: id("42")}},
		{name: "absolute-form host overlong", target: "http://h%C0%AE/api/t/42", status: 400,
			rej: onRoute(withSample(rej("overlong", "path", "host", 1), `h\xc0\xae`), "/api/t/{id}")},
		{name: "absolute-form host bidi", target: "http://h%E2%80%AEx/api/t/42", status: 400,
			rej: onRoute(withClass(rej("forbidden_char", "path", "host", 1), "bidi_control"), "/api/t/{id}")},
		{name: "absolute-form user information", target: "http://u%C0%AE:pw@h.example/api/t/42", status: 400,
			rej: onRoute(rej("overlong", "path", "userinfo", 1), "/api/t/{id}")},
		{name: "absolute-form host not NFC", table: with(nfc), target: "http://e%CC%81.example/api/t/42", status: 400,
			rej: onRoute(rej("not_normalized", "path", "host", 0), "/api/t/{id}")},

		// Query.
		{name: "query truncated", target: "/api/e?ok=1&q=%E2%82", status: 400, rej: rej("truncated", "query", "q", 0)},
		{name: "query bad escape", target: "/api/e?q=%zz", status: 400, rej: rej("bad_escape", "query", "q", 0)},
		{name: "query bad escape after escapes", target: "/api/e?q=%41%41%zz", status: 400,
			rej: withSample(rej("bad_escape", "query", "q", 2), "%41%41%zz")},
		{name: "query bad escape after a three-octet character", target: "/api/e?k=1&q=%E2%82%AC%4g", status: 400,
			rej: withSample(rej("bad_escape", "query", "q", 3), "E2%82%AC%4g")},
		{name: "query NUL", target: "/api/e?q=a%00b", status: 400, rej: withClass(rej("forbidden_char", "query", "q", 1), "nul")},
		{name: "query raw invalid octet", target: "/api/e?q=\xff", status: 400, rej: rej("invalid_byte", "query", "q", 0)},

		// Bodies.
		{name: "form invalid octet", method: "POST", target: "/api/e", ct: "application/x-www-form-urlencoded", body: "ok=1&q=%FF",
			status: 400, rej: rej("invalid_byte", "form", "q", 0)},
		{name: "JSON lone surrogate", method: "POST", target: "/api/e", ct: "application/json", body: `{"a":["\ud800"]}`,
			status: 400, rej: rej("surrogate", "json", "/a/0", 7)},
		{name: "JSON duplicate key", method: "POST", target: "/api/e", ct: "application/json", body: `{"a":1,"a":2}`,
			status: 400, rej: rej("duplicate_key", "json", "/a", 8)}, // the first octet of the second name
		{name: "XML invalid octet", method: "POST", target: "/api/e", ct: "application/xml", body: "<a>\xff</a>",
			status: 400, rej: rej("invalid_byte", "xml", "/a", 3)},
		{name: "multipart stray continuation", method: "POST", target: "/api/e", ct: ctMP, body: mpBody("ok", "1", "q", "\x80"),
			status: 400, rej: rej("unexpected_continuation", "multipart", "q", 0)},
		{name: "text NUL", method: "POST", target: "/api/e", ct: "text/plain", body: "a\x00b",
			status: 400, rej: withClass(rej("forbidden_char", "body", "", 1), "nul")},
		{name: "text charset", method: "POST", target: "/api/e", ct: "text/plain; charset=koi8-r", body: "\xc1",
			status: 400, rej: rej("bad_charset", "body", "koi8-r", 0)},
		{name: "media type parameter twice", method: "POST", target: "/api/e", ct: "text/plain; charset=utf-8; charset=utf-16", body: "ab",
			status: 400, rej: rej("bad_media_type", "body", "Content-Type", 0)},
		{name: "body over the limit", method: "POST", target: "/api/e", ct: "text/plain", body: strings.Repeat("x", 1025),
			status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)},
		{name: "JSON over the limit", method: "POST", target: "/api/e", ct: "application/json", body: `"` + strings.Repeat("x", 1024) + `"`,
			status: 413, rej: withLimit(rej("too_large", "json", "", 0), 1024)},
		{name: "unlisted media type", method: "POST", target: "/api/e", ct: "application/octet-stream", body: "\x00\x01",
			status: 415, rej: rej("unsupported_media_type", "body", "Content-Type", 0)},
		{name: "body without a media type", method: "POST", target: "/api/e", body: "x",
			status: 415, rej: rej("unsupported_media_type", "body", "Content-Type", 0)},
		{name: "unreadable body", method: "POST", target: "/api/e", ct: "text/plain", body: "abc", bodyErr: true,
			status: 400, rej: &rejection{reason: "body_unreadable", location: "body"}},

		// Headers and cookies.
		{name: "listed header overlong", target: "/api/e", header: []string{"X-Name: \xc0\xae"},
			status: 400, rej: rej("overlong", "header", "X-Name", 0)},
		{name: "unlisted header passes", target: "/api/e", header: []string{"X-Other: \xc0\xae"},
			status: 200, reads: &Reads{Path: "/api/e", Params: none}},
		{name: "cookie value", target: "/api/e", header: []string{"Cookie: ok=1; sid=a\xe2\x80\xaeb"},
			status: 400, rej: withClass(rej("forbidden_char", "header", "Cookie:sid", 1), "bidi_control")},
		{name: "listed trailer", method: "POST", target: "/api/e", ct: "text/plain", body: "hello", trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status: 400, rej: withClass(rej("forbidden_char", "header", "Trailer:X-Name", 1), "bidi_control")},
		{name: "trailer announced for a body passed unread", table: with(func(p *rules.Policy) { p.BinaryTypes = []string{"application/octet-stream"} }),
			method: "POST", target: "/api/e", ct: "application/octet-stream", body: "\x00\x01", trailer: []string{"X-Name:"},
			status: 400, rej: rej("forbidden_trailer", "header", "Trailer:X-Name", 0)},

		// HTTP/2 may end any body with trailers, whatever its
		// content-length says.
		{name: "HTTP/2 trailer announced after a body of declared length", table: with(func(p *rules.Policy) {
			p.BinaryTypes = []string{"application/octet-stream"}
		}), method: "POST", target: "/api/e", ct: "application/octet-stream", body: "abc", declared: true,
			trailer: []string{"Cookie: a=\xe2\x80\xae"}, status: 400, rej: rej("forbidden_trailer", "header", "Trailer:Cookie", 0)},
		{name: "HTTP/2 trailer after a body of declared length, bodies not read", table: with(func(p *rules.Policy) {
			p.Body.On, p.JSON.On, p.Form.On, p.Multipart.On, p.XML.On, p.RefuseUnlistedTypes = false, false, false, false, false, false
		}), method: "POST", target: "/api/e", ct: "text/plain", body: "hello", declared: true, trailer: []string{"X-Name: \xc0\xae"},
			status: 400, rej: rej("forbidden_trailer", "header", "Trailer:X-Name", 0)},
		{name: "HTTP/2 trailer after a text body of declared length", method: "POST", target: "/api/e", ct: "text/plain",
			body: "hello", declared: true, trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status: 400, rej: withClass(rej("forbidden_char", "header", "Trailer:X-Name", 1), "bidi_control")},

		{name: "HTTP/2 host field beside :authority", table: with(func(p *rules.Policy) {
			p.Headers = []string{"X-Name", "Host"}
		}), target: "/api/e", header: []string{"Host: a\xe2\x80\xaeb"}, frames: true,
			status: 400, rej: withClass(rej("forbidden_char", "header", "Host", 1), "bidi_control")},
		{name: "HTTP/2 overlong host field beside :authority", table: with(func(p *rules.Policy) {
			p.Headers = []string{"X-Name", "Host"}
		}), target: "/api/e", header: []string{"Host: \xc0\xae"}, frames: true,
			status: 400, rej: rej("overlong", "header", "Host", 0)},
		{name: "listed Host header, absolute-form target", table: with(func(p *rules.Policy) {
			p.Path.On, p.Headers = false, []string{"X-Name", "Host"}
		}), target: "http://h%E2%80%AEx/api/e", status: 400,
			rej: onRoute(withClass(rej("forbidden_char", "header", "Host", 1), "bidi_control"), "/api/e")},
		{name: "listed trailer, bodies not read", table: with(func(p *rules.Policy) {
			p.Body.On, p.JSON.On, p.Form.On, p.Multipart.On, p.XML.On, p.RefuseUnlistedTypes = false, false, false, false, false, false
		}), method: "POST", target: "/api/e", ct: "text/plain", body: "hello", trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status: 400, rej: rej("forbidden_trailer", "header", "Trailer:X-Name", 0)},

		// Canonical forms.
		{name: "NFC path, parameter and query", table: with(nfc), target: "/api/t/e%CC%81?q=e%CC%81&" + decomposed + "=k",
			status: 200, reads: &Reads{Path: "/api/t/" + composed, Params: id(composed), Query: q("q", composed, composed, "k")}},
		{name: "NFC two parameters from RawPath", table: with(nfc), target: "/api/u/e%cc%81/p/x%CC%81",
			status: 200, reads: &Reads{Path: "/api/u/" + composed + "/p/x\u0301", Params: map[string]string{"id": composed, "post": "x\u0301"}}},
		{name: "NFC wildcard", table: with(nfc), target: "/api/f/a/e%CC%81",
			status: 200, reads: &Reads{Path: "/api/f/a/" + composed, Params: star("a/" + composed)}},
		{name: "NFC form", table: with(nfc), method: "POST", target: "/api/e", ct: "application/x-www-form-urlencoded",
			body:   "f=" + decomposed + "&g=e%CC%81",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: "f=%C3%A9&g=%C3%A9", Form: q("f", composed, "g", composed)}},
		{name: "NFC JSON", table: with(nfc), method: "POST", target: "/api/e", ct: "application/json",
			body:   `{"raw":"` + decomposed + `","esc":"e\u0301"}`,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: `{"raw":"` + composed + `","esc":"` + composed + `"}`}},
		{name: "NFC text", table: with(nfc), method: "POST", target: "/api/e", ct: "text/plain", body: "caf" + decomposed,
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: "caf" + composed}},
		{name: "NFC multipart", table: with(nfc), method: "POST", target: "/api/e", ct: ctMP, body: mpBody("m", decomposed),
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Form: q("m", composed)}},
		{name: "not normalized", table: with(func(p *rules.Policy) { nfc(p); p.RejectUnnormalized = true }),
			target: "/api/e?q=e%CC%81", status: 400, rej: rej("not_normalized", "query", "q", 0)},
		{name: "canonical form adds syntax", table: with(nfkc), target: "/api/f/%EF%BC%8E%EF%BC%8E%EF%BC%8Fetc",
			status: 400, rej: rej("canonical_syntax", "path", "", 7)},
		{name: "keys that become one", table: with(nfc), target: "/api/e?%C3%A9=safe&e%CC%81=evil",
			status: 400, rej: rej("key_collision", "query", "e%CC%81", 0)},
		{name: "PRECIS query value", table: precisQuery, target: "/api/e?user=mike+smith", status: 400, rej: rej("precis", "query", "user", 4)},
		{name: "PRECIS query enforced", table: precisQuery, target: "/api/e?user=MIKE",
			status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: q("user", "mike")}},
		{name: "PRECIS parameter enforced", table: precisPath, target: "/api/t/MIKE",
			status: 200, reads: &Reads{Path: "/api/t/MIKE", Params: id("mike")},
			diffs: []diff{{when: ParamsCutAfter, reads: &Reads{Path: "/api/t/MIKE", Params: id("MIKE")}}}},

		// Under e.Pre a rewrite can move the request to another route.
		{name: "NFC moves the request to a route that refuses", needsAlso: Reroute, table: moveTable, target: "/api/cafe%CC%81?q=a%E2%80%8Bb",
			status: 400, rej: &rejection{reason: "forbidden_char", location: "query", field: "q", offset: 1, class: "default_ignorable", route: `/api/caf\xc3\xa9`, sample: `a\xe2\x80\x8bb`}},
		{name: "NFC moves the request to a route that accepts", needsAlso: Reroute, table: moveTable, target: "/api/cafe%CC%81?q=ab",
			status: 200, reads: &Reads{Path: "/api/café", Params: none, Query: q("q", "ab")}},
		{name: "a second move is refused", needsAlso: Reroute, table: moveTable, target: "/api/\ufb01e%CC%81",
			// Logged under the route whose policy moved it again.
			status: 400, rej: &rejection{reason: "canonical_syntax", location: "path", route: `/api/\xef\xac\x81\xc3\xa9`, sample: `/api/fi\xc3`}},

		// Monitor mode: passed on unchanged, one flagged line.
		{name: "monitor query NUL", table: with(monitor), target: "/api/e?q=a%00b",
			status: 200, rej: withClass(flagged(rej("forbidden_char", "query", "q", 1)), "nul"),
			reads: &Reads{Path: "/api/e", Params: none, Query: q("q", "a\x00b")}},
		{name: "monitor path overlong", table: with(monitor), target: "/api/f/%C0%AE",
			status: 200, rej: flagged(rej("overlong", "path", "", 7)),
			reads: &Reads{Path: "/api/f/\xc0\xae", Params: star("\xc0\xae")}},
		{name: "monitor lower-case escapes", table: with(monitor), target: "/api/t/%c3%a9",
			status: 200, reads: &Reads{Path: "/api/t/" + composed, Params: id(composed)},
			diffs: []diff{{when: RawParams, reads: &Reads{Path: "/api/t/" + composed, Params: id("%c3%a9")}}}},
		{name: "monitor JSON", table: with(monitor), method: "POST", target: "/api/e", ct: "application/json", body: `{"a":"\ud800"}`,
			status: 200, rej: flagged(rej("surrogate", "json", "/a", 6)),
			reads: &Reads{Path: "/api/e", Params: none, Body: `{"a":"\ud800"}`}},
		{name: "monitor NFC rewrites nothing", table: with(func(p *rules.Policy) { nfc(p); monitor(p) }), target: "/api/t/e%CC%81?q=e%CC%81",
			status: 200, reads: &Reads{Path: "/api/t/" + decomposed, Params: id(decomposed), Query: q("q", decomposed)}},
		{name: "monitor body over the limit", table: with(monitor), method: "POST", target: "/api/e", ct: "text/plain", body: strings.Repeat("x", 1025),
			status: 200, rej: withLimit(flagged(rej("too_large", "body", "", 0)), 1024),
			reads: &Reads{Path: "/api/e", Params: none, Body: strings.Repeat("x", 1025)}},
		{name: "monitor unreadable body", table: with(monitor), method: "POST", target: "/api/e", ct: "text/plain", body: "abc", bodyErr: true,
			status: 200, rej: &rejection{reason: "body_unreadable", location: "body", mode: "monitor"},
			reads: &Reads{Path: "/api/e", Params: none, Body: "abc", BodyErr: errBroken.Error()}},

		// The log's identity fields.
		{name: "request id chosen by the server", noRequestID: true, target: "/api/e?q=%00",
			status: 400, rej: withClass(rej("forbidden_char", "query", "q", 0), "nul"),
			diffs: []diff{{when: OwnRequestID, log: map[string]any{"request_id": anyValue}}}},
		{name: "forwarded address", target: "/api/e?q=%00", header: []string{"X-Forwarded-For: 203.0.113.9"},
			status: 400, rej: withClass(rej("forbidden_char", "query", "q", 0), "nul"),
			diffs: []diff{{when: ForwardedFor, log: map[string]any{"remote_ip": "203.0.113.9"}}}},

		// A form parsed before utf8guard ran (parsedFirst: as a session or
		// CSRF middleware mounted before it would): the server's mistake,
		// 500 and an error-level line; Monitor logs it and passes on.
		{name: "form parsed before the check", parsedFirst: true, method: "POST", target: "/api/e",
			ct: "application/x-www-form-urlencoded", body: "x=%ff",
			status: 500, rej: rej("parsed_before_check", "form", "", 0)},
		{name: "query parsed before the check", parsedFirst: true, target: "/api/e?q=ok",
			status: 500, rej: rej("parsed_before_check", "query", "", 0)},
		{name: "monitor query parsed before the check", parsedFirst: true, table: with(monitor), target: "/api/e?q=ok",
			status: 200, rej: flagged(rej("parsed_before_check", "query", "", 0)),
			reads: &Reads{Path: "/api/e", Params: none, Query: q("q", "ok")}},
	}
}
