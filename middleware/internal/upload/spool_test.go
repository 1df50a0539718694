package upload

import (
	"bytes"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// scanChunks shows body to a fresh outsideScan in chunks whose lengths
// seed draws (1 to 17 octets, or one chunk with seed 0), then ends it.
func scanChunks(body []byte, boundary string, seed uint64) *outsideScan {
	o := newOutsideScan(boundary, -1)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for rest := body; len(rest) > 0; {
		k := len(rest)
		if seed != 0 {
			k = min(k, 1+rng.IntN(17))
		}
		o.write(rest[:k])
		rest = rest[k:]
	}
	o.end()
	return o
}

// outsideCases are bodies whose preamble and epilogue end in each of the
// ways outsideParts tells apart.
var outsideCases = []struct{ body, boundary string }{
	{"--b\r\nA: 1\r\n\r\nx\r\n--b--\r\nepi\xff", "b"},
	{"pre\xff\r\n--b\r\n\r\nx\r\n--b--", "b"},
	{"--bX\r\nbad\xff\r\n--b\r\n\r\nx\r\n--b--\r\n\u202e\r\n--b--", "b"},
	{"--b--\r\nall epilogue \x00", "b"},
	{"--b--  \t\r\nepi", "b"},
	{"--b--x\r\n--b \r\n\r\nc\n--b--", "b"},
	{"no delimiter at all \x01", "b"},
	{"--b", "b"},
	{"--b  ", "b"},
	{"--b\n\nx\n--b-", "b"},
	{"--b\n\nx\n--b-x\n--b--", "b"},
	{"--b\n\nx\n--b--  \rX", "b"},
	{"--b\n\nx\n--b--  \r", "b"},
	{"--b\n\nx\n--b--   ", "b"},
	{"--b\n\nx\r\n--bb\r\n--b--\r\n", "b"},
	{"--long-boundary-here\r\n\r\n\n--long-boundary-her\n--long-boundary-here--\r\n{\"a\":\"\\u202e\"}", "long-boundary-here"},
}

// TestOutsideScan: the streaming scan finds the preamble and the epilogue
// where outsideParts finds them in the whole body, and refuses them as
// checkOutsideParts does (same reason, offset and sample), however the
// body is cut into chunks.
func TestOutsideScan(t *testing.T) {
	for _, tc := range outsideCases {
		for seed := range uint64(40) {
			compareOutside(t, []byte(tc.body), tc.boundary, seed)
		}
	}
}

func compareOutside(t *testing.T, body []byte, boundary string, seed uint64) {
	t.Helper()
	first, last := outsideParts(body, []byte("--"+boundary))
	o := scanChunks(body, boundary, seed)
	if f, l := o.bounds(int64(len(body))); f != int64(first) || l != int64(last) {
		t.Fatalf("%q (boundary %q, seed %d): scan finds %d, %d; outsideParts %d, %d", body, boundary, seed, f, l, first, last)
	}
	c := rules.Strict().Multipart
	want := checkOutsideParts(body, boundary, &c)
	got := o.checkPreamble(&c)
	if got == nil {
		got = o.checkEpilogue(&c)
	}
	if (got == nil) != (want == nil) || got != nil && !reflect.DeepEqual(*got, *want) {
		t.Fatalf("%q (boundary %q, seed %d): scan refuses %+v; checkOutsideParts %+v", body, boundary, seed, got, want)
	}
}

// FuzzOutsideScan holds the streaming scan to outsideParts and
// checkOutsideParts on any body, cut into chunks at random.
func FuzzOutsideScan(f *testing.F) {
	for _, tc := range outsideCases {
		f.Add([]byte(tc.body), tc.boundary, uint64(7))
	}
	f.Fuzz(func(t *testing.T, body []byte, boundary string, seed uint64) {
		if boundary == "" || bytes.ContainsAny([]byte(boundary), "\r\n") {
			return // no Content-Type gives one
		}
		compareOutside(t, body, boundary, seed)
		compareOutside(t, body, boundary, 0)
	})
}

// TestRewriteDisposition: a changed name or file name is written where it
// stood, in the form the client wrote it; what cannot be rewritten so is
// left to mime.FormatMediaType (false).
func TestRewriteDisposition(t *testing.T) {
	for _, tc := range []struct {
		in      string
		set     map[string]string
		want    string // "" for false
		changed []string
	}{
		{`form-data; name="file"; filename="Cafe\u0301.jpg"`, map[string]string{"filename": "Café.jpg"},
			`form-data; name="file"; filename="Café.jpg"`, nil},
		{`form-data; filename="e\u0301"; name="f"`, map[string]string{"filename": "é"}, `form-data; filename="é"; name="f"`, nil},
		{`form-data;name=q;filename=a.txt`, map[string]string{"name": "r", "filename": "b c.txt"},
			`form-data;name=r;filename="b c.txt"`, nil},
		{`form-data; name="x"; filename*=UTF-8''e%CC%81.txt`, map[string]string{"filename": "é.txt"},
			`form-data; name="x"; filename*=UTF-8''%C3%A9.txt`, nil},
		{`form-data; name="x"; filename*=us-ascii'en'a.txt`, map[string]string{"filename": "é.txt"},
			`form-data; name="x"; filename*=utf-8'en'%C3%A9.txt`, nil},
		{`form-data; name="x"; filename="e\u0301.txt"; filename*=utf-8''e%CC%81.txt`, map[string]string{"filename": "é.txt"},
			`form-data; name="x"; filename="é.txt"; filename*=utf-8''%C3%A9.txt`, nil},
		{`form-data; name="x"; filename="a\"b\\c\u0301"`, map[string]string{"filename": "a\"b\\ć"},
			`form-data; name="x"; filename="a\"b\\ć"`, nil},
		{`attachment ; name = "x" ; filename = "e\u0301" ;`, map[string]string{"filename": "é"},
			`attachment ; name = "x" ; filename = "é" ;`, nil},
		// Continuations: FormatMediaType's form.
		{`form-data; name="x"; filename*0="e"; filename*1="\u0301"`, map[string]string{"filename": "é"}, "", nil},
		{`form-data; name="x"; filename*=iso-8859-1''caf%E9; filename="e\u0301"`, map[string]string{"filename": "é"}, "", nil},
	} {
		_, params, err := mime.ParseMediaType(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		disp, _, _ := mime.ParseMediaType(tc.in)
		var changed []string
		for k, v := range tc.set {
			params[k] = v
			changed = append(changed, k)
		}
		got, ok := rewriteDisposition(tc.in, disp, params, changed)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: rewritten %s; want FormatMediaType's form", tc.in, got)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzRewriteDisposition: whatever the header and the new value, the
// rewrite either declines or gives a header that parses to exactly the
// parameters meant.
func FuzzRewriteDisposition(f *testing.F) {
	f.Add(`form-data; name="file"; filename="Cafe\u0301.jpg"`, "Café.jpg", true)
	f.Add(`form-data; name=q; filename*=UTF-8''e%CC%81`, "x\"y", false)
	f.Add(`form-data; name="a"; name="a"`, "b", false)
	f.Fuzz(func(t *testing.T, v, nv string, file bool) {
		disp, params, err := mime.ParseMediaType(v)
		if err != nil || !utf8.ValidString(nv) {
			return
		}
		key := "name"
		if file {
			key = "filename"
		}
		if _, ok := params[key]; !ok {
			return
		}
		params[key] = nv
		out, ok := rewriteDisposition(v, disp, params, []string{key})
		if !ok {
			return
		}
		d2, p2, err := mime.ParseMediaType(out)
		if err != nil || d2 != disp || !reflect.DeepEqual(p2, params) {
			t.Fatalf("%q with %s=%q: %q parses as %q %v (%v)", v, key, nv, out, d2, p2, err)
		}
	})
}

// TestHugeLimitsSpool: limits near the largest int64 do not overflow the
// spool, its reader or the multipart check.
func TestHugeLimitsSpool(t *testing.T) {
	const huge = 1<<63 - 1
	src := newSpoolReader(strings.NewReader("abc"), nil, huge)
	defer src.done()
	if b, err := io.ReadAll(src); err != nil || string(b) != "abc" {
		t.Errorf("spoolReader: %q, %v", b, err)
	}
	if b, over, err := readUpTo(nil, strings.NewReader("abc"), huge); err != nil || over || string(b) != "abc" {
		t.Errorf("readUpTo: %q, %v, %v", b, over, err)
	}
	if b, over, err := readUpTo([]byte("x"), strings.NewReader("abcd"), 3); err != nil || !over || string(b) != "x" {
		t.Errorf("readUpTo over: %q, %v, %v", b, over, err)
	}
	p := compiled.Compile(rules.Strict())
	p.Limits.BodyBytes, p.Limits.BinaryBodyBytes = huge, huge
	r := httptest.NewRequest("POST", "/", strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b--\r\n"))
	r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	sp, _, rj := Check(r, p, r.Header.Get("Content-Type"), nil, noTrailers)
	if rj != nil {
		t.Errorf("Check: %v", rj)
	}
	sp.Release()

}

// spoolRun is what a handler reads of a multipart body after Check (its
// two steps, so that the spill of the body as sent can be seen), with the body spooled to a file (spilled) or in memory.
type spoolRun struct {
	rj   *finding.Rejection
	ct   string
	body []byte
}

func runSpool(t *testing.T, p *compiled.Policy, ct string, body []byte, spilled bool) spoolRun {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", ct)
	if spilled {
		r.ContentLength = spoolMemory + 1 // declared larger: to the file from the first octet
	}
	store := NewStore(t.TempDir(), -1)
	sp, _, rj := check(r, p, ct, store, noTrailers)
	defer func() { sp.Release() }()
	if rj == nil && spilled && len(body) > 0 && sp.f == nil {
		t.Fatalf("the spool did not spill")
	}
	if rj == nil && sp.rebuild != nil {
		sp, rj = canon(r, p, sp, store) // as Check ends
	}
	if rj != nil {
		return spoolRun{rj: rj}
	}
	out, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return spoolRun{ct: r.Header.Get("Content-Type"), body: out}
}

// FuzzSpooledMultipart: a body spooled to a file is checked and rebuilt as
// one held in memory is: the same refusals (reason, location, field), and
// for an accepted body the same parts for the handler, names, headers and
// contents, on a normalizing route (Check's canonical pass against canonMultipart).
func FuzzSpooledMultipart(f *testing.F) {
	crlf := "\r\n"
	qp := "Content-Transfer-Encoding: quoted-printable"
	file := func(name, ct, data string) mptest.Spec {
		return mptest.Spec{Header: []string{`Content-Disposition: form-data; name="f"; filename="` + name + `"`, "Content-Type: " + ct}, Data: data}
	}
	for _, body := range []string{
		mptest.Build("BB", crlf, file("Cafe\u0301.jpg", "image/jpeg", "\xff\xd8\xff\xe0\x00"), mptest.Field("c", "e\u0301")),
		mptest.Build("BB", crlf, file("a.txt", "text/plain", "A\u030a"), mptest.Field("x", mptest.QPAll("x\r\n--BB\r\n"+mptest.Smuggled(crlf)), qp)),
		mptest.Build("BB", crlf, mptest.Field("\u00e9", "1"), mptest.Field("e\u0301", "2")),
		mptest.Build("BB", crlf, file("\uff0e\uff0e\uff0fx", "application/octet-stream", "x")),
		"pre\r\n" + mptest.Build("BB", "\n", file("e\u0301", "application/zip", "PK\x03\x04--BB"), mptest.Field("z", "y")) + "epi",
		"--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\ne\u0301\r\n--BB\tjunk\r\n--BB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n--BB--\r\n",
	} {
		f.Add([]byte(body), "BB", false)
	}
	pols := map[bool]*compiled.Policy{false: compiled.Compile(mptest.StrictForm(normalize.NFC)()), true: compiled.Compile(mptest.StrictForm(normalize.NFKC)())}
	f.Fuzz(func(t *testing.T, body []byte, boundary string, nfkc bool) {
		ct := mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary})
		if ct == "" || boundary == "" || len(body) == 0 {
			// An empty body is no body in memory, and one cut short
			// when declared as long as the spilled run declares it.
			return
		}
		p := pols[nfkc]
		mem, disk := runSpool(t, p, ct, body, false), runSpool(t, p, ct, body, true)
		if (mem.rj == nil) != (disk.rj == nil) {
			t.Fatalf("in memory: %v; spooled: %v", mem.rj, disk.rj)
		}
		if mem.rj != nil {
			if mem.rj.Reason != disk.rj.Reason || mem.rj.Location != disk.rj.Location || mem.rj.Field != disk.rj.Field {
				t.Fatalf("in memory: %+v; spooled: %+v", mem.rj, disk.rj)
			}
			return
		}
		parts := func(r spoolRun) []mptest.Read {
			_, params, err := mime.ParseMediaType(r.ct)
			if err != nil {
				t.Fatalf("Content-Type %q: %v", r.ct, err)
			}
			return mptest.Stream(multipart.NewReader(bytes.NewReader(r.body), params["boundary"]), 0, nil)
		}
		gm, gd := parts(mem), parts(disk)
		for _, d := range mptest.SameParts(gd, gm) {
			t.Errorf("spooled: %s", d)
		}
		for i := range min(len(gm), len(gd)) {
			if a, b := gm[i].Header.Get("Content-Disposition"), gd[i].Header.Get("Content-Disposition"); a != b {
				t.Errorf("part %d: Content-Disposition %q spooled, %q in memory", i, b, a)
			}
		}
	})
}
