package middleware

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// bodySizes are the body sizes of the integrity tests. The first four
// are single characters of 1 to 4 octets.
var bodySizes = []int{1, 2, 3, 4, 511, 4096, 65537, 1 << 20}

func sizedText(n int) []byte {
	switch n {
	case 1:
		return []byte("a")
	case 2:
		return []byte("é")
	case 3:
		return []byte("€")
	case 4:
		return []byte("😀")
	}
	return mixedText(n)
}

// readers wrap a body to deliver it in odd chunk sizes.
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"plain", func(r io.Reader) io.Reader { return r }},
	{"one byte", iotest.OneByteReader},
	{"half", iotest.HalfReader},
	{"data with EOF", iotest.DataErrReader},
}

// hashHandler answers the sha256 of the body it reads, and its
// ContentLength, and counts its calls.
type hashHandler struct{ rec recorder }

func (h *hashHandler) serve(c echo.Context) error {
	r := c.Request()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	h.rec.calls.Add(1)
	sum := sha256.Sum256(body)
	return c.String(http.StatusOK, fmt.Sprintf("%x %d %d", sum, len(body), r.ContentLength))
}

// TestBodyIntegrity: given an acceptable body of any size, delivered in
// any chunking, with its length known or not, expect the handler to read
// it byte for byte (sha256), with ContentLength equal to its length.
func TestBodyIntegrity(t *testing.T) {
	t.Parallel()
	types := []struct {
		ct   string
		wrap func([]byte) []byte
	}{
		{ctText, func(b []byte) []byte { return b }},
		{ctJSON, func(b []byte) []byte { return append(append([]byte(`{"k":"`), b...), `"}`...) }},
		{ctForm, func(b []byte) []byte { return append([]byte("a=1&q="), b...) }},
	}
	for _, n := range bodySizes {
		for _, rd := range readers {
			for _, typ := range types {
				for _, unknown := range []bool{false, true} {
					name := fmt.Sprintf("size=%d/%s/%s/unknown=%v", n, rd.name, strings.Split(typ.ct, ";")[0], unknown)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						// given
						pol := rules.Strict()
						pol.Limits.BodyBytes = 2 << 20
						pol.Limits.FieldBytes = 2 << 20 // the form's one value is the body
						ev := newServer(t, recSetup(Config{Rules: &pol}, mountGlobal), &recorder{})
						h := &hashHandler{}
						ev.e.POST("/hash", h.serve)
						body := typ.wrap(sizedText(n))
						r := req(http.MethodPost, "/hash", typ.ct, rd.wrap(bytes.NewReader(body)))
						if unknown {
							r.ContentLength = -1
						} else {
							r.ContentLength = int64(len(body))
						}
						// when
						w := ev.do(r)
						// expect
						want := fmt.Sprintf("%x %d %d", sha256.Sum256(body), len(body), len(body))
						if w.Code != 200 || w.Body.String() != want {
							t.Fatalf("got %d %q, want %q; log %v", w.Code, w.Body.String(), want, ev.logs.lines(t))
						}
						if h.rec.calls.Load() != 1 {
							t.Errorf("handler calls %d", h.rec.calls.Load())
						}
					})
				}
			}
		}
	}
}

// TestBodyAtDefaultLimit: exactly 1 MiB passes the default limit; one
// more octet is too_large (413).
func TestBodyAtDefaultLimit(t *testing.T) {
	t.Parallel()
	for _, extra := range []int{0, 1} {
		for _, unknown := range []bool{false, true} {
			t.Run(fmt.Sprintf("extra=%d/unknown=%v", extra, unknown), func(t *testing.T) {
				t.Parallel()
				ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, mountGlobal), &recorder{})
				body := mixedText(rules.DefaultBodyBytes + extra)
				r := req(http.MethodPost, "/api/echo", ctText, iotest.HalfReader(bytes.NewReader(body)))
				if unknown {
					r.ContentLength = -1
				}
				w := ev.do(r)
				if extra == 0 {
					if w.Code != 200 || !bytes.Equal(ev.rec.seen().Body, body) {
						t.Fatalf("status %d", w.Code)
					}
					return
				}
				if w.Code != 413 || ev.rec.calls.Load() != 0 {
					t.Fatalf("status %d, calls %d", w.Code, ev.rec.calls.Load())
				}
				checkOneLog(t, ev.logs, rej("too_large", "body", "", -1), "enforce", "POST", rEcho)
			})
		}
	}
}

// TestTooLargeReadsNoMore: given a body with no end, expect 413 after
// reading at most the limit, one octet, and one buffer more; given a
// declared length over the limit, expect 413 without reading at all.
func TestTooLargeReadsNoMore(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	const oneBuffer = 32 << 10
	for _, ct := range []string{ctText, ctJSON, ctForm, ctMP} {
		for _, declared := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/declared=%v", strings.Split(ct, ";")[0], declared), func(t *testing.T) {
				t.Parallel()
				pol := rules.Strict()
				pol.Limits.BodyBytes = limit
				for _, m := range mounts {
					ev := newServer(t, recSetup(Config{Rules: &pol}, m), &recorder{})
					cr := &countingReader{r: infiniteReader{}}
					r := req(http.MethodPost, "/api/echo", ct, cr)
					r.ContentLength = -1
					if declared {
						r.ContentLength = 10 << 30
					}
					w := ev.do(r)
					if w.Code != http.StatusRequestEntityTooLarge || ev.rec.calls.Load() != 0 {
						t.Fatalf("%v: status %d, calls %d", m, w.Code, ev.rec.calls.Load())
					}
					n := cr.n.Load()
					switch {
					case declared && n != 0:
						t.Errorf("%v: read %d octets of a body declared over the limit", m, n)
					case !declared && n > limit+1+oneBuffer:
						t.Errorf("%v: read %d octets, limit %d", m, n, limit)
					}
					loc := map[string]string{ctText: "body", ctJSON: "json", ctForm: "form", ctMP: "multipart"}[ct]
					checkOneLog(t, ev.logs, rej("too_large", loc, "", -1), "enforce", "POST", rEcho)
				}
			})
		}
	}
}

// TestBodyReadFault: given a body that fails mid-way, expect 400, the
// handler not run and one log line; in Monitor mode the handler runs and
// meets the same error after the same octets.
func TestBodyReadFault(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name string
		err  error
	}{
		{"broken", errBroken},
		{"unexpected EOF", io.ErrUnexpectedEOF},
	}
	for _, m := range mounts {
		for _, f := range faults {
			for _, ct := range []string{ctText, ctJSON} {
				t.Run(m.String()+"/"+f.name+"/"+ct, func(t *testing.T) {
					t.Parallel()
					ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, m), &recorder{})
					r := req(http.MethodPost, "/api/echo", ct, &failingReader{data: mixedText(5000), err: f.err})
					r.ContentLength = -1
					w := ev.do(r)
					if w.Code != 400 || ev.rec.calls.Load() != 0 {
						t.Fatalf("status %d, calls %d", w.Code, ev.rec.calls.Load())
					}
					if got := errorBody(t, w.Body.Bytes()); got["reason"] != "body_unreadable" {
						t.Errorf("body %v", got)
					}
					lines := ev.logs.lines(t)
					if len(lines) != 1 {
						t.Fatalf("log lines %v", lines)
					}
					l := lines[0]
					if l["level"] != "warn" || l["route"] != rEcho || l["method"] != "POST" || l["remote_ip"] != "192.0.2.1" ||
						l["request_id"] == "" || !strings.Contains(str(l["error"]), f.err.Error()) {
						t.Errorf("log line %v", l)
					}

					// Monitor: passed on; the handler meets the error itself.
					mon := rules.Strict().AsMonitor()
					ev = newServer(t, recSetup(Config{Rules: &mon}, m), &recorder{})
					r = req(http.MethodPost, "/api/echo", ct, &failingReader{data: mixedText(5000), err: f.err})
					r.ContentLength = -1
					ev.do(r)
					s := ev.rec.seen()
					if s == nil || !bytes.Equal(s.Body, mixedText(5000)) || !errors.Is(s.BodyErr, f.err) {
						t.Fatalf("monitor: handler saw %+v", s)
					}
					if l := ev.logs.lines(t); len(l) != 1 || l[0]["mode"] != "monitor" {
						t.Errorf("monitor: log lines %v", l)
					}
				})
			}
		}
	}
}

// TestBodyHeaders: the handler's Content-Length header, when the client
// sent one, agrees with the body it reads, also after a repair; a body the
// policy does not read is left alone.
func TestBodyHeaders(t *testing.T) {
	t.Parallel()
	pol := repairing()
	pol.BinaryTypes = []string{"application/octet-stream"}
	ev := newServer(t, recSetup(Config{Rules: &pol}, mountGlobal), &recorder{})
	var cl string
	var n int
	ev.e.POST("/h", func(c echo.Context) error {
		b, _ := io.ReadAll(c.Request().Body)
		cl, n = c.Request().Header.Get("Content-Length"), len(b)
		return c.NoContent(http.StatusNoContent)
	})
	for _, body := range []string{"abc", "a\xC0b", ""} {
		r := req(http.MethodPost, "/h", ctText, strings.NewReader(body))
		r.Header.Set("Content-Length", fmt.Sprint(len(body)))
		ev.do(r)
		if cl != fmt.Sprint(n) {
			t.Errorf("body %q: Content-Length %q, read %d", body, cl, n)
		}
	}
	r := req(http.MethodPost, "/h", "application/octet-stream", strings.NewReader("\xFF"))
	r.Header.Set("Content-Length", "1")
	ev.do(r)
	if cl != "1" || n != 1 {
		t.Errorf("binary: Content-Length %q, read %d", cl, n)
	}
}
