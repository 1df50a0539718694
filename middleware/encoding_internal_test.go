package middleware

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// zeroBomb returns mib MiB of zeros as a raw DEFLATE stream, and that
// stream as one gzip member (with the right CRC-32 and length), built
// without compressing mib MiB: once the window holds zeros, each further
// MiB of zeros compresses, after a flush, to the same octets.
func zeroBomb(t testing.TB, mib int) (deflate, gz []byte) {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	zeros := make([]byte, 1<<20)
	var ends [3]int
	for i := range ends {
		_, _ = w.Write(zeros)
		_ = w.Flush()
		ends[i] = b.Len()
	}
	_ = w.Close()
	all := b.Bytes()
	piece, tail := all[ends[0]:ends[1]], all[ends[2]:]
	if !bytes.Equal(piece, all[ends[1]:ends[2]]) {
		t.Fatal("a MiB of zeros does not compress to the same octets twice")
	}
	deflate = append(deflate, all[:ends[0]]...)
	for i := 1; i < mib; i++ {
		deflate = append(deflate, piece...)
	}
	deflate = append(deflate, tail...)
	crc := uint32(0)
	for range mib {
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	gz = append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}, deflate...)
	gz = binary.LittleEndian.AppendUint32(gz, crc)
	gz = binary.LittleEndian.AppendUint32(gz, uint32(mib<<20))
	return deflate, gz
}

// TestZeroBomb: the stream zeroBomb builds decodes to what it says.
func TestZeroBomb(t *testing.T) {
	t.Parallel()
	deflate, gz := zeroBomb(t, 4)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || len(got) != 4<<20 || bytes.Count(got, []byte{0}) != len(got) {
		t.Fatalf("gzip: %d octets, %v", len(got), err)
	}
	got, err = io.ReadAll(flate.NewReader(bytes.NewReader(deflate)))
	if err != nil || len(got) != 4<<20 {
		t.Fatalf("deflate: %d octets, %v", len(got), err)
	}
}

// TestDecompressionBomb: a body of 512 MiB of zeros, half a MiB of gzip
// or DEFLATE on the wire, is refused 413 with the body limit in its log
// line, after the middleware has allocated a bounded amount (the body as
// sent, the limit's worth of decoded octets, the decoder), not its
// decoded size; in Monitor mode it is flagged and passed on as sent.
func TestDecompressionBomb(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector's allocations hide the middleware's")
	}
	const mib = 512
	deflate, gz := zeroBomb(t, mib)
	t.Logf("%d MiB of zeros: %d octets of gzip, %d of DEFLATE", mib, len(gz), len(deflate))
	for _, tc := range []struct {
		name, coding string
		body         []byte
		monitor      bool
	}{
		{"gzip", "gzip", gz, false},
		{"deflate", "deflate", deflate, false},
		{"gzip, monitor", "gzip", gz, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := rules.Strict()
			if tc.monitor {
				p = p.AsMonitor()
			}
			logs := &logBuf{}
			var read int
			h := Handler(HTTPConfig{Rules: p, Logger: logs.logger()})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body)
				read = int(n)
			}))
			serve := func() *httptest.ResponseRecorder {
				r := req("POST", "/", "application/json", bytes.NewReader(tc.body))
				r.Header.Set("Content-Encoding", tc.coding)
				return httpDo(h, r)
			}
			serve() // the pools and the decoder, once
			logs.reset()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			w := serve()
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("status %d, %.2f MiB allocated while serving", w.Code, float64(alloc)/(1<<20))
			want := http.StatusRequestEntityTooLarge
			if tc.monitor {
				want = http.StatusOK
			}
			if w.Code != want {
				t.Fatalf("status %d, want %d", w.Code, want)
			}
			mode := "enforce"
			if tc.monitor {
				mode = "monitor"
				if read != len(tc.body) {
					t.Errorf("the handler read %d octets, want the %d sent", read, len(tc.body))
				}
			}
			l := checkOneLog(t, logs, wantLog{reason: "too_large", location: "json", offset: -1}, mode, "POST", "")
			if l["limit"] != float64(rules.DefaultBodyBytes) {
				t.Errorf("log limit %v, want %d", l["limit"], rules.DefaultBodyBytes)
			}
			// The body as sent (half a MiB), the limit's worth of
			// decoded octets (1 MiB), and what httptest and the log
			// take: far below the 512 MiB it expands to.
			if limit := uint64(4 << 20); alloc > limit {
				t.Errorf("%d octets allocated while serving, want at most %d", alloc, limit)
			}
		})
	}
}

// TestRequestCoding: how Content-Encoding values are read.
func TestRequestCoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values []string
		want   coding
		reject string // the sample of an unsupported_encoding, if refused
		offset int
	}{
		{values: []string{""}, want: identity},
		{values: []string{"identity"}, want: identity},
		{values: []string{"IDENTITY"}, want: identity},
		{values: []string{"gzip"}, want: codingGzip},
		{values: []string{"x-gzip"}, want: codingGzip},
		{values: []string{"X-GZip"}, want: codingGzip},
		{values: []string{" \tgzip\t "}, want: codingGzip},
		{values: []string{"deflate"}, want: codingDeflate},
		{values: []string{"identity, gzip"}, want: codingGzip},
		{values: []string{"gzip,identity,,"}, want: codingGzip},
		{values: []string{"", "gzip"}, want: codingGzip},
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
		c, rj := requestCoding(r, rules.JSON)
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
// scratch's chunks (Enforce) and from a body of its own (Monitor); it
// fails t if the two disagree.
func decodeBoth(t *testing.T, s *scratch, raw []byte, c coding, limit int64) (text []byte, over bool, err error) {
	t.Helper()
	var results [2]struct {
		text []byte
		over bool
		err  error
	}
	for i := range results {
		d := decoders.Get().(*decoder)
		var src codedReader
		if i == 0 {
			n, _, rerr := s.work.readChunks(bytes.NewReader(raw), -1)
			if rerr != nil {
				t.Fatal(rerr)
			}
			d.chunks = newChunkReader(s.work.chunks, n)
			src = &d.chunks
		} else {
			d.sent.Reset(raw)
			src = &d.sent
		}
		res := &results[i]
		res.text, res.over, res.err = s.work.decode(d, src, c, limit)
		s.work.dropChunks()
		d.release()
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
	s := &scratch{}
	for i := range 12 {
		text := strings.Repeat("x", i*997)
		for _, c := range []struct {
			coding coding
			body   []byte
		}{{codingGzip, gz(text)}, {codingDeflate, zl(text)}} {
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
	for _, n := range []int{0, 1, chunkSize - 1, chunkSize, chunkSize + 1, 3*chunkSize + 5} {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write(bytes.Repeat([]byte{'a'}, n))
		_ = w.Close()
		s := &scratch{}
		if got, over, err := decodeBoth(t, s, b.Bytes(), codingGzip, int64(n)); err != nil || over || len(got) != n {
			t.Errorf("%d octets at limit %d: %d, %v, %v", n, n, len(got), over, err)
		}
		if n > 0 {
			if _, over, err := decodeBoth(t, s, b.Bytes(), codingGzip, int64(n-1)); err != nil || !over {
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
	s := &scratch{}
	for _, n := range []int{chunkSize - 30, chunkSize - 18, chunkSize - 11, chunkSize, 2*chunkSize + 1, 3*chunkSize - 7} {
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
			c   coding
			raw []byte
		}{{codingGzip, gzb.Bytes()}, {codingDeflate, zlb.Bytes()}, {codingDeflate, flb.Bytes()}} {
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
