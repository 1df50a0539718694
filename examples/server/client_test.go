package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// response is what the demo answered.
type response struct {
	status int
	header http.Header
	body   []byte
}

// rawRequest sends raw, exactly as given, on a fresh connection and reads
// one response, within a deadline.
func (d *demo) rawRequest(t *testing.T, raw []byte) response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", d.addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", d.addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// Write while reading: the demo may answer (413) before it has read
	// the whole request, and then stop reading it.
	werr := make(chan error, 1)
	go func() { _, err := conn.Write(raw); werr <- err }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response to %q: %v (write: %v)", head(raw), err, <-werr)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response body to %q: %v", head(raw), err)
	}
	conn.Close()
	<-werr // an error here is the demo closing early, which is allowed
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

func head(raw []byte) []byte {
	if i := bytes.Index(raw, []byte("\r\n")); i >= 0 {
		return raw[:i]
	}
	return raw
}

// req is one request to build: target is the request-target exactly as
// sent (path-as-is: no cleaning, no re-escaping).
type req struct {
	method, target string
	contentType    string
	body           []byte
	header         []string // extra "Name: value" lines
	unknownLength  bool     // over h2c: DATA frames without a content-length
}

func (r req) bytes(host string) []byte {
	var b bytes.Buffer
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, r.target, host)
	if r.contentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", r.contentType)
	}
	for _, h := range r.header {
		fmt.Fprintf(&b, "%s\r\n", h)
	}
	if r.body != nil || method == http.MethodPost {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n")
	b.Write(r.body)
	return b.Bytes()
}

func (r req) methodOrGET() string {
	if r.method == "" {
		return http.MethodGet
	}
	return r.method
}

// do sends r and records what the log must hold for it: want, or, when
// want is nil, the line the middleware's rejection answer implies (one
// line), or none. It returns the response.
func (d *demo) do(t *testing.T, name string, r req, want *logExpect) response {
	t.Helper()
	var resp response
	if d.h2c != nil {
		resp = d.h2cRequest(t, r)
	} else {
		resp = d.rawRequest(t, r.bytes(d.addr))
	}
	rid := resp.header.Get("X-Request-Id")
	if rid == "" {
		// Only net/http's own answers (a request line it cannot parse)
		// come without Echo's RequestID; they never reach utf8guard.
		if want != nil {
			t.Errorf("%s: response without X-Request-Id, want a log line", name)
		}
		return resp
	}
	if want == nil {
		if rj, ok := rejection(resp); ok {
			want = &logExpect{reason: rj.Reason, location: rj.Location, offset: -1, mode: "enforce"}
		}
	}
	if want != nil {
		if want.method == "" {
			want.method = r.methodOrGET()
		}
		if want.route == "" {
			want.route = routeOf(r.target)
		}
	}
	d.mu.Lock()
	d.sent = append(d.sent, sent{name: name, requestID: rid, want: want})
	d.mu.Unlock()
	return resp
}

// routeOf returns the route template of a demo target.
func routeOf(target string) string {
	for _, p := range []string{"/strict/", "/nfc/", "/monitor/", "/open/", "/static/"} {
		if strings.HasPrefix(target, p) {
			return p + "*"
		}
	}
	return ""
}

type rejectionBody struct {
	Reason   string `json:"reason"`
	Location string `json:"location"`
}

// rejection reports whether resp is utf8guard's answer: 400 or 413 with a
// JSON object of exactly reason and location.
func rejection(resp response) (rejectionBody, bool) {
	var rj rejectionBody
	switch resp.status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
	default:
		return rj, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(resp.body, &m) != nil || len(m) != 2 || m["reason"] == nil || m["location"] == nil {
		return rj, false
	}
	if json.Unmarshal(resp.body, &rj) != nil || rj.Reason == "" {
		return rj, false
	}
	return rj, true
}

// answer is the demo handler's JSON echo; present records which keys it has.
type answer struct {
	Path    string              `json:"path"`
	Param   string              `json:"param"`
	Query   map[string][]string `json:"query"`
	Form    map[string][]string `json:"form"`
	JSON    any                 `json:"json"`
	Body    string              `json:"body"`
	present map[string]bool
}

func decodeAnswer(t *testing.T, name string, resp response) answer {
	t.Helper()
	var a answer
	if resp.status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200; body %q", name, resp.status, truncate(resp.body))
	}
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: Content-Type %q, want JSON", name, ct)
	}
	if err := json.Unmarshal(resp.body, &a); err != nil {
		t.Fatalf("%s: answer is not JSON: %v: %q", name, err, truncate(resp.body))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(resp.body, &keys); err != nil {
		t.Fatal(err)
	}
	a.present = map[string]bool{}
	for k := range keys {
		a.present[k] = true
	}
	for _, k := range []string{"path", "param", "query", "body"} {
		if !a.present[k] {
			t.Errorf("%s: answer has no %q: %q", name, k, truncate(resp.body))
		}
	}
	return a
}

func truncate(p []byte) []byte {
	if len(p) > 300 {
		return append(p[:300:300], "..."...)
	}
	return p
}

func multipartBody(t *testing.T, fields ...string) (contentType string, body []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary("utf8guard-e2e-boundary"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if err := w.WriteField(fields[i], fields[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.FormDataContentType(), b.Bytes()
}
