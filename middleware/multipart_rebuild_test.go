package middleware

import (
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The rebuilt multipart body holds exactly the parts the check saw, in
// canonical form, delimited by a fresh boundary; field names that
// canonicalization would merge are refused; canonical forms meet the
// route's limits.

// TestMultipartRebuildSmuggling: on a normalizing route the rebuilt body
// holds exactly the parts of the body as sent, in canonical form, whatever
// their decoded or canonical contents spell: a delimiter of the client's
// boundary made by quoted-printable decoding (CRLF, LF, split across a soft
// line break, with transport padding, at the start of a content, the
// closing one), or by normalization (U+1FEF is '`' in NFC, U+212A 'K';
// fullwidth forms are ASCII in NFKC), carries no part, and no part has a
// transfer encoding decoded twice.
func TestMultipartRebuildSmuggling(t *testing.T) {
	t.Parallel()
	const qp = "Content-Transfer-Encoding: quoted-printable"
	force := mptest.Field("z", "e\u0301") // changes under NFC and NFKC: the body is rebuilt
	crlf := "\r\n"
	type variant struct {
		name string
		pol  func() rules.Policy // nil: the strict preset with n
		n    normalize.Form
		ct   string // "": form-data with boundary BB
		body string
		// want lists the field names the handler reads, in order.
		want []string
	}
	vs := []variant{
		{name: "qp delimiter", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter from the issue", body: mptest.Build("BB", crlf,
			mptest.Field("x", "x=0D=0A--BB=0D=0AContent-Disposition: form-data; name=3D\"evil\"=0D=0AContent-Transfer-Encoding: quoted-printable=0D=0A=0D=0A=3DE2=3D80=3DAE=3D00", qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter LF", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\n--BB\n"+mptest.Smuggled("\n")), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter in an LF body", body: mptest.Build("BB", "\n", mptest.Field("x", mptest.QPAll("x\n--BB\n"+mptest.Smuggled("\n")), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter CRLF then LF", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB\n"+mptest.Smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter split by soft line breaks", body: mptest.Build("BB", crlf,
			mptest.Field("x", "x=0D=\r\n=0A-=\r\n-B=\r\nB=0D=0A"+mptest.QPAll(mptest.Smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter with transport padding", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB \t \r\n"+mptest.Smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter at the start of the content", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("--BB\r\n"+mptest.Smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp closing delimiter hides the parts after it", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB--\r\n"), qp), force, mptest.Field("after", "1")),
			want: []string{"x", "z", "after"}},
		{name: "qp many delimiters", body: mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll(strings.Repeat("\r\n--BB\r\n"+mptest.Smuggled(crlf), 40)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp in a file part", body: mptest.Build("BB", crlf,
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"`, "Content-Type: text/plain", qp}, Data: mptest.QPAll("x\r\n--BB\r\n" + mptest.Smuggled(crlf))}, force),
			want: []string{"f", "z"}},
		{name: "qp in a binary file part", body: mptest.Build("BB", crlf,
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.bin"`, "Content-Type: application/octet-stream", qp}, Data: mptest.QPAll("\xFF\r\n--BB\r\n" + mptest.Smuggled(crlf))}, force),
			want: []string{"f", "z"}},
		{name: "NFC U+1FEF makes the boundary", ct: "multipart/form-data; boundary=\"`X\"",
			body: mptest.Build("`X", crlf, mptest.Field("x", "x\r\n--\u1FEFX\r\n"+mptest.Smuggled(crlf))), want: []string{"x"}},
		{name: "NFC U+1FEF is the boundary", ct: "multipart/form-data; boundary=\"`\"",
			body: mptest.Build("`", crlf, mptest.Field("x", "x\r\n--\u1FEF\r\n"+mptest.Smuggled(crlf))), want: []string{"x"}},
		{name: "NFC kelvin sign", ct: "multipart/form-data; boundary=KK",
			body: mptest.Build("KK", crlf, mptest.Field("x", "x\r\n--\u212A\u212A\r\n"+mptest.Smuggled(crlf))), want: []string{"x"}},
		{name: "NFC kelvin sign, closing", ct: "multipart/form-data; boundary=KK",
			body: mptest.Build("KK", crlf, mptest.Field("x", "x\r\n--\u212A\u212A--\r\n"), mptest.Field("after", "1")), want: []string{"x", "after"}},
		{name: "NFKC fullwidth hyphens", n: normalize.NFKC, body: mptest.Build("BB", crlf, mptest.Field("x", "x\r\n\uFF0D\uFF0DBB\r\n"+mptest.Smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC fullwidth boundary", n: normalize.NFKC, body: mptest.Build("BB", crlf, mptest.Field("x", "x\r\n--\uFF22\uFF22\r\n"+mptest.Smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC small hyphen-minus", n: normalize.NFKC, body: mptest.Build("BB", crlf, mptest.Field("x", "x\r\n\uFE63\uFE63BB\r\n"+mptest.Smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC in a text file", n: normalize.NFKC, body: mptest.Build("BB", crlf,
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"`}, Data: "x\r\n\uFF0D\uFF0DBB\r\n" + mptest.Smuggled(crlf)}),
			want: []string{"f"}},
		{name: "NFKC quotes in a name", n: normalize.NFKC, body: mptest.Build("BB", crlf, mptest.Field("a\uFF02; filename=\uFF02evil.txt", "x")),
			want: []string{`a"; filename="evil.txt`}},
		{name: "NFKC semicolon and quote in a file name", n: normalize.NFKC, body: mptest.Build("BB", crlf,
			mptest.Spec{Header: []string{"Content-Disposition: form-data; name=\"f\"; filename=\"a\uFF02\uFF1B name=\uFF02evil\""}, Data: "x"}),
			want: []string{"f"}},
		{name: "default preset: CRLF in a name stays in the name", pol: func() rules.Policy { p := rules.Default(); p.Normalization = normalize.NFC; return p },
			body: mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name*=UTF-8''e%CC%81%0D%0AX-Evil%3A%201; filename*=utf-8''a%0D%0A%0D%0Ab`}, Data: "x"}),
			want: []string{"\u00e9\r\nX-Evil: 1"}},
		{name: "NFC boundary of the client in a binary part", body: mptest.Build("BB", crlf,
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="b"; filename="b.bin"`, "Content-Type: application/octet-stream"}, Data: "\x00\r\n--BBnot\r\n--BB-\xFF"}, force),
			want: []string{"b", "z"}},
		{name: "nested body rebuilt", body: mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"; filename="all"`, "Content-Type: multipart/mixed; boundary=CC"},
			Data: strings.TrimSuffix(mptest.Build("CC", crlf, mptest.Field("in", mptest.QPAll("e\u0301\r\n--CC\r\n"+mptest.Smuggled(crlf)), qp)), crlf)}),
			want: []string{"n", "in"}},
	}
	var cases []mpCase
	for _, v := range vs {
		n := v.n
		if n == normalize.None {
			n = normalize.NFC
		}
		ct := v.ct
		if ct == "" {
			ct = "multipart/form-data; boundary=BB"
		}
		_, sent, _ := mime.ParseMediaType(ct)
		pol := v.pol
		if pol == nil {
			pol = mptest.StrictForm(n)
		}
		cases = append(cases, mpCase{name: v.name, pol: pol, ct: ct, body: v.body, status: http.StatusOK,
			check: func(t *testing.T, s *mptest.Seen) {
				if got := mptest.Names(s.Stream); !slices.Equal(got, v.want) {
					t.Errorf("the handler's stream has parts %+q, want %+q", got, v.want)
				}
				for _, d := range mptest.SameParts(s.Stream, mptest.CanonParts(pol(), ct, v.body)) {
					t.Error(d)
				}
				for _, p := range s.Stream {
					if p.Header.Get("X-Evil") != "" {
						t.Errorf("part %+q has a header X-Evil", p.Name)
					}
				}
				for k := range s.Form {
					if k == "evil" {
						t.Errorf("the form has a field evil: %+q", s.Form[k])
					}
				}
				mt, params, err := mime.ParseMediaType(s.ContentType)
				if err != nil || mt != strings.Split(ct, ";")[0] || params["boundary"] == "" || params["boundary"] == sent["boundary"] {
					t.Errorf("Content-Type %q: want the media type of %q with a fresh boundary", s.ContentType, ct)
				}
				for _, p := range s.Stream {
					if strings.Contains(string(p.Content), params["boundary"]) {
						t.Errorf("the boundary %q occurs in part %q", params["boundary"], p.Name)
					}
				}
			}})
	}
	mpRun(t, cases)
}

// TestMultipartNameCollision: on a normalizing route, two field names of
// one body that differ as sent but are equal in canonical form are refused
// (key_collision, naming the later one as sent), in Monitor mode flagged;
// names equal as sent, or equal only without regard to case, are not.
func TestMultipartNameCollision(t *testing.T) {
	t.Parallel()
	coll := func(field string) wantLog { return rej("key_collision", "multipart", field, 0) }
	body := func(parts ...mptest.Spec) string { return mptest.Build("BB", "\r\n", parts...) }
	fileNamed := func(name string) mptest.Spec {
		return mptest.Spec{Header: []string{`Content-Disposition: form-data; name="` + name + `"; filename="a.bin"`, "Content-Type: application/octet-stream"}, Data: "\xFF"}
	}
	nfc, nfkc := mptest.StrictForm(normalize.NFC), mptest.StrictForm(normalize.NFKC)
	cases := []mpCase{
		{name: "NFC composed and decomposed", pol: nfc, body: body(mptest.Field("\u00e9", "safe"), mptest.Field("e\u0301", "evil")),
			status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC decomposed first", pol: nfc, body: body(mptest.Field("e\u0301", "evil"), mptest.Field("a", "1"), mptest.Field("\u00e9", "safe")),
			status: 400, want: coll(`\xc3\xa9`)},
		{name: "NFC name*", pol: nfc, body: body(mptest.Field("\u00e9", "safe"), mptest.Spec{Header: []string{`Content-Disposition: form-data; name*=UTF-8''e%CC%81`}, Data: "evil"}),
			status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC file part", pol: nfc, body: body(mptest.Field("\u00e9", "safe"), fileNamed("e\u0301")), status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC ohm sign", pol: nfc, body: body(mptest.Field("\u03a9", "1"), mptest.Field("\u2126", "2")), status: 400, want: coll(`\xe2\x84\xa6`)},
		{name: "NFKC fullwidth", pol: nfkc, body: body(mptest.Field("q", "safe"), mptest.Field("\uFF51", "evil")), status: 400, want: coll(`\xef\xbd\x91`)},
		{name: "NFKC ligature", pol: nfkc, body: body(mptest.Field("\uFB01le", "1"), mptest.Field("file", "2")), status: 400, want: coll("file")},
		{name: "NFC fullwidth is no collision", pol: nfc, body: body(mptest.Field("q", "1"), mptest.Field("\uFF51", "2")), status: 200},
		{name: "same name twice", pol: nfc, body: body(mptest.Field("e\u0301", "1"), mptest.Field("e\u0301", "2")), status: 200,
			check: func(t *testing.T, s *mptest.Seen) {
				if got := s.Form["\u00e9"]; !slices.Equal(got, []string{"1", "2"}) {
					t.Errorf("form %+q", s.Form)
				}
			}},
		{name: "case variants", pol: nfc, body: body(mptest.Field("Q", "1"), mptest.Field("q", "2")), status: 200},
		{name: "no normalization", body: body(mptest.Field("\u00e9", "1"), mptest.Field("e\u0301", "2")), status: 200},
	}
	mpRun(t, cases)

	// Monitor: passed on unchanged, and flagged.
	pol := mptest.StrictForm(normalize.NFC)()
	pol.Mode = rules.Monitor
	sent := body(mptest.Field("\u00e9", "safe"), mptest.Field("e\u0301", "evil"))
	for _, m := range mpMounts {
		srv := newServer(t, mpSetup(pol, m), &mpRec{})
		w := srv.do(mpPost("multipart/form-data; boundary=BB", strings.NewReader(sent)))
		s := srv.rec.take()
		if w.Code != 200 || s == nil || string(s.Body) != sent {
			t.Errorf("%s monitor: status %d, body changed or handler not run", m, w.Code)
			continue
		}
		checkOneLog(t, srv.logs, coll(`e\xcc\x81`), "monitor", "", "")
	}
}

// TestMultipartCanonLimits: canonical forms meet the limits the input
// did: a field's canonical content and a canonical name the field length
// (too_large, 400, the field named), the rebuilt body the body limit
// (too_large, 413). NFKC writes U+FDFA in 33 octets.
func TestMultipartCanonLimits(t *testing.T) {
	t.Parallel()
	const fdfa = "\uFDFA" // 3 octets, 33 in NFKC
	limited := func(field int, body int64) func() rules.Policy {
		return func() rules.Policy {
			p := mptest.StrictForm(normalize.NFKC)()
			p.Limits.FieldBytes, p.Limits.BodyBytes = field, body
			return p
		}
	}
	big := func(n int) string { return strings.Repeat(fdfa, n) }
	cases := []mpCase{
		{name: "field content", pol: limited(64, 0), body: mptest.Build("BB", "\r\n", mptest.Field("q", big(3))), status: 400,
			want: rej("too_large", "multipart", "q", 0)},
		{name: "field content at the limit", pol: limited(66, 0), body: mptest.Build("BB", "\r\n", mptest.Field("q", big(2))), status: 200,
			check: func(t *testing.T, s *mptest.Seen) {
				if got := s.Form["q"]; len(got) != 1 || len(got[0]) != 66 {
					t.Errorf("form q %+q", got)
				}
			}},
		{name: "field name", pol: limited(40, 0), body: mptest.Build("BB", "\r\n", mptest.Field("n"+big(2), "x")), status: 400,
			want: rej("too_large", "multipart", "", 0)},
		{name: "file name", pol: limited(40, 0), body: mptest.Build("BB", "\r\n",
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="` + big(2) + `"`, "Content-Type: application/octet-stream"}, Data: "x"}),
			status: 400, want: rej("too_large", "multipart", "f", 0)},
		{name: "text file bounded by the body only", pol: limited(64, 1<<20), body: mptest.Build("BB", "\r\n",
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"`, "Content-Type: text/plain"}, Data: big(100)}), status: 200},
		{name: "body", pol: limited(-1, 4096), body: mptest.Build("BB", "\r\n", mptest.Field("q", big(1000))), status: 413,
			want: rej("too_large", "multipart", "", 0)},
		{name: "body over the limit by the headers", pol: limited(-1, 400), body: mptest.Build("BB", "\r\n", mptest.Field("q", big(11))), status: 413,
			want: rej("too_large", "multipart", "", 0)},
	}
	mpRun(t, cases)
}

// TestCanonMultipartBoundary: the body is rebuilt with a fresh boundary,
// whatever the client's was (here one that multipart.Writer.SetBoundary
// refuses but Go's reader takes); a body broken after a part (no closing
// delimiter) is refused as body_unreadable, whether a part of it would
// change or not, rather than passed on with that part as it came.
func TestCanonMultipartBoundary(t *testing.T) {
	t.Parallel()
	const b = "we#ird@bound"
	body := "--" + b + "\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\ne\u0301\r\n--" + b + "--\r\n"
	ev := newServer(t, canonSetup(canonPolicy(normalize.NFC), mountGlobal), &canonRec{})
	r := canonReq("POST", "/api/echo", `multipart/form-data; boundary="`+b+`"`, body)
	w := ev.do(r)
	if w.Code != 200 {
		t.Fatalf("status %d %s", w.Code, w.Body)
	}
	s := ev.rec.get()
	canonEq(t, "FormValue(q)", s.FormValue["q"], "\u00E9")
	_, params, _ := mime.ParseMediaType(s.ContentType)
	nb := params["boundary"]
	if nb == "" || nb == b {
		t.Errorf("Content-Type %q: want a fresh boundary", s.ContentType)
	}
	canonEq(t, "body", string(s.Body), strings.ReplaceAll(strings.Replace(body, "e\u0301", "\u00E9", 1), b, nb))

	// Broken: no closing delimiter.
	broken := "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\ne\u0301\r\n--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"r\"\r\n\r\nabc"
	ev = newServer(t, canonSetup(canonPolicy(normalize.NFC), mountGlobal), &canonRec{})
	w = ev.do(canonReq("POST", "/api/echo", ctMP, broken))
	if w.Code != 400 {
		t.Fatalf("broken body: status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("body_unreadable", "multipart", "", 0), "enforce", "", "")

	// Broken with nothing to change: refused the same, not passed on
	// for the handler's parser to fail on (a handler reading the body
	// raw would read octets no part held).
	ev = newServer(t, canonSetup(canonPolicy(normalize.NFC), mountGlobal), &canonRec{})
	clean := strings.Replace(broken, "e\u0301", "\u00E9", 1)
	w = ev.do(canonReq("POST", "/api/echo", ctMP, clean))
	if w.Code != 400 {
		t.Fatalf("broken clean body: status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("body_unreadable", "multipart", "", 0), "enforce", "", "")
}
