package replay_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/replay"
	"github.com/utf8guard/utf8guard/rules"
)

func TestRawReader(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []got
	}{
		{"one request, Content-Length", "POST /a?q=1 HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
			[]got{{method: "POST", target: "/a?q=1", body: "hello", header: http.Header{"Content-Type": {"text/plain"}}}}},
		{"no body", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", []got{{method: "GET", target: "/"}}},
		{"chunked, with a trailer", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\n\r\n" +
			"GET /next HTTP/1.1\r\nHost: x\r\n\r\n",
			[]got{{method: "POST", target: "/c", body: "abc0123456789"}, {method: "GET", target: "/next"}}},
		{"several requests, empty lines between, LF line ends", "\r\nGET /1 HTTP/1.1\nHost: x\n\n\n\n" +
			"POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\na\nb\n" +
			"PUT /3 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
			[]got{{method: "GET", target: "/1"}, {method: "POST", target: "/2", body: "a\nb\n"}, {method: "PUT", target: "/3"}}},
		{"body octets as sent", "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\xc0\xaf\x00\xff",
			[]got{{method: "POST", target: "/b", body: "\xc0\xaf\x00\xff"}}},
		{"truncated body", "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
			[]got{{method: "GET", target: "/1"}, {err: "t.raw:4: body truncated: the file ends 7 octets short (the rest of the file is not read)"}}},
		{"truncated header", "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n",
			[]got{{method: "GET", target: "/1"}, {err: "t.raw:6: the file ends in the header of the request of line 4"}}},
		{"malformed chunk size", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
			[]got{{err: "t.raw:1: chunked body: line 5: chunk size \"zz\" is not a hex number (the rest of the file is not read)"}}},
		{"chunk data without CRLF", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
			[]got{{err: "t.raw:1: chunked body: line 6: a chunk's data does not end in CRLF"}}},
		{"a request a server refuses, then the next one", "GET /%zz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" +
			"GET /ok HTTP/1.1\r\nHost: x\r\n\r\n" +
			"GET /nohost HTTP/1.1\r\n\r\n" +
			"GET /tab HTTP/1.1\r\nHost: x\r\nX: a\x01b\r\n\r\n",
			[]got{
				{err: "t.raw:1: a net/http server would refuse it before any handler: parse \"/%zz\": invalid URL escape \"%zz\""},
				{method: "GET", target: "/ok"},
				{err: "t.raw:8: a net/http server would refuse it before any handler: HTTP/1.1 request without Host"},
				{err: "t.raw:10: a net/http server would refuse it before any handler"},
			}},
		{"a refused request whose body cannot be skipped ends the file", "GET /%zz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n",
			[]got{{err: "(the rest of the file is not read)"}}},
		{"not HTTP", "hello\r\n\r\n", []got{{err: "t.raw:1: a net/http server would refuse it before any handler: malformed HTTP request \"hello\""}}},
		{"empty file", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			compare(t, readAll(t, replay.NewRaw(strings.NewReader(tt.file), "t.raw")), tt.want)
		})
	}
}

func TestRawChunkedTrailerReachesTheRequest(t *testing.T) {
	rec := replay.NewRaw(strings.NewReader("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-Sum: 1\r\n\r\n"), "t.raw")
	req, err := rec.Next()
	if err != nil {
		t.Fatal(err)
	}
	if req.HTTP.ContentLength != -1 || req.Source != "t.raw:1" {
		t.Errorf("ContentLength %d, Source %q", req.HTTP.ContentLength, req.Source)
	}
	if _, err := io.ReadAll(req.HTTP.Body); err != nil {
		t.Fatal(err)
	}
	if got := req.HTTP.Trailer.Get("X-Sum"); got != "1" {
		t.Errorf("trailer X-Sum %q, want 1", got)
	}
}

// A body left unread by the replay is skipped by Next, so that the next
// request is found.
func TestRawNextSkipsTheBodyLeftUnread(t *testing.T) {
	rec := replay.NewRaw(strings.NewReader("POST /1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"), "t.raw")
	if _, err := rec.Next(); err != nil {
		t.Fatal(err)
	}
	req, err := rec.Next()
	if err != nil || req.HTTP.RequestURI != "/2" || req.Source != "t.raw:5" {
		t.Fatalf("second request: %v, %v", req, err)
	}
}

// zeros reads as an endless run of zero octets.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A raw request's body goes from the recording to the replay's reads
// without being held: replaying 16 MiB allocates a small part of that.
func TestRawBodyStreams(t *testing.T) {
	const size = 16 << 20
	head := fmt.Sprintf("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", size)
	rec := replay.NewRaw(io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size)), "big.http")
	rp, err := replay.New(rules.Default(), replay.MuxRoutes("/upload"))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	req, err := rec.Next()
	if err != nil {
		t.Fatal(err)
	}
	o := rp.Replay(req.HTTP)
	if err := req.Finish(); err != nil || o.Rejection != nil || o.Status != http.StatusOK {
		t.Fatalf("replay: %v, %+v", err, o)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("replaying %d octets allocated %d", size, alloc)
	if alloc > size/8 {
		t.Errorf("replaying a %d-octet body allocated %d octets", size, alloc)
	}
}
