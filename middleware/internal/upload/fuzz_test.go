package upload

import (
	"bytes"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
)

// FuzzMultipartRebuild: whatever checkMultipart and canonMultipart accept
// on a normalizing route is, for a handler that reads it with Go's
// multipart.Reader (retrying after errors, nested bodies included),
// exactly the canonical form of the parts of the body as sent (by the
// oracle's own reading: the standard library's reader and x/text's norm),
// and every name, header value and text content it reads satisfies the
// policy; under NFC or NFKC, as multipart/form-data or multipart/mixed.
// Seeds: the smuggling variants of the tests, and
// testdata/fuzz/FuzzMultipartRebuild.
func FuzzMultipartRebuild(f *testing.F) {
	crlf := "\r\n"
	qp := "Content-Transfer-Encoding: quoted-printable"
	seeds := []struct {
		boundary, body string
		nfkc           bool
	}{
		{"BB", mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled(crlf)), qp), mptest.Field("z", "e\u0301")), false},
		{"BB", mptest.Build("BB", "\n", mptest.Field("x", mptest.QPAll("x\n--BB\n"+mptest.Smuggled("\n")), qp), mptest.Field("z", "e\u0301")), false},
		{"BB", mptest.Build("BB", crlf, mptest.Field("x", "x=0D=\r\n=0A-=\r\n-B=\r\nB=0D=0A"+mptest.QPAll(mptest.Smuggled(crlf)), qp), mptest.Field("z", "e\u0301")), false},
		{"`X", mptest.Build("`X", crlf, mptest.Field("x", "x\r\n--\u1FEFX\r\n"+mptest.Smuggled(crlf))), false},
		{"KK", mptest.Build("KK", crlf, mptest.Field("x", "x\r\n--\u212A\u212A--\r\n"), mptest.Field("after", "1")), false},
		{"BB", mptest.Build("BB", crlf, mptest.Field("x", "x\r\n\uFF0D\uFF0DBB\r\n"+mptest.Smuggled(crlf))), true},
		{"BB", mptest.Build("BB", crlf, mptest.Field("a\uFF02; filename=\uFF02evil.txt", "\uFDFA")), true},
		{"BB", mptest.Build("BB", crlf, mptest.Field("\u00e9", "1"), mptest.Field("e\u0301", "2")), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"; filename="all"`, "Content-Type: multipart/mixed; boundary=CC"},
			Data: strings.TrimSuffix(mptest.Build("CC", crlf, mptest.Field("in", mptest.QPAll("e\u0301\r\n--CC\r\n"+mptest.Smuggled(crlf)), qp)), crlf)}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"`}, Data: "A\u030a\r\n--BB"}), false},
		{"BB", "--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\ne\u0301\r\n--BB\tjunk\r\n--BB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n--BB--\r\n", false},
		// Part header blocks: escapes, fields and parameters twice,
		// extended values Go drops, a field in another charset.
		{"BB", mptest.Build("BB", crlf, mptest.Field("x", "<a>"), mptest.Spec{Header: []string{`Content-Disposition: form-data; name="y"`, "X-Note: &#x202e;&#x85;"}, Data: "</a>"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="b&#x202e;"`, `X-Note: \u202e`}, Data: "e\u0301"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="a"`, `content-disposition: form-data; name="b"`}, Data: "e\u0301"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"; filename*=UTF-8''b%E2%80%AE.exe`}, Data: "e\u0301"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename*0*=UTF-8''a; filename*1*=%u202E; filename*3=x`}, Data: "1"}), true},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename*=x-bogus''%E2%80%AE`}, Data: "1"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="a"`, "Content-Type: text/plain; charset=utf-7"}, Data: "+IC4-e\u0301"}), false},
		{"BB", mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="a"`, qp, "Content-Transfer-Encoding: &#x202e;"}, Data: "e\u0301"}), false},
	}
	for _, s := range seeds {
		f.Add([]byte(s.body), s.boundary, s.nfkc, false)
	}
	nfc, nfkc := mptest.StrictForm(normalize.NFC)(), mptest.StrictForm(normalize.NFKC)()
	pols := map[bool]*compiled.Policy{false: compiled.Compile(nfc), true: compiled.Compile(nfkc)}
	f.Fuzz(func(t *testing.T, body []byte, boundary string, useNFKC, mixed bool) {
		pol, p := nfc, pols[useNFKC]
		if useNFKC {
			pol = nfkc
		}
		mt := "multipart/form-data"
		if mixed {
			mt = "multipart/mixed"
		}
		ct := mime.FormatMediaType(mt, map[string]string{"boundary": boundary})
		if ct == "" || boundary == "" {
			return
		}
		r := req(http.MethodPost, "/", ct, bytes.NewReader(body))
		if checkMultipart(r, body, p) != nil {
			return
		}
		sent := string(body)
		out, rj := canonMultipart(p, r, body)
		if rj != nil {
			return // refused: the handler reads nothing
		}
		newCT := r.Header.Get("Content-Type")
		if out == nil {
			if newCT != ct {
				t.Fatalf("nothing rewritten, but the Content-Type is now %q", newCT)
			}
			out = body
		}
		_, params, err := mime.ParseMediaType(newCT)
		if err != nil {
			t.Fatalf("Content-Type %q: %v", newCT, err)
		}
		seen := &mptest.Seen{ContentType: newCT, Body: out,
			Stream: mptest.Stream(multipart.NewReader(bytes.NewReader(out), params["boundary"]), 0, nil)}
		for _, b := range mptest.Oracle(pol, seen) {
			t.Errorf("the handler reads %s", b)
		}
		if !bytes.Equal(out, body) {
			for _, d := range mptest.SameParts(seen.Stream, mptest.CanonParts(pol, ct, sent)) {
				t.Errorf("rebuilt: %s", d)
			}
		}
	})
}
