package bodyio

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestRequestCoding: how Content-Encoding values are read.
func TestRequestCoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values []string
		want   Coding
		reject string // the sample of an unsupported_encoding, if refused
		offset int
	}{
		{values: []string{""}, want: Identity},
		{values: []string{"identity"}, want: Identity},
		{values: []string{"IDENTITY"}, want: Identity},
		{values: []string{"gzip"}, want: Gzip},
		{values: []string{"x-gzip"}, want: Gzip},
		{values: []string{"X-GZip"}, want: Gzip},
		{values: []string{" \tgzip\t "}, want: Gzip},
		{values: []string{"deflate"}, want: Deflate},
		{values: []string{"identity, gzip"}, want: Gzip},
		{values: []string{"gzip,identity,,"}, want: Gzip},
		{values: []string{"", "gzip"}, want: Gzip},
		{values: []string{"br"}, reject: "br"},
		{values: []string{"zstd"}, reject: "zstd"},
		{values: []string{"compress"}, reject: "compress"},
		{values: []string{"x-compress"}, reject: "x-compre"},
		{values: []string{"gzip2"}, reject: "gzip2"},
		{values: []string{"gzip;q=1"}, reject: "gzip;q=1"},
		{values: []string{"gzip\v"}, reject: `gzip\x0b`},
		{values: []string{"g\u00fczip"}, reject: `g\xc3\xbczip`},
		{values: []string{"gzip, gzip"}, reject: "gzip, gzip", offset: 6},
		{values: []string{"gzip", "gzip"}, reject: "gzip, gzip", offset: 6},
		{values: []string{"deflate, gzip"}, reject: "eflate, gzip", offset: 9},
		{values: []string{"gzip, br"}, reject: "gzip, br", offset: 6},
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.Header["Content-Encoding"] = tc.values
		c, rj := RequestCoding(r, rules.JSON)
		switch {
		case tc.reject == "" && (rj != nil || c != tc.want):
			t.Errorf("%q: %v, %v; want %v", tc.values, c, rj, tc.want)
		case tc.reject != "" && (rj == nil || rj.Reason != sanitize.UnsupportedEncoding || rj.Status() != 415 ||
			rj.Field != "Content-Encoding" || rj.Sample != tc.reject || rj.Offset != tc.offset):
			t.Errorf("%q: %v, %+v; want unsupported_encoding at %d, sample %q", tc.values, c, rj, tc.offset, tc.reject)
		}
	}
}

// TestZlibHeader: every zlib stream is read as zlib; raw DEFLATE streams,
// as compress/flate writes them, are not taken for zlib.
func TestZlibHeader(t *testing.T) {
	t.Parallel()
	texts := []string{"", "a", `{"a":"b"}`, strings.Repeat("abc", 1000), "\x00\x01\x02\xff"}
	for level := flate.HuffmanOnly; level <= flate.BestCompression; level++ {
		var z, f bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, level)
		fw, _ := flate.NewWriter(&f, level)
		for _, s := range texts {
			z.Reset()
			zw.Reset(&z)
			_, _ = io.WriteString(zw, s)
			_ = zw.Close()
			if !zlibHeader(bytes.NewReader(z.Bytes())) {
				t.Errorf("zlib of %q at level %d: not a zlib header: % x", s, level, z.Bytes()[:2])
			}
			f.Reset()
			fw.Reset(&f)
			_, _ = io.WriteString(fw, s)
			_ = fw.Close()
			if zlibHeader(bytes.NewReader(f.Bytes())) {
				t.Errorf("DEFLATE of %q at level %d taken for zlib: % x", s, level, f.Bytes()[:2])
			}
		}
	}
}

// decodeBoth decodes raw, coded as c, the two ways readText does: from the
// working memory's chunks (Enforce) and from a body of its own (Monitor); it
// fails t if the two disagree.
func decodeBoth(t *testing.T, s *Work, raw []byte, c Coding, limit int64) (text []byte, over bool, err error) {
	t.Helper()
	var results [2]struct {
		text []byte
		over bool
		err  error
	}
	for i := range results {
		d := NewDecoder()
		var src CodedReader
		if i == 0 {
			n, _, rerr := s.ReadChunks(bytes.NewReader(raw), -1)
			if rerr != nil {
				t.Fatal(rerr)
			}
			src = d.FromChunks(s, n)
		} else {
			src = d.FromSent(raw)
		}
		res := &results[i]
		res.text, res.over, res.err = s.Decode(d, src, c, limit)
		s.DropChunks()
		d.Release()
	}
	a, b := results[0], results[1]
	if !bytes.Equal(a.text, b.text) || a.over != b.over || (a.err == nil) != (b.err == nil) ||
		a.err != nil && a.err.Error() != b.err.Error() {
		t.Fatalf("%d octets of %v: from chunks %d, %v, %v; from a body %d, %v, %v",
			len(raw), c, len(a.text), a.over, a.err, len(b.text), b.over, b.err)
	}
	return a.text, a.over, a.err
}

// TestDecoderReuse: a pooled decoder left by a corrupt stream, of either
// coding, decodes the next body as if new.
func TestDecoderReuse(t *testing.T) {
	t.Parallel()
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = io.WriteString(w, s)
		_ = w.Close()
		return b.Bytes()
	}
	zl := func(s string) []byte {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		_, _ = io.WriteString(w, s)
		_ = w.Close()
		return b.Bytes()
	}
	s := &Work{}
	for i := range 12 {
		text := strings.Repeat("x", i*997)
		for _, c := range []struct {
			coding Coding
			body   []byte
		}{{Gzip, gz(text)}, {Deflate, zl(text)}} {
			bad := append([]byte(nil), c.body...)
			bad[len(bad)/2] ^= 0xFF
			_, _, _ = decodeBoth(t, s, bad, c.coding, 1<<20)
			got, over, err := decodeBoth(t, s, c.body, c.coding, 1<<20)
			if err != nil || over || string(got) != text {
				t.Fatalf("%v after a corrupt stream: %d octets, %v, %v", c.coding, len(got), over, err)
			}
		}
	}
}

// TestDecodeLimit: a decoded body of exactly the limit passes, one octet
// more is over it.
func TestDecodeLimit(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, ChunkSize - 1, ChunkSize, ChunkSize + 1, 3*ChunkSize + 5} {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write(bytes.Repeat([]byte{'a'}, n))
		_ = w.Close()
		s := &Work{}
		if got, over, err := decodeBoth(t, s, b.Bytes(), Gzip, int64(n)); err != nil || over || len(got) != n {
			t.Errorf("%d octets at limit %d: %d, %v, %v", n, n, len(got), over, err)
		}
		if n > 0 {
			if _, over, err := decodeBoth(t, s, b.Bytes(), Gzip, int64(n-1)); err != nil || !over {
				t.Errorf("%d octets at limit %d: over %v, %v", n, n-1, over, err)
			}
		}
	}
}

// TestDecodeAcrossChunks: coded bodies whose octets span several of the
// chunks they are read into, ending at and around a chunk's end, in every
// coding, decode to what was coded, and a damaged one fails the same way
// from the chunks as from a body of its own.
func TestDecodeAcrossChunks(t *testing.T) {
	t.Parallel()
	rnd := func(n int) []byte {
		p := make([]byte, n)
		x := uint32(n)
		for i := range p {
			x = x*1664525 + 1013904223
			p[i] = 'a' + byte(x>>24)%26
		}
		return p
	}
	var gzb, zlb, flb bytes.Buffer
	gw, zw := gzip.NewWriter(&gzb), zlib.NewWriter(&zlb)
	fw, _ := flate.NewWriter(&flb, flate.NoCompression)
	s := &Work{}
	for _, n := range []int{ChunkSize - 30, ChunkSize - 18, ChunkSize - 11, ChunkSize, 2*ChunkSize + 1, 3*ChunkSize - 7} {
		text := rnd(n)
		gzb.Reset()
		gw.Reset(&gzb)
		_, _ = gw.Write(text)
		_ = gw.Close()
		zlb.Reset()
		zw.Reset(&zlb)
		_, _ = zw.Write(text)
		_ = zw.Close()
		flb.Reset()
		fw.Reset(&flb)
		_, _ = fw.Write(text)
		_ = fw.Close()
		for _, tc := range []struct {
			c   Coding
			raw []byte
		}{{Gzip, gzb.Bytes()}, {Deflate, zlb.Bytes()}, {Deflate, flb.Bytes()}} {
			got, over, err := decodeBoth(t, s, tc.raw, tc.c, -1)
			if err != nil || over || !bytes.Equal(got, text) {
				t.Errorf("%v, %d octets coded in %d: %d octets, %v, %v", tc.c, n, len(tc.raw), len(got), over, err)
			}
			cut := tc.raw[:len(tc.raw)-1]
			if _, _, err := decodeBoth(t, s, cut, tc.c, -1); err == nil {
				t.Errorf("%v, %d octets coded in %d, the last cut off: no error", tc.c, n, len(tc.raw))
			}
		}
	}
}
