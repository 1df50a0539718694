package adaptertest

// Requests written frame by frame over h2c, for what Go's HTTP/2 client
// will not send: a regular host field beside :authority, which Go's
// HTTP/2 server keeps in Request.Header.

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// sendFrames sends the row's request over h2c to the server id, with
// its header lines written as they are (lower-cased names), and reads the
// answer's status, body and header.
func sendFrames(w *wire, id string, rw row, host string) (int, string, http.Header, error) {
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(w.url, "http://"), 5*time.Second)
	if err != nil {
		return 0, "", nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		return 0, "", nil, err
	}
	fr := http2.NewFramer(conn, bufio.NewReader(conn))
	if err := fr.WriteSettings(); err != nil {
		return 0, "", nil, err
	}
	method := rw.method
	if method == "" {
		method = http.MethodGet
	}
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	field := func(name, value string) { _ = enc.WriteField(hpack.HeaderField{Name: name, Value: value}) }
	field(":method", method)
	field(":scheme", "http")
	field(":authority", host)
	field(":path", rw.target)
	field(strings.ToLower(serverHeader), id)
	field("x-request-id", requestID)
	for _, h := range rw.header {
		name, value, _ := strings.Cut(h, ": ")
		field(strings.ToLower(name), value)
	}
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		return 0, "", nil, err
	}
	status, body, hdr := 0, "", http.Header{}
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if f.Name == ":status" {
			status, _ = strconv.Atoi(f.Value)
		} else {
			hdr.Add(f.Name, f.Value)
		}
	})
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return 0, "", nil, fmt.Errorf("reading the answer: %v", err)
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
				return 0, "", nil, err
			}
			if f.StreamEnded() {
				return status, body, hdr, nil
			}
		case *http2.DataFrame:
			body += string(f.Data())
			if f.StreamEnded() {
				return status, body, hdr, nil
			}
		case *http2.RSTStreamFrame:
			return 0, "", nil, fmt.Errorf("stream reset: %v", f.ErrCode)
		case *http2.GoAwayFrame:
			return 0, "", nil, fmt.Errorf("GOAWAY: %v", f.ErrCode)
		}
	}
}
