package middleware

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestOracleMechanisms is the named regression test of every mechanism of
// the mechanisms below: several variants each, on every
// mount (e.Use, a group, the route, e.Pre, the net/http adapter), each
// served to the oracle (oracle_test.go). A variant is rejected with its
// status and reason, or accepted with nothing for the oracle to find;
// orcSafe, where the reason is a judgement call, takes either a refusal or
// a clean acceptance. Whatever the want, an accepted request in which the
// oracle finds a value the policy refuses fails. Each variant is sent over
// HTTP/2 too (h2c and h2, oracle_wire_test.go), where it can be.
func TestOracleMechanisms(t *testing.T) {
	t.Parallel()
	for _, g := range orcMechanisms() {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.cases {
				t.Run(tc.name, func(t *testing.T) {
					mounts := tc.mounts
					if mounts == nil {
						mounts = orcAllMounts
					}
					for _, m := range mounts {
						t.Run(m.String(), func(t *testing.T) {
							res, ok := orcServe(t, m, tc.req.wire())
							if !ok {
								t.Fatalf("net/http does not parse the request %q", tc.req.wire())
							}
							tc.want.check(t, res)
						})
					}
					orcOverWires(t, tc.req.wire(), mounts, tc.want.check)
				})
			}
		})
	}
}

type orcCase struct {
	name   string
	req    orcReq
	want   orcWant
	mounts []mount // nil: all
}

type orcCases struct {
	name  string
	cases []orcCase
}

func orcGet(target string) orcReq { return orcReq{method: http.MethodGet, target: target} }

func orcPost(target, ctype, body string) orcReq {
	return orcReq{method: http.MethodPost, target: target, ctype: ctype, body: body}
}

// with sets header lines (and, after an empty line, trailers).
func (q orcReq) with(hdrs string) orcReq { q.hdrs = hdrs; return q }

func (q orcReq) chunk() orcReq { q.chunked = true; return q }

// orcPct percent-encodes every octet outside printable ASCII, and '%',
// '?' and '#', in upper-case hex, as a browser writes a path.
func orcPct(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7F || strings.IndexByte("%?#", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// orcMP is a multipart body: each part ("headers\r\n\r\ncontent") between
// CRLF delimiters of boundary b.
func orcMP(b string, parts ...string) string {
	var s strings.Builder
	for _, p := range parts {
		s.WriteString("--" + b + "\r\n" + p + "\r\n")
	}
	return s.String() + "--" + b + "--\r\n"
}

// orcFD is a form-data field part, with further part headers.
func orcFD(name, content string, hdrs ...string) string {
	h := `Content-Disposition: form-data; name="` + name + `"`
	for _, x := range hdrs {
		h += "\r\n" + x
	}
	return h + "\r\n\r\n" + content
}

const (
	orcQP   = "Content-Transfer-Encoding: quoted-printable"
	orcMPBB = "multipart/form-data; boundary=BB"
	// orcSmuggle decodes (quoted-printable) to a delimiter of boundary BB
	// and a part "evil" that is quoted-printable again, whose contents
	// decode a second time to RLO, an overlong '/' and NUL.
	orcSmuggle = "x=0D=0A--BB=0D=0AContent-Disposition: form-data; name=3D\"evil\"=0D=0A" + orcQP +
		"=0D=0A=0D=0A=3DE2=3D80=3DAE=3DC0=3DAF=3D00"
	// orcEvilPart is a part header block announcing "evil", quoted-printable.
	orcEvilPart = "\r\nContent-Disposition: form-data; name=\"evil\"\r\n" + orcQP + "\r\n\r\n=E2=80=AE=C0=AF=00"
)

var (
	orcJSONBidi = `{"a":"\u202e"}`
	// orcNotPre: every mount but the two that run before routing, e.Pre
	// and the net/http adapter around the ServeMux.
	orcNotPre = []mount{mountGlobal, mountGroup, mountRoute, mountHandler}
)

func orcMechanisms() []orcCases {
	nfc, nfkc, strict := "/t/nfc/x", "/t/nfkc/x", "/t/strict/x"
	tight := "/t/tight/x"
	fdfa := strings.Repeat("\uFDFA", 32000) // NFKC: 96,000 octets become 1,056,000; 33 each
	manyForm := strings.TrimSuffix(strings.Repeat("f="+orcPct(fdfa[:90])+"&", 10), "&")
	rej := func(reasons ...string) orcWant { return orcRej(400, reasons...) }
	cs, fc, ff := "canonical_syntax", "forbidden_char", "too_large"
	return []orcCases{
		{"multipart-rebuild", []orcCase{
			{"qp-crlf-boundary-nfc", orcPost(nfc, orcMPBB, orcMP("BB", orcFD("x", orcSmuggle, orcQP), orcFD("n", "e\u0301"))), orcSafe, nil},
			{"qp-crlf-boundary-nfkc", orcPost(nfkc, orcMPBB, orcMP("BB", orcFD("x", orcSmuggle, orcQP), orcFD("n", "\uFB01"))), orcSafe, nil},
			{"varia-becomes-backquote-boundary", orcPost(nfc, "multipart/form-data; boundary=`X",
				orcMP("`X", orcFD("x", "a\r\n--\u1FEFX"+orcEvilPart))), orcSafe, nil},
			{"fullwidth-hyphens-nfkc", orcPost(nfkc, orcMPBB, orcMP("BB", orcFD("x", "a\r\n\uFF0D\uFF0DBB"+orcEvilPart))), orcSafe, nil},
			{"small-hyphens-fullwidth-boundary-nfkc", orcPost(nfkc, orcMPBB,
				orcMP("BB", orcFD("x", "a\r\n\uFE63\uFE63\uFF22\uFF22"+orcEvilPart))), orcSafe, nil},
			{"qp-soft-line-break-joins-boundary", orcPost(nfc, orcMPBB, orcMP("BB",
				orcFD("x", "x=0D=0A--B=\r\nB=0D=0AContent-Disposition: form-data; name=3D\"evil\"=0D=0A"+orcQP+"=0D=0A=0D=0A=3DE2=3D80=3DAE", orcQP),
				orcFD("n", "e\u0301"))), orcSafe, nil},
			{"closing-delimiter-drops-parts", orcPost(nfc, orcMPBB, orcMP("BB",
				orcFD("x", "a=0D=0A--BB--=0D=0A", orcQP), orcFD("n", "e\u0301"), orcFD("keep", "kept"))), orcSafe, nil},
			{"file-part-qp-smuggle", orcPost(nfc, orcMPBB, orcMP("BB",
				"Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n"+orcQP+"\r\n\r\n"+orcSmuggle,
				orcFD("n", "e\u0301"))), orcSafe, nil},
			{"mixed-qp-smuggle", orcPost(nfc, "multipart/mixed; boundary=BB", orcMP("BB", orcFD("x", orcSmuggle, orcQP), orcFD("n", "e\u0301"))), orcSafe, nil},
			{"lf-framing-qp-smuggle", orcPost(nfc, orcMPBB, "--BB\nContent-Disposition: form-data; name=\"x\"\n"+orcQP+"\n\n"+
				"x=0A--BB=0AContent-Disposition: form-data; name=3D\"evil\"=0A"+orcQP+"=0A=0A=3DE2=3D80=3DAE\n"+
				"--BB\nContent-Disposition: form-data; name=\"n\"\n\ne\u0301\n--BB--\n"), orcSafe, nil},
			{"decomposed-file-name-forces-rebuild", orcPost(nfc, orcMPBB, orcMP("BB", orcFD("x", orcSmuggle, orcQP),
				"Content-Disposition: form-data; name=\"f\"; filename=\"e\u0301.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\xff")), orcSafe, nil},
			{"quoted-boundary-holding-a-quote", orcPost(nfc, `multipart/form-data; boundary="b\"q"`, orcMP("b\"q",
				orcFD("x", "caf=C3=A9=0D=0A--b\"q=0D=0AContent-Disposition: form-data; name=3D\"evil\"=0D=0A"+orcQP+"=0D=0A=0D=0A=3DE2=3D80=3DAE", orcQP),
				orcFD("e\u0301", "v"), orcFD("keep", "kept"))), orcSafe, nil},
			{"strict-route-no-rebuild", orcPost(strict, orcMPBB, orcMP("BB", orcFD("x", orcSmuggle, orcQP), orcFD("n", "e\u0301"))), orcSafe, nil},
		}},
		{"canonical-syntax", []orcCase{
			{"fullwidth-percent-2e2e-path", orcGet("/t/nfkc/" + orcPct("％２ｅ％２ｅ")), rej(cs, "double_encoding"), nil},
			{"fullwidth-percent-param", orcGet("/t/nfkc/p/" + orcPct("％２ｅ")), rej(cs, "double_encoding"), nil},
			{"small-percent-fe6a-param", orcGet("/t/nfkc/p/" + orcPct("a\uFE6A41")), rej(cs, "double_encoding"), nil},
			{"fullwidth-percent-alone", orcGet("/t/nfkc/p/" + orcPct("100％")), rej(cs), nil},
			{"escape-completed-by-nfkc", orcGet("/t/nfkc/p/%25" + orcPct("４１")), rej(cs, "double_encoding"), nil},
			{"fullwidth-dots-and-solidus-param", orcGet("/t/nfkc/p/" + orcPct("．．／．．／etc")), rej(cs), nil},
			{"fullwidth-dots-segment", orcGet("/t/nfkc/" + orcPct("．．") + "/x"), rej(cs), nil},
			{"one-dot-leaders-2024", orcGet("/t/nfkc/p/" + orcPct("\u2024\u2024")), rej(cs), nil},
			{"two-dot-leader-2025", orcGet("/t/nfkc/p/" + orcPct("\u2025")), rej(cs), nil},
			{"fullwidth-solidus", orcGet("/t/nfkc/p/" + orcPct("a／b")), rej(cs), nil},
			{"fullwidth-reverse-solidus", orcGet("/t/nfkc/p/" + orcPct("a＼b")), rej(cs), nil},
			{"greek-question-mark-nfc-path", orcGet("/t/nfc/..%CD%BE/x"), rej(cs), nil},
			{"greek-question-mark-nfc-param", orcGet("/t/nfc/p/a%CD%BEb"), rej(cs), nil},
			{"greek-question-mark-nfkc-param", orcGet("/t/nfkc/p/a%CD%BEb"), rej(cs), nil},
			{"fullwidth-question-mark", orcGet("/t/nfkc/p/" + orcPct("a？b")), rej(cs), nil},
			{"fullwidth-number-sign", orcGet("/t/nfkc/p/" + orcPct("a＃b")), rej(cs), nil},
			{"vertical-question-mark-fe16", orcGet("/t/nfkc/p/" + orcPct("a\uFE16b")), rej(cs), nil},
			{"small-number-sign-fe5f", orcGet("/t/nfkc/p/" + orcPct("a\uFE5Fb")), rej(cs), nil},
			{"small-semicolon-fe54", orcGet("/t/nfkc/p/" + orcPct("a\uFE54b")), rej(cs), nil},
			{"fullwidth-semicolon", orcGet("/t/nfkc/" + orcPct("a；b")), rej(cs), nil},
			// PRECIS width-maps: under e.Pre the enforced form never
			// reaches the handler (documented), elsewhere it must not move
			// a segment boundary.
			{"precis-fullwidth-solidus", orcGet("/t/precis/" + orcPct("ａ／ｂ")), rej(cs), orcNotPre},
			{"precis-fullwidth-solidus-pre", orcGet("/t/precis/" + orcPct("ａ／ｂ")), orcSafe, []mount{mountPre}},
			{"precis-fullwidth-percent", orcGet("/t/precis/" + orcPct("ａ％４１")), rej(cs, "double_encoding"), orcNotPre},
			{"nfkc-query-value-fullwidth-percent", orcGet("/t/nfkc/x?q=" + orcPct("％２５")), orcSafe, nil},
			{"strict-keeps-fullwidth", orcGet("/t/strict/p/" + orcPct("．．／％２ｅ＼")), orcOK, nil},
			{"nfc-keeps-fullwidth", orcGet("/t/nfc/p/" + orcPct("．．／％２ｅ")), orcOK, nil},
		}},
		// The issue's own example at the default 1 MiB; the rest on the
		// tight route (8 KiB bodies, 1 KiB fields and path), which costs
		// the same mechanism a fraction of the time.
		{"limits-after-expansion", []orcCase{
			{"nfkc-text-body-default-limit", orcPost(nfkc, "text/plain; charset=utf-8", fdfa), orcRej(413, ff), nil},
			{"text-body", orcPost(tight, "text/plain", fdfa[:3000]), orcRej(413, ff), nil},
			{"json-body", orcPost(tight, "application/json", `{"a":"`+fdfa[:1500]+`"}`), orcRej(413, ff), nil},
			{"form-body-of-small-fields", orcPost(tight, "application/x-www-form-urlencoded", manyForm), orcRej(413, ff), nil},
			{"multipart-text-file", orcPost(tight, orcMPBB, orcMP("BB",
				"Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\n"+fdfa[:3000])), orcRej(413, ff), nil},
			{"xml-body-by-reference", orcPost(tight, "application/xml", "<a>"+strings.Repeat("&#xFDFA;", 300)+"</a>"), orcSafe, nil},
			{"text-body-fb2c", orcPost(tight, "text/plain", strings.Repeat("\uFB2C", 2000)), orcRej(413, ff), nil},
			{"query-field", orcGet(tight + "?q=" + orcPct(fdfa[:120])), rej(ff), nil},
			{"form-field", orcPost(tight, "application/x-www-form-urlencoded", "q="+orcPct(fdfa[:120])), rej(ff), nil},
			{"multipart-field", orcPost(tight, orcMPBB, orcMP("BB", orcFD("q", fdfa[:120]))), rej(ff), nil},
			{"path", orcGet("/t/tight/" + orcPct(fdfa[:120])), rej(ff), nil},
			{"path-parameter", orcGet("/t/tight/p/" + orcPct(fdfa[:120])), rej(ff), nil},
			{"path-escaped-length", orcGet("/t/tight/" + orcPct(fdfa[:36])), rej(ff), nil},
			{"under-the-limits", orcPost(tight, "text/plain", fdfa[:300]), orcOK, nil},
			{"nfkc-under-the-default-limit", orcPost(nfkc, "text/plain", fdfa[:3000]), orcOK, nil},
		}},
		{"content-type-parameters", []orcCase{
			{"charset-star-utf16", orcPost(strict, `application/json; charset*=utf-8''utf-16`, `{"a":". "}`), rej("bad_charset"), nil},
			{"quoted-parameter-hides-charset", orcPost(strict, `text/plain; charset=utf-16; x="a;charset=utf-8"`, ". "), rej("bad_charset"), nil},
			{"charset-star-utf7", orcPost(strict, `application/json; charset*=utf-8''utf-7`, `{"a":"+ICo-"}`), rej("bad_charset"), nil},
			{"charset-continuation", orcPost(strict, `application/json; charset*0=utf; charset*1=-16`, `{"a":". "}`), rej("bad_charset"), nil},
			{"charset-then-charset-star", orcPost(strict, `application/json; charset=utf-8; charset*=utf-8''utf-16`, `{"a":". "}`), rej("bad_charset"), nil},
			{"charset-star-then-charset", orcPost(strict, `application/json; charset*=utf-8''utf-16; charset=utf-8`, `{"a":". "}`), rej("bad_charset"), nil},
			{"upper-case-utf16", orcPost(strict, `APPLICATION/JSON; CHARSET=UTF-16`, `{"a":". "}`), rej("bad_charset"), nil},
			{"form-charset-star", orcPost(strict, `application/x-www-form-urlencoded; charset*=utf-8''utf-16`, "a=b"), rej("bad_charset"), nil},
			{"xml-charset-star", orcPost(strict, `application/xml; charset*=utf-8''utf-16`, "<a/>"), rej("bad_charset"), nil},
			{"multipart-charset-star", orcPost(strict, orcMPBB+`; charset*=utf-8''utf-16`, orcMP("BB", orcFD("a", "b"))), rej("bad_charset"), nil},
			{"duplicate-charset", orcPost(strict, `application/json; charset=utf-8; charset=utf-16`, `{"a":1}`), orcRej(-1, "bad_media_type", "bad_charset"), nil},
			// mime.ParseMediaType accepts a parameter given twice with
			// one value, and so reads it as every handler does.
			{"duplicate-utf8-charset", orcPost(strict, `application/json; charset=utf-8; charset=utf-8`, `{"a":1}`), orcSafe, nil},
			{"duplicate-charsets-differ", orcPost(strict, `application/json; charset=utf-8; charset=UTF-8`, `{"a":1}`), orcRej(-1, "bad_media_type"), nil},
			{"parameter-without-value", orcPost(strict, `application/json; charset`, `{"a":1}`), orcRej(-1, "bad_media_type"), nil},
			{"unterminated-quote", orcPost(strict, `application/json; x="a`, `{"a":1}`), orcRej(-1, "bad_media_type"), nil},
			{"empty-parameter", orcPost(strict, `application/json;;charset=utf-16`, `{"a":1}`), orcRej(-1, "bad_media_type", "bad_charset"), nil},
			{"media-type-list", orcPost(strict, `application/json, text/plain`, `{"a":1}`), orcRej(-1, "bad_media_type"), nil},
			{"default-route-unparsable", orcPost("/t/default/x", `application/json; charset=utf-8; charset=utf-16`, `{"a":1}`), orcRej(-1, "bad_media_type"), nil},
			{"no-space-upper-utf8", orcPost(strict, `application/json;charset=UTF-8`, `{"a":"Grüße"}`), orcOK, nil},
			{"quoted-utf8", orcPost(strict, `application/json; charset="utf-8"`, `{"a":"é"}`), orcOK, nil},
			{"charset-star-utf8", orcPost(strict, `application/json; charset*=utf-8''utf-8`, `{"a":"é"}`), orcOK, nil},
			{"us-ascii-trailing-semicolon", orcPost(strict, `text/plain; charset=us-ascii ; `, "plain"), orcOK, nil},
		}},
		{"unknown-media-types", []orcCase{
			// Echo's binder decodes application/jsonx (a prefix match) as
			// JSON: refused unread, or checked as the JSON it is to the
			// binder; either way nothing unchecked reaches the handler.
			{"jsonx-lone-surrogate", orcPost(strict, "application/jsonx", `{"a":"\ud800\u202e"}`), orcRej(-1, "unsupported_media_type", "surrogate"), nil},
			{"octet-stream-json", orcPost(strict, "application/octet-stream", orcJSONBidi), orcRej(415, "unsupported_media_type"), nil},
			{"no-content-type-json", orcPost(strict, "", orcJSONBidi), orcRej(415, "unsupported_media_type"), nil},
			{"no-content-type-chunked", orcPost(strict, "", orcJSONBidi).chunk(), orcRej(415, "unsupported_media_type"), nil},
			{"empty-content-type", orcPost(strict, "", orcJSONBidi).with("Content-Type: "), orcRej(-1, "unsupported_media_type", "bad_media_type"), nil},
			{"x-json", orcPost(strict, "application/x-json", orcJSONBidi), orcRej(415, "unsupported_media_type"), nil},
			{"json-seq", orcPost(strict, "application/json-seq", orcJSONBidi), orcRej(-1, "unsupported_media_type", "forbidden_char"), nil},
			{"image-png", orcPost(strict, "image/png", "\x89PNG\r\n\x1a\n\x00"), orcRej(415, "unsupported_media_type"), nil},
			// Every multipart/* type is checked as multipart (a handler's
			// own multipart.Reader reads any of them).
			{"multipart-related", orcPost(strict, "multipart/related; boundary=BB", orcMP("BB", orcFD("a", "\u202e"))), orcRej(-1, "unsupported_media_type", "forbidden_char"), nil},
			{"vnd-api-json-is-json", orcPost(strict, "application/vnd.api+json", orcJSONBidi), rej(fc), nil},
			// json.NewDecoder(r.Body) reads the escape whatever the type
			//: refused.
			{"text-plain-holding-json", orcPost(strict, "text/plain", orcJSONBidi), orcRej(400, "forbidden_char"), nil},
			{"text-plain-holding-harmless-json", orcPost(strict, "text/plain", `{"a":"\u00e9 \\u202e"}`), orcOK, nil},
			{"empty-body-without-type", orcPost(strict, "", ""), orcOK, nil},
			// The default preset reads what Echo's binder decodes as JSON.
			{"default-route-binder-json", orcPost("/t/default/x", "application/jsonx", `{"a":"\u0000"}`), orcRej(400, "forbidden_char"), nil},
			{"default-route-unread", orcPost("/t/default/x", "application/x-unknown", `{"a":"\u0000"}`), orcOK, nil},
			{"upload-route-octet-stream", orcPost("/t/upload/x", "application/octet-stream", orcJSONBidi), orcOK, nil},
			{"upload-route-image", orcPost("/t/upload/x", "image/png", "\x89PNG\r\n\x1a\n\x00\xff"), orcOK, nil},
		}},
		{"xml", []orcCase{
			{"application-xml-rlo-ref", orcPost(strict, "application/xml", "<a>&#x202E;</a>"), rej(fc), nil},
			{"text-xml-nel-ref", orcPost(strict, "text/xml", "<a>&#x85;</a>"), rej(fc), nil},
			{"atom-decimal-ref-in-attribute", orcPost(strict, "application/atom+xml", `<a b="&#8238;"/>`), rej(fc), nil},
			{"lower-hex-ref-single-quoted", orcPost(strict, "application/xml", `<a b='&#x202e;'/>`), rej(fc), nil},
			{"leading-zeros-ref", orcPost(strict, "application/xml", "<a>&#x0000202E;</a>"), rej(fc), nil},
			{"svg-isolate-ref", orcPost(strict, "image/svg+xml", "<svg><text>&#x2067;</text></svg>"), rej(fc), nil},
			{"nul-ref", orcPost(strict, "application/xml", "<a>&#0;</a>"), rej(), nil},
			{"surrogate-ref", orcPost(strict, "application/xml", "<a>&#xD800;</a>"), rej(), nil},
			{"fffe-ref", orcPost(strict, "application/xml", "<a>&#xFFFE;</a>"), rej(), nil},
			{"c0-ref", orcPost(strict, "text/xml", "<a>&#x1;</a>"), rej(), nil},
			{"out-of-range-ref", orcPost(strict, "application/xml", "<a>&#x110000;</a>"), rej(), nil},
			{"default-route-nul-ref", orcPost("/t/default/x", "application/xml", "<a>&#0;</a>"), rej(), nil},
			{"raw-rlo", orcPost(strict, "application/xml", "<a>\u202e</a>"), rej(fc), nil},
			{"raw-overlong", orcPost(strict, "application/xml", "<a>\xc0\xaf</a>"), rej("overlong"), nil},
			{"utf16-declaration", orcPost(strict, "application/xml", `<?xml version="1.0" encoding="UTF-16"?><a/>`), rej("bad_charset"), nil},
			{"utf16-charset-parameter", orcPost(strict, "application/xml; charset=utf-16", "<a/>"), rej("bad_charset"), nil},
			{"html-entity-rlm", orcPost(strict, "application/xml", "<a>&rlm;</a>"), orcSafe, nil},
			{"ref-in-comment", orcPost(strict, "application/xml", "<a><!-- &#x202E; --></a>"), orcSafe, nil},
			{"ref-in-cdata", orcPost(strict, "application/xml", "<a><![CDATA[&#x202E;]]></a>"), orcSafe, nil},
			{"nfc-decomposed-by-ref", orcPost(nfc, "application/xml", "<a>e&#x301;</a>"), orcSafe, nil},
			{"nfc-decomposed-element-name", orcPost(nfc, "application/xml", "<e\u0301>x</e\u0301>"), orcSafe, nil},
			{"nfkc-fullwidth-ref", orcPost(nfkc, "text/xml", `<a b="&#xFF21;">&#xFB01;</a>`), orcSafe, nil},
			{"clean", orcPost(strict, "application/xml; charset=utf-8", `<?xml version="1.0" encoding="utf-8"?><a b="&#233;">caf&#xE9; &amp; &#x1F600;</a>`), orcOK, nil},
		}},
		{"multipart-mixed", []orcCase{
			{"overlong-text-part", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "Content-Type: text/plain\r\n\r\nab\xc0\xaf")), rej("overlong"), nil},
			{"rlo-attachment-name", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB",
				"Content-Disposition: attachment; filename=\"a\u202etxt.exe\"\r\nContent-Type: application/octet-stream\r\n\r\nMZ")), rej(fc), nil},
			{"part-without-headers-nul", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "X-A: 1\r\n\r\na\x00b")), rej(fc), nil},
			{"upper-case-type", orcPost(strict, "Multipart/Mixed; boundary=BB", orcMP("BB", "Content-Type: text/plain\r\n\r\n\u202e")), rej(fc), nil},
			{"qp-rlo", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "Content-Type: text/plain\r\n"+orcQP+"\r\n\r\n=E2=80=AE")), rej(fc), nil},
			{"default-route-nul", orcPost("/t/default/x", "multipart/mixed; boundary=BB", orcMP("BB", "Content-Type: text/plain\r\n\r\n\x00")), rej(fc), nil},
			{"clean", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "Content-Type: text/plain; charset=utf-8\r\n\r\nGrüße",
				"Content-Disposition: attachment; filename=\"r\u00e9sum\u00e9.pdf\"\r\nContent-Type: application/pdf\r\n\r\n%PDF\x00\xff")), orcOK, nil},
		}},
		{"cookies", []orcCase{
			{"nel-trailing", orcGet(strict).with("Cookie: sid=abc\xc2\x85"), rej(fc), nil},
			{"nel-leading", orcGet(strict).with("Cookie: sid=\xc2\x85abc"), rej(fc), nil},
			{"nel-ending-name", orcGet(strict).with("Cookie: sid\xc2\x85=abc"), rej(fc), nil},
			{"nel-quoted", orcGet(strict).with("Cookie: sid=\"abc\xc2\x85\""), rej(fc), nil},
			{"nel-second-pair", orcGet(strict).with("Cookie: a=1; sid=abc\xc2\x85; b=2"), rej(fc), nil},
			{"nel-second-header", orcGet(strict).with("Cookie: a=1\nCookie: sid=abc\xc2\x85"), rej(fc), nil},
			{"tab-inside-value", orcGet(strict).with("Cookie: sid=a\tb"), rej(fc), nil},
			{"rlo-in-name", orcGet(strict).with("Cookie: a\xe2\x80\xaeb=1"), rej(fc), nil},
			{"invalid-octet", orcGet(strict).with("Cookie: sid=\xff"), rej("invalid_byte"), nil},
			{"tab-around-pair", orcGet(strict).with("Cookie: a=1\t; b=2"), orcOK, nil},
			{"nbsp-and-line-separator-kept", orcGet(strict).with("Cookie: a=abc\xc2\xa0; b=\xe2\x80\xa8x"), orcOK, nil},
			{"default-route-unchecked", orcGet("/t/default/x").with("Cookie: sid=abc\xc2\x85"), orcOK, nil},
		}},
		{"line-breaks-in-names", []orcCase{
			{"filename-star-crlf", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''a%0D%0AX-Injected%3A%201.txt\r\nContent-Type: text/plain\r\n\r\nx")), rej(fc), nil},
			{"filename-star-lf", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''a%0Ab.txt\r\nContent-Type: text/plain\r\n\r\nx")), rej(fc), nil},
			{"filename-star-cr-binary", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''a%0Db.png\r\nContent-Type: image/png\r\n\r\n\x89PNG")), rej(fc), nil},
			{"filename-star-tab", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''a%09b.txt\r\n\r\nx")), rej(fc), nil},
			{"filename-quoted-tab", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a\tb.txt\"\r\n\r\nx")), rej(fc), nil},
			{"name-star-lf", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name*=UTF-8''a%0Ab\r\n\r\nx")), rej(fc), nil},
			{"filename-star-nel", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%C2%85.txt\r\n\r\nx")), rej(fc), nil},
			{"filename-star-rlo", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%E2%80%AEtxt.exe\r\nContent-Type: application/octet-stream\r\n\r\nMZ")), rej(fc), nil},
			{"mixed-attachment-crlf", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "Content-Disposition: attachment; filename*=UTF-8''a%0D%0Ab\r\nContent-Type: application/octet-stream\r\n\r\nx")), rej(fc), nil},
			{"listed-header-tab", orcGet(strict).with("X-Name: a\tb"), rej(fc), nil},
			{"default-route-allows", orcPost("/t/default/x", orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''a%0D%0Ab.txt\r\nContent-Type: text/plain\r\n\r\nx")), orcOK, nil},
		}},
		{"route-of-dispatch", []orcCase{
			{"escaped-route-name-rlo", orcGet("/t/%61dmin/x%E2%80%AE"), orcSafe, nil},
			{"escaped-route-name-rlo-pre", orcGet("/t/%61dmin/x%E2%80%AE"), rej(fc), []mount{mountPre, mountHandler}},
			{"escaped-route-name-nel", orcGet("/t/adm%69n/x%C2%85"), orcSafe, nil},
			{"escaped-route-lower-hex", orcGet("/t/%61dmin/x%e2%80%ae"), orcSafe, nil},
			{"escaped-nfc-route", orcGet("/t/%6Efc/p/e%CC%81"), orcSafe, nil},
			{"escaped-nfkc-route-syntax", orcGet("/t/nf%6Bc/p/" + orcPct("．．")), orcSafe, nil},
			{"escaped-precis-route", orcGet("/t/pr%65cis/" + orcPct("\u202eroot")), orcSafe, nil},
			{"lower-hex-rlo", orcGet("/t/admin/x%e2%80%ae"), rej(fc), nil},
			{"leading-bom-param", orcGet("/t/admin/%EF%BB%BFx"), rej(fc), nil},
			{"leading-bom-param-lower-hex", orcGet("/t/strict/p/%ef%bb%bfx"), rej(fc), nil},
			{"leading-bom-wildcard", orcGet("/t/strict/%EF%BB%BFx"), rej(fc), nil},
			{"bom-inside-param", orcGet("/t/strict/p/a%EF%BB%BFb"), orcOK, nil},
			{"clean-escaped-route-name", orcGet("/t/%61dmin/x"), orcOK, nil},
		}},
		{"file-part-without-content-type", []orcCase{
			{"notes-txt", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"notes.txt\"\r\n\r\nab\xC0\xAE\xE2\x80\xAEcd")), rej("overlong", fc), nil},
			{"rlo-only", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\n\u202e")), rej(fc), nil},
			{"no-extension-nul", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"data\"\r\n\r\na\x00b")), rej(fc), nil},
			{"mixed-attachment", orcPost(strict, "multipart/mixed; boundary=BB", orcMP("BB", "Content-Disposition: attachment; filename=\"a\"\r\n\r\n\xc0\xaf")), rej("overlong"), nil},
			{"default-route-nul", orcPost("/t/default/x", orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a\"\r\n\r\na\x00")), rej(fc), nil},
			{"empty-content-type", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: \r\n\r\n\u202e")), orcSafe, nil},
			{"nfc-decomposed", orcPost(nfc, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\ne\u0301")), orcSafe, nil},
			{"octet-stream-is-binary", orcPost(strict, orcMPBB, orcMP("BB", "Content-Disposition: form-data; name=\"f\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\xc0\xaf\x00")), orcOK, nil},
		}},
		{"key-collisions", []orcCase{
			{"query-nfc", orcGet(nfc + "?%C3%A9=safe&e%CC%81=evil"), rej("key_collision"), nil},
			{"query-nfc-reversed", orcGet(nfc + "?e%CC%81=evil&%C3%A9=safe"), rej("key_collision"), nil},
			{"query-nfkc-fullwidth", orcGet(nfkc + "?q=1&%EF%BD%91=2"), rej("key_collision"), nil},
			{"query-nfkc-ligature", orcGet(nfkc + "?fi=1&%EF%AC%81=2"), rej("key_collision"), nil},
			{"form-nfc", orcPost(nfc, "application/x-www-form-urlencoded", "%C3%A9=safe&e%CC%81=evil"), rej("key_collision"), nil},
			{"form-nfkc-fullwidth", orcPost(nfkc, "application/x-www-form-urlencoded", "q=1&%EF%BD%91=2"), rej("key_collision"), nil},
			{"json-nfc", orcPost(nfc, "application/json", `{"é":"safe","e\u0301":"evil"}`), rej("key_collision"), nil},
			{"json-nfc-raw-decomposed", orcPost(nfc, "application/json", "{\"\u00e9\":\"safe\",\"e\u0301\":\"evil\"}"), rej("key_collision"), nil},
			{"json-nfkc-fullwidth", orcPost(nfkc, "application/json", `{"q":1,"ｑ":2}`), rej("key_collision"), nil},
			{"json-nfc-nested", orcPost(nfc, "application/json", `{"a":[{"é":1,"e\u0301":2}]}`), rej("key_collision"), nil},
			{"multipart-nfc", orcPost(nfc, orcMPBB, orcMP("BB", orcFD("é", "safe"), orcFD("e\u0301", "evil"))), rej("key_collision"), nil},
			{"multipart-nfkc-fullwidth", orcPost(nfkc, orcMPBB, orcMP("BB", orcFD("q", "1"), orcFD("ｑ", "2"))), rej("key_collision"), nil},
			{"json-duplicate-strict", orcPost(strict, "application/json", `{"a":1,"a":2}`), rej("duplicate_key"), nil},
			{"json-duplicate-escaped-strict", orcPost(strict, "application/json", `{"a":1,"\u0061":2}`), rej("duplicate_key"), nil},
			{"json-duplicate-nested-strict", orcPost(strict, "application/json", `{"x":[{"k":1,"k":{}}]}`), rej("duplicate_key"), nil},
			{"json-duplicate-surrogate-pair", orcPost(strict, "application/json", `{"😀":1,"\ud83d\ude00":2}`), rej("duplicate_key"), nil},
			{"json-duplicate-nfc", orcPost(nfc, "application/json", `{"a":1,"a":2}`), rej("duplicate_key", "key_collision"), nil},
			{"query-same-key-twice-nfc", orcGet(nfc + "?e%CC%81=1&e%CC%81=2"), orcOK, nil},
			{"query-distinct-strict", orcGet(strict + "?%C3%A9=1&e%CC%81=2"), orcOK, nil},
			{"json-distinct-strict", orcPost(strict, "application/json", `{"é":1,"e\u0301":2}`), orcOK, nil},
			{"json-objects-apart-nfc", orcPost(nfc, "application/json", `[{"é":1},{"e\u0301":2}]`), orcOK, nil},
			{"json-duplicate-default", orcPost("/t/default/x", "application/json", `{"a":1,"a":2}`), orcOK, nil},
		}},
		{"trailers", []orcCase{
			{"rlo-trailer", orcPost(strict, "text/plain", "hello").chunk().with("Trailer: X-Name\n\nX-Name: \xe2\x80\xae"), rej(fc, "forbidden_trailer"), nil},
			// Undeclared trailers: net/http merges them into the request it
			// parsed, whose Trailer map is nil, so a copy made before the
			// middleware (this harness's r.WithContext, as many real
			// middlewares make) never sees them, nor does the handler:
			// safe, and refused where the middleware gets net/http's own
			// request (TestTrailers). Over HTTP/2 (oracle_wire_test.go),
			// Go's client announces every trailer it sends: refused.
			{"undeclared-nel-trailer", orcPost(strict, "text/plain", "hello").chunk().with("\nx-name: a\xc2\x85"), orcSafe, nil},
			{"tab-trailer-json-body", orcPost(strict, "application/json", `{"a":1}`).chunk().with("\nX-Name: a\tb"), orcSafe, nil},
			{"rlo-trailer-multipart-body", orcPost(strict, orcMPBB, orcMP("BB", orcFD("a", "b"))).chunk().with("\nX-Name: \u202e"), orcSafe, nil},
			{"declared-tab-trailer-json-body", orcPost(strict, "application/json", `{"a":1}`).chunk().with("Trailer: X-Name\n\nX-Name: a\tb"), rej(fc, "forbidden_trailer"), nil},
			{"declared-rlo-trailer-multipart-body", orcPost(strict, orcMPBB, orcMP("BB", orcFD("a", "b"))).chunk().with("Trailer: X-Name\n\nX-Name: \u202e"), rej(fc, "forbidden_trailer"), nil},
			{"clean-trailer", orcPost(strict, "text/plain", "hello").chunk().with("Trailer: X-Name\n\nX-Name: ok"), orcSafe, nil},
			{"rlo-trailer-unread-body", orcPost("/t/upload/x", "application/octet-stream", "\x00\x01").chunk().with("\nX-Name: \u202e"), orcSafe, nil},
			{"declared-rlo-trailer-unread-body", orcPost("/t/upload/x", "image/png", "\x89PNG").chunk().with("Trailer: X-Name\n\nX-Name: \u202e"), orcSafe, nil},
			{"default-route-unchecked", orcPost("/t/default/x", "text/plain", "hello").chunk().with("\nX-Name: \u202e"), orcOK, nil},
		}},
	}
}

// TestOracleTrailerSocket sends chunked requests with trailers over TCP to
// a real http.Server on 127.0.0.1 (each its own), on every mount: a listed header sent as
// a trailer must be checked (or refused) as it is as a header.
func TestOracleTrailerSocket(t *testing.T) {
	cases := []orcCase{
		{"rlo-trailer", orcPost("/t/strict/x", "text/plain", "hello").chunk().with("Trailer: X-Name\n\nX-Name: \u202e"), orcRej(400, "forbidden_char", "forbidden_trailer"), nil},
		// Undeclared, and the handler below runs on a copy made with
		// r.WithContext: see TestOracleMechanisms's trailer cases.
		{"nel-trailer-json", orcPost("/t/strict/x", "application/json", `{"a":1}`).chunk().with("\nX-Name: a\xc2\x85"), orcSafe, nil},
		{"declared-nel-trailer-json", orcPost("/t/strict/x", "application/json", `{"a":1}`).chunk().with("Trailer: X-Name\n\nX-Name: a\xc2\x85"), orcRej(400, "forbidden_char", "forbidden_trailer"), nil},
		{"rlo-trailer-unread-body", orcPost("/t/upload/x", "application/octet-stream", "\x00\x01").chunk().with("\nX-Name: \u202e"), orcSafe, nil},
		{"clean-trailer", orcPost("/t/strict/x", "text/plain", "hello").chunk().with("Trailer: X-Name\n\nX-Name: ok"), orcSafe, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range orcAllMounts {
				t.Run(m.String(), func(t *testing.T) {
					wire := tc.req.wire()
					orig, err := orcOrigOf(wire)
					if err != nil {
						t.Fatal(err)
					}
					rep := &orcReport{mount: m, orig: orig}
					ln := orcServer(t, m).listen(t, "http1", func(srv *http.Server) {
						h := srv.Handler
						srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
							h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), orcKey{}, rep)))
						})
					})
					resp, body := ln.send(t, string(wire), nil)
					tc.want.check(t, orcResultOf(resp.StatusCode, []byte(body), rep))
				})
			}
		})
	}
}
