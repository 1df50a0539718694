package middleware_test

// Requests written frame by frame over h2c, for what Go's HTTP/2 client
// will not send: a regular host field beside :authority, which Go's
// HTTP/2 server keeps in Request.Header.

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// sendFrames sends the case's request over h2c to the server id, with
// tc.header's fields written as they are (lower-cased names), and reads
// the answer's status, body and header.
func sendFrames(t *testing.T, w *confWire, id string, tc confCase, host string) (int, string, http.Header) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(w.url, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	fr := http2.NewFramer(conn, br)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	field := func(name, value string) { _ = enc.WriteField(hpack.HeaderField{Name: name, Value: value}) }
	field(":method", method)
	field(":scheme", "http")
	field(":authority", host)
	field(":path", tc.target)
	field(strings.ToLower(confServerHeader), id)
	field("x-request-id", confRequestID)
	for _, h := range tc.header {
		name, value, _ := strings.Cut(h, ": ")
		field(strings.ToLower(name), value)
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		t.Fatal(err)
	}
	status, body, hdr := 0, "", http.Header{}
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if f.Name == ":status" {
			status = atoi(f.Value)
		} else {
			hdr.Add(f.Name, f.Value)
		}
	})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("reading the answer: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
				t.Fatal(err)
			}
			if f.StreamEnded() {
				return status, body, hdr
			}
		case *http2.DataFrame:
			body += string(f.Data())
			if f.StreamEnded() {
				return status, body, hdr
			}
		case *http2.RSTStreamFrame:
			t.Fatalf("stream reset: %v", f.ErrCode)
		case *http2.GoAwayFrame:
			t.Fatalf("GOAWAY: %v", f.ErrCode)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
