package middleware

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

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
