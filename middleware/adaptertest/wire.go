package adaptertest

// Rows over real connections: every row that a client can send is sent
// to a real http.Server on 127.0.0.1 over HTTP/1.1, over HTTP/2 with prior
// knowledge (h2c) and over HTTP/2 on TLS (h2, as every browser speaks it),
// and must come out as it does in process. Go's HTTP/2 server hands a
// handler a request unlike the one HTTP/1.1 gives (a bodyless GET has a
// body of its own; a body sent in DATA frames without a content-length has
// an unknown length, as a chunked one has), and only a real server shows
// it.

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/utf8guard/utf8guard/middleware/internal/wiretest"
)

// A wire is one protocol: a server on 127.0.0.1 that hands each request
// to the server its serverHeader names, and a client that speaks only
// that protocol to it.
type wire struct {
	name   string // "http1", "h2c" or "h2"
	proto  int    // the protocol's major version, which every answer must have
	url    string
	client *http.Client

	servers sync.Map // id -> http.Handler
	next    atomic.Int64
}

// serverHeader names the server a request is for; the dispatcher removes
// it before the server sees the request.
const serverHeader = "X-Adaptertest-Server"

var (
	wiresOnce sync.Once
	allWires  []*wire
)

// wires starts the three protocols' servers, once for the test binary;
// they run until it exits.
func wires() []*wire {
	wiresOnce.Do(func() {
		for _, name := range []string{"http1", "h2c", "h2"} {
			allWires = append(allWires, startWire(name))
		}
	})
	return allWires
}

func startWire(name string) *wire {
	w := &wire{name: name, proto: 2}
	if name == "http1" {
		w.proto = 1
	}
	srv, tr, err := wiretest.Start(http.HandlerFunc(w.dispatch), name, nil)
	if err != nil {
		panic(err) // the names are wires' own
	}
	tr.MaxIdleConnsPerHost = 64
	w.url = srv.URL
	w.client = &http.Client{Transport: tr}
	return w
}

// dispatch hands r to the server it is for, as that server would get it
// from httptest.NewRequest: from the address 192.0.2.1, the rows' fixture
// for the log's remote_ip.
func (w *wire) dispatch(rw http.ResponseWriter, r *http.Request) {
	h, ok := w.servers.Load(r.Header.Get(serverHeader))
	if !ok {
		http.Error(rw, "no server "+r.Header.Get(serverHeader), http.StatusTeapot)
		return
	}
	r.Header.Del(serverHeader)
	r.RemoteAddr = "192.0.2.1:1234"
	h.(http.Handler).ServeHTTP(rw, r)
}

// sendable returns why the row cannot be sent over w as the table means
// it, or "" when it can.
func (rw row) sendable(w *wire) string {
	switch {
	case rw.bodyErr:
		return "a body that fails part way is not one a client can send"
	case rw.parsedFirst:
		return "a form parsed before the server sees the request exists in process only"
	case rw.frames && w.name != "h2c":
		return "written frame by frame over h2c only"
	case rw.declared && w.proto != 2:
		return "HTTP/1.1 sends trailers after a chunked body only"
	case w.proto == 2 && !strings.HasPrefix(rw.target, "/"):
		return "HTTP/2 has no absolute-form target: :authority and :path carry it"
	}
	return ""
}

// send sends the row's request to s over w.
func (rw row) send(s *server, w *wire) (*result, error) {
	id := strconv.FormatInt(w.next.Add(1), 10)
	w.servers.Store(id, http.Handler(s))
	defer w.servers.Delete(id)

	in := rw.request()
	if rw.frames {
		status, answer, h, err := sendFrames(w, id, rw, "example.com")
		if err != nil {
			return nil, err
		}
		return s.result(in.Method, status, answer, h)
	}
	var body io.Reader
	var sent []byte
	if in.Body != nil && in.Body != http.NoBody {
		b, err := io.ReadAll(in.Body)
		if err != nil {
			return nil, err
		}
		sent = b
		switch {
		case in.ContentLength < 0:
			// Of unknown length: chunked on HTTP/1.1, DATA frames
			// without a content-length on HTTP/2. (Not NoBody, which
			// Go's HTTP/2 client sends no trailers after.)
			body = io.NopCloser(bytes.NewReader(b))
		case len(b) > 0:
			body = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(in.Method, w.url+"/", body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		// So that the transport sends it again on a new connection when
		// the server has gone away from this one (HTTP/2's GOAWAY, which
		// Go's server sends past a rate of streams it resets, as it does
		// for each refusal that leaves a body unread).
		b := sent
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	// The target as sent, octet for octet: an absolute-form one too.
	req.URL.Path, req.URL.Opaque = "", rw.target
	req.Host = in.Host
	if body != nil {
		req.ContentLength = in.ContentLength
	}
	req.Header = in.Header.Clone()
	req.Header.Set(serverHeader, id)
	if in.Trailer != nil {
		// Sent after the body, as the client announces them.
		req.Trailer = in.Trailer.Clone()
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %v", err)
	}
	if resp.ProtoMajor != w.proto {
		return nil, fmt.Errorf("answered in %s", resp.Proto)
	}
	return s.result(in.Method, resp.StatusCode, string(answer), resp.Header)
}
