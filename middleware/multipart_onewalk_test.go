package middleware

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
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The one walk (checkStream with an mpRebuild, then canonSpool) against
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

func outcomeOf(rj *Rejection, r *http.Request, body []byte) mpOutcome {
	if rj != nil {
		return mpOutcome{rj: fmt.Sprintf("%s %s %q %d", rj.Reason, rj.Location, rj.Field, rj.Offset)}
	}
	return mpOutcome{ct: r.Header.Get("Content-Type"), body: string(body)}
}

// oneWalk is what the handler gets through checkBody and canonBody today.
func oneWalk(t *testing.T, p *compiled.Policy, ct string, body []byte, spilled bool) mpOutcome {
	t.Helper()
	var out mpOutcome
	withDraw(func() {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		r.Header.Set("Content-Type", ct)
		if spilled {
			r.ContentLength = spoolMemory + 1
		}
		s := getScratch()
		defer putScratch(s)
		s.store = &spoolStore{dir: t.TempDir(), limit: -1}
		defer func() { s.spool.release() }()
		rj := s.checkBody(r, p)
		if rj == nil {
			rj = s.canonBody(r, p)
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
		s := getScratch()
		defer putScratch(s)
		s.store = &spoolStore{dir: t.TempDir(), limit: -1}
		defer func() { s.spool.release() }()
		rj := s.checkBody(r, p)
		randText = drawSeq() // the rebuild starts drawing afresh, as it did after the check
		if rj == nil && s.spool != nil {
			s.spool.rebuild.release() // the one walk's: not used here
			if mem, ok := s.spool.inMemory(); ok {
				var nb []byte
				if nb, rj = canonMultipart(p, r, mem); rj == nil && nb != nil {
					if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(nb)) > lim {
						rj = finding.TooLarge(rules.Multipart, "", lim)
					} else {
						bodyio.SetBody(r, nb)
					}
				}
			} else {
				rj = s.canonSpoolTwoWalk(r, p)
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
	file := func(name, ct, data string) mpSpec {
		return mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="` + name + `"`, "Content-Type: " + ct}, data}
	}
	return []string{
		mpBuild("BB", crlf, mpField("x", qpAll("x\r\n--BB\r\n"+smuggled(crlf)), qp), mpField("z", "e\u0301")),
		mpBuild("BB", "\n", mpField("x", qpAll("x\n--BB\n"+smuggled("\n")), qp), mpField("z", "e\u0301")),
		mpBuild("BB", crlf, mpField("x", "x=0D=\r\n=0A-=\r\n-B=\r\nB=0D=0A"+qpAll(smuggled(crlf)), qp), mpField("z", "e\u0301")),
		mpBuild("KK", crlf, mpField("x", "x\r\n--\u212A\u212A--\r\n"), mpField("after", "1")),
		mpBuild("BB", crlf, mpField("x", "x\r\n\uFF0D\uFF0DBB\r\n"+smuggled(crlf))),
		mpBuild("BB", crlf, mpField("a\uFF02; filename=\uFF02evil.txt", "\uFDFA")),
		mpBuild("BB", crlf, mpField("\u00e9", "1"), mpField("e\u0301", "2")),
		mpBuild("BB", crlf, mpSpec{[]string{`Content-Disposition: form-data; name="n"; filename="all"`, "Content-Type: multipart/mixed; boundary=CC"},
			strings.TrimSuffix(mpBuild("CC", crlf, mpField("in", qpAll("e\u0301\r\n--CC\r\n"+smuggled(crlf)), qp), mpField("e\u0301", "x")), crlf)}),
		mpBuild("BB", crlf, mpSpec{[]string{`Content-Disposition: form-data; name="f"; filename="a.txt"`}, "A\u030a\r\n--BB"}),
		"--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\ne\u0301\r\n--BB\tjunk\r\n--BB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n--BB--\r\n",
		mpBuild("BB", crlf, file("Cafe\u0301.jpg", "image/jpeg", "\xff\xd8\xff\xe0\x00"), mpField("c", "e\u0301")),
		mpBuild("BB", crlf, file("a.txt", "text/plain", "A\u030a"), mpField("x", qpAll("x\r\n--BB\r\n"+smuggled(crlf)), qp)),
		mpBuild("BB", crlf, file("\uff0e\uff0e\uff0fx", "application/octet-stream", "x")),
		"pre\r\n" + mpBuild("BB", "\n", file("e\u0301", "application/zip", "PK\x03\x04--BB"), mpField("z", "y")) + "epi",
		mpBuild("BB", crlf, file("d.bin", "application/octet-stream", "data"), mpField("c", "e\u0301"), file("e.bin", "application/octet-stream", "more")),
		mpBuild("BB", crlf, mpField("c", "e\u0301"), file("d.bin", "application/octet-stream", "OneWalkBoundary0001Qx7")),
		mpBuild("BB", crlf, mpField("c", "OneWalkBoundary0001Qx7 e\u0301")),
		mpBuild("BB", crlf, file("x.bin", "application/octet-stream", "d"), mpField("c", "e\u0301"))[:60],
		mpBuild("BB", crlf, mpField("plain", "caf\u00e9"), mpField("also", "ok")),
	}
}

// TestMultipartOneWalk holds the one walk to the two walks on the
// rebuild tests' bodies, in memory and spooled, under NFC and NFKC.
func TestMultipartOneWalk(t *testing.T) {
	for _, form := range []normalize.Form{normalize.NFC, normalize.NFKC} {
		p := compiled.Compile(strictForm(form)())
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
	pols := map[bool]*compiled.Policy{false: compiled.Compile(strictForm(normalize.NFC)()), true: compiled.Compile(strictForm(normalize.NFKC)())}
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
