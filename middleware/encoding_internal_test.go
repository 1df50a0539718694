package middleware

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
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
			var read int
			srv := newServer(t, bareSetup(p), onHTTP(func(w http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body)
				read = int(n)
			}))
			logs := srv.logs
			serve := func() *httptest.ResponseRecorder {
				r := req("POST", "/", "application/json", bytes.NewReader(tc.body))
				r.Header.Set("Content-Encoding", tc.coding)
				return srv.do(r)
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
