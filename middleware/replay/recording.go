package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Request is one recorded request, ready to be replayed.
type Request struct {
	// Source says where the request was read: "day.har: log.entries[3]"
	// or "capture.http:12" (the line of its request line).
	Source string
	// Time is when the request was sent (a HAR entry's startedDateTime);
	// zero when the recording does not say (raw files).
	Time time.Time
	// HTTP is the request as a server would hand it to its handler,
	// parsed by net/http's own http.ReadRequest from the recorded request
	// line and header. Its Body reads the recorded body: for a raw file,
	// straight from the file, so it is valid only until the next call of
	// Recording.Next.
	HTTP *http.Request

	body     *rawBody // a raw request's body, read from the file
	finished bool
}

// ReadError is the error of Recording.Next for a request it could not
// read: its file, its place in the file and why. Such a request is not
// replayed; Run counts it (Report.Unreadable) and keeps the error.
type ReadError struct {
	// File is the recording's name.
	File string
	// Entry is the index of the HAR entry (log.entries[Entry]), -1 when
	// the error is in no entry (a raw file, a HAR that does not parse).
	Entry int
	// Line is the line of the file the error is at, counting from 1; 0
	// when it is not known.
	Line int
	// Rest says that the rest of the file could not be read either: the
	// error is in its structure (malformed JSON, a body whose end cannot
	// be found), so Next returns io.EOF from then on and the requests
	// after it, if any, are not counted one by one.
	Rest bool
	// Err says what is wrong.
	Err error
}

// Error returns a message such as
// "replay: day.har: log.entries[3] (line 120): request.method is missing"
// or "replay: capture.http:12: body truncated: ...".
func (e *ReadError) Error() string {
	var b strings.Builder
	b.WriteString("replay: ")
	b.WriteString(e.File)
	switch {
	case e.Entry >= 0 && e.Line > 0:
		fmt.Fprintf(&b, ": log.entries[%d] (line %d)", e.Entry, e.Line)
	case e.Entry >= 0:
		fmt.Fprintf(&b, ": log.entries[%d]", e.Entry)
	case e.Line > 0:
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Rest {
		b.WriteString(" (the rest of the file is not read)")
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *ReadError) Unwrap() error { return e.Err }

// A Recording reads recorded requests from one file, one at a time,
// never holding more than one of them: a HAR file (NewHAR) or a raw
// HTTP/1.1 capture (NewRaw).
type Recording struct {
	name   string
	next   func() (*Request, error)
	closer io.Closer
}

// Name returns the name the recording was opened with.
func (rec *Recording) Name() string { return rec.name }

// Next returns the next request, io.EOF after the last one, or a
// *ReadError for a request that could not be read, after which Next may
// be called again for the one after it (unless the error's Rest is set:
// then Next returns io.EOF). The body of the request it returns is valid
// until the next call.
func (rec *Recording) Next() (*Request, error) { return rec.next() }

// Close closes the file Open opened; it does nothing for a Recording made
// by NewHAR or NewRaw.
func (rec *Recording) Close() error {
	if rec.closer == nil {
		return nil
	}
	return rec.closer.Close()
}

// Open opens the recording in the file name: a HAR file when its first
// octet other than white space is '{', a raw HTTP/1.1 capture otherwise.
func Open(name string) (*Recording, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var rec *Recording
	if isHAR(br) {
		rec = NewHAR(br, name)
	} else {
		rec = NewRaw(br, name)
	}
	rec.closer = f
	return rec, nil
}

// isHAR reports whether the first octet of br that is not white space is
// '{', without consuming it.
func isHAR(br *bufio.Reader) bool {
	for n := 1; ; n++ {
		p, err := br.Peek(n)
		if len(p) < n {
			return false
		}
		switch c := p[n-1]; c {
		case ' ', '\t', '\r', '\n':
			if err != nil {
				return false
			}
			continue
		default:
			return c == '{'
		}
	}
}

// maxHeadBytes bounds the request line and header of one request, as
// http.DefaultMaxHeaderBytes bounds what a net/http server reads.
const maxHeadBytes = http.DefaultMaxHeaderBytes

// parseHead parses head, a request line and header ending in an empty
// line, as a net/http server does (http.ReadRequest), and sets body as
// the request's body. A head the server would refuse before any handler
// runs is an error: the request never reaches a middleware.
func parseHead(head []byte, body io.ReadCloser) (*http.Request, error) {
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	if err != nil {
		return nil, fmt.Errorf("a net/http server would refuse it before any handler: %w", err)
	}
	if err := checkHeader(r.Header); err != nil {
		return nil, err
	}
	if r.ProtoMajor == 1 && r.ProtoMinor == 1 && len(r.Header["Host"]) == 0 && r.Host == "" {
		return nil, errors.New("a net/http server would refuse it before any handler: HTTP/1.1 request without Host")
	}
	r.Body = body
	r.RemoteAddr = "192.0.2.1:1234" // TEST-NET-1, as httptest.NewRequest
	return r, nil
}

// checkHeader refuses what a net/http server refuses in a header before
// any handler runs (invalid field names and values) and http.ReadRequest
// does not check itself.
func checkHeader(h http.Header) error {
	for name, values := range h {
		if !isToken(name) {
			return fmt.Errorf("a net/http server would refuse it before any handler: invalid header name %q", name)
		}
		for _, v := range values {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
					return fmt.Errorf("a net/http server would refuse it before any handler: control octet 0x%02x in header %s", c, name)
				}
			}
		}
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// quote returns s for an error message: quoted, cut to 64 octets.
func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}
