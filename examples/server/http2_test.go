package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// overH2C returns the running demo d as a client that sends every request
// over HTTP/2 with prior knowledge (h2c) to d's port: the contract's
// tests run over it as they do over HTTP/1.1. done hands the requests it
// sent back to d, whose log check covers them.
func (d *demo) overH2C() *demo {
	tr := &http.Transport{DisableCompression: true}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	return &demo{addr: d.addr, h2c: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

func (d *demo) done(to *demo) {
	d.h2c.CloseIdleConnections()
	d.mu.Lock()
	defer d.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	to.sent = append(to.sent, d.sent...)
}

// h2cRequest sends r over h2c: its target as written (raw octets too), its
// header lines, its body with its length (a GET without one ends the
// stream with its HEADERS frame, as browsers send it).
func (d *demo) h2cRequest(t *testing.T, r req) response {
	t.Helper()
	var body io.Reader
	if r.body != nil || r.method == http.MethodPost {
		body = bytes.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.methodOrGET(), "http://"+d.addr+"/", body)
	if err != nil {
		t.Fatal(err)
	}
	hr.URL.Path, hr.URL.Opaque = "", r.target
	if r.contentType != "" {
		hr.Header.Set("Content-Type", r.contentType)
	}
	for _, h := range r.header {
		name, value, _ := strings.Cut(h, ": ")
		hr.Header.Add(name, value)
	}
	if r.unknownLength {
		hr.Body, hr.ContentLength = io.NopCloser(bytes.NewReader(r.body)), -1
	}
	resp, err := d.h2c.Do(hr)
	if err != nil {
		t.Fatalf("%s %s over h2c: %v", hr.Method, r.target, err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("%s %s: answered in %s, want HTTP/2", hr.Method, r.target, resp.Proto)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s over h2c: reading the answer: %v", hr.Method, r.target, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// testH2CBodies: over h2c, a bodyless GET, HEAD, OPTIONS and DELETE pass
// the strict preset; a body in DATA frames without a content-length is
// checked as one of declared length; and a JSON body in gzip or deflate
// reaches the handler the same on a checking route and on /monitor/,
// where utf8guard hands it on as sent and the decoders mounted after it
// decode it.
func (d *demo) testH2CBodies(t *testing.T) {
	// The demo's routes answer GET and POST; Echo answers the other
	// methods itself (405, or 204 to OPTIONS), over h2c as over HTTP/1.1,
	// and utf8guard refuses none of them.
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodDelete} {
		r := req{method: m, target: "/strict/x"}
		resp := d.do(t, m+" bodyless", r, nil)
		h1 := d.rawRequest(t, r.bytes(d.addr))
		if _, refused := rejection(resp); refused || resp.status != h1.status || m == http.MethodGet && resp.status != http.StatusOK {
			t.Errorf("%s /strict/x over h2c: %d %q; over HTTP/1.1: %d", m, resp.status, resp.body, h1.status)
		}
	}
	doc := `{"title":"פגישה ` + "\u200f" + `ב-10:00` + "\u200f" + `","n":1}`
	var gz, zl bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write([]byte(doc))
	_ = gw.Close()
	zw := zlib.NewWriter(&zl)
	_, _ = zw.Write([]byte(doc))
	_ = zw.Close()
	want := unmarshal(t, doc)
	for _, tc := range []struct {
		name, coding string
		body         []byte
		unknown      bool
	}{
		{"plain", "", []byte(doc), false},
		{"unknown length", "", []byte(doc), true},
		{"gzip", "gzip", gz.Bytes(), false},
		{"deflate", "deflate", zl.Bytes(), false},
		{"gzip, unknown length", "gzip", gz.Bytes(), true},
	} {
		for _, route := range []string{"strict", "monitor"} {
			r := req{method: http.MethodPost, target: "/" + route + "/j", contentType: "application/json",
				body: tc.body, unknownLength: tc.unknown}
			if tc.coding != "" {
				r.header = []string{"Content-Encoding: " + tc.coding}
			}
			name := "POST /" + route + " " + tc.name
			a := decodeAnswer(t, name, d.do(t, name, r, nil))
			if !reflect.DeepEqual(a.JSON, want) || a.Body != doc {
				got, _ := json.Marshal(a.JSON)
				t.Errorf("%s over h2c: the handler read %s, body %q; want %s", name, got, a.Body, doc)
			}
		}
	}
	// The marks of right-to-left text pass; a bidi control does not.
	resp := d.do(t, "bidi control", req{method: http.MethodPost, target: "/strict/j", contentType: "application/json",
		body: []byte(`{"title":"a\u202eb"}`)}, nil)
	if rj, ok := rejection(resp); !ok || rj.Reason != "forbidden_char" || rj.Location != "json" {
		t.Errorf("a bidi control over h2c: %d %q, want 400 forbidden_char in json", resp.status, resp.body)
	}
}
