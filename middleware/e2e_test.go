package middleware

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// e2eRec is the handler of the end-to-end tests: it counts its calls and
// answers the sha256 and length of the body it read, its ContentLength
// and c.Param("*").
type e2eRec struct{ calls atomic.Int32 }

func (h *e2eRec) serve(c echo.Context, _ http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	h.calls.Add(1)
	return c.String(http.StatusOK, fmt.Sprintf("%x %d %d %s", sha256.Sum256(body), len(body), r.ContentLength, c.Param("*")))
}

// e2eServer is Echo with the middleware (Strict, e.Use, behind Echo's
// RequestID) on /api/files/* and /api/echo, over a real http.Server on
// 127.0.0.1 speaking HTTP/1.1.
func e2eServer(t *testing.T) (*server[*e2eRec], *listening) {
	t.Helper()
	s := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: ptr(rules.Strict())}, routes: []string{rFiles, rEcho}, requestID: true}, &e2eRec{})
	return s, s.listen(t, "http1")
}

// TestE2E sends raw octets over TCP (no client cleans the request line)
// to a real server and checks the status, whether the handler ran, and
// the log line.
func TestE2E(t *testing.T) {
	t.Parallel()
	twoMiB := bytes.Repeat([]byte("a"), 2<<20)
	cases := []struct {
		name    string
		head    string // the request line and headers, without the blank line
		body    []byte
		chunked bool
		status  int
		want    wantLog
		route   string
		param   string // for accepted requests: c.Param("*")
	}{
		{name: "raw C0 AE in the request line", head: "GET /api/files/\xC0\xAE HTTP/1.1", status: 400, want: rej("overlong", "path", "", 11), route: rFiles},
		{name: "%C0%AE", head: "GET /api/files/%C0%AE HTTP/1.1", status: 400, want: rej("overlong", "path", "", 11), route: rFiles},
		{name: "%c0%ae lower", head: "GET /api/files/x%c0%ae HTTP/1.1", status: 400, want: rej("overlong", "path", "", 12), route: rFiles},
		{name: "%ED%A0%80", head: "GET /api/files/%ED%A0%80 HTTP/1.1", status: 400, want: rej("surrogate", "path", "", 11), route: rFiles},
		{name: "%00", head: "GET /api/files/a%00 HTTP/1.1", status: 400, want: forb("path", "", 12, "nul"), route: rFiles},
		{name: "%252e", head: "GET /api/files/%252e%252e/etc HTTP/1.1", status: 400, want: rej("double_encoding", "path", "", 11), route: rFiles},
		{name: "query raw octets", head: "GET /api/echo?q=\xED\xA0\x80 HTTP/1.1", status: 400, want: rej("surrogate", "query", "q", 0), route: rEcho},
		{name: "query bad escape", head: "GET /api/echo?q=%%30 HTTP/1.1", status: 400, want: rej("bad_escape", "query", "q", 0), route: rEcho},
		{name: "JSON lone surrogate", head: "POST /api/echo HTTP/1.1\r\nContent-Type: application/json", body: []byte(`{"q":"\ud800"}`), status: 400, want: rej("surrogate", "json", "/q", 6), route: rEcho},
		{name: "JSON pair", head: "POST /api/echo HTTP/1.1\r\nContent-Type: application/json", body: []byte(`{"q":"\ud83d\ude00"}`), status: 200},
		{name: "2 MiB body declared", head: "POST /api/echo HTTP/1.1\r\nContent-Type: text/plain", body: twoMiB, status: 413, want: rej("too_large", "body", "", -1), route: rEcho},
		{name: "2 MiB body chunked", head: "POST /api/echo HTTP/1.1\r\nContent-Type: text/plain", body: twoMiB, chunked: true, status: 413, want: rej("too_large", "body", "", -1), route: rEcho},
		{name: "chunked accepted", head: "POST /api/echo HTTP/1.1\r\nContent-Type: text/plain; charset=utf-8", body: mixedText(100003), chunked: true, status: 200},
		{name: "chunked rejected late", head: "POST /api/echo HTTP/1.1\r\nContent-Type: text/plain", body: append(mixedText(70001), 0xC0, 0xAE), chunked: true, status: 400, want: rej("overlong", "body", "", 70001), route: rEcho},
		{name: "clean path", head: "GET /api/files/d%C3%A9j%c3%a0 HTTP/1.1", status: 200, param: "déjà"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// given
			s, ln := e2eServer(t)
			head := tc.head + "\r\nHost: test\r\nConnection: close\r\n"
			var body io.Reader
			switch {
			case tc.chunked:
				head += "Transfer-Encoding: chunked\r\n"
				body = chunked(tc.body, 4093, 7, 1, 333)
			case tc.body != nil:
				head += "Content-Length: " + strconv.Itoa(len(tc.body)) + "\r\n"
				body = bytes.NewReader(tc.body)
			}
			// when
			resp, got := ln.send(t, head+"\r\n", body)
			// expect
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %q; log %v", resp.StatusCode, tc.status, got, s.logs.lines(t))
			}
			if tc.want.reason == "" {
				if s.rec.calls.Load() != 1 {
					t.Fatalf("handler calls %d", s.rec.calls.Load())
				}
				want := fmt.Sprintf("%x %d %d %s", sha256.Sum256(tc.body), len(tc.body), len(tc.body), tc.param)
				if got != want {
					t.Errorf("handler saw %q, want %q", got, want)
				}
				if l := s.logs.lines(t); len(l) != 0 {
					t.Errorf("accepted request logged %v", l)
				}
				return
			}
			if s.rec.calls.Load() != 0 {
				t.Errorf("the handler ran on a rejection")
			}
			if eb := errorBody(t, []byte(got)); eb["reason"] != tc.want.reason || eb["location"] != tc.want.location {
				t.Errorf("error body %v", eb)
			}
			l := checkOneLog(t, s.logs, tc.want, "enforce", strings.Fields(tc.head)[0], tc.route)
			if l["remote_ip"] != "127.0.0.1" || l["request_id"] != resp.Header.Get("X-Request-Id") || l["request_id"] == "" {
				t.Errorf("remote_ip %v request_id %v (response %q)", l["remote_ip"], l["request_id"], resp.Header.Get("X-Request-Id"))
			}
		})
	}
}

// TestE2EChunkedIntegrity: chunked bodies of every size, in odd chunk
// sizes, reach the handler whole (sha256), with their ContentLength.
func TestE2EChunkedIntegrity(t *testing.T) {
	t.Parallel()
	for _, n := range bodySizes {
		for _, sizes := range [][]int{{1}, {7, 3}, {4093, 1, 2}} {
			if n == 1<<20 && sizes[0] == 1 {
				continue // 1 MiB of one-octet chunks is 6 MiB on the wire; {7,3} straddles as well
			}
			t.Run(fmt.Sprintf("size=%d/chunks=%v", n, sizes), func(t *testing.T) {
				t.Parallel()
				_, ln := e2eServer(t)
				body := sizedText(n)
				head := "POST /api/echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
				resp, got := ln.send(t, head, chunked(body, sizes...))
				want := fmt.Sprintf("%x %d %d ", sha256.Sum256(body), len(body), len(body))
				if resp.StatusCode != 200 || got != want {
					t.Fatalf("got %d %q, want %q", resp.StatusCode, got, want)
				}
			})
		}
	}
}

// TestE2EDisconnect: a client that goes away mid-body neither panics the
// server nor reaches the handler; the failed read is logged once.
func TestE2EDisconnect(t *testing.T) {
	t.Parallel()
	for _, chunkedBody := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunkedBody), func(t *testing.T) {
			t.Parallel()
			s, ln := e2eServer(t)
			conn := ln.dial(t)
			head := "POST /api/echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
			part := []byte(`{"q":"` + string(mixedText(5000)))
			if chunkedBody {
				head += "Transfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n", len(part)+100) // promise more
			} else {
				head += "Content-Length: 100000\r\n\r\n"
			}
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Write(part); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond) // let the server read some
			conn.Close()

			deadline := time.Now().Add(wireTimeout)
			for len(s.logs.lines(t)) == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			lines := s.logs.lines(t)
			if len(lines) != 1 || lines[0]["reason"] != "body_unreadable" || lines[0]["location"] != "json" || lines[0]["route"] != rEcho {
				t.Errorf("log %v", lines)
			}
			if s.rec.calls.Load() != 0 {
				t.Errorf("the handler ran")
			}
		})
	}
}
