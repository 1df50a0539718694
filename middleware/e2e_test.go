package middleware

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"

	"github.com/utf8guard/utf8guard/rules"
)

// e2eTimeout bounds every connection of the end-to-end tests.
const e2eTimeout = 10 * time.Second

// e2eServer is a real http.Server on 127.0.0.1 running Echo with the
// middleware (Strict, global), a handler that counts its calls and answers
// the sha256 and length of the body it read, a captured rejection log and
// a captured server error log (panics land there).
type e2eServer struct {
	addr   string
	calls  atomic.Int32
	logs   *logBuf
	errlog *logBuf
}

func newE2EServer(t *testing.T, pol rules.Policy) *e2eServer {
	t.Helper()
	s := &e2eServer{logs: &logBuf{}, errlog: &logBuf{}}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(emw.RequestID(), WithConfig(Config{Rules: &pol, Logger: s.logs.logger()}))
	h := func(c echo.Context) error {
		body, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		s.calls.Add(1)
		return c.String(http.StatusOK, fmt.Sprintf("%x %d %d %s", sha256.Sum256(body), len(body), c.Request().ContentLength, c.Param("*")))
	}
	e.Any("/api/files/*", h)
	e.Any("/api/echo", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: e2eTimeout,
		ReadTimeout:       e2eTimeout,
		WriteTimeout:      e2eTimeout,
		ErrorLog:          log.New(s.errlog, "", 0),
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if l := s.errlog.buf.String(); strings.Contains(l, "panic") {
			t.Errorf("server panicked: %s", l)
		}
	})
	s.addr = ln.Addr().String()
	return s
}

// send writes the raw request head and then body (from its own goroutine,
// so that a server answering before the body is all sent does not block
// the test), and reads the response.
func (s *e2eServer) send(t *testing.T, head string, body io.Reader) (*http.Response, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", s.addr, e2eTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(e2eTimeout)); err != nil {
		t.Fatal(err)
	}
	go func() {
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		if body != nil {
			_, _ = io.Copy(conn, body) // fails once the server stops reading: fine
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
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
			s := newE2EServer(t, rules.Strict())
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
			resp, got := s.send(t, head+"\r\n", body)
			// expect
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %q; log %v", resp.StatusCode, tc.status, got, s.logs.lines(t))
			}
			if tc.want.reason == "" {
				if s.calls.Load() != 1 {
					t.Fatalf("handler calls %d", s.calls.Load())
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
			if s.calls.Load() != 0 {
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
				s := newE2EServer(t, rules.Strict())
				body := sizedText(n)
				head := "POST /api/echo HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
				resp, got := s.send(t, head, chunked(body, sizes...))
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
			s := newE2EServer(t, rules.Strict())
			conn, err := net.DialTimeout("tcp", s.addr, e2eTimeout)
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.SetDeadline(time.Now().Add(e2eTimeout)); err != nil {
				t.Fatal(err)
			}
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

			deadline := time.Now().Add(e2eTimeout)
			for len(s.logs.lines(t)) == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			lines := s.logs.lines(t)
			if len(lines) != 1 || lines[0]["reason"] != "body_unreadable" || lines[0]["location"] != "json" || lines[0]["route"] != rEcho {
				t.Errorf("log %v", lines)
			}
			if s.calls.Load() != 0 {
				t.Errorf("the handler ran")
			}
		})
	}
}
