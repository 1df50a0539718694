package middleware

// Faults: a client that goes away mid-body, a body reader that fails, a slow
// body, a Content-Length that says less or more than is sent. For each,
// under the Echo middleware and the net/http adapter:
//
//   - no panic (the server's error log is checked);
//   - no goroutine left behind once the server and its clients are closed
//     (fltLeakCheck, the equivalent of goleak.VerifyNone);
//   - one logged outcome per request that reached the middleware: accepted
//     (LogAccepted is on), rejected, or "utf8guard: reading the request body
//     failed";
//   - a handler that does not run, or that reads the complete body (in
//     Monitor mode: what came, then the same read error, never a clean end).
//
// The top-level tests are not parallel: the goroutine check counts every
// goroutine of the process, so nothing else may start any meanwhile (go test
// runs the parallel tests only after the sequential ones). Their subtests
// are parallel among themselves. Every wait has a deadline.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/utf8guard/utf8guard/rules"
)

// fltBody is a body of each checked type whose checked text is
// mixedText(n) (which straddles read boundaries with multi-octet
// characters), split where the text starts: prefix + text + suffix.
type fltBody struct {
	ct             string
	prefix, suffix string
}

var fltBodies = []fltBody{
	{ctText, "", ""},
	{ctJSON, `{"q":"`, `"}`},
	{ctForm, "a=1&q=", ""},
	{ctMP, "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n", "\r\n--XBOUNDARYX--\r\n"},
}

func (b fltBody) String() string { return strings.Split(b.ct, ";")[0] }

// with returns the whole body around text.
func (b fltBody) with(text []byte) []byte {
	return slices.Concat([]byte(b.prefix), text, []byte(b.suffix))
}

// TestFaultsDisconnect: given a client that sends part of a body (declared
// or chunked, of each checked type) and goes away, expect no panic, no
// goroutine left behind, the read failure logged once, and, in Enforce
// mode, a handler that never runs; in Monitor mode the handler runs and its
// read gives what came and then fails, as the body failed utf8guard's.
func TestFaultsDisconnect(t *testing.T) {
	fltLeakCheck(t)
	for _, a := range fltAdapters {
		for _, b := range fltBodies {
			for _, framing := range []string{"declared", "chunked"} {
				for _, mode := range []rules.Mode{rules.Enforce, rules.Monitor} {
					t.Run(fmt.Sprintf("%v/%v/%s/%v", a, b, framing, mode), func(t *testing.T) {
						t.Parallel()
						// given
						pol := rules.Strict()
						if mode == rules.Monitor {
							pol = pol.AsMonitor()
						}
						s := fltStart(t, a, pol, 0)
						part := append([]byte(b.prefix), mixedText(5000)...)
						sent := part // every octet of the body that is sent
						conn := s.dial(t)
						// when: the client sends part, waits until the server
						// has read it, and goes away, within the body
						// (declared) or within a chunk (chunked). Go's chunked
						// reader returns what it has only at the end of a
						// chunk, so part is a chunk of its own, and the one
						// cut short follows once the server has read it.
						head := fltHead(b.ct, "Content-Length: 100000")
						if framing == "chunked" {
							head = fltHead(b.ct, "Transfer-Encoding: chunked") + fmt.Sprintf("%x\r\n", len(part))
						}
						if _, err := conn.Write(append([]byte(head), part...)); err != nil {
							t.Fatal(err)
						}
						if framing == "chunked" {
							if _, err := io.WriteString(conn, "\r\n"); err != nil {
								t.Fatal(err)
							}
						}
						fltWaitFor(t, "the server to read the part", func() bool { return s.rec.read.Load() >= int64(len(part)) })
						if framing == "chunked" {
							more := mixedText(10)
							if _, err := conn.Write(append([]byte("3e8\r\n"), more...)); err != nil { // 1000 promised, 10 sent
								t.Fatal(err)
							}
							sent = slices.Concat(part, more)
							time.Sleep(10 * time.Millisecond)
						}
						conn.Close()
						// expect
						fltWaitFor(t, "the log line", func() bool { return len(s.logs.lines(t)) > 0 })
						if mode == rules.Monitor {
							fltWaitFor(t, "the handler", func() bool { return len(s.rec.handlerRuns()) > 0 })
						}
						l := s.oneLog(t, fltReadFailed)
						if l["mode"] != mode.String() || l["error"] == "" {
							t.Errorf("log line %v", l)
						}
						runs := s.rec.handlerRuns()
						if mode == rules.Enforce {
							if len(runs) != 0 {
								t.Fatalf("the handler ran on a body cut short: %d octets, %v", len(runs[0].body), runs[0].err)
							}
							return
						}
						if len(runs) != 1 || !bytes.Equal(runs[0].body, sent) || !errors.Is(runs[0].err, io.ErrUnexpectedEOF) {
							t.Fatalf("monitor: handler runs %d; want one that reads the %d octets sent, then io.ErrUnexpectedEOF", len(runs), len(sent))
						}
					})
				}
			}
		}
	}
}

// errFltCustom is short: the log line's error field is bounded (64 octets).
var errFltCustom = errors.New("flt: storage gone")

// fltDataErrReader gives data in reads of at most 1000 octets and returns
// err with the last of them (n > 0 and an error together, which the
// io.Reader contract allows).
type fltDataErrReader struct {
	data []byte
	err  error
}

func (r *fltDataErrReader) Read(p []byte) (int, error) {
	n := copy(p[:min(len(p), 1000)], r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		return n, r.err
	}
	return n, nil
}

// TestFaultsBodyReadError: given a body whose reader fails (with
// io.ErrUnexpectedEOF or another error; before any octet, after some, or
// together with the last ones), of each checked type, declared or not,
// expect 400 {"reason":"body_unreadable"}, one log line naming the error,
// and a handler that does not run; in Monitor mode the handler runs and
// reads the same octets and then the same error.
func TestFaultsBodyReadError(t *testing.T) {
	fltLeakCheck(t)
	errs := []error{io.ErrUnexpectedEOF, errFltCustom}
	timings := []struct {
		name string
		body func(data []byte, err error) io.Reader
		sent int // octets of data the reader gives before failing
	}{
		{"at once", func(_ []byte, err error) io.Reader { return iotest.ErrReader(err) }, 0},
		{"after 4000 octets", func(d []byte, err error) io.Reader { return &failingReader{data: d[:4000], err: err} }, 4000},
		{"with the last octets", func(d []byte, err error) io.Reader { return &fltDataErrReader{data: d[:4000], err: err} }, 4000},
	}
	for _, a := range fltAdapters {
		for _, b := range fltBodies {
			for _, ferr := range errs {
				for _, tm := range timings {
					for _, declared := range []bool{false, true} {
						for _, mode := range []rules.Mode{rules.Enforce, rules.Monitor} {
							name := fmt.Sprintf("%v/%v/%v/%s/declared=%v/%v", a, b, ferr, tm.name, declared, mode)
							t.Run(name, func(t *testing.T) {
								t.Parallel()
								// given
								pol := rules.Strict()
								if mode == rules.Monitor {
									pol = pol.AsMonitor()
								}
								ev := newServer(t, fltEnvSetup(a, pol, true), &recorder{})
								data := b.with(mixedText(10000))
								r := req(http.MethodPost, fltPrefix(a)+"/echo", b.ct, tm.body(data, ferr))
								r.ContentLength = -1
								if declared {
									r.ContentLength = int64(len(data))
								}
								// when
								w := ev.do(r)
								// expect
								l := fltLogLine(t, ev.logs, fltReadFailed)
								if l["mode"] != mode.String() || !strings.Contains(str(l["error"]), ferr.Error()) {
									t.Errorf("log line %v", l)
								}
								if mode == rules.Enforce {
									if w.Code != 400 || ev.rec.calls.Load() != 0 {
										t.Fatalf("status %d, handler calls %d; want 400 and none", w.Code, ev.rec.calls.Load())
									}
									if got := errorBody(t, w.Body.Bytes()); got["reason"] != "body_unreadable" {
										t.Errorf("error body %v", got)
									}
									return
								}
								s := ev.rec.seen()
								if ev.rec.calls.Load() != 1 || !bytes.Equal(s.Body, data[:tm.sent]) || !errors.Is(s.BodyErr, ferr) {
									t.Fatalf("monitor: handler calls %d, read %d octets and %v; want %d octets and %v",
										ev.rec.calls.Load(), len(s.Body), s.BodyErr, tm.sent, ferr)
								}
							})
						}
					}
				}
			}
		}
	}
}

// fltLogLine asserts that logs holds exactly one line, with message msg,
// and returns it.
func fltLogLine(t testing.TB, logs *logBuf, msg string) map[string]any {
	t.Helper()
	lines := logs.lines(t)
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1 (%q): %v", len(lines), msg, lines)
	}
	l := lines[0]
	if msg == fltReadFailed {
		// A body that could not be read is a rejection like any other:
		// reason body_unreadable, with its location and the cause.
		if l["reason"] != "body_unreadable" || l["location"] == "" || l["error"] == "" || l["method"] != "POST" ||
			l["message"] != "utf8guard: request rejected" && l["message"] != "utf8guard: request flagged" {
			t.Errorf("log line %v; want a body_unreadable rejection with its location and error", l)
		}
		return l
	}
	if l["message"] != msg || l["method"] != "POST" {
		t.Errorf("log line %v; want message %q", l, msg)
	}
	return l
}

// TestFaultsSlowBody: a body that comes one octet per read, in process
// (iotest.OneByteReader) and from a real client writing one octet every 2
// ms, reaches the handler whole, or is rejected at the right offset; a
// client slower than the server's ReadTimeout is cut off, logged, and
// never reaches the handler.
func TestFaultsSlowBody(t *testing.T) {
	fltLeakCheck(t)
	t.Run("one octet per read", func(t *testing.T) {
		for _, a := range fltAdapters {
			for _, b := range fltBodies {
				for _, bad := range []bool{false, true} {
					t.Run(fmt.Sprintf("%v/%v/bad=%v", a, b, bad), func(t *testing.T) {
						t.Parallel()
						ev := newServer(t, fltEnvSetup(a, rules.Strict(), true), &recorder{})
						text := mixedText(3000)
						if bad {
							text = append(text, 0xC0, 0xAE) // overlong '.', at the very end
						}
						data := b.with(text)
						r := req(http.MethodPost, fltPrefix(a)+"/echo", b.ct, iotest.OneByteReader(bytes.NewReader(data)))
						w := ev.do(r)
						if bad {
							if w.Code != 400 || ev.rec.calls.Load() != 0 {
								t.Fatalf("status %d, handler calls %d; want 400 and none", w.Code, ev.rec.calls.Load())
							}
							l := fltLogLine(t, ev.logs, fltRejected)
							if l["reason"] != "overlong" || l["location"] != fltLocation(b.ct) {
								t.Errorf("log line %v", l)
							}
							return
						}
						s := ev.rec.seen()
						if w.Code != 200 || ev.rec.calls.Load() != 1 || !bytes.Equal(s.Body, data) || s.BodyErr != nil || s.ContentLength != int64(len(data)) {
							t.Fatalf("status %d, handler calls %d; want 200 and the body whole", w.Code, ev.rec.calls.Load())
						}
						fltLogLine(t, ev.logs, fltAccepted)
					})
				}
			}
		}
	})
	t.Run("slow client", func(t *testing.T) {
		for _, a := range fltAdapters {
			for _, framing := range []string{"declared", "chunked"} {
				t.Run(fmt.Sprintf("%v/%s", a, framing), func(t *testing.T) {
					t.Parallel()
					// given: 120 octets, one every 2 ms (a chunk each when
					// chunked), so that characters straddle the reads.
					s := fltStart(t, a, rules.Strict(), 0)
					body := mixedText(120)
					conn := s.dial(t)
					var wire [][]byte
					if framing == "chunked" {
						wire = append(wire, []byte(fltHead(ctText, "Transfer-Encoding: chunked")))
						for _, c := range body {
							wire = append(wire, []byte("1\r\n"+string([]byte{c})+"\r\n"))
						}
						wire = append(wire, []byte("0\r\n\r\n"))
					} else {
						wire = append(wire, []byte(fltHead(ctText, "Content-Length: "+strconv.Itoa(len(body)))))
						for _, c := range body {
							wire = append(wire, []byte{c})
						}
					}
					// when
					for _, w := range wire {
						if _, err := conn.Write(w); err != nil {
							t.Fatal(err)
						}
						time.Sleep(2 * time.Millisecond)
					}
					resp, got := fltReadResponse(t, bufio.NewReader(conn))
					// expect
					if resp.StatusCode != 200 || got != fltSum(body) {
						t.Fatalf("got %d %q, want 200 %q", resp.StatusCode, got, fltSum(body))
					}
					if runs := s.rec.handlerRuns(); len(runs) != 1 || !bytes.Equal(runs[0].body, body) {
						t.Errorf("handler runs %d", len(runs))
					}
					s.oneLog(t, fltAccepted)
				})
			}
		}
	})
	t.Run("slower than ReadTimeout", func(t *testing.T) {
		for _, a := range fltAdapters {
			t.Run(a.String(), func(t *testing.T) {
				t.Parallel()
				// given: a server that gives a request 300 ms, and a client
				// that would take 50 s to send its body.
				s := fltStart(t, a, rules.Strict(), 300*time.Millisecond)
				conn := s.dial(t)
				if _, err := io.WriteString(conn, fltHead(ctText, "Content-Length: 10000")); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				wrote := make(chan struct{})
				go func() {
					defer close(wrote)
					for i := 0; i < 600; i++ { // at most 3 s
						select {
						case <-done:
							return
						case <-time.After(5 * time.Millisecond):
						}
						if _, err := conn.Write([]byte{'a'}); err != nil {
							return
						}
					}
				}()
				// when
				resp, got := fltReadResponse(t, bufio.NewReader(conn))
				close(done)
				<-wrote
				// expect
				if resp.StatusCode != 400 || !strings.Contains(got, "body_unreadable") {
					t.Fatalf("got %d %q; want 400 body_unreadable", resp.StatusCode, got)
				}
				l := s.oneLog(t, fltReadFailed)
				if !strings.Contains(str(l["error"]), "timeout") {
					t.Errorf("log line %v: want an i/o timeout", l)
				}
				if runs := s.rec.handlerRuns(); len(runs) != 0 {
					t.Errorf("the handler ran on a body cut short")
				}
			})
		}
	})
}

// fltLocation is the location a body of type ct is checked in.
func fltLocation(ct string) string {
	return map[string]string{ctText: "body", ctJSON: "json", ctForm: "form", ctMP: "multipart"}[ct]
}

// TestFaultsContentLength: given a Content-Length that says less or more
// than the client sends, over raw TCP, expect what net/http does with it,
// and utf8guard to check exactly the body the handler would read:
//
//   - shorter: the server reads Content-Length octets as the body; the rest
//     is read as the next request, which net/http refuses (400, malformed)
//     without the handler. A cut inside a character is a truncated body
//     (400) and the handler does not run.
//   - longer, and the client then half-closes: the body ends early
//     (io.ErrUnexpectedEOF): body_unreadable, logged, no handler.
//   - longer, and the client then waits: the server's ReadTimeout (300 ms)
//     ends the read: body_unreadable, logged, no handler.
func TestFaultsContentLength(t *testing.T) {
	fltLeakCheck(t)
	cases := []struct {
		name     string
		declared int
		sent     string
		after    string // "halfclose", "wait", or "" (read on)
		status   int
		outcome  string // the log message
		reason   string // of a rejection
		handled  string // the body the handler read; "" when it must not run
		next     bool   // the rest of sent is a second request that net/http refuses
	}{
		{name: "shorter", declared: 5, sent: "hello world\r\n\r\n", status: 200, outcome: fltAccepted, handled: "hello", next: true},
		{name: "shorter inside a character", declared: 3, sent: "ab\u20ac end\r\n\r\n", status: 400, outcome: fltRejected, reason: "truncated", next: true},
		{name: "longer then half-close", declared: 100, sent: "0123456789", after: "halfclose", status: 400, outcome: fltReadFailed, reason: "body_unreadable"},
		{name: "longer then wait", declared: 100, sent: "0123456789", after: "wait", status: 400, outcome: fltReadFailed, reason: "body_unreadable"},
	}
	for _, a := range fltAdapters {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%v/%s", a, tc.name), func(t *testing.T) {
				t.Parallel()
				// given
				s := fltStart(t, a, rules.Strict(), 300*time.Millisecond)
				conn := s.dial(t)
				// when
				if _, err := io.WriteString(conn, fltHead(ctText, "Content-Length: "+strconv.Itoa(tc.declared))+tc.sent); err != nil {
					t.Fatal(err)
				}
				if tc.after == "halfclose" {
					if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
						t.Fatal(err)
					}
				}
				br := bufio.NewReader(conn)
				resp, got := fltReadResponse(t, br)
				// expect
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d %q, want %d", resp.StatusCode, got, tc.status)
				}
				l := s.oneLog(t, tc.outcome)
				switch tc.outcome {
				case fltAccepted:
					if got != fltSum([]byte(tc.handled)) {
						t.Errorf("handler answered %q, want the sum of %q", got, tc.handled)
					}
				case fltRejected:
					if l["reason"] != tc.reason || l["location"] != "body" || l["offset"] != float64(2) {
						t.Errorf("log line %v", l)
					}
				case fltReadFailed:
					if !strings.Contains(got, tc.reason) {
						t.Errorf("answer %q, want %s", got, tc.reason)
					}
				}
				runs := s.rec.handlerRuns()
				if tc.handled == "" && len(runs) != 0 {
					t.Errorf("the handler ran and read %q", runs[0].body)
				}
				if tc.handled != "" && (len(runs) != 1 || string(runs[0].body) != tc.handled || runs[0].err != nil) {
					t.Errorf("handler runs %d; want one that reads %q", len(runs), tc.handled)
				}
				if tc.next {
					resp, got := fltReadResponse(t, br)
					if resp.StatusCode != 400 || got != "400 Bad Request" {
						t.Errorf("the rest of the body as a request: %d %q; want net/http's 400", resp.StatusCode, got)
					}
					if n := len(s.rec.handlerRuns()); n != len(runs) {
						t.Errorf("the handler ran for the rest of the body")
					}
					if n := len(s.logs.lines(t)); n != 1 {
						t.Errorf("%d log lines: the rest of the body reached utf8guard", n)
					}
				}
			})
		}
	}
}
