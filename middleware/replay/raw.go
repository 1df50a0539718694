package replay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// NewRaw returns a Recording of the raw HTTP/1.1 requests read from r,
// name being what its errors call it: one request, or several back to
// back, each a request line, header fields, an empty line and the body
// its header frames (Content-Length octets, or a chunked body and its
// trailer), as nc or a proxy's capture of the connection holds them.
// Empty lines between requests are skipped (RFC 9112, section 2.2); lines
// may end in CRLF or LF alone. A body is read from r as the replay reads
// it, never held whole.
func NewRaw(r io.Reader, name string) *Recording {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	x := &rawReader{name: name, br: br}
	return &Recording{name: name, next: x.next}
}

// rawReader is the state of a raw Recording.
type rawReader struct {
	name string
	br   *bufio.Reader
	// line is the number of lines read: the next octet is on line+1.
	line int
	// last is the request returned last, whose body is read to its end
	// before the next one.
	last *Request
	done bool
}

func (x *rawReader) next() (*Request, error) {
	if x.last != nil {
		last := x.last
		x.last = nil
		if err := last.Finish(); err != nil {
			if re, ok := errors.AsType[*ReadError](err); ok && re.Rest {
				x.done = true
			}
		}
	}
	if x.done {
		return nil, io.EOF
	}
	head, start, err := x.readHead()
	if err != nil {
		x.done = true
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, &ReadError{File: x.name, Entry: -1, Line: x.line + 1, Rest: true, Err: err}
	}
	b := &rawBody{x: x, line: start}
	r, err := parseHead(head, b)
	if err != nil {
		// The header was read whole; the request's body is skipped when
		// its length can be told, so that the next request is found.
		rest := true
		if n, ok := framing(head); ok {
			b := &rawBody{x: x, line: start, left: n}
			_, cerr := io.Copy(io.Discard, b)
			rest = cerr != nil
		}
		x.done = rest
		return nil, &ReadError{File: x.name, Entry: -1, Line: start, Rest: rest, Err: err}
	}
	switch {
	case len(r.TransferEncoding) > 0:
		if len(r.TransferEncoding) != 1 || r.TransferEncoding[0] != "chunked" {
			x.done = true
			return nil, &ReadError{File: x.name, Entry: -1, Line: start, Rest: true, Err: fmt.Errorf("Transfer-Encoding %q: want chunked alone", r.TransferEncoding)}
		}
		b.chunked, b.req = true, r
		if r.Trailer == nil {
			// Where the trailer's fields go, shared with the copies of the
			// request the replay makes (net/http's server merges them
			// into the request it parsed).
			r.Trailer = http.Header{}
		}
	case r.ContentLength > 0:
		b.left = r.ContentLength
	default:
		r.Body = http.NoBody
		b = nil
	}
	req := &Request{Source: fmt.Sprintf("%s:%d", x.name, start), HTTP: r}
	if b != nil {
		req.body = b
	}
	x.last = req
	return req, nil
}

// framing returns the length of the body that head, a header that
// http.ReadRequest refused, frames: its one Content-Length, or 0 without
// one; false when that cannot be told (chunked, several lengths).
func framing(head []byte) (int64, bool) {
	var n int64
	seen := false
	for _, line := range strings.Split(string(head), "\n")[1:] {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "transfer-encoding":
			return 0, false
		case "content-length":
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || v < 0 || seen && v != n {
				return 0, false
			}
			n, seen = v, true
		}
	}
	return n, true
}

// readHead reads the next request line and header, up to and with the
// empty line that ends them, and returns them with the line the request
// starts on. io.EOF means no request is left.
func (x *rawReader) readHead() ([]byte, int, error) {
	var head []byte
	start := 0
	for {
		line, err := x.readLine(maxHeadBytes - len(head))
		if err != nil {
			if err == io.EOF {
				if len(head) == 0 && len(line) == 0 {
					return nil, 0, io.EOF
				}
				return nil, 0, fmt.Errorf("the file ends in the header of the request of line %d", start)
			}
			return nil, 0, err
		}
		empty := len(line) == 1 || len(line) == 2 && line[0] == '\r'
		if len(head) == 0 {
			if empty {
				continue // between requests
			}
			start = x.line
		}
		head = append(head, line...)
		if empty {
			return head, start, nil
		}
	}
}

// readLine returns the next line with its end, at most limit octets.
func (x *rawReader) readLine(limit int) ([]byte, error) {
	var line []byte
	for {
		p, err := x.br.ReadSlice('\n')
		line = append(line, p...)
		if len(line) > limit {
			return nil, fmt.Errorf("the request's header is longer than %d octets", maxHeadBytes)
		}
		switch err {
		case nil:
			x.line++
			return line, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return line, err
		}
	}
}

// rawBody is the body of a raw request, read from the file as the
// replay reads it.
type rawBody struct {
	x    *rawReader
	line int // the request's first line
	// left is what is left of a Content-Length body; chunked says the
	// body is chunked, chunk what is left of the current chunk.
	left    int64
	chunked bool
	chunk   int64
	req     *http.Request
	eof     bool
	err     error // the recording's fault, once found
}

func (b *rawBody) Read(p []byte) (int, error) {
	switch {
	case b.err != nil:
		return 0, b.err
	case b.eof || len(p) == 0:
		return 0, io.EOF
	case b.chunked:
		return b.readChunked(p)
	}
	return b.readN(p, &b.left, "body")
}

// Close does nothing: Finish reads what is left.
func (b *rawBody) Close() error { return nil }

// readN reads at most *left octets of the file into p.
func (b *rawBody) readN(p []byte, left *int64, what string) (int, error) {
	if *left == 0 {
		if !b.chunked {
			b.eof = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > *left {
		p = p[:*left]
	}
	n, err := b.x.br.Read(p)
	b.x.line += bytes.Count(p[:n], []byte{'\n'})
	*left -= int64(n)
	if err == io.EOF && *left > 0 {
		return n, b.fail(fmt.Errorf("%s truncated: the file ends %d octets short", what, *left))
	}
	if err != nil && err != io.EOF {
		return n, b.fail(err)
	}
	return n, nil
}

// readChunked reads a chunked body: the chunks' data, then the trailer,
// which it merges into the request's Trailer as net/http's server does.
func (b *rawBody) readChunked(p []byte) (int, error) {
	if b.chunk == 0 {
		line, err := b.x.readLine(4096)
		if err != nil {
			return 0, b.fail(fmt.Errorf("chunked body: chunk size line: %v", eofErr(err)))
		}
		s := strings.TrimRight(string(line), "\r\n")
		s, _, _ = strings.Cut(s, ";") // chunk extensions
		size, err := strconv.ParseInt(strings.TrimSpace(s), 16, 64)
		if err != nil || size < 0 || strings.TrimSpace(s) == "" {
			return 0, b.fail(fmt.Errorf("chunked body: line %d: chunk size %s is not a hex number", b.x.line, quote(s)))
		}
		if size == 0 {
			if err := b.readTrailer(); err != nil {
				return 0, b.fail(err)
			}
			b.eof = true
			return 0, io.EOF
		}
		b.chunk = size
	}
	n, err := b.readN(p, &b.chunk, "chunked body: chunk")
	if err != nil {
		return n, err
	}
	if b.chunk == 0 {
		at := b.x.line + 1
		line, err := b.x.readLine(2)
		if err != nil || (string(line) != "\r\n" && string(line) != "\n") {
			return n, b.fail(fmt.Errorf("chunked body: line %d: a chunk's data does not end in CRLF", at))
		}
	}
	return n, nil
}

// readTrailer reads the trailer fields after the last chunk, up to the
// empty line.
func (b *rawBody) readTrailer() error {
	for {
		line, err := b.x.readLine(maxHeadBytes)
		if err != nil {
			return fmt.Errorf("chunked body: trailer: %v", eofErr(err))
		}
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" {
			return nil
		}
		name, value, ok := strings.Cut(s, ":")
		if !ok || !isToken(name) {
			return fmt.Errorf("chunked body: line %d: trailer field %s is malformed", b.x.line, quote(s))
		}
		if b.req.Trailer == nil {
			b.req.Trailer = http.Header{}
		}
		b.req.Trailer.Add(textproto.CanonicalMIMEHeaderKey(name), strings.Trim(value, " \t"))
	}
}

// fail records err, the recording's fault, and returns it.
func (b *rawBody) fail(err error) error {
	b.err = &ReadError{File: b.x.name, Entry: -1, Line: b.line, Rest: true, Err: err}
	return b.err
}

func eofErr(err error) error {
	if err == io.EOF {
		return errors.New("the file ends")
	}
	return err
}

// Finish reads what the replay left of the request's body, so that the
// recording can go on to the next request, and returns a *ReadError if
// the recording did not hold all of the body (one cut short, a malformed
// chunked encoding): the replay of such a request is not that of the
// request sent, and Run counts it as unreadable. Recording.Next calls it
// for a request whose Finish was not called. It returns nil for a body
// held in memory (HAR).
func (r *Request) Finish() error {
	if r.body == nil || r.finished {
		if r.body != nil {
			return r.body.errOrNil()
		}
		return nil
	}
	r.finished = true
	_, _ = io.Copy(io.Discard, r.body)
	return r.body.errOrNil()
}

func (b *rawBody) errOrNil() error {
	if b.err == nil {
		return nil
	}
	return b.err
}
