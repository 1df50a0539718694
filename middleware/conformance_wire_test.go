package middleware_test

// The conformance table over real connections: every case that a client
// can send is sent to a real http.Server on 127.0.0.1 over HTTP/1.1, over
// HTTP/2 with prior knowledge (h2c) and over HTTP/2 on TLS (h2, as every
// browser speaks it), to every target, and must come out as it does in
// process. Go's HTTP/2 server hands a handler a request unlike the one
// HTTP/1.1 gives (a bodyless GET has a body of its own; a body sent in
// DATA frames without a content-length has an unknown length, as a
// chunked one has), and only a real server shows it.

import (
	"bytes"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A confWire is one protocol: a server on 127.0.0.1 that hands each
// request to the conformance server its confServerHeader names, and a
// client that speaks only that protocol to it.
type confWire struct {
	name   string // "http1", "h2c" or "h2"
	proto  int    // the protocol's major version, which every answer must have
	url    string
	client *http.Client

	servers sync.Map // id -> http.Handler
	next    atomic.Int64
}

// confServerHeader names the conformance server a request is for; the
// dispatcher removes it before the server sees the request.
const confServerHeader = "X-Conformance-Server"

var (
	confWiresOnce sync.Once
	confWires     []*confWire
)

// wires starts the three protocols' servers, once for the test binary;
// they run until it exits.
func wires() []*confWire {
	confWiresOnce.Do(func() {
		for _, name := range []string{"http1", "h2c", "h2"} {
			confWires = append(confWires, startWire(name))
		}
	})
	return confWires
}

func startWire(name string) *confWire {
	w := &confWire{name: name, proto: 2}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(w.dispatch))
	tr := &http.Transport{MaxIdleConnsPerHost: 64, ForceAttemptHTTP2: name == "h2", DisableCompression: true}
	tr.Protocols = new(http.Protocols)
	switch name {
	case "http1":
		w.proto = 1
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		tr.Protocols.SetHTTP1(true)
		srv.Start()
	case "h2c":
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		tr.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
	case "h2":
		srv.EnableHTTP2 = true
		srv.StartTLS()
		tr.Protocols.SetHTTP2(true)
		tr.TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	}
	w.url = srv.URL
	w.client = &http.Client{Transport: tr}
	return w
}

// dispatch hands r to the server it is for, as that server would get it
// from httptest.NewRequest: from the address 192.0.2.1, the case's
// fixture for the log's remote_ip.
func (w *confWire) dispatch(rw http.ResponseWriter, r *http.Request) {
	h, ok := w.servers.Load(r.Header.Get(confServerHeader))
	if !ok {
		http.Error(rw, "no conformance server "+r.Header.Get(confServerHeader), http.StatusTeapot)
		return
	}
	r.Header.Del(confServerHeader)
	r.RemoteAddr = "192.0.2.1:1234"
	h.(http.Handler).ServeHTTP(rw, r)
}

// sendable returns why tc cannot be sent over w as the table means it, or
// "" when it can.
func (tc confCase) sendable(w *confWire) string {
	switch {
	case tc.bodyErr:
		return "a body that fails part way is not one a client can send"
	case tc.parsedFirst:
		return "a form parsed before the server sees the request exists in process only"
	case tc.frames && w.name != "h2c":
		return "written frame by frame over h2c only"
	case tc.declared && w.proto != 2:
		return "HTTP/1.1 sends trailers after a chunked body only"
	case w.proto == 2 && !strings.HasPrefix(tc.target, "/"):
		return "HTTP/2 has no absolute-form target: :authority and :path carry it"
	}
	return ""
}

// runWire sends the case's request to the server of tg over w.
func (tc confCase) runWire(t *testing.T, tg confTarget, w *confWire) *confResult {
	t.Helper()
	s := newConfServer(t, tg, tc.policies())
	id := strconv.FormatInt(w.next.Add(1), 10)
	w.servers.Store(id, s.h)
	defer w.servers.Delete(id)

	if tc.frames {
		status, answer, h := sendFrames(t, w, id, tc, "example.com")
		return s.result(t, tg, status, answer, h)
	}
	in := tc.request()
	var body io.Reader
	var sent []byte
	if in.Body != nil && in.Body != http.NoBody {
		b, err := io.ReadAll(in.Body)
		if err != nil {
			t.Fatal(err)
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
		t.Fatal(err)
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
	req.URL.Path, req.URL.Opaque = "", tc.target
	req.Host = in.Host
	if body != nil {
		req.ContentLength = in.ContentLength
	}
	req.Header = in.Header.Clone()
	req.Header.Set(confServerHeader, id)
	if in.Trailer != nil {
		// Sent after the body, as the client announces them.
		req.Trailer = in.Trailer.Clone()
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s over %s: %v", tg, w.name, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s over %s: reading the answer: %v", tg, w.name, err)
	}
	if resp.ProtoMajor != w.proto {
		t.Fatalf("%s over %s: answered in %s", tg, w.name, resp.Proto)
	}
	return s.result(t, tg, resp.StatusCode, string(answer), resp.Header)
}

// runConformance runs each case on every target in process, then over
// HTTP/1.1, h2c and h2 through a real server, where a client can send it.
func runConformance(t *testing.T, cases []confCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.pending != "" {
				t.Skip(tc.pending)
			}
			tc.runAll(t, func(tg confTarget) *confResult { return tc.run(t, tg) })
			for _, w := range wires() {
				t.Run(w.name, func(t *testing.T) {
					t.Parallel()
					if why := tc.sendable(w); why != "" {
						t.Skip(why)
					}
					tc.runAll(t, func(tg confTarget) *confResult { return tc.runWire(t, tg, w) })
				})
			}
		})
	}
}
