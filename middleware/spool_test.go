package middleware

import (
	"bytes"
	"io"
	"math/rand/v2"
	"mime"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/rules"
)

// RaceEnabled tells the external tests whether the race detector is on.
const RaceEnabled = raceEnabled

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

// TestHugeLimits: limits near the largest int64 do not overflow.
func TestHugeLimits(t *testing.T) {
	const huge = 1<<63 - 1
	lb := &binaryLimit{ReadCloser: io.NopCloser(strings.NewReader("abc")), left: huge, limit: huge}
	if b, err := io.ReadAll(lb); err != nil || string(b) != "abc" {
		t.Errorf("binaryLimit: %q, %v", b, err)
	}
	src := newSpoolReader(strings.NewReader("abc"), nil, huge)
	defer src.done()
	if b, err := io.ReadAll(src); err != nil || string(b) != "abc" {
		t.Errorf("spoolReader: %q, %v", b, err)
	}
	if b, over, err := readText(strings.NewReader("abc"), huge); err != nil || over || string(b) != "abc" {
		t.Errorf("readText: %q, %v, %v", b, over, err)
	}
	p := compile(rules.Strict())
	p.Limits.BodyBytes, p.Limits.BinaryBodyBytes = huge, huge
	r := httptest.NewRequest("POST", "/", strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--b--\r\n"))
	r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	s := getScratch()
	defer putScratch(s)
	if rj := s.checkMultipartBody(r, p, r.Header.Get("Content-Type")); rj != nil {
		t.Errorf("checkMultipartBody: %v", rj)
	}
	s.spool.release()
}
