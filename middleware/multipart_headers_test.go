package middleware

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/utf8guard/utf8guard/rules"
)

// The header lines of a part are bounded (Limits.MultipartHeaderLines):
// a part with more is refused, too_large in location multipart (400, a
// count), once the parts before it are checked, nested bodies included;
// headScan, which counts them before Go's reader parses them, counts at
// least the lines the reader parses, however the body arrives.

// mpHeaderLines returns the header lines of a form-data field named name
// with extra more lines after its Content-Disposition.
func mpHeaderLines(name string, extra int) []string {
	h := []string{`Content-Disposition: form-data; name="` + name + `"`}
	for i := range extra {
		h = append(h, fmt.Sprintf("X-H%d: v", i))
	}
	return h
}

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
		return mpBuild("BB", "\r\n", mpSpec{[]string{`Content-Disposition: form-data; name="n"`, "Content-Type: multipart/mixed; boundary=CC"}, inner})
	}
	folded := mpSpec{append(mpHeaderLines("q", def-3), "X-Long: a", " b", "\tc"), "v"} // def+1 lines, def-1 fields
	cases := []mpCase{
		{name: "at the default", body: mpBuild("BB", "\r\n", mpSpec{mpHeaderLines("q", def-1), "v"}), status: 200},
		{name: "over the default", body: mpBuild("BB", "\r\n", mpField("a", "1"), mpSpec{mpHeaderLines("q", def), "v"}), status: 400, want: over},
		{name: "folded lines count", body: mpBuild("BB", "\r\n", folded), status: 400, want: over},
		{name: "LF line ends", body: mpBuild("BB", "\n", mpSpec{mpHeaderLines("q", def), "v"}), status: 400, want: over},
		{name: "LF line ends at the default", body: mpBuild("BB", "\n", mpSpec{mpHeaderLines("q", def-1), "v"}), status: 200},
		{name: "an earlier part's violation first", body: mpBuild("BB", "\r\n", mpField("a", "\xff"), mpSpec{mpHeaderLines("q", def), "v"}),
			status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", field: "a", offset: 0}},
		{name: "a later part's violation before it first", body: mpBuild("BB", "\r\n", mpField("a", "1"), mpField("b", "2"), mpField("c", "x\xff"), mpSpec{mpHeaderLines("q", def), "v"}),
			status: 400, want: wantLog{reason: "invalid_byte", location: "multipart", field: "c", offset: 1}},
		{name: "nested part over", body: nested(mpBuild("CC", "\r\n", mpSpec{mpHeaderLines("q", def), "v"})), status: 400, want: over},
		{name: "nested part at the default", body: nested(mpBuild("CC", "\r\n", mpSpec{mpHeaderLines("q", def-1), "v"})), status: 200},
		{name: "after a syntax error", body: "--BB\r\nbroken\r\n\r\n--BB\r\n" + strings.Join(mpHeaderLines("q", def), "\r\n") + "\r\n\r\nv\r\n--BB--\r\n",
			status: 400, want: over},
		{name: "after a preamble line longer than the reader's buffer", body: strings.Repeat("x", peekBufferSize) +
			mpBuild("BB", "\r\n", mpSpec{mpHeaderLines("q", def), "v"}), status: 400, want: over},
		{name: "set lower", pol: lines(2), body: mpBuild("BB", "\r\n", mpSpec{mpHeaderLines("q", 2), "v"}), status: 400, want: over},
		{name: "set lower, quoted-printable at it", pol: lines(2),
			body: mpBuild("BB", "\r\n", mpSpec{append(mpHeaderLines("q", 0), "Content-Transfer-Encoding: quoted-printable"), "=C3=A9"}), status: 200},
		{name: "no limit", pol: lines(-1), body: mpBuild("BB", "\r\n", mpSpec{mpHeaderLines("q", 40), "v"}), status: 200},
		{name: "delimiter text in content is content", body: mpBuild("BB", "\r\n", mpField("q", "a--BB\r\n"+strings.Repeat("line\r\n", 20))), status: 200},
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
		body := mpBuild("BB", "\r\n", mpField("a", "1"), mpSpec{mpHeaderLines("q", tc.extra), "v"}, mpField("z", "2"))
		for _, srv := range mpServers(t, rules.Strict()) {
			r := httptest.NewRequest(http.MethodPost, "/up", iotest.OneByteReader(strings.NewReader(body)))
			r.Header.Set("Content-Type", "multipart/form-data; boundary=BB")
			w := httptest.NewRecorder()
			srv.h.ServeHTTP(w, r)
			if s := srv.take(); w.Code != tc.status || (s == nil) != (tc.status != http.StatusOK) {
				t.Errorf("%s, %d extra lines: status %d, handler ran %v; want %d", srv.name, tc.extra, w.Code, s != nil, tc.status)
			}
		}
	}
}

// headerLines counts the lines of a header as Go's reader read them: one
// per field value (a folded field is one value, the scan's count of it at
// least as large).
func headerLines(hdr textproto.MIMEHeader) int {
	n := 0
	for _, v := range hdr {
		n += len(v)
	}
	return n
}

// goHeaderLines returns the most header lines (field values) of a part
// that multipart.Reader reads in body, called as the check calls it: on
// after a syntax error, up to the body's end.
func goHeaderLines(body, boundary string) int {
	mr := multipart.NewReader(strings.NewReader(body), boundary)
	most := 0
	for range len(body) + 2 {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			continue
		}
		most = max(most, headerLines(p.Header))
	}
	return most
}

// headScanCut writes body to a headScan in pieces of the given lengths
// (the rest in one) and returns where it cuts the body, or -1.
func headScanCut(body, boundary string, limit int, pieces []int) int {
	var h headScan
	h.start(boundary, limit)
	off := 0
	for _, n := range append(pieces, len(body)) {
		n = min(n, len(body)-off)
		if cut := h.write([]byte(body[off : off+n])); cut >= 0 {
			return off + cut
		}
		if off += n; off == len(body) {
			break
		}
	}
	return -1
}

// checkHeadScan holds headScan to Go's reader on body: below the most
// lines the reader parses in a part, it goes over, wherever the body is
// cut into pieces, and cuts it in the same place.
func checkHeadScan(t *testing.T, body, boundary string, r *rand.Rand) {
	t.Helper()
	most := goHeaderLines(body, boundary)
	for _, limit := range []int{max(most-1, 0), most, most + 1} {
		whole := headScanCut(body, boundary, limit, nil)
		if limit < most && whole < 0 {
			t.Fatalf("limit %d: the reader parses a part of %d header lines, the scan does not go over\nbody %q", limit, most, body)
		}
		for range 4 {
			var pieces []int
			for range r.IntN(8) {
				pieces = append(pieces, 1+r.IntN(max(len(body)/3, 1)))
			}
			if got := headScanCut(body, boundary, limit, pieces); got != whole {
				t.Fatalf("limit %d: in pieces %v the scan cuts at %d, whole at %d\nbody %q", limit, pieces, got, whole, body)
			}
		}
	}
}

// mpPieces are the lines random bodies are made of: delimiters and near
// misses, header lines good and bad, folds, empty lines, content.
var mpPieces = []string{
	"--B\r\n", "--B\n", "--B \t\r\n", "--B--\r\n", "--B--", "x--B\r\n", "--Bx\r\n", "--B\r\r\n", "-", "--",
	"A: b\r\n", "A: b\n", "Content-Type: text/plain\r\n", " folded\r\n", "\tfolded\r\n", "bad line\r\n", ": v\r\n",
	"\r\n", "\n", "\r", "text\r\n", "text", strings.Repeat("y", peekBufferSize-3), strings.Repeat("z", peekBufferSize),
}

func TestHeadScanAgainstReader(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(14, 1))
	fixed := []string{
		mpBuild("B", "\r\n", mpSpec{mpHeaderLines("q", 9), "v"}, mpField("a", "1")),
		mpBuild("B", "\n", mpSpec{mpHeaderLines("q", 3), "v"}),
		strings.Repeat("x", peekBufferSize) + mpBuild("B", "\r\n", mpSpec{mpHeaderLines("q", 5), "v"}),
		strings.Repeat("x", 3*peekBufferSize) + mpBuild("B", "\r\n", mpSpec{mpHeaderLines("q", 5), "v"}),
		"--B\r\nbad\r\n--B\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\nv\r\n--B--\r\n",
		"--B\r\nA: 1\r\n\r\nv" + strings.Repeat("w", 2*peekBufferSize) + "\r\n--B\r\nA: 1\r\nB: 2\r\n\r\n\r\n--B--\r\n",
	}
	for _, body := range fixed {
		checkHeadScan(t, body, "B", r)
	}
	for range 3000 {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			b.WriteString(mpPieces[r.IntN(len(mpPieces))])
		}
		checkHeadScan(t, b.String(), "B", r)
	}
}

func FuzzHeadScan(f *testing.F) {
	for _, p := range mpPieces {
		f.Add([]byte("--B\r\n"+p+"A: b\r\n"+p), uint64(1))
	}
	f.Add([]byte(mpBuild("B", "\r\n", mpSpec{mpHeaderLines("q", 3), "v"})), uint64(7))
	f.Fuzz(func(t *testing.T, body []byte, seed uint64) {
		checkHeadScan(t, string(body), "B", rand.New(rand.NewPCG(seed, 2)))
	})
}
