package middleware

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/rules"
)

// TestLimitUnreadBodies: a route that checks bodies bounds the bodies it
// does not read as text too, by their declared length before anything is
// read, or by cutting off a body of unknown length.
func TestLimitUnreadBodies(t *testing.T) {
	t.Parallel()
	const limit = 1000
	tests := []struct {
		name      string
		ct        string
		size      int
		chunked   bool
		policy    func() rules.Policy
		status    int
		ran       bool
		readError bool // the handler's read fails with *http.MaxBytesError
	}{
		{"binary under", "application/octet-stream", limit, false, strictUpload, 200, true, false},
		{"binary over", "application/octet-stream", limit + 1, false, strictUpload, 413, false, false},
		{"binary unlisted strict", "application/octet-stream", limit, false, rules.Strict, 415, false, false},
		{"no type over", "", limit + 1, false, rules.Default, 413, false, false},
		{"no type strict", "", limit, false, strictUpload, 415, false, false},
		{"other charset over", "text/plain; charset=latin1", limit + 1, false, rules.Default, 413, false, false},
		{"binary chunked over", "application/octet-stream", limit + 1, true, strictUpload, 200, true, true},
		{"binary chunked under", "application/octet-stream", limit, true, strictUpload, 200, true, false},
		{"unchecked route", "application/octet-stream", limit + 1, false, rules.Unchecked, 200, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.policy()
			p.Limits.BodyBytes = limit
			p.Limits.BinaryBodyBytes = limit // the limit of the binary bodies
			ran, readErr := false, error(nil)
			srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &p}, routes: []string{"/u"}, methods: []string{http.MethodPost}},
				onEcho(func(c echo.Context) error {
					ran = true
					_, readErr = io.ReadAll(c.Request().Body)
					return c.NoContent(http.StatusOK)
				}))
			req := httptest.NewRequest(http.MethodPost, "/u", strings.NewReader(strings.Repeat("x", tt.size)))
			if tt.chunked {
				req.ContentLength = -1
			}
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			rec := srv.do(req)
			if rec.Code != tt.status || ran != tt.ran {
				t.Fatalf("status %d, handler ran %v; want %d, %v", rec.Code, ran, tt.status, tt.ran)
			}
			var mbe *http.MaxBytesError
			if got := errors.As(readErr, &mbe); got != tt.readError {
				t.Errorf("handler's read error %v; want a MaxBytesError: %v", readErr, tt.readError)
			}
		})
	}
}

// TestLimitsCutOffMounts: however the middleware is mounted on Echo, a
// binary body of unknown length over the limit reaches the handler cut
// off: it reads the limit and then an *http.MaxBytesError.
func TestLimitsCutOffMounts(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			pol := strictUpload()
			pol.Limits.BinaryBodyBytes = limBody
			ev := newServer(t, recSetup(Config{Rules: &pol}, m), &recorder{})
			r := req(http.MethodPost, "/api/echo", "application/octet-stream", strings.NewReader(strings.Repeat("x", 3*limBody)))
			r.ContentLength = -1
			w := ev.do(r)
			s := ev.rec.seen()
			var mbe *http.MaxBytesError
			if w.Code != 200 || s == nil || len(s.Body) != limBody || !errors.As(s.BodyErr, &mbe) {
				t.Fatalf("status %d; want the handler to read %d octets and an *http.MaxBytesError", w.Code, limBody)
			}
		})
	}
}

// TestLimitsExpectContinue: a client that declares a body over the limit
// and waits for 100 Continue before sending it, as curl does, is answered
// 413 at once: no 100 Continue (net/http sends it only when the body is
// first read), so not one octet of the body was sent, let alone read.
func TestLimitsExpectContinue(t *testing.T) {
	t.Parallel()
	for _, a := range fltAdapters {
		for _, ct := range []string{ctText, ctJSON, ctForm, ctMP, "application/octet-stream"} {
			t.Run(fmt.Sprintf("%v/%s", a, strings.Split(ct, ";")[0]), func(t *testing.T) {
				t.Parallel()
				// 2 MiB is over the binary limit, and over text and data
				// together.
				pol := strictUpload()
				pol.Limits.BinaryBodyBytes = 512 << 10
				s := fltStart(t, a, pol, 0, func(s *fltServer, srv *http.Server) { srv.Handler = s.h }) // no counter: see fltStart
				conn := s.dial(t)
				head := "POST " + fltRoute + " HTTP/1.1\r\nHost: test\r\nContent-Type: " + ct +
					"\r\nContent-Length: " + strconv.Itoa(2<<20) + "\r\nExpect: 100-continue\r\n\r\n"
				if _, err := io.WriteString(conn, head); err != nil {
					t.Fatal(err)
				}
				resp, got := fltReadResponse(t, bufio.NewReader(conn))
				if resp.StatusCode != 413 || !strings.Contains(got, "too_large") {
					t.Fatalf("got %d %q; want 413 too_large (and no 100 Continue before it)", resp.StatusCode, got)
				}
				if runs := s.rec.handlerRuns(); len(runs) != 0 {
					t.Errorf("the handler ran")
				}
				s.oneLog(t, fltRejected)
			})
		}
	}
}

// TestLimitsExpectContinueUnread: a body of unknown length that utf8guard
// does not read (binary: it only cuts it off at the limit for the
// handler), from a client that sent "Expect: 100-continue" and waits, whose
// handler answers without reading it, is answered at once, as without
// utf8guard: no 100 Continue, the connection closed. (The cut-off body once
// replaced the server's own request body, and net/http, not recognising
// it, read on after the handler for a body it never asked for: the answer
// waited for the server's ReadTimeout.)
func TestLimitsExpectContinueUnread(t *testing.T) {
	t.Parallel()
	for _, a := range fltAdapters {
		t.Run(a.String(), func(t *testing.T) {
			t.Parallel()
			// No counter in front: it would itself hide net/http's body.
			s := fltStart(t, a, strictUpload(), 0, func(s *fltServer, srv *http.Server) { srv.Handler = s.h })
			conn := s.dial(t)
			head := "POST " + fltRoute + " HTTP/1.1\r\nHost: test\r\nContent-Type: application/octet-stream\r\n" +
				"Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n" + fltUnread + ": 1\r\n\r\n"
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			if err := conn.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			resp, _ := fltReadResponse(t, br)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want the handler's 403 (and no 100 Continue before it)", resp.StatusCode)
			}
			if !resp.Close {
				t.Errorf("the connection is kept open: its next octets would be the body")
			}
			if runs := s.rec.handlerRuns(); len(runs) != 1 {
				t.Errorf("handler runs %d", len(runs))
			}
			s.oneLog(t, fltAccepted)
		})
	}
}

// limGen generates a body of size octets, prefix and then 'a', without
// holding it: a 100 MiB body costs nothing. It counts what it gave, and
// closes done when the transport closes it (after its last write).
type limGen struct {
	prefix []byte
	size   int64
	n      atomic.Int64
	done   chan struct{}
	once   sync.Once
}

func (g *limGen) Read(p []byte) (int, error) {
	n := g.n.Load()
	if n >= g.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.size-n)]
	for i := range p {
		if j := n + int64(i); j < int64(len(g.prefix)) {
			p[i] = g.prefix[j]
		} else {
			p[i] = 'a'
		}
	}
	g.n.Add(int64(len(p)))
	return len(p), nil
}

func (g *limGen) Close() error {
	g.once.Do(func() { close(g.done) })
	return nil
}

// limSocketBuffer is the kernel buffer size asked for on both ends of the
// peak-memory test's connection (Linux doubles it), so that what the client
// manages to send past what the server reads is small and measured, not
// the megabytes loopback autotuning would allow.
const limSocketBuffer = 64 << 10

// TestLimitsPeakMemory: given a 100 MiB body of unknown length (chunked),
// generated as it is sent, through a real http.Server on 127.0.0.1, expect
// 413 after the server read at most the limit and one octet of it (counted
// by a reader around the body, in front of utf8guard), a client that did
// not get to send it whole, and a heap that grew by at most 3 times the
// limit (TotalAlloc, every allocation of the request, client's included),
// and holds nothing of it afterwards (HeapAlloc after a GC).
//
// Why 3: utf8guard reads a body of unknown length into a buffer of 512
// octets doubled up to the limit and one octet, never past it, so the
// buffers allocated on the way add up to about twice the final one (1 +
// 1/2 + 1/4 + ... = 2); the rest (connection buffers, the client's chunked
// writer, the response, the handler's own read of a binary body) is the
// remaining fraction. A body read whole would be 100 MiB, 100 times
// the limit.
//
// It is not parallel: the allocation figures are the process's.
func TestLimitsPeakMemory(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector's shadow memory makes heap figures meaningless")
	}
	const (
		limit = rules.DefaultBodyBytes
		size  = 100 << 20
	)
	bodies := []struct {
		name, ct, prefix string
	}{
		{"text", ctText, ""},
		{"json", ctJSON, `{"q":"`},
		{"form", ctForm, "q="},
		{"multipart", ctMP, "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n"},
		{"binary", "application/octet-stream", ""}, // cut off for the handler, which answers 413
	}
	for _, a := range fltAdapters {
		for _, b := range bodies {
			t.Run(fmt.Sprintf("%v/%s", a, b.name), func(t *testing.T) {
				pol := strictUpload()
				pol.Limits.BinaryBodyBytes = limit
				s := fltStart(t, a, pol, 0, func(_ *fltServer, srv *http.Server) {
					srv.ConnState = func(c net.Conn, st http.ConnState) {
						if st == http.StateNew {
							_ = c.(*net.TCPConn).SetReadBuffer(limSocketBuffer)
						}
					}
				})
				// Keep-alive, as clients are: a request that says
				// "Connection: close" makes net/http close at once after
				// the answer, without reading on (its discarding of up to
				// 256 KiB, and its RST-avoidance delay, are skipped), and
				// the client's write then races the answer: it may meet the
				// reset first and never see the 413.
				tr := &http.Transport{
					DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
						c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
						if err == nil {
							err = c.(*net.TCPConn).SetWriteBuffer(limSocketBuffer)
						}
						return c, err
					},
				}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr, Timeout: 2 * fltTimeout}
				gen := &limGen{prefix: []byte(b.prefix), size: size, done: make(chan struct{})}
				r, err := http.NewRequest(http.MethodPost, "http://"+s.addr+fltRoute, gen)
				if err != nil {
					t.Fatal(err)
				}
				r.ContentLength = -1 // chunked
				r.Header.Set("Content-Type", b.ct)

				var before, after, settled runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				resp, err := client.Do(r)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				select {
				case <-gen.done: // the transport stopped sending
				case <-time.After(fltTimeout):
					t.Fatalf("the client was still sending after %v (%d octets)", fltTimeout, gen.n.Load())
				}
				runtime.ReadMemStats(&after)
				// The handler of the binary body keeps what it read, which
				// is not utf8guard's to let go: checked, then dropped.
				runs := s.rec.takeRuns()
				if b.name != "binary" && len(runs) != 0 {
					t.Errorf("the handler ran")
				}
				if b.name == "binary" {
					var mbe *http.MaxBytesError
					if len(runs) != 1 || len(runs[0].body) != limit || !errors.As(runs[0].err, &mbe) {
						t.Errorf("binary: the handler's read was not cut off at the limit")
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&settled)

				if resp.StatusCode != 413 {
					t.Fatalf("status %d, want 413", resp.StatusCode)
				}
				read, sent := s.rec.read.Load(), gen.n.Load()
				allocated := after.TotalAlloc - before.TotalAlloc
				grown := int64(settled.HeapAlloc) - int64(before.HeapAlloc)
				t.Logf("limit %d: server read %d octets (limit+%d); client sent %d (limit+%d); allocated %d (%.2f x limit); heap after GC %+d",
					limit, read, read-limit, sent, sent-limit, allocated, float64(allocated)/limit, grown)
				// A multipart body may hold data past its text: it is read
				// a spool buffer at a time, and refused once its text is
				// surely over (upload.go).
				if slack := int64(limOne(b.name == "multipart") * upload.ReadSize); read > limit+1+slack {
					t.Errorf("the server read %d octets, over the limit %d and one", read, limit)
				}
				// What the client got out past that: net/http's own
				// discarding of up to 256 KiB after the handler, and the
				// two socket buffers.
				if sent >= size || sent > limit+(256<<10)+8*limSocketBuffer+(1<<20) {
					t.Errorf("the client sent %d octets", sent)
				}
				if allocated > 3*limit {
					t.Errorf("allocated %d octets during the request, over 3 times the limit (%d)", allocated, 3*limit)
				}
				if grown > 1<<20 {
					t.Errorf("the heap holds %d octets more after the request", grown)
				}
			})
		}
	}
}

// TestHugeLimits: limits near the largest int64 do not overflow the cut-off
// of unread bodies or the reading of text bodies (package upload tests the
// spool's).
func TestHugeLimits(t *testing.T) {
	const huge = 1<<63 - 1
	lb := &binaryLimit{ReadCloser: io.NopCloser(strings.NewReader("abc")), left: huge, limit: huge}
	if b, err := io.ReadAll(lb); err != nil || string(b) != "abc" {
		t.Errorf("binaryLimit: %q, %v", b, err)
	}
	p := compiled.Compile(rules.Strict())
	p.Limits.BodyBytes, p.Limits.BinaryBodyBytes = huge, huge

	// Text bodies under the same limits, of known and unknown length,
	// plain and gzip-coded: readBody's and readChunks' room is
	// limit+1-n, which must not overflow.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"a":"b"}`))
	zw.Close()
	for _, tc := range []struct {
		name, coding string
		body         []byte
		length       int64
	}{
		{"declared", "", []byte(`{"a":"b"}`), 9},
		{"chunked", "", []byte(`{"a":"b"}`), -1},
		{"gzip declared", "gzip", gz.Bytes(), int64(gz.Len())},
		{"gzip chunked", "gzip", gz.Bytes(), -1},
	} {
		r := httptest.NewRequest("POST", "/", bytes.NewReader(tc.body))
		r.ContentLength = tc.length
		r.Header.Set("Content-Type", "application/json")
		if tc.coding != "" {
			r.Header.Set("Content-Encoding", tc.coding)
		}
		s := getScratch()
		rj := s.checkBody(r, p)
		putScratch(s)
		if rj != nil {
			t.Errorf("%s JSON body under huge limits: %v", tc.name, rj)
			continue
		}
		if b, err := io.ReadAll(r.Body); err != nil || string(b) != `{"a":"b"}` {
			t.Errorf("%s JSON body under huge limits: the handler reads %q, %v", tc.name, b, err)
		}
	}
}
