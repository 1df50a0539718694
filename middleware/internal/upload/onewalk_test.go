package upload

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The one walk (checkStream with an mpRebuild, then canon) against
// the two walks it replaced: the check, then canonMultipart over the body
// in memory, or canonSpoolTwoWalk over the body spooled to a file, which
// read the body as sent again. With the same boundaries drawn, the
// handler must get the same octets and the same Content-Type, and a
// refused body the same rejection: reason, location, field, offset.

// drawSeq returns a draw of boundaries that gives the same sequence
// every time it is made: the two walks and the one draw alike.
func drawSeq() func() string {
	i := 0
	return func() string {
		i++
		return fmt.Sprintf("OneWalkBoundary%04dQx7", i)
	}
}

// withDraw runs f with randText drawing from drawSeq.
func withDraw(f func()) {
	saved := randText
	randText = drawSeq()
	defer func() { randText = saved }()
	f()
}

// mpOutcome is what a handler gets of a multipart body, or its rejection.
type mpOutcome struct {
	rj   string
	ct   string
	body string
}

func outcomeOf(rj *finding.Rejection, r *http.Request, body []byte) mpOutcome {
	if rj != nil {
		return mpOutcome{rj: fmt.Sprintf("%s %s %q %d", rj.Reason, rj.Location, rj.Field, rj.Offset)}
	}
	return mpOutcome{ct: r.Header.Get("Content-Type"), body: string(body)}
}

// oneWalk is what the handler gets through Check.
func oneWalk(t *testing.T, p *compiled.Policy, ct string, body []byte, spilled bool) mpOutcome {
	t.Helper()
	var out mpOutcome
	withDraw(func() {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", ct)
		if spilled {
			r.ContentLength = spoolMemory + 1
		}
		store := NewStore(t.TempDir(), -1)
		sp, _, rj := Check(r, p, ct, store, noTrailers)
		defer func() { sp.Release() }()
		var got []byte
		if rj == nil {
			var err error
			if got, err = io.ReadAll(r.Body); err != nil {
				t.Fatal(err)
			}
		}
		out = outcomeOf(rj, r, got)
	})
	return out
}

// twoWalks is what the handler got before: the check, then the rebuild
// reading the body again (canonBody's dispatch as it was).
func twoWalks(t *testing.T, p *compiled.Policy, ct string, body []byte, spilled bool) mpOutcome {
	t.Helper()
	var out mpOutcome
	withDraw(func() {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", ct)
		if spilled {
			r.ContentLength = spoolMemory + 1
		}
		store := NewStore(t.TempDir(), -1)
		sp, _, rj := Check(r, p, ct, store, noTrailers)
		defer func() { sp.Release() }()
		randText = drawSeq() // the rebuild starts drawing afresh, as it did after the check
		if rj == nil && sp != nil {
			sp.rebuild.release() // the one walk's: not used here
			if mem, ok := sp.inMemory(); ok {
				var nb []byte
				if nb, rj = canonMultipart(p, r, mem); rj == nil && nb != nil {
					if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(nb)) > lim {
						rj = finding.TooLarge(rules.Multipart, "", lim)
					} else {
						bodyio.SetBody(r, nb)
					}
				}
			} else {
				sp, rj = canonSpoolTwoWalk(r, p, sp, store)
			}
		}
		var got []byte
		if rj == nil {
			var err error
			if got, err = io.ReadAll(r.Body); err != nil {
				t.Fatal(err)
			}
		}
		out = outcomeOf(rj, r, got)
	})
	return out
}

// oneWalkSeeds are bodies of the rebuild tests: smuggling through
// quoted-printable and normalization, collisions, nested bodies, file
// names, data parts, broken bodies.
func oneWalkSeeds() []string {
	crlf := "\r\n"
	qp := "Content-Transfer-Encoding: quoted-printable"
	file := func(name, ct, data string) mptest.Spec {
		return mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="` + name + `"`, "Content-Type: " + ct}, Data: data}
	}
	return []string{
		mptest.Build("BB", crlf, mptest.Field("x", mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled(crlf)), qp), mptest.Field("z", "e\u0301")),
		mptest.Build("BB", "\n", mptest.Field("x", mptest.QPAll("x\n--BB\n"+mptest.Smuggled("\n")), qp), mptest.Field("z", "e\u0301")),
		mptest.Build("BB", crlf, mptest.Field("x", "x=0D=\r\n=0A-=\r\n-B=\r\nB=0D=0A"+mptest.QPAll(mptest.Smuggled(crlf)), qp), mptest.Field("z", "e\u0301")),
		mptest.Build("KK", crlf, mptest.Field("x", "x\r\n--\u212A\u212A--\r\n"), mptest.Field("after", "1")),
		mptest.Build("BB", crlf, mptest.Field("x", "x\r\n\uFF0D\uFF0DBB\r\n"+mptest.Smuggled(crlf))),
		mptest.Build("BB", crlf, mptest.Field("a\uFF02; filename=\uFF02evil.txt", "\uFDFA")),
		mptest.Build("BB", crlf, mptest.Field("\u00e9", "1"), mptest.Field("e\u0301", "2")),
		mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"; filename="all"`, "Content-Type: multipart/mixed; boundary=CC"},
			Data: strings.TrimSuffix(mptest.Build("CC", crlf, mptest.Field("in", mptest.QPAll("e\u0301\r\n--CC\r\n"+mptest.Smuggled(crlf)), qp), mptest.Field("e\u0301", "x")), crlf)}),
		mptest.Build("BB", crlf, mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="a.txt"`}, Data: "A\u030a\r\n--BB"}),
		"--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\ne\u0301\r\n--BB\tjunk\r\n--BB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n--BB--\r\n",
		mptest.Build("BB", crlf, file("Cafe\u0301.jpg", "image/jpeg", "\xff\xd8\xff\xe0\x00"), mptest.Field("c", "e\u0301")),
		mptest.Build("BB", crlf, file("a.txt", "text/plain", "A\u030a"), mptest.Field("x", mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled(crlf)), qp)),
		mptest.Build("BB", crlf, file("\uff0e\uff0e\uff0fx", "application/octet-stream", "x")),
		"pre\r\n" + mptest.Build("BB", "\n", file("e\u0301", "application/zip", "PK\x03\x04--BB"), mptest.Field("z", "y")) + "epi",
		mptest.Build("BB", crlf, file("d.bin", "application/octet-stream", "data"), mptest.Field("c", "e\u0301"), file("e.bin", "application/octet-stream", "more")),
		mptest.Build("BB", crlf, mptest.Field("c", "e\u0301"), file("d.bin", "application/octet-stream", "OneWalkBoundary0001Qx7")),
		mptest.Build("BB", crlf, mptest.Field("c", "OneWalkBoundary0001Qx7 e\u0301")),
		mptest.Build("BB", crlf, file("x.bin", "application/octet-stream", "d"), mptest.Field("c", "e\u0301"))[:60],
		mptest.Build("BB", crlf, mptest.Field("plain", "caf\u00e9"), mptest.Field("also", "ok")),
	}
}

// TestMultipartOneWalk holds the one walk to the two walks on the
// rebuild tests' bodies, in memory and spooled, under NFC and NFKC.
func TestMultipartOneWalk(t *testing.T) {
	for _, form := range []normalize.Form{normalize.NFC, normalize.NFKC} {
		p := compiled.Compile(mptest.StrictForm(form)())
		for i, body := range oneWalkSeeds() {
			for _, spilled := range []bool{false, true} {
				ct := mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": seedBoundary(body)})
				want := twoWalks(t, p, ct, []byte(body), spilled)
				got := oneWalk(t, p, ct, []byte(body), spilled)
				if got != want {
					t.Errorf("%v body %d spilled %v:\n one walk  %+v\n two walks %+v", form, i, spilled, got, want)
				}
			}
		}
	}
}

// seedBoundary is the boundary of a seed body: its first delimiter's.
func seedBoundary(body string) string {
	i := strings.Index(body, "--")
	if i < 0 {
		return "BB"
	}
	rest := body[i+2:]
	if j := strings.IndexAny(rest, "\r\n\t"); j > 0 {
		return rest[:j]
	}
	return "BB"
}

// FuzzMultipartOneWalk: whatever the body, the one walk and the two walks
// answer alike: the same rejection, or the same octets and Content-Type
// for the handler. Seeds: oneWalkSeeds.
func FuzzMultipartOneWalk(f *testing.F) {
	for _, body := range oneWalkSeeds() {
		f.Add([]byte(body), seedBoundary(body), false, false)
	}
	pols := map[bool]*compiled.Policy{false: compiled.Compile(mptest.StrictForm(normalize.NFC)()), true: compiled.Compile(mptest.StrictForm(normalize.NFKC)())}
	f.Fuzz(func(t *testing.T, body []byte, boundary string, nfkc, spilled bool) {
		ct := mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary})
		if ct == "" || boundary == "" {
			return
		}
		p := pols[nfkc]
		want := twoWalks(t, p, ct, body, spilled)
		got := oneWalk(t, p, ct, body, spilled)
		if got != want {
			t.Fatalf("one walk  %+v\ntwo walks %+v", got, want)
		}
	})
}
