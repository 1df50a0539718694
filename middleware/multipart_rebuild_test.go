package middleware

import (
	"bytes"
	"fmt"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The rebuilt multipart body holds exactly the parts the check saw, in
// canonical form, delimited by a fresh boundary; field names that
// canonicalization would merge are refused; canonical forms meet the
// route's limits.

// qpAll encodes every octet of s as a quoted-printable escape, in lines of
// at most 76 octets joined by soft line breaks: quoted-printable that
// decodes to s.
func qpAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && i%25 == 0 {
			b.WriteString("=\r\n")
		}
		fmt.Fprintf(&b, "=%02X", s[i])
	}
	return b.String()
}

// smuggled is a part header block and content as an attacker would have
// the rebuilt body carry it: a part named "evil" with its own
// quoted-printable encoding, which Go would decode again to U+202E and
// NUL. Every octet of it passes the strict preset as a field's content.
func smuggled(nl string) string {
	return `Content-Disposition: form-data; name="evil"` + nl + "Content-Transfer-Encoding: quoted-printable" + nl + nl + "=E2=80=AE=00"
}

func strictForm(n normalize.Form) func() rules.Policy {
	return func() rules.Policy { p := rules.Strict(); p.Normalization = n; return p }
}

// mpCanonParts returns the parts a handler must read from the rebuilt form
// of body: the parts Go's reader reads from body itself, the oracle's
// reading of the body as sent, with field names, file names and text
// contents in the form n (golang.org/x/text's norm, not the package under
// test).
func mpCanonParts(pol rules.Policy, ct, body string) []mpRead {
	_, params, _ := mime.ParseMediaType(ct)
	parts := mpStream(multipart.NewReader(strings.NewReader(body), params["boundary"]), 0, nil)
	form := norm.NFC
	if pol.Normalization == normalize.NFKC {
		form = norm.NFKC
	}
	for i := range parts {
		p := &parts[i]
		if mpIsText(pol, p.File, p.Header) {
			p.Content = form.Bytes(p.Content)
		}
		p.Name, p.File = form.String(p.Name), form.String(p.File)
	}
	return parts
}

// mpSameParts reports how the parts the handler read differ from want:
// count, order, names, file names, contents, and every header field but
// the Content-Disposition (rewritten with the canonical names).
func mpSameParts(got, want []mpRead) []string {
	var diff []string
	if len(got) != len(want) {
		return []string{fmt.Sprintf("%d parts %q, want %d %q", len(got), mpNames(got), len(want), mpNames(want))}
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.File != w.File || g.Depth != w.Depth {
			diff = append(diff, fmt.Sprintf("part %d: name %+q file %+q depth %d, want %+q %+q %d", i, g.Name, g.File, g.Depth, w.Name, w.File, w.Depth))
		}
		gh, wh := maps.Clone(g.Header), maps.Clone(w.Header)
		delete(gh, "Content-Disposition")
		delete(wh, "Content-Disposition")
		if mt, _, _ := mime.ParseMediaType(w.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") {
			// A nested body: rebuilt with a boundary of its own, its
			// parts compared one by one.
			delete(gh, "Content-Type")
			delete(wh, "Content-Type")
			g.Content, w.Content = nil, nil
		}
		if !maps.EqualFunc(gh, wh, slices.Equal) {
			diff = append(diff, fmt.Sprintf("part %d header %q, want %q", i, gh, wh))
		}
		if !bytes.Equal(g.Content, w.Content) {
			diff = append(diff, fmt.Sprintf("part %d content %+q, want %+q", i, g.Content, w.Content))
		}
	}
	return diff
}

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
	force := mpField("z", "e\u0301") // changes under NFC and NFKC: the body is rebuilt
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
		{name: "qp delimiter", body: mpBuild("BB", crlf, mpField("x", qpAll("x\r\n--BB\r\n"+smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter from the issue", body: mpBuild("BB", crlf,
			mpField("x", "x=0D=0A--BB=0D=0AContent-Disposition: form-data; name=3D\"evil\"=0D=0AContent-Transfer-Encoding: quoted-printable=0D=0A=0D=0A=3DE2=3D80=3DAE=3D00", qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter LF", body: mpBuild("BB", crlf, mpField("x", qpAll("x\n--BB\n"+smuggled("\n")), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter in an LF body", body: mpBuild("BB", "\n", mpField("x", qpAll("x\n--BB\n"+smuggled("\n")), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter CRLF then LF", body: mpBuild("BB", crlf, mpField("x", qpAll("x\r\n--BB\n"+smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter split by soft line breaks", body: mpBuild("BB", crlf,
			mpField("x", "x=0D=\r\n=0A-=\r\n-B=\r\nB=0D=0A"+qpAll(smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter with transport padding", body: mpBuild("BB", crlf, mpField("x", qpAll("x\r\n--BB \t \r\n"+smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp delimiter at the start of the content", body: mpBuild("BB", crlf, mpField("x", qpAll("--BB\r\n"+smuggled(crlf)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp closing delimiter hides the parts after it", body: mpBuild("BB", crlf, mpField("x", qpAll("x\r\n--BB--\r\n"), qp), force, mpField("after", "1")),
			want: []string{"x", "z", "after"}},
		{name: "qp many delimiters", body: mpBuild("BB", crlf, mpField("x", qpAll(strings.Repeat("\r\n--BB\r\n"+smuggled(crlf), 40)), qp), force),
			want: []string{"x", "z"}},
		{name: "qp in a file part", body: mpBuild("BB", crlf,
			mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="a.txt"`, "Content-Type: text/plain", qp}, qpAll("x\r\n--BB\r\n" + smuggled(crlf))}, force),
			want: []string{"f", "z"}},
		{name: "qp in a binary file part", body: mpBuild("BB", crlf,
			mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="a.bin"`, "Content-Type: application/octet-stream", qp}, qpAll("\xFF\r\n--BB\r\n" + smuggled(crlf))}, force),
			want: []string{"f", "z"}},
		{name: "NFC U+1FEF makes the boundary", ct: "multipart/form-data; boundary=\"`X\"",
			body: mpBuild("`X", crlf, mpField("x", "x\r\n--\u1FEFX\r\n"+smuggled(crlf))), want: []string{"x"}},
		{name: "NFC U+1FEF is the boundary", ct: "multipart/form-data; boundary=\"`\"",
			body: mpBuild("`", crlf, mpField("x", "x\r\n--\u1FEF\r\n"+smuggled(crlf))), want: []string{"x"}},
		{name: "NFC kelvin sign", ct: "multipart/form-data; boundary=KK",
			body: mpBuild("KK", crlf, mpField("x", "x\r\n--\u212A\u212A\r\n"+smuggled(crlf))), want: []string{"x"}},
		{name: "NFC kelvin sign, closing", ct: "multipart/form-data; boundary=KK",
			body: mpBuild("KK", crlf, mpField("x", "x\r\n--\u212A\u212A--\r\n"), mpField("after", "1")), want: []string{"x", "after"}},
		{name: "NFKC fullwidth hyphens", n: normalize.NFKC, body: mpBuild("BB", crlf, mpField("x", "x\r\n\uFF0D\uFF0DBB\r\n"+smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC fullwidth boundary", n: normalize.NFKC, body: mpBuild("BB", crlf, mpField("x", "x\r\n--\uFF22\uFF22\r\n"+smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC small hyphen-minus", n: normalize.NFKC, body: mpBuild("BB", crlf, mpField("x", "x\r\n\uFE63\uFE63BB\r\n"+smuggled(crlf))),
			want: []string{"x"}},
		{name: "NFKC in a text file", n: normalize.NFKC, body: mpBuild("BB", crlf,
			mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="a.txt"`}, "x\r\n\uFF0D\uFF0DBB\r\n" + smuggled(crlf)}),
			want: []string{"f"}},
		{name: "NFKC quotes in a name", n: normalize.NFKC, body: mpBuild("BB", crlf, mpField("a\uFF02; filename=\uFF02evil.txt", "x")),
			want: []string{`a"; filename="evil.txt`}},
		{name: "NFKC semicolon and quote in a file name", n: normalize.NFKC, body: mpBuild("BB", crlf,
			mpSpec{[]string{"Content-Disposition: form-data; name=\"f\"; filename=\"a\uFF02\uFF1B name=\uFF02evil\""}, "x"}),
			want: []string{"f"}},
		{name: "default preset: CRLF in a name stays in the name", pol: func() rules.Policy { p := rules.Default(); p.Normalization = normalize.NFC; return p },
			body: mpBuild("BB", crlf, mpSpec{[]string{`Content-Disposition: form-data; name*=UTF-8''e%CC%81%0D%0AX-Evil%3A%201; filename*=utf-8''a%0D%0A%0D%0Ab`}, "x"}),
			want: []string{"\u00e9\r\nX-Evil: 1"}},
		{name: "NFC boundary of the client in a binary part", body: mpBuild("BB", crlf,
			mpSpec{[]string{`Content-Disposition: form-data; name="b"; filename="b.bin"`, "Content-Type: application/octet-stream"}, "\x00\r\n--BBnot\r\n--BB-\xFF"}, force),
			want: []string{"b", "z"}},
		{name: "nested body rebuilt", body: mpBuild("BB", crlf, mpSpec{[]string{`Content-Disposition: form-data; name="n"; filename="all"`, "Content-Type: multipart/mixed; boundary=CC"},
			strings.TrimSuffix(mpBuild("CC", crlf, mpField("in", qpAll("e\u0301\r\n--CC\r\n"+smuggled(crlf)), qp)), crlf)}),
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
			pol = strictForm(n)
		}
		cases = append(cases, mpCase{name: v.name, pol: pol, ct: ct, body: v.body, status: http.StatusOK,
			check: func(t *testing.T, s *mpSeen) {
				if got := mpNames(s.Stream); !slices.Equal(got, v.want) {
					t.Errorf("the handler's stream has parts %+q, want %+q", got, v.want)
				}
				for _, d := range mpSameParts(s.Stream, mpCanonParts(pol(), ct, v.body)) {
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

// TestMultipartRebuildBoundary: the fresh boundary occurs in no header
// block and no content: a candidate that does is drawn again, and after
// too many the body is refused rather than written with one.
func TestMultipartRebuildBoundary(t *testing.T) {
	t.Parallel()
	lv := &rebuiltLevel{parts: []rebuiltPart{
		{header: map[string][]string{"Content-Disposition": {`form-data; name="HEADB"`}}, content: []byte("x"), name: "HEADB", hasDisp: true},
		{header: map[string][]string{"Content-Disposition": {`form-data; name="c"`}}, content: []byte("--CONTENTB\r\n"), name: "c", hasDisp: true},
	}}
	draws := []string{"HEADB", "CONTENTB", "FRESH"}
	draw := func() string { d := draws[0]; draws = draws[1:]; return d }
	if rj := lv.write(draw); rj != nil {
		t.Fatal(rj)
	}
	if lv.boundary != "FRESH" {
		t.Errorf("boundary %q, want FRESH (the first that occurs nowhere)", lv.boundary)
	}
	if _, ok := lv.verify(); !ok {
		t.Errorf("the body written does not read back: %q", lv.out)
	}
	if rj := lv.write(func() string { return "CONTENTB" }); rj == nil || rj.Reason.String() != "canonical_syntax" {
		t.Errorf("every candidate occurs: %v, want canonical_syntax", rj)
	}
	// verify catches a body that does not read back as its parts.
	lv.out = bytes.Replace(lv.out, []byte("--CONTENTB"), []byte("\r\n--FRESH\r\nX: 1\r\n\r\n"), 1)
	if _, ok := lv.verify(); ok {
		t.Error("verify accepts a body with a part too many")
	}
}

// TestMultipartNameCollision: on a normalizing route, two field names of
// one body that differ as sent but are equal in canonical form are refused
// (key_collision, naming the later one as sent), in Monitor mode flagged;
// names equal as sent, or equal only without regard to case, are not.
func TestMultipartNameCollision(t *testing.T) {
	t.Parallel()
	coll := func(field string) wantLog { return rej("key_collision", "multipart", field, 0) }
	body := func(parts ...mpSpec) string { return mpBuild("BB", "\r\n", parts...) }
	fileNamed := func(name string) mpSpec {
		return mpSpec{[]string{`Content-Disposition: form-data; name="` + name + `"; filename="a.bin"`, "Content-Type: application/octet-stream"}, "\xFF"}
	}
	nfc, nfkc := strictForm(normalize.NFC), strictForm(normalize.NFKC)
	cases := []mpCase{
		{name: "NFC composed and decomposed", pol: nfc, body: body(mpField("\u00e9", "safe"), mpField("e\u0301", "evil")),
			status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC decomposed first", pol: nfc, body: body(mpField("e\u0301", "evil"), mpField("a", "1"), mpField("\u00e9", "safe")),
			status: 400, want: coll(`\xc3\xa9`)},
		{name: "NFC name*", pol: nfc, body: body(mpField("\u00e9", "safe"), mpSpec{[]string{`Content-Disposition: form-data; name*=UTF-8''e%CC%81`}, "evil"}),
			status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC file part", pol: nfc, body: body(mpField("\u00e9", "safe"), fileNamed("e\u0301")), status: 400, want: coll(`e\xcc\x81`)},
		{name: "NFC ohm sign", pol: nfc, body: body(mpField("\u03a9", "1"), mpField("\u2126", "2")), status: 400, want: coll(`\xe2\x84\xa6`)},
		{name: "NFKC fullwidth", pol: nfkc, body: body(mpField("q", "safe"), mpField("\uFF51", "evil")), status: 400, want: coll(`\xef\xbd\x91`)},
		{name: "NFKC ligature", pol: nfkc, body: body(mpField("\uFB01le", "1"), mpField("file", "2")), status: 400, want: coll("file")},
		{name: "NFC fullwidth is no collision", pol: nfc, body: body(mpField("q", "1"), mpField("\uFF51", "2")), status: 200},
		{name: "same name twice", pol: nfc, body: body(mpField("e\u0301", "1"), mpField("e\u0301", "2")), status: 200,
			check: func(t *testing.T, s *mpSeen) {
				if got := s.Form["\u00e9"]; !slices.Equal(got, []string{"1", "2"}) {
					t.Errorf("form %+q", s.Form)
				}
			}},
		{name: "case variants", pol: nfc, body: body(mpField("Q", "1"), mpField("q", "2")), status: 200},
		{name: "no normalization", body: body(mpField("\u00e9", "1"), mpField("e\u0301", "2")), status: 200},
	}
	mpRun(t, cases)

	// Monitor: passed on unchanged, and flagged.
	pol := strictForm(normalize.NFC)()
	pol.Mode = rules.Monitor
	sent := body(mpField("\u00e9", "safe"), mpField("e\u0301", "evil"))
	for _, srv := range mpServers(t, pol) {
		w := srv.do("multipart/form-data; boundary=BB", sent)
		s := srv.take()
		if w.Code != 200 || s == nil || string(s.Body) != sent {
			t.Errorf("%s monitor: status %d, body changed or handler not run", srv.name, w.Code)
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
			p := strictForm(normalize.NFKC)()
			p.Limits.FieldBytes, p.Limits.BodyBytes = field, body
			return p
		}
	}
	big := func(n int) string { return strings.Repeat(fdfa, n) }
	cases := []mpCase{
		{name: "field content", pol: limited(64, 0), body: mpBuild("BB", "\r\n", mpField("q", big(3))), status: 400,
			want: rej("too_large", "multipart", "q", 0)},
		{name: "field content at the limit", pol: limited(66, 0), body: mpBuild("BB", "\r\n", mpField("q", big(2))), status: 200,
			check: func(t *testing.T, s *mpSeen) {
				if got := s.Form["q"]; len(got) != 1 || len(got[0]) != 66 {
					t.Errorf("form q %+q", got)
				}
			}},
		{name: "field name", pol: limited(40, 0), body: mpBuild("BB", "\r\n", mpField("n"+big(2), "x")), status: 400,
			want: rej("too_large", "multipart", "", 0)},
		{name: "file name", pol: limited(40, 0), body: mpBuild("BB", "\r\n",
			mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="` + big(2) + `"`, "Content-Type: application/octet-stream"}, "x"}),
			status: 400, want: rej("too_large", "multipart", "f", 0)},
		{name: "text file bounded by the body only", pol: limited(64, 1<<20), body: mpBuild("BB", "\r\n",
			mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="a.txt"`, "Content-Type: text/plain"}, big(100)}), status: 200},
		{name: "body", pol: limited(-1, 4096), body: mpBuild("BB", "\r\n", mpField("q", big(1000))), status: 413,
			want: rej("too_large", "multipart", "", 0)},
		{name: "body over the limit by the headers", pol: limited(-1, 400), body: mpBuild("BB", "\r\n", mpField("q", big(11))), status: 413,
			want: rej("too_large", "multipart", "", 0)},
	}
	mpRun(t, cases)
}

// TestMultipartRebuildMixed: a multipart/mixed body is rebuilt as it came,
// multipart/mixed with a fresh boundary, its parts without a
// Content-Disposition left without one.
func TestMultipartRebuildMixed(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(strictForm(normalize.NFC)())
	body := mpBuild("BB", "\r\n", mpSpec{nil, "e\u0301"}, mpSpec{[]string{"Content-Type: text/plain; charset=utf-8"}, qpAll("\r\n--BB\r\n" + smuggled("\r\n"))})
	body = strings.Replace(body, "charset=utf-8", "charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable", 1)
	r := req(http.MethodPost, "/", "multipart/mixed; boundary=BB; type=\"text/plain\"", strings.NewReader(body))
	if rj := checkMultipart(r, []byte(body), p); rj != nil {
		t.Fatal(rj)
	}
	out, rj := canonMultipart(p, r, []byte(body))
	if rj != nil || out == nil {
		t.Fatalf("canonMultipart = %q, %v", out, rj)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" || params["type"] != "text/plain" || params["boundary"] == "BB" {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	got := mpStream(multipart.NewReader(bytes.NewReader(out), params["boundary"]), 0, nil)
	if len(got) != 2 || string(got[0].Content) != "\u00e9" || string(got[1].Content) != "\r\n--BB\r\n"+smuggled("\r\n") {
		t.Errorf("parts %+v", got)
	}
	for _, g := range got {
		if g.Header.Get("Content-Disposition") != "" || g.Header.Get("Content-Transfer-Encoding") != "" {
			t.Errorf("part header %q", g.Header)
		}
	}
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
	ev := canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
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
	ev = canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
	w = ev.do(canonReq("POST", "/api/echo", ctMP, broken))
	if w.Code != 400 {
		t.Fatalf("broken body: status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("body_unreadable", "multipart", "", 0), "enforce", "", "")

	// Broken with nothing to change: refused the same, not passed on
	// for the handler's parser to fail on (a handler reading the body
	// raw would read octets no part held).
	ev = canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
	clean := strings.Replace(broken, "e\u0301", "\u00E9", 1)
	w = ev.do(canonReq("POST", "/api/echo", ctMP, clean))
	if w.Code != 400 {
		t.Fatalf("broken clean body: status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("body_unreadable", "multipart", "", 0), "enforce", "", "")
}
