package middleware

import (
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// What a handler can read of a multipart body is checked, whichever way
// it reads it: names and header values under the names classes, the
// contents of fields and text files (a file without a Content-Type is
// text/plain), quoted-printable parts as decoded, the parts a reader
// finds after a syntax error, and nested bodies.

// TestMultipartNameControls: under the strict preset every C0 control, TAB,
// LF and CR included, is refused in field names, file names (filename, and
// filename* as mime decodes it), the other decoded parameters of a part's
// Content-Disposition and Content-Type, and part header values; the default
// preset, which refuses NUL alone, lets TAB through.
func TestMultipartNameControls(t *testing.T) {
	t.Parallel()
	tab := func(field string, off int) wantLog { return forb("multipart", field, off, "tab_newline") }
	file := func(disp string) string {
		return mptest.Build("BB", "\r\n", mptest.Spec{Header: []string{"Content-Disposition: form-data; " + disp, "Content-Type: application/octet-stream"}, Data: "x"})
	}
	cases := []mpCase{
		{name: "filename* CRLF injection", body: file(`name="f"; filename*=UTF-8''a%0D%0AX-Injected%3A%201.txt`),
			status: 400, want: tab("f", 1)},
		{name: "filename* LF", body: file(`name="f"; filename*=utf-8''a%0Ab.txt`), status: 400, want: tab("f", 1)},
		{name: "filename* TAB", body: file(`name="f"; filename*=UTF-8''%09.txt`), status: 400, want: tab("f", 0)},
		{name: "filename* C0", body: file(`name="f"; filename*=UTF-8''a%01.txt`), status: 400, want: forb("multipart", "f", 1, "c0")},
		{name: "filename* NUL", body: file(`name="f"; filename*=UTF-8''a%00.txt`), status: 400, want: forb("multipart", "f", 1, "nul")},
		{name: "filename raw TAB", body: file("name=\"f\"; filename=\"a\tb.txt\""), status: 400, want: tab("f", 1)},
		{name: "filename* continuation CR", body: file(`name="f"; filename*0*=UTF-8''ab; filename*1*=%0D.txt`), status: 400, want: tab("f", 2)},
		{name: "name raw TAB", body: mptest.Build("BB", "\r\n", mptest.Field("a\tb", "x")), status: 400, want: tab(`a\x09b`, 1)},
		{name: "name* LF", body: mptest.Build("BB", "\r\n", mptest.Spec{Header: []string{`Content-Disposition: form-data; name*=UTF-8''q%0A`}, Data: "x"}),
			status: 400, want: tab(`q\x0a`, 1)},
		{name: "other disposition parameter", body: mptest.Build("BB", "\r\n", mptest.Spec{Header: []string{`Content-Disposition: form-data; name="q"; note*=UTF-8''%0D%0A`}, Data: "x"}),
			status: 400, want: tab("q", 0)},
		{name: "content type parameter", body: mptest.Build("BB", "\r\n", mptest.Field("q", "x", `Content-Type: text/plain; charset=utf-8; x*=utf-8''a%09`)),
			status: 400, want: tab("q", 1)},
		{name: "header value TAB", body: mptest.Build("BB", "\r\n", mptest.Field("q", "x", "X-Note: a\tb")), status: 400, want: tab("X-Note", 1)},
		{name: "clean names", body: file("name=\"caf\u00e9\"; filename*=UTF-8''%C3%A9t%C3%A9%20%F0%9F%98%80.txt"), status: 200,
			check: func(t *testing.T, s *mptest.Seen) {
				if len(s.Files) != 1 || s.Files[0].Filename != "\u00e9t\u00e9 \U0001F600.txt" || s.Files[0].Field != "caf\u00e9" {
					t.Errorf("files %+q", s.Files)
				}
			}},
		{name: "default preset lets TAB through", pol: deflt, body: file("name=\"f\"; filename=\"a\tb.txt\""), status: 200,
			check: func(t *testing.T, s *mptest.Seen) {
				if len(s.Files) != 1 || s.Files[0].Filename != "a\tb.txt" {
					t.Errorf("files %+q", s.Files)
				}
			}},
		{name: "default preset refuses NUL", pol: deflt, body: file(`name="f"; filename*=UTF-8''a%00.txt`), status: 400, want: forb("multipart", "f", 1, "nul")},
	}
	mpRun(t, cases)
}

// TestMultipartFileNoContentType: a file part without a Content-Type (or
// with an empty one, or one without a readable media type) is text/plain
// (RFC 7578, section 4.4), its content checked, and on a normalizing route
// normalized, like a file labelled text/plain.
func TestMultipartFileNoContentType(t *testing.T) {
	t.Parallel()
	const bad = "ab\xC0\xAE\xE2\x80\xAEcd"
	file := func(data string, header ...string) string {
		return mptest.Build("BB", "\r\n", mptest.Spec{Header: append([]string{`Content-Disposition: form-data; name="f"; filename="notes.txt"`}, header...), Data: data})
	}
	over := rej("overlong", "multipart", "f", 2)
	nfc := func() rules.Policy { p := rules.Strict(); p.Normalization = normalize.NFC; return p }
	cases := []mpCase{
		{name: "no content type", body: file(bad), status: 400, want: over},
		{name: "empty content type", body: file(bad, "Content-Type: "), status: 400, want: over},
		{name: "unreadable content type", body: file(bad, "Content-Type: @@@"), status: 400, want: over},
		{name: "text/plain", body: file(bad, "Content-Type: text/plain"), status: 400, want: over},
		{name: "binary type", body: file(bad, "Content-Type: application/octet-stream"), status: 200},
		{name: "clean", body: file("h\u00e9llo\n"), status: 200, check: func(t *testing.T, s *mptest.Seen) {
			if len(s.Files) != 1 || string(s.Files[0].Content) != "h\u00e9llo\n" {
				t.Errorf("files %+q", s.Files)
			}
		}},
		{name: "normalized", pol: nfc, body: file("e\u0301"), status: 200, check: func(t *testing.T, s *mptest.Seen) {
			if len(s.Files) != 1 || string(s.Files[0].Content) != "\u00e9" {
				t.Errorf("files %+q", s.Files)
			}
			if len(s.Stream) != 1 || string(s.Stream[0].Content) != "\u00e9" {
				t.Errorf("stream %+v", s.Stream)
			}
		}},
	}
	mpRun(t, cases)
}

// TestMultipartQuotedPrintable: a quoted-printable part is checked as
// NextPart decodes it, and one that Go's decoder fails on is refused
// (bad_escape where the failing line starts in the decoded content), text
// or binary: the decoder stops inside the part, and a handler that ignores
// the error and calls NextPart reads on from a place that depends on how
// it read, such as the next part, which a check that stopped there never
// saw.
func TestMultipartQuotedPrintable(t *testing.T) {
	t.Parallel()
	qp := "Content-Transfer-Encoding: quoted-printable"
	evil := mptest.Field("evil", "\xE2\x80\xAE")
	badEsc := func(field string, off int) wantLog { return rej("bad_escape", "multipart", field, off) }
	cases := []mpCase{
		{name: "control octet", body: mptest.Build("BB", "\r\n", mptest.Field("a", "ab\x01cd", qp), evil), status: 400, want: badEsc("a", 0)},
		{name: "control octet on a later line", body: mptest.Build("BB", "\r\n", mptest.Field("a", "ok\r\nab\x7Fcd", qp), evil), status: 400, want: badEsc("a", 4)},
		{name: "lone equals", body: mptest.Build("BB", "\r\n", mptest.Field("a", "x\r\n==\r\ny", qp), evil), status: 400, want: badEsc("a", 3)},
		// The offset counts decoded octets: "caf\u00e9\r\n" (7) and
		// "xy\r\n" (4) before the failing line, not the 11 and 7 sent.
		{name: "control octet after escapes", body: mptest.Build("BB", "\r\n", mptest.Field("a", "caf=C3=A9\r\nab\x01", qp), evil), status: 400, want: badEsc("a", 7)},
		{name: "lone equals after a soft break", body: mptest.Build("BB", "\r\n", mptest.Field("a", "x=\r\ny\r\n==", qp), evil), status: 400, want: badEsc("a", 4)},
		{name: "line over the decoder's buffer", body: mptest.Build("BB", "\r\n", mptest.Field("a", strings.Repeat("a", 5000), qp), evil), status: 400, want: badEsc("a", 0)},
		{name: "binary file", body: mptest.Build("BB", "\r\n",
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.bin"`, "Content-Type: application/octet-stream", qp}, Data: "\x01"}, evil),
			status: 400, want: badEsc("f", 0)},
		{name: "decodes to bidi", body: mptest.Build("BB", "\r\n", mptest.Field("a", "x=E2=80=AEy", qp)), status: 400, want: forb("multipart", "a", 1, "bidi_control")},
		{name: "decodes to overlong across a soft break", body: mptest.Build("BB", "\r\n", mptest.Field("a", "x=C0=\r\n=AE", qp)), status: 400, want: rej("overlong", "multipart", "a", 1)},
		{name: "lower-case transfer encoding", body: mptest.Build("BB", "\r\n", mptest.Field("a", "=E2=80=AE", "content-transfer-encoding: QUOTED-PRINTABLE")),
			status: 400, want: forb("multipart", "a", 0, "bidi_control")},
		{name: "clean", body: mptest.Build("BB", "\r\n", mptest.Field("a", "caf=C3=A9 =\r\nau lait", qp)), status: 200, check: func(t *testing.T, s *mptest.Seen) {
			if got := s.Form["a"]; !slices.Equal(got, []string{"caf\u00e9 au lait"}) {
				t.Errorf("form a = %+q", got)
			}
		}},
	}
	mpRun(t, cases)
}

// TestMultipartAfterSyntaxError: after a syntax error a handler that calls
// NextPart again reads on to the next delimiter line, and gets the parts
// after it; Request.ParseMultipartForm stops at the error. Those parts are
// checked, and what they refuse is the rejection; a body with nothing
// else to refuse is refused as body_unreadable, since a handler reading
// it raw reads the octets between the error and the next delimiter,
// which no part held.
func TestMultipartAfterSyntaxError(t *testing.T) {
	t.Parallel()
	head := "--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n"
	evil := "--BB\r\nContent-Disposition: form-data; name=\"evil\"\r\n\r\n\xE2\x80\xAE\r\n--BB--\r\n"
	clean := "--BB\r\nContent-Disposition: form-data; name=\"later\"\r\n\r\nok\r\n--BB--\r\n"
	bidi := forb("multipart", "evil", 0, "bidi_control")
	cases := []mpCase{
		{name: "junk after a delimiter", body: head + "--BB\tjunk\r\ngarbage\r\n" + evil, status: 400, want: bidi},
		{name: "malformed part header", body: head + "--BB\r\nnot a header\r\n\r\nzz\r\n" + evil, status: 400, want: bidi},
		{name: "preamble line over the reader's buffer", body: strings.Repeat("p", 5000) + "\r\n" + evil, status: 400, want: bidi},
		// Go's reader fails at the junk line; a handler that calls
		// NextPart again reads on to "later", and one that reads the
		// body raw reads "garbage", which no part held.
		{name: "clean part after junk", body: head + "--BB\tjunk\r\ngarbage\r\n" + clean, status: 400,
			want: rej("body_unreadable", "multipart", "", 0)},
		{name: "malformed part header before a clean part", body: head + "--BB\r\nContent-Disposition: form-data; name=\"n\x01\"\r\n\r\n\xc0\xae\r\n" + clean,
			status: 400, want: rej("body_unreadable", "multipart", "", 0)},
		{name: "header line without a colon", body: head + "--BB\r\nNoColon\r\n\r\n\xc0\xae\r\n" + clean,
			status: 400, want: rej("body_unreadable", "multipart", "", 0)},
		{name: "unterminated clean part", body: head + "--BB\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nab",
			status: 400, want: rej("body_unreadable", "multipart", "", 0)},
		{name: "unterminated last part", body: head + "--BB\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nab\xC0\xAE",
			status: 400, want: rej("overlong", "multipart", "q", 2)},
	}
	mpRun(t, cases)
}

// TestMultipartNested: a part whose Content-Type is multipart/* with a
// boundary is read again as a multipart body, as a handler may read it,
// its parts checked as the body's are; a field's nested body is also one
// form value for Request.ParseMultipartForm, and checked as text besides.
func TestMultipartNested(t *testing.T) {
	t.Parallel()
	nested := func(outer string, inner ...mptest.Spec) string {
		return mptest.Build("BB", "\r\n", mptest.Field("a", "1"),
			mptest.Spec{Header: []string{"Content-Disposition: form-data; " + outer, "Content-Type: multipart/mixed; boundary=CC"}, Data: strings.TrimSuffix(mptest.Build("CC", "\r\n", inner...), "\r\n")})
	}
	fileSpec := func(name, ct, data string, header ...string) mptest.Spec {
		return mptest.Spec{Header: append([]string{`Content-Disposition: file; filename="` + name + `"`, "Content-Type: " + ct}, header...), Data: data}
	}
	// deep nests n bodies in one another: the top-level one's boundary
	// is Z<n>, the innermost one's Z0.
	deep := func(n int) (ct, body string) {
		body = mptest.Build("Z0", "\r\n", mptest.Field("leaf", "x"))
		for i := 1; i <= n; i++ {
			inner := "Content-Type: multipart/mixed; boundary=Z" + strconv.Itoa(i-1)
			body = mptest.Build("Z"+strconv.Itoa(i), "\r\n", mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"`, inner}, Data: strings.TrimSuffix(body, "\r\n")})
		}
		return "multipart/form-data; boundary=Z" + strconv.Itoa(n), body
	}
	atCT, at := deep(upload.MaxDepth)
	overCT, over := deep(upload.MaxDepth + 1)
	cases := []mpCase{
		{name: "RFC 2388 files", body: nested(`name="files"`, fileSpec("file1.txt", "text/plain", "one"), fileSpec("file2.txt", "text/plain", "two")),
			status: 200, check: func(t *testing.T, s *mptest.Seen) {
				if got := mptest.Names(s.Stream); len(got) != 4 {
					t.Errorf("stream parts %q, want a, files and its two", got)
				}
			}},
		{name: "quoted-printable nested part", body: nested(`name="files"`, fileSpec("a.txt", "text/plain", "=E2=80=AE", "Content-Transfer-Encoding: quoted-printable")),
			status: 400, want: forb("multipart", "", 0, "bidi_control")},
		{name: "field's nested body checked as text", body: nested(`name="files"`, mptest.Spec{Header: []string{`Content-Disposition: file; filename="n.txt"`}, Data: "a\xE2\x80\xAE"}),
			status: 400, want: forb("multipart", "files", -1, "bidi_control")},
		{name: "nested file without a content type", body: nested(`name="files"; filename="all"`, mptest.Spec{Header: []string{`Content-Disposition: file; filename="n.txt"`}, Data: "a\xE2\x80\xAE"}),
			status: 400, want: forb("multipart", "", 1, "bidi_control")},
		{name: "nested name", body: nested(`name="files"`, mptest.Spec{Header: []string{"Content-Disposition: form-data; name*=utf-8''a%0D"}, Data: "x"}),
			status: 400, want: forb("multipart", `a\x0d`, 1, "tab_newline")},
		{name: "binary in a field's nested body is a form value", body: nested(`name="files"`, fileSpec("a.png", "image/png", "\xFFPNG")),
			status: 400, want: rej("invalid_byte", "multipart", "files", -1)},
		{name: "binary in a file's nested body", body: nested(`name="files"; filename="all.bin"`, fileSpec("a.png", "image/png", "\x89PNG\xFF")),
			status: 200},
		{name: "nesting at the limit", ct: atCT, body: at, status: 200},
		{name: "nesting over the limit", ct: overCT, body: over, status: 400, want: rej("too_large", "multipart", "", 0)},
		{name: "nested boundary over 70 octets", body: mptest.Build("BB", "\r\n",
			mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"`, "Content-Type: multipart/mixed; boundary=" + strings.Repeat("c", 71)}, Data: strings.TrimSuffix(mptest.Build(strings.Repeat("c", 71), "\r\n", mptest.Field("x", "1")), "\r\n")}),
			status: 400, want: rej("bad_media_type", "multipart", "boundary", 70)},
	}
	mpRun(t, cases)
}

// TestMultipartLongBoundary: a boundary longer than RFC 2046's 70 octets is
// refused (bad_media_type): Go's reader takes it, but past about 4 KiB a
// delimiter no longer fits its buffer and it fails inside a part.
func TestMultipartLongBoundary(t *testing.T) {
	t.Parallel()
	b70, b71 := strings.Repeat("b", 70), strings.Repeat("b", 71)
	mpRun(t, []mpCase{
		{name: "70", ct: "multipart/form-data; boundary=" + b70, body: mptest.Build(b70, "\r\n", mptest.Field("q", "x")), status: 200},
		{name: "71", ct: "multipart/form-data; boundary=" + b71, body: mptest.Build(b71, "\r\n", mptest.Field("q", "x")), status: 400,
			want: rej("bad_media_type", "multipart", "boundary", 70)},
	})
}

// TestMultipartMixed: multipart/mixed, which Request.MultipartReader takes
// as it takes multipart/form-data: parts without a Content-Disposition are
// fields, checked as text; attachments with a file name are files. Through
// the middleware once multipart/mixed bodies reach the multipart check (the body
// location is media.go's to choose), and directly in any case.
func TestMultipartMixed(t *testing.T) {
	t.Parallel()
	const ct = "multipart/mixed; boundary=BB"
	plain := func(data string, header ...string) mptest.Spec { return mptest.Spec{Header: header, Data: data} }
	cases := []mpCase{
		{name: "clean", ct: ct, body: mptest.Build("BB", "\r\n", plain("caf\u00e9"), plain("x", "Content-Type: text/plain")), status: 200,
			check: func(t *testing.T, s *mptest.Seen) {
				if len(s.Stream) != 2 || string(s.Stream[0].Content) != "caf\u00e9" {
					t.Errorf("stream %+v", s.Stream)
				}
			}},
		{name: "part without disposition", ct: ct, body: mptest.Build("BB", "\r\n", plain("ok"), plain("a\xE2\x80\xAE")), status: 400,
			want: forb("multipart", "", 1, "bidi_control")},
		{name: "inline part", ct: ct, body: mptest.Build("BB", "\r\n", plain("\xC0\xAE", "Content-Disposition: inline")), status: 400,
			want: rej("overlong", "multipart", "", 0)},
		{name: "attachment without content type", ct: ct, body: mptest.Build("BB", "\r\n", plain("\xFF", `Content-Disposition: attachment; filename="a.txt"`)),
			status: 400, want: rej("invalid_byte", "multipart", "", 0)},
		{name: "binary attachment", ct: ct, body: mptest.Build("BB", "\r\n", plain("\xFF\x00", `Content-Disposition: attachment; filename="a.bin"`, "Content-Type: application/octet-stream")),
			status: 200},
		{name: "header controls", ct: ct, body: mptest.Build("BB", "\r\n", plain("x", "Subject: a\tb")), status: 400,
			want: forb("multipart", "Subject", 1, "tab_newline")},
		{name: "quoted-printable", ct: ct, body: mptest.Build("BB", "\r\n", plain("=00", "Content-Transfer-Encoding: quoted-printable")), status: 400,
			want: forb("multipart", "", 0, "nul")},
		{name: "rebuilt under NFC", pol: mptest.StrictForm(normalize.NFC), ct: ct, status: 200,
			body: mptest.Build("BB", "\r\n", plain("e\u0301"), plain(mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled("\r\n")), "Content-Transfer-Encoding: quoted-printable")),
			check: func(t *testing.T, s *mptest.Seen) {
				mt, params, _ := mime.ParseMediaType(s.ContentType)
				if mt != "multipart/mixed" || params["boundary"] == "BB" || len(s.Stream) != 2 || string(s.Stream[0].Content) != "\u00e9" {
					t.Errorf("Content-Type %q, stream %+v", s.ContentType, s.Stream)
				}
			}},
	}
	// Directly: what the multipart check says of the body, whatever
	// routes it.
	p := compiled.Compile(rules.Strict())
	for _, tc := range cases {
		r := req(http.MethodPost, "/", tc.ct, strings.NewReader(tc.body))
		sp, _, rj := upload.Check(r, p, tc.ct, nil, checkTrailers)
		sp.Release()
		switch {
		case tc.status == 200 && rj != nil:
			t.Errorf("%s: upload.Check refuses: %v", tc.name, rj)
		case tc.status != 200 && (rj == nil || rj.Reason.String() != tc.want.reason || rj.Field != tc.want.field):
			t.Errorf("%s: upload.Check = %v, want %s in field %q", tc.name, rj, tc.want.reason, tc.want.field)
		}
	}
	if loc, text, rj := bodyLocation(p, "multipart/mixed; boundary=x", "multipart", "mixed"); loc != rules.Multipart || !text || rj != nil {
		t.Fatalf("multipart/mixed is checked as %v, %v, %v; want multipart", loc, text, rj)
	}
	mpRun(t, cases)
}

// TestMultipartFileNameSyntax: a file name whose canonical form holds path
// syntax it did not is refused (canonical_syntax), as a path's is: NFKC
// maps "．．／" to "../", "＼" to "\". A handler that reads the name from
// the Content-Disposition (not FileHeader.Filename, which net/http cuts to
// its base) would otherwise join a traversal into a path.
func TestMultipartFileNameSyntax(t *testing.T) {
	t.Parallel()
	nfkc := func() rules.Policy { p := rules.Strict(); p.Normalization = normalize.NFKC; return p }
	file := func(disp string) string {
		return mptest.Build("BB", "\r\n", mptest.Spec{Header: []string{"Content-Disposition: form-data; " + disp, "Content-Type: application/octet-stream"}, Data: "x"})
	}
	syntax := wantLog{reason: "canonical_syntax", location: "multipart", field: "f", offset: -1}
	cases := []mpCase{
		{name: "fullwidth dots and solidus", pol: nfkc, body: file("name=\"f\"; filename*=UTF-8''" + esc("．．／．．／etc／passwd")), status: 400, want: syntax},
		{name: "fullwidth reverse solidus", pol: nfkc, body: file("name=\"f\"; filename=\"a＼b.txt\""), status: 400, want: syntax},
		{name: "one dot leader segment", pol: nfkc, body: file("name=\"f\"; filename=\"a/\u2024/b\""), status: 400, want: syntax},
		{name: "ligature is no syntax", pol: nfkc, body: file("name=\"f\"; filename=\"ﬁle.txt\""), status: 200},
		{name: "syntax as sent is the client's", pol: nfkc, body: file("name=\"f\"; filename=\"../a.txt\""), status: 200},
	}
	mpRun(t, cases)
}

// TestMultipartOutsideParts: the octets outside a multipart body's parts,
// which no multipart reader hands out but a handler reading the body as it
// is does (json.NewDecoder(r.Body) decodes the preamble's first value),
// are checked as text; and a "multipart" type without a subtype, or
// without a boundary, which no multipart reader accepts, is not passed on
// as if it had been checked (FuzzOracle's findings).
func TestMultipartOutsideParts(t *testing.T) {
	t.Parallel()
	part := "--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--BB--\r\n"
	cases := []mpCase{
		{name: "JSON preamble with an invalid octet", body: "{\"a\":\"\xff\"}\r\n" + part, status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", offset: 6}},
		{name: "bidi in the preamble", body: "note \u202e\r\n" + part, status: 400, want: wantLog{reason: "forbidden_char", location: "multipart", offset: 5}},
		{name: "overlong in the epilogue", body: part + "\xc0\xae", status: 400, want: wantLog{reason: "overlong", location: "multipart", offset: len(part)}},
		{name: "no delimiter at all", body: "{\"a\":\"\xff\"}", status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", offset: 6}},
		{name: "delimiter text inside a preamble line", body: "x--BB \xff\r\n" + part, status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", offset: 6}},
		{name: "clean preamble and epilogue", body: "This is a multi-part message.\r\n" + part + "trailing words\r\n", status: 200},
		{name: "no subtype", ct: "multipArt;BoundArY=BB", body: part, status: 415, want: wantLog{reason: "unsupported_media_type", location: "body", field: "Content-Type", offset: -1}},
		{name: "no boundary", ct: "multipart/form-data", body: part, status: 400, want: wantLog{reason: "bad_media_type", location: "multipart", field: "boundary", offset: -1}},
	}
	mpRun(t, cases)
}

// multipartCases: multipart/form-data bodies.
func multipartCases() []locCase {
	text := func(name, data string) mpPart { return mpPart{disp: `name="` + name + `"`, data: data} }
	file := func(disp, ct, data string) mpPart { return mpPart{disp: disp, ct: ct, data: data} }
	c := []locCase{
		{name: "clean", body: multipartBody(text("q", "été"), file(`name="f"; filename="été.txt"`, "text/plain", "héllo\n")), status: 200},
		{name: "field name", body: multipartBody(text("\xC0\xAE", "x")), want: rej("overlong", "multipart", `\xc0\xae`, 0)},
		{name: "field value", body: multipartBody(text("a", "1"), text("q", "ab\xED\xA0\x80")), want: rej("surrogate", "multipart", "q", 2)},
		{name: "filename raw", body: multipartBody(file("name=\"f\"; filename=\"\xC0\xAE.txt\"", "application/octet-stream", "x")), want: rej("overlong", "multipart", "f", 0)},
		{name: "filename* RFC 5987", body: multipartBody(file(`name="f"; filename*=UTF-8''%C0%AE.txt`, "application/octet-stream", "x")), want: rej("overlong", "multipart", "f", 0)},
		{name: "filename* clean", body: multipartBody(file(`name="f"; filename*=UTF-8''%C3%A9t%C3%A9.txt`, "application/octet-stream", "x")), status: 200},
		{name: "text file content", body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain", "ok\xFF")), want: rej("invalid_byte", "multipart", "f", 2)},
		{name: "binary file content passes", body: multipartBody(file(`name="f"; filename="a.png"`, "image/png", "\x89PNG\xC0\xAE\xFF\x00")), status: 200},
		{name: "text file latin1 strict", body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain; charset=iso-8859-1", "\xE9")), want: rej("bad_charset", "multipart", "f", 0)},
		{name: "text file latin1 default", pol: deflt, body: multipartBody(file(`name="f"; filename="a.txt"`, "text/plain; charset=iso-8859-1", "\xE9")), status: 200},
		{name: "parts count", pol: withLimits(func(l *rules.Limits) { l.MultipartParts = 2 }), body: multipartBody(text("a", "1"), text("b", "2"), text("c", "3")), status: 400, want: rej("too_large", "multipart", "", 0)},
		{name: "parts at the limit", pol: withLimits(func(l *rules.Limits) { l.MultipartParts = 2 }), body: multipartBody(text("a", "1"), text("b", "2")), status: 200},
		{name: "field length", pol: withLimits(func(l *rules.Limits) { l.FieldBytes = 8 }), body: multipartBody(text("q", "123456789")), status: 400, want: rej("too_large", "multipart", "q", 0)},
		{name: "body too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 64 }), body: multipartBody(text("q", strings.Repeat("a", 100))), status: 413, want: rej("too_large", "multipart", "", 0)},
		{name: "fields count", pol: withLimits(func(l *rules.Limits) { l.Fields = 2 }), body: multipartBody(text("a", "1"), file(`name="f"; filename="a.png"`, "image/png", "x"), text("b", "2"), text("c", "3")), status: 400, want: rej("too_large", "multipart", "", 0)},
		{name: "files do not count as fields", pol: withLimits(func(l *rules.Limits) { l.Fields = 2 }), body: multipartBody(text("a", "1"), file(`name="f"; filename="a.png"`, "image/png", "x"), text("b", "2")), status: 200},
		{name: "empty filename is a value", body: multipartBody(file(`name="f"; filename=""`, "", "\xC0\xAE")), want: rej("overlong", "multipart", "f", 0)},
		{name: "field named filename", body: multipartBody(text("filename", "\xFF")), want: rej("invalid_byte", "multipart", "filename", 0)},
		{name: "part without disposition", body: "--XBOUNDARYX\r\nContent-Type: text/plain\r\n\r\nok\xFF\r\n--XBOUNDARYX--\r\n", want: rej("invalid_byte", "multipart", "", 2)},
		{name: "part with a broken disposition", body: "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"a\r\n\r\n\xE2\x82\r\n--XBOUNDARYX--\r\n", want: rej("truncated", "multipart", "", 0)},
		{name: "unterminated last part", body: "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\nab\xC0\xAE", want: rej("overlong", "multipart", "q", 2)},
		{name: "dotted capital I in the type", ct: "multİpart/form-data; boundary=XBOUNDARYX", body: multipartBody(text("q", "\x80")), want: rej("unexpected_continuation", "multipart", "q", 0)},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: multipartBody(text("q", "ab"+e.raw)), want: rej(e.reason, "multipart", "q", 2)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: multipartBody(text("q", f.raw)), want: forb("multipart", "q", 0, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" {
			c[i].ct = ctMP
		}
	}
	return c
}
