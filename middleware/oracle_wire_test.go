package middleware

// The oracle over HTTP/2: the requests of TestOracleClients and
// TestOracleMechanisms, written for HTTP/1.1, sent again as the equivalent
// HTTP/2 request to a real server on 127.0.0.1, with prior knowledge (h2c)
// and on TLS (h2). Go's HTTP/2 server hands a handler a request unlike the
// one HTTP/1.1 gives (a body of unknown length, no framing headers,
// cookies split and joined again, trailers always announced), and only a
// real server shows what the middleware and the oracle make of it.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// orcWireReq is a request in flight: its server, its report, and
// whether the server handed it on (false: net/http refused it first).
type orcWireReq struct {
	srv     *server[orcHandler]
	rep     *orcReport
	reached atomic.Bool
}

// ServeHTTP serves r on the oracle server of its mount, as orcServe does:
// from the address 192.0.2.1, with the report in the context.
func (q *orcWireReq) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	q.reached.Store(true)
	r.RemoteAddr = "192.0.2.1:40000"
	q.srv.h.ServeHTTP(rw, r.WithContext(context.WithValue(r.Context(), orcKey{}, q.rep)))
}

// orcHopByHop are the header fields of HTTP/1.1 framing and connection
// management that HTTP/2 forbids or carries otherwise (Host as
// :authority, Trailer from the trailers the client sends).
var orcHopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Host", "Content-Length", "Trailer"}

// orcServeOver sends the HTTP/1.1 request wire as the equivalent HTTP/2
// request over w to mount m. skip is why it cannot be (absolute-form,
// what net/http refuses to send or to serve), "" when it was served; orig
// stays the HTTP/1.1 request as the client sent it.
func orcServeOver(t *testing.T, w *wireServer, m mount, wire []byte) (res orcResult, skip string) {
	t.Helper()
	orig, err := orcOrigOf(wire)
	if err != nil {
		return orcResult{}, "net/http does not parse the HTTP/1.1 request: " + err.Error()
	}
	r, err := orcParse(wire)
	if err != nil {
		return orcResult{}, "net/http does not parse the HTTP/1.1 request: " + err.Error()
	}
	if !strings.HasPrefix(r.RequestURI, "/") || strings.HasPrefix(r.RequestURI, "//") {
		return orcResult{}, fmt.Sprintf("HTTP/2 has no absolute-form target, nor a :path a URL's Opaque can give: %+q", r.RequestURI)
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return orcResult{}, "net/http does not read the HTTP/1.1 body: " + err.Error()
	}
	var body io.Reader
	switch {
	case r.ContentLength < 0:
		// DATA frames without a content-length, as chunked on HTTP/1.1
		// (not NoBody, after which Go's client sends no trailers).
		body = io.NopCloser(bytes.NewReader(b))
	case len(b) > 0:
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(r.Method, w.url+"/", body)
	if err != nil {
		return orcResult{}, "net/http makes no client request of it: " + err.Error()
	}
	if body != nil {
		// So that the transport sends it again on a new connection when
		// the server has gone away from this one (HTTP/2's GOAWAY, past a
		// rate of streams reset, as each refusal that leaves a body unread
		// resets one): without it, a body of unknown length ended the
		// case as "cannot rewind body after connection loss", a skip.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	req.URL.Path, req.URL.Opaque = "", r.RequestURI
	req.Host = r.Host
	req.ContentLength = r.ContentLength
	if body == nil {
		req.ContentLength = 0
	}
	req.Header = r.Header.Clone()
	for _, k := range orcHopByHop {
		delete(req.Header, k)
	}
	if te := req.Header.Values("Te"); len(te) > 0 {
		if len(te) != 1 || !strings.EqualFold(strings.TrimSpace(te[0]), "trailers") {
			return orcResult{}, fmt.Sprintf("HTTP/2 allows TE: trailers only, not %q", te)
		}
	}
	for k, vv := range req.Header {
		if !orcFieldName(k) {
			return orcResult{}, fmt.Sprintf("HTTP/2 carries no header field named %+q", k)
		}
		for _, v := range vv {
			if !orcFieldValue(v) {
				return orcResult{}, fmt.Sprintf("HTTP/2 carries no header field %s of value %+q", k, v)
			}
		}
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // none, as sent: not Go's own
	}
	if len(r.Trailer) > 0 {
		// Sent after the body, as the client announces them.
		req.Trailer = r.Trailer.Clone()
		for k, vv := range req.Trailer {
			for _, v := range vv {
				if !orcFieldName(k) || !orcFieldValue(v) {
					return orcResult{}, fmt.Sprintf("HTTP/2 carries no trailer %+q: %+q", k, v)
				}
			}
		}
	}
	q := &orcWireReq{srv: orcServer(t, m), rep: &orcReport{mount: m, orig: orig}}
	resp, err := w.do(req, q)
	if err != nil {
		if !q.reached.Load() {
			return orcResult{}, "net/http does not carry it over HTTP/2: " + err.Error()
		}
		t.Fatalf("%s over %s: %v", m, w.name, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s over %s: reading the answer: %v", m, w.name, err)
	}
	if resp.ProtoMajor != 2 {
		t.Fatalf("%s over %s: answered in %s", m, w.name, resp.Proto)
	}
	if !q.reached.Load() {
		if resp.StatusCode >= 400 && resp.StatusCode < 500 {
			return orcResult{}, fmt.Sprintf("net/http's HTTP/2 server refuses it before any handler: %d %q", resp.StatusCode, answer)
		}
		t.Fatalf("%s over %s: status %d without the dispatcher: %q", m, w.name, resp.StatusCode, answer)
	}
	return orcResultOf(resp.StatusCode, answer, q.rep), ""
}

// orcOverWires runs check on the request wire over h2c and h2, on each of
// mounts, as subtests "h2c/<mount>" and "h2/<mount>" of t, in parallel.
// With -short (the race detector's run, arm64 under emulation) over h2c
// only: the same HTTP/2 server and frames, without TLS, which the
// default run holds to the same checks.
func orcOverWires(t *testing.T, wire []byte, mounts []mount, check func(t *testing.T, res orcResult)) {
	wires := []*wireServer{wireOf(t, "h2c"), wireOf(t, "h2")}
	if testing.Short() {
		wires = wires[:1]
	}
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			for _, m := range mounts {
				t.Run(m.String(), func(t *testing.T) {
					t.Parallel()
					res, skip := orcServeOver(t, w, m, wire)
					if skip != "" {
						t.Skip(skip)
					}
					check(t, res)
				})
			}
		})
	}
}

// orcFieldName tells a header field name HTTP/2 carries: a token (as
// golang.org/x/net/http/httpguts, which Go's client and server check).
func orcFieldName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// orcFieldValue tells a header field value HTTP/2 carries: no control
// octet but HTAB.
func orcFieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
