package adaptertest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"io"
	"net/url"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// Content codings through the adapters: decoded, checked, handed on decoded
// with their length; the decoded text is the one checked.

// gzipOf is s compressed as one gzip member.
func gzipOf(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// zlibOf is s in the zlib format (RFC 1950), HTTP's "deflate".
func zlibOf(s string) string {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// rawDeflateOf is s as a raw DEFLATE stream (RFC 1951), which some clients
// send as "deflate".
func rawDeflateOf(s string) string {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// badCRC is a gzip member of s whose CRC-32 is wrong.
func badCRC(s string) string {
	g := []byte(gzipOf(s))
	crc := binary.LittleEndian.Uint32(g[len(g)-8:])
	binary.LittleEndian.PutUint32(g[len(g)-8:], crc^1)
	return string(g)
}

func encodingRows() []row {
	rej := func(reason, location, field string, offset int) *rejection {
		return &rejection{reason: reason, location: location, field: field, offset: offset}
	}
	none := map[string]string{}
	reads := func(body string) *Reads { return &Reads{Path: "/api/e", Params: none, Body: body} }
	form := func(body string, kv ...string) *Reads {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return &Reads{Path: "/api/e", Params: none, Body: body, Form: v}
	}
	unreadable := func(loc, cause string) *rejection {
		return &rejection{reason: "body_unreadable", location: loc, field: "Content-Encoding", err: cause}
	}
	unsupported := func(loc string, offset int, sample string) *rejection {
		return &rejection{reason: "unsupported_encoding", location: loc, field: "Content-Encoding", offset: offset, sample: sample}
	}
	withLimit := func(r *rejection, limit int64) *rejection { r.limit = limit; return r }
	flagged := func(r *rejection) *rejection { r.mode = "monitor"; return r }
	const (
		ctJSON = "application/json"
		ctForm = "application/x-www-form-urlencoded"
		doc    = `{"name":"Zo` + composed + `","tags":["a","b"]}`
		fbody  = "name=Zo%C3%AB&x=1"
	)
	gz := []string{"Content-Encoding: gzip"}
	post := func(c row) row {
		c.method, c.target = "POST", "/api/e"
		if c.header == nil {
			c.header = gz
		}
		return c
	}
	mp := mpBody("name", "Zo\u00eb", "emoji", "\U0001F600")
	binary := with(func(p *rules.Policy) { p.BinaryTypes = []string{"application/octet-stream"} })
	jsonOff := with(func(p *rules.Policy) { p.JSON.On = false })
	charsets := with(func(p *rules.Policy) { p.RefuseCharsets = false })
	long := strings.Repeat("x", 1025)

	return []row{
		// Decoded, checked, handed on decoded with its length.
		post(row{name: "gzip JSON", ct: ctJSON, body: gzipOf(doc), status: 200, reads: reads(doc)}),
		post(row{name: "gzip JSON, chunked", ct: ctJSON, body: gzipOf(doc), trailer: []string{}, status: 200, reads: reads(doc)}),
		post(row{name: "x-gzip form", ct: ctForm, body: gzipOf(fbody), header: []string{"Content-Encoding: x-gzip"},
			status: 200, reads: form(fbody, "name", "Zo\u00eb", "x", "1")}),
		post(row{name: "gzip multipart", ct: ctMP, body: gzipOf(mp),
			status: 200, reads: form(mp, "name", "Zo\u00eb", "emoji", "\U0001F600")}),
		post(row{name: "gzip text", ct: "text/plain; charset=utf-8", body: gzipOf("line\r\n\tZo" + composed),
			status: 200, reads: reads("line\r\n\tZo" + composed)}),
		post(row{name: "deflate as zlib", ct: ctJSON, body: zlibOf(doc), header: []string{"Content-Encoding: deflate"},
			status: 200, reads: reads(doc)}),
		post(row{name: "deflate as raw DEFLATE", ct: ctJSON, body: rawDeflateOf(doc), header: []string{"Content-Encoding: deflate"},
			status: 200, reads: reads(doc)}),
		post(row{name: "names in any case, spaces and empty elements", ct: ctJSON, body: gzipOf(doc),
			header: []string{"Content-Encoding: , \tGZip ,identity"}, status: 200, reads: reads(doc)}),
		post(row{name: "identity alone", ct: ctJSON, body: doc, header: []string{"Content-Encoding: identity"},
			status: 200, reads: reads(doc)}),
		post(row{name: "two gzip members", ct: ctJSON, body: gzipOf(`{"a":`) + gzipOf(`"b"}`), status: 200, reads: reads(`{"a":"b"}`)}),
		post(row{name: "empty body", ct: ctJSON, status: 200, reads: reads("")}),
		post(row{name: "NFC on the decoded text", table: with(nfc), ct: ctJSON, body: gzipOf(`{"k":"` + decomposed + `"}`),
			status: 200, reads: reads(`{"k":"` + composed + `"}`)}),

		// The decoded text is the one checked; offsets are in it.
		post(row{name: "gzip JSON lone surrogate", ct: ctJSON, body: gzipOf(`{"a":["\ud800"]}`),
			status: 400, rej: rej("surrogate", "json", "/a/0", 7)}),
		post(row{name: "gzip form invalid octet", ct: ctForm, body: gzipOf("ok=1&q=%FF"),
			status: 400, rej: rej("invalid_byte", "form", "q", 0)}),
		post(row{name: "deflate text NUL", ct: "text/plain", body: zlibOf("a\x00b"), header: []string{"Content-Encoding: deflate"},
			status: 400, rej: &rejection{reason: "forbidden_char", location: "body", offset: 1, class: "nul"}}),
		post(row{name: "gzip multipart stray continuation", ct: ctMP, body: gzipOf(mpBody("ok", "1", "q", "\x80")),
			status: 400, rej: rej("unexpected_continuation", "multipart", "q", 0)}),

		// The limit holds for the decoded octets.
		post(row{name: "decoded over the limit", ct: "text/plain", body: gzipOf(long),
			status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)}),
		post(row{name: "decoded over the limit, chunked", ct: ctJSON, body: gzipOf(`"` + long + `"`), trailer: []string{},
			status: 413, rej: withLimit(rej("too_large", "json", "", 0), 1024)}),

		// Streams that do not decode.
		post(row{name: "gzip checksum", ct: ctJSON, body: badCRC(doc), status: 400, rej: unreadable("json", "gzip: invalid checksum")}),
		post(row{name: "gzip truncated", ct: ctJSON, body: gzipOf(doc)[:20], status: 400, rej: unreadable("json", "gzip: unexpected EOF")}),
		post(row{name: "gzip followed by garbage", ct: ctJSON, body: gzipOf(doc) + strings.Repeat("x", 12), status: 400, rej: unreadable("json", "gzip: invalid header")}),
		post(row{name: "gzip followed by zeros", ct: ctJSON, body: gzipOf(doc) + "\x00\x00\x00\x00", status: 400, rej: unreadable("json", "gzip: unexpected EOF")}),
		post(row{name: "not gzip at all", ct: ctJSON, body: doc, status: 400, rej: unreadable("json", "gzip: invalid header")}),
		post(row{name: "zlib followed by more", ct: ctJSON, body: zlibOf(doc) + "{}", header: []string{"Content-Encoding: deflate"},
			status: 400, rej: unreadable("json", "deflate: octets after the end of the stream")}),
		post(row{name: "raw DEFLATE corrupt", ct: ctJSON, body: "\xff\xff\xff", header: []string{"Content-Encoding: deflate"},
			status: 400, rej: unreadable("json", "deflate: corrupt input before offset 1")}),

		// Codings it does not decode.
		post(row{name: "br", ct: ctJSON, body: "\x1b\x00", header: []string{"Content-Encoding: br"},
			status: 415, rej: unsupported("json", 0, "br")}),
		post(row{name: "zstd", ct: ctForm, body: "\x28\xb5\x2f\xfd", header: []string{"Content-Encoding: zstd"},
			status: 415, rej: unsupported("form", 0, "zstd")}),
		post(row{name: "compress", ct: "text/plain", body: "\x1f\x9d", header: []string{"Content-Encoding: compress"},
			status: 415, rej: unsupported("body", 0, "compress")}),
		post(row{name: "unknown, with a parameter", ct: ctJSON, body: gzipOf(doc), header: []string{"Content-Encoding: gzip;q=1"},
			status: 415, rej: unsupported("json", 0, "gzip;q=1")}),
		post(row{name: "two codings", ct: ctJSON, body: gzipOf(gzipOf(doc)), header: []string{"Content-Encoding: gzip, gzip"},
			status: 415, rej: unsupported("json", 6, "gzip, gzip")}),
		post(row{name: "two Content-Encoding lines", ct: ctJSON, body: gzipOf(gzipOf(doc)),
			header: []string{"Content-Encoding: gzip", "Content-Encoding: deflate"}, status: 415, rej: unsupported("json", 6, "gzip, deflate")}),

		// What is not checked as text is not decoded.
		post(row{name: "binary body passed as it came", table: binary, ct: "application/octet-stream", body: gzipOf("\x00\x01"),
			status: 200, reads: reads(gzipOf("\x00\x01"))}),
		post(row{name: "br on a binary body", table: binary, ct: "application/octet-stream", body: "\x1b\x00",
			header: []string{"Content-Encoding: br"}, status: 200, reads: reads("\x1b\x00")}),
		post(row{name: "JSON unchecked", table: jsonOff, ct: ctJSON, body: gzipOf(`{"a":"\ud800"}`),
			status: 200, reads: reads(gzipOf(`{"a":"\ud800"}`))}),

		// Monitor: passed on as it came, coded; the decoded text flagged.
		post(row{name: "monitor gzip JSON", table: with(monitor), ct: ctJSON, body: gzipOf(doc), status: 200, reads: reads(gzipOf(doc))}),
		post(row{name: "monitor gzip lone surrogate", table: with(monitor), ct: ctJSON, body: gzipOf(`{"a":"\ud800"}`),
			status: 200, rej: flagged(rej("surrogate", "json", "/a", 6)), reads: reads(gzipOf(`{"a":"\ud800"}`))}),
		post(row{name: "monitor decoded over the limit", table: with(monitor), ct: "text/plain", body: gzipOf(long),
			status: 200, rej: flagged(withLimit(rej("too_large", "body", "", 0), 1024)), reads: reads(gzipOf(long))}),
		post(row{name: "monitor corrupt gzip", table: with(monitor), ct: ctJSON, body: badCRC(doc),
			status: 200, rej: flagged(unreadable("json", "gzip: invalid checksum")), reads: reads(badCRC(doc))}),
		post(row{name: "monitor br", table: with(monitor), ct: ctJSON, body: "\x1b\x00", header: []string{"Content-Encoding: br"},
			status: 200, rej: flagged(unsupported("json", 0, "br")), reads: reads("\x1b\x00")}),

		// A text body the route does not check, chunked, is read through
		// the limit: over it, refused and logged, never cut off.
		{name: "unchecked charset, chunked, over the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: long, trailer: []string{},
			status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)},
		{name: "unchecked charset, chunked, within the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: "\xc1\xc2", trailer: []string{}, status: 200, reads: reads("\xc1\xc2")},
		{name: "unchecked charset, declared over the limit", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: long, status: 413, rej: withLimit(rej("too_large", "body", "", 0), 1024)},
		{name: "JSON off, chunked, over the limit", table: jsonOff, method: "POST", target: "/api/e",
			ct: ctJSON, body: `"` + long + `"`, trailer: []string{}, status: 413, rej: withLimit(rej("too_large", "json", "", 0), 1024)},
		{name: "JSON off, chunked, within the limit", table: jsonOff, method: "POST", target: "/api/e",
			ct: ctJSON, body: `{"a":"\ud800"}`, trailer: []string{}, status: 200, reads: reads(`{"a":"\ud800"}`)},
		{name: "chunked trailer of an unchecked text body", table: charsets, method: "POST", target: "/api/e",
			ct: "text/plain; charset=koi8-r", body: "\xc1", trailer: []string{"X-Name: a\xe2\x80\xaeb"},
			status: 400, rej: &rejection{reason: "forbidden_char", location: "header", field: "Trailer:X-Name", offset: 1, class: "bidi_control"}},
	}
}
