package middleware

// Limits: every limit of a policy, at its value (accepted, the handler sees
// the request whole) and one past it (too_large, at its location, 413 for a
// body and 400 for a count, a length or a depth; the handler does not run),
// under the Echo middleware and the net/http adapter; a body declared over
// the limit is refused before any of it is read, even when the client waits
// for 100 Continue; and a 100 MiB body of unknown length, through a real
// server, is refused after the limit and one octet, with heap growth a small
// multiple of the limit.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/utf8guard/utf8guard/rules"
)

// limBody is the body limit of the table tests.
const limBody = 1000

// limMultipart returns a multipart/form-data body (boundary XBOUNDARYX)
// with one field q whose value fills it to exactly n octets.
func limMultipart(n int) string {
	const head = "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n"
	const tail = "\r\n--XBOUNDARYX--\r\n"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// limFill returns s followed by as many 'a' as make it n octets long.
func limFill(s string, n int) string { return s + strings.Repeat("a", n-len(s)) }

// limReq is a request of a limit case, its target relative to the
// adapter's prefix.
type limReq struct {
	method, target, ct, body string
	header                   [][2]string
	chunked                  bool // the body's length is unknown
}

// limCase is one limit: set sets it, build returns the request at the
// limit (over false) or one past it (over true).
type limCase struct {
	name  string
	set   func(p *rules.Policy)
	build func(over bool) limReq
	// Expected of the request over the limit.
	status     int
	loc, field string
	// The body is declared over the limit: refused before any octet of it
	// is read.
	readsNone bool
	// A binary body of unknown length is not refused by utf8guard but cut
	// off: the handler's read fails with *http.MaxBytesError after the
	// limit.
	cutOff bool
}

func limCases() []limCase {
	var cases []limCase
	// Body bytes, per location, declared and chunked.
	bodies := []struct {
		loc, ct string
		body    func(n int) string
	}{
		{"body", ctText, func(n int) string { return strings.Repeat("a", n) }},
		{"json", ctJSON, func(n int) string { return `{"q":"` + strings.Repeat("a", n-8) + `"}` }},
		{"form", ctForm, func(n int) string { return limFill("q=", n) }},
		{"multipart", ctMP, limMultipart},
	}
	for _, b := range bodies {
		for _, chunked := range []bool{false, true} {
			cases = append(cases, limCase{
				name: fmt.Sprintf("body bytes/%s/chunked=%v", b.loc, chunked),
				set:  func(p *rules.Policy) { p.Limits.BodyBytes = limBody },
				build: func(over bool) limReq {
					return limReq{method: "POST", target: "/echo", ct: b.ct, body: b.body(limBody + limOne(over)), chunked: chunked}
				},
				// A multipart body may hold data as well as text: its
				// declared length is refused only over both limits.
				status: 413, loc: b.loc, readsNone: !chunked && b.loc != "multipart",
			})
		}
	}
	binary := func(chunked bool) func(bool) limReq {
		return func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: "application/octet-stream", body: strings.Repeat("\xFF", limBody+limOne(over)), chunked: chunked}
		}
	}
	cases = append(cases,
		limCase{name: "body bytes/binary, not read/declared", set: func(p *rules.Policy) { p.Limits.BinaryBodyBytes = limBody },
			build: binary(false), status: 413, loc: "body", readsNone: true},
		limCase{name: "body bytes/binary, not read/chunked", set: func(p *rules.Policy) { p.Limits.BinaryBodyBytes = limBody },
			build: binary(true), status: 200, cutOff: true},
	)

	fields := func(p *rules.Policy) { p.Limits.Fields = 3 }
	length := func(p *rules.Policy) { p.Limits.FieldBytes = 8 }
	eAcute4 := strings.Repeat("%C3%A9", 4) // 8 octets decoded, 24 escaped
	cases = append(cases,
		// Field counts.
		limCase{name: "fields/query", set: fields, status: 400, loc: "query", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?a=1&b=2&c=3" + limIf(over, "&d=4")}
		}},
		limCase{name: "fields/form", set: fields, status: 400, loc: "form", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctForm, body: "a=1&b=2&c=3" + limIf(over, "&d=4")}
		}},
		limCase{name: "fields/multipart", set: fields, status: 400, loc: "multipart", build: func(over bool) limReq {
			parts := []mpPart{{disp: `name="a"`, data: "1"}, {disp: `name="b"`, data: "2"}, {disp: `name="c"`, data: "3"}}
			if over {
				parts = append(parts, mpPart{disp: `name="d"`, data: "4"})
			}
			return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(parts...)}
		}},
		// Field lengths, in decoded octets.
		limCase{name: "field bytes/query value", set: length, status: 400, loc: "query", field: "q", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?q=" + eAcute4 + limIf(over, "a")}
		}},
		limCase{name: "field bytes/query key", set: length, status: 400, loc: "query", field: "123456789", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?12345678" + limIf(over, "9") + "=1"}
		}},
		limCase{name: "field bytes/form value", set: length, status: 400, loc: "form", field: "q", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctForm, body: "q=" + eAcute4 + limIf(over, "a")}
		}},
		limCase{name: "field bytes/multipart value", set: length, status: 400, loc: "multipart", field: "q", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(mpPart{disp: `name="q"`, data: "12345678" + limIf(over, "9")})}
		}},
		limCase{name: "field bytes/header", status: 400, loc: "header", field: "X-Name",
			set: func(p *rules.Policy) {
				p.Header.On, p.Headers, p.Limits.FieldBytes = true, []string{"x-name"}, 8
			},
			build: func(over bool) limReq {
				return limReq{method: "GET", target: "/echo", header: [][2]string{{"X-Name", "12345678" + limIf(over, "9")}}}
			}},
		limCase{name: "field bytes/cookie value", set: length, status: 400, loc: "header", field: "Cookie:n", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo", header: [][2]string{{"Cookie", "a=1; n=12345678" + limIf(over, "9")}}}
		}},
		limCase{name: "field bytes/cookie name", set: length, status: 400, loc: "header", field: "Cookie:123456789", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo", header: [][2]string{{"Cookie", "12345678" + limIf(over, "9") + "=1"}}}
		}},
		// JSON depth.
		limCase{name: "json depth/arrays", set: func(p *rules.Policy) { p.Limits.JSONDepth = 3 }, status: 400, loc: "json", field: "/0/0/0",
			build: func(over bool) limReq {
				d := 3 + limOne(over)
				return limReq{method: "POST", target: "/echo", ct: ctJSON, body: strings.Repeat("[", d) + "1" + strings.Repeat("]", d)}
			}},
		limCase{name: "json depth/objects", set: func(p *rules.Policy) { p.Limits.JSONDepth = 3 }, status: 400, loc: "json", field: "/a/b/c",
			build: func(over bool) limReq {
				body := `{"a":{"b":{"c":1}}}`
				if over {
					body = `{"a":{"b":{"c":{"d":1}}}}`
				}
				return limReq{method: "POST", target: "/echo", ct: ctJSON, body: body}
			}},
		// Multipart parts (binary files, so that no field count is met).
		limCase{name: "multipart parts", set: func(p *rules.Policy) { p.Limits.MultipartParts = 3 }, status: 400, loc: "multipart",
			build: func(over bool) limReq {
				var parts []mpPart
				for i := range 3 + limOne(over) {
					parts = append(parts, mpPart{disp: fmt.Sprintf(`name="f%d"; filename="%d.png"`, i, i), ct: "image/png", data: "\x89PNG"})
				}
				return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(parts...)}
			}},
	)
	// Path length: the escaped path, whichever way Go keeps it: plain,
	// upper-case escapes (no RawPath: the limit counts URL.Path escaped),
	// lower-case escapes (RawPath as sent).
	for _, p := range []struct{ name, start string }{
		{"plain", "/files/"},
		{"upper-case escapes", "/files/%C3%A9%E2%82%AC"},
		{"lower-case escapes", "/files/%c3%a9%e2%82%ac"},
	} {
		cases = append(cases, limCase{name: "path bytes/" + p.name, status: 400, loc: "path",
			set: func(pol *rules.Policy) { pol.Limits.PathBytes = 40 },
			build: func(over bool) limReq {
				// 40 octets with the adapter's prefix: limRun adds it and
				// trims the fill to fit.
				return limReq{method: "GET", target: p.start + strings.Repeat("a", 40+limOne(over))}
			}})
	}
	return cases
}

func limOne(over bool) int {
	if over {
		return 1
	}
	return 0
}

func limIf(over bool, s string) string {
	if over {
		return s
	}
	return ""
}

// TestLimits: for every limit, given a request at the limit, expect it
// accepted whole; given one past it, expect too_large at the limit's
// location (413 for a body, 400 otherwise), one log line, an answer that
// names the reason and location, and a handler that does not run.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range limCases() {
		for _, a := range fltAdapters {
			for _, over := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%v/over=%v", tc.name, a, over), func(t *testing.T) {
					t.Parallel()
					limRun(t, tc, a, over)
				})
			}
		}
	}
}

func limRun(t *testing.T, tc limCase, a fltAdapter, over bool) {
	// given
	pol := strictUpload()
	tc.set(&pol)
	ev := fltNewEnv(t, a, pol, false)
	lr := tc.build(over)
	target := ev.prefix + lr.target
	if tc.loc == "path" {
		// Trim the fill so that the escaped path is exactly the limit
		// (plus one when over).
		target = target[:pol.Limits.PathBytes+limOne(over)]
	}
	var body *countingReader
	var r *http.Request
	if lr.body != "" {
		body = &countingReader{r: strings.NewReader(lr.body)}
		r = req(lr.method, target, lr.ct, body)
		r.ContentLength = int64(len(lr.body))
		if lr.chunked {
			r.ContentLength = -1
		}
	} else {
		r = req(lr.method, target, lr.ct, nil)
	}
	for _, h := range lr.header {
		r.Header.Add(h[0], h[1])
	}
	// when
	w := ev.serve(r)
	// expect
	s := ev.rec.seen()
	if !over || tc.cutOff {
		if w.Code != 200 || ev.rec.calls.Load() != 1 {
			t.Fatalf("status %d, handler calls %d; want 200 and 1: %s; log %v", w.Code, ev.rec.calls.Load(), w.Body.String(), ev.logs.lines(t))
		}
		if tc.cutOff && over {
			// Cut off as the handler reads: logged then (spool.go).
			checkOneLog(t, ev.logs, rej("too_large", "body", "", -1), "enforce", lr.method, "")
		} else if l := ev.logs.lines(t); len(l) != 0 {
			t.Errorf("log lines %v", l)
		}
		if tc.cutOff && over {
			var mbe *http.MaxBytesError
			if !errors.As(s.BodyErr, &mbe) || mbe.Limit != limBody || len(s.Body) != limBody {
				t.Errorf("the handler read %d octets and %v; want %d and an *http.MaxBytesError", len(s.Body), s.BodyErr, limBody)
			}
			return
		}
		if s.Body == nil {
			s.Body = []byte{}
		}
		if string(s.Body) != lr.body || s.BodyErr != nil {
			t.Errorf("the handler read %d octets (%v), want %d", len(s.Body), s.BodyErr, len(lr.body))
		}
		return
	}
	if w.Code != tc.status || ev.rec.calls.Load() != 0 {
		t.Fatalf("status %d, handler calls %d; want %d and none", w.Code, ev.rec.calls.Load(), tc.status)
	}
	if got := errorBody(t, w.Body.Bytes()); got["reason"] != "too_large" || got["location"] != tc.loc {
		t.Errorf("answer %v, want too_large in %s", got, tc.loc)
	}
	l := checkOneLog(t, ev.logs, rej("too_large", tc.loc, tc.field, -1), "enforce", lr.method, "")
	if l["field"] != tc.field {
		t.Errorf("log field %q, want %q", l["field"], tc.field)
	}
	if tc.readsNone && body.n.Load() != 0 {
		t.Errorf("read %d octets of a body declared over the limit", body.n.Load())
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
			ev := newEnv(t, Config{Rules: &pol}, m)
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
				s := fltStart(t, a, pol, 0, func(s *fltServer) { s.srv.Handler = s.app }) // no counter: see fltStart
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
				if runs := s.handlerRuns(); len(runs) != 0 {
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
			s := fltStart(t, a, strictUpload(), 0, func(s *fltServer) { s.srv.Handler = s.app })
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
			if runs := s.handlerRuns(); len(runs) != 1 {
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
	if raceEnabled {
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
				s := fltStart(t, a, pol, 0, func(s *fltServer) {
					s.srv.ConnState = func(c net.Conn, st http.ConnState) {
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
				runs := s.takeRuns()
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
				read, sent := s.read.Load(), gen.n.Load()
				allocated := after.TotalAlloc - before.TotalAlloc
				grown := int64(settled.HeapAlloc) - int64(before.HeapAlloc)
				t.Logf("limit %d: server read %d octets (limit+%d); client sent %d (limit+%d); allocated %d (%.2f x limit); heap after GC %+d",
					limit, read, read-limit, sent, sent-limit, allocated, float64(allocated)/limit, grown)
				// A multipart body may hold data past its text: it is read
				// a spool buffer at a time, and refused once its text is
				// surely over (upload.go).
				if slack := int64(limOne(b.name == "multipart") * spoolReadSize); read > limit+1+slack {
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
