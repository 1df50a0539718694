package middleware

import (
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/rules"
)

func TestMultipartHeaderLines(t *testing.T) {
	t.Parallel()
	lines := func(n int) func() rules.Policy {
		return func() rules.Policy {
			p := rules.Strict()
			p.Limits.MultipartHeaderLines = n
			return p
		}
	}
	over := wantLog{reason: "too_large", location: "multipart", offset: -1}
	const def = rules.DefaultMultipartHeaderLines
	nested := func(inner string) string {
		return mptest.Build("BB", "\r\n", mptest.Spec{Header: []string{`Content-Disposition: form-data; name="n"`, "Content-Type: multipart/mixed; boundary=CC"}, Data: inner})
	}
	folded := mptest.Spec{Header: append(mptest.HeaderLines("q", def-3), "X-Long: a", " b", "\tc"), Data: "v"} // def+1 lines, def-1 fields
	cases := []mpCase{
		{name: "at the default", body: mptest.Build("BB", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", def-1), Data: "v"}), status: 200},
		{name: "over the default", body: mptest.Build("BB", "\r\n", mptest.Field("a", "1"), mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"}), status: 400, want: over},
		{name: "folded lines count", body: mptest.Build("BB", "\r\n", folded), status: 400, want: over},
		{name: "LF line ends", body: mptest.Build("BB", "\n", mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"}), status: 400, want: over},
		{name: "LF line ends at the default", body: mptest.Build("BB", "\n", mptest.Spec{Header: mptest.HeaderLines("q", def-1), Data: "v"}), status: 200},
		{name: "an earlier part's violation first", body: mptest.Build("BB", "\r\n", mptest.Field("a", "\xff"), mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"}),
			status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", field: "a", offset: 0}},
		{name: "a later part's violation before it first", body: mptest.Build("BB", "\r\n", mptest.Field("a", "1"), mptest.Field("b", "2"), mptest.Field("c", "x\xff"), mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"}),
			status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", field: "c", offset: 1}},
		{name: "nested part over", body: nested(mptest.Build("CC", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"})), status: 400, want: over},
		{name: "nested part at the default", body: nested(mptest.Build("CC", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", def-1), Data: "v"})), status: 200},
		{name: "after a syntax error", body: "--BB\r\nbroken\r\n\r\n--BB\r\n" + strings.Join(mptest.HeaderLines("q", def), "\r\n") + "\r\n\r\nv\r\n--BB--\r\n",
			status: 400, want: over},
		{name: "after a preamble line longer than the reader's buffer", body: strings.Repeat("x", upload.PeekBufferSize) +
			mptest.Build("BB", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", def), Data: "v"}), status: 400, want: over},
		{name: "set lower", pol: lines(2), body: mptest.Build("BB", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 2), Data: "v"}), status: 400, want: over},
		{name: "set lower, quoted-printable at it", pol: lines(2),
			body: mptest.Build("BB", "\r\n", mptest.Spec{Header: append(mptest.HeaderLines("q", 0), "Content-Transfer-Encoding: quoted-printable"), Data: "=C3=A9"}), status: 200},
		{name: "no limit", pol: lines(-1), body: mptest.Build("BB", "\r\n", mptest.Spec{Header: mptest.HeaderLines("q", 40), Data: "v"}), status: 200},
		{name: "delimiter text in content is content", body: mptest.Build("BB", "\r\n", mptest.Field("q", "a--BB\r\n"+strings.Repeat("line\r\n", 20))), status: 200},
	}
	mpRun(t, cases)
}

// TestMultipartHeaderLinesOneOctet: a body that comes one octet per read
// is cut and refused where it is when it comes whole.
func TestMultipartHeaderLinesOneOctet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		extra, status int
	}{{rules.DefaultMultipartHeaderLines - 1, http.StatusOK}, {rules.DefaultMultipartHeaderLines, http.StatusBadRequest}} {
		body := mptest.Build("BB", "\r\n", mptest.Field("a", "1"), mptest.Spec{Header: mptest.HeaderLines("q", tc.extra), Data: "v"}, mptest.Field("z", "2"))
		for _, m := range mpMounts {
			srv := newServer(t, mpSetup(rules.Strict(), m), &mpRec{})
			w := srv.do(mpPost("multipart/form-data; boundary=BB", iotest.OneByteReader(strings.NewReader(body))))
			if s := srv.rec.take(); w.Code != tc.status || (s == nil) != (tc.status != http.StatusOK) {
				t.Errorf("%s, %d extra lines: status %d, handler ran %v; want %d", m, tc.extra, w.Code, s != nil, tc.status)
			}
		}
	}
}
