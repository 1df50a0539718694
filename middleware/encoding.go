package middleware

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// How a body arrives: its content coding and its length.
//
// A body the route checks as text is read whole through the body limit
// (readText). When its Content-Encoding names a coding (RFC 9110 section
// 8.4), the octets checked are the decoded ones: a handler that decodes
// the body itself, or Echo's Decompress mounted after utf8guard, would
// otherwise read text no one checked, and the check would refuse clean
// compressed text for octets that are no text at all. So:
//
//   - gzip and x-gzip (RFC 1952) are decoded with compress/gzip, every
//     member of a multi-member stream (as gzip -d and compress/gzip read
//     them), each member's CRC-32 and length checked; anything after the
//     last member, zero padding included, makes the stream corrupt;
//   - deflate is decoded as the zlib format (RFC 1950) that RFC 9110
//     section 8.4.1.2 names, Adler-32 checked, when its first two octets
//     are a zlib header; otherwise as a raw DEFLATE stream (RFC 1951),
//     which some clients send under that name (browsers and curl read
//     both). Octets after the end of either stream make it corrupt;
//   - identity, and empty list elements, are no coding;
//   - any other coding (br, zstd, compress, an unknown name) is refused,
//     415 unsupported_encoding, and so is more than one coding ("gzip,
//     gzip", or two Content-Encoding lines): no client in use stacks them,
//     each layer multiplies what a small body can expand to, and readers
//     disagree on the order. Names are matched without regard to case,
//     with spaces and tabs around them trimmed.
//
// A stream that does not decode (a bad header, a checksum, a truncated or
// corrupt stream, octets after its end) is body_unreadable, field
// "Content-Encoding", with the decoder's error in the log's error: none
// of the text could be checked. An empty body is empty whatever its
// coding, as Echo's Decompress takes it.
//
// The body limit holds for both the octets received and the decoded
// ones: a body is refused (413) once either is over it, and the decoder
// is stopped after at most the limit plus one buffer of decoded octets,
// so a small body that expands without end costs what the limit allows.
// The decoded body is the one checked; offsets in a rejection are offsets
// in it.
//
// In Enforce mode the handler gets the decoded body (or its canonical
// form), with Content-Encoding removed and its length set: a decoder
// after utf8guard, Echo's Decompress included, sees no coding and does
// nothing, and no handler can read octets other than the ones checked. In
// Monitor mode the request is passed on as it came, body still coded and
// Content-Encoding kept; what the decoded text would have been refused
// for is flagged.
//
// Echo's Decompress mounted before utf8guard decodes a gzip body and
// leaves Content-Encoding: gzip on it. Its body is then a gzip.Reader,
// which utf8guard recognizes (decodedBefore): it reads it as it is,
// decoded, within the limit, and treats it as it treats the bodies it
// decodes itself. Any other decoder before utf8guard must remove
// Content-Encoding, or the decoded body is refused as a stream that does
// not decode.
//
// A multipart body is not read whole: it is decoded as it streams into
// its spool (codedStream, below), within the limits of a multipart body.
//
// A body the route does not check as text (a binary type, a location
// turned off, another charset) is not decoded: it is passed on as it
// came, Content-Encoding included.

// coding is a content coding the middleware decodes.
type coding uint8

const (
	identity coding = iota
	codingGzip
	codingDeflate
)

func (c coding) String() string {
	switch c {
	case codingGzip:
		return "gzip"
	case codingDeflate:
		return "deflate"
	}
	return "identity"
}

// requestCoding reads the Content-Encoding of r, the body of which is
// checked at loc: the coding to decode, or the rejection of a coding it
// does not decode (unsupported_encoding), whose offset is that of the
// coding at fault in the header's value (its lines joined by ", ").
func requestCoding(r *http.Request, loc rules.Location) (coding, *Rejection) {
	v := r.Header["Content-Encoding"]
	list := v[0]
	if len(v) > 1 {
		list = strings.Join(v, ", ")
	}
	c, n := identity, 0
	for off := 0; off <= len(list); {
		elem, _, _ := strings.Cut(list[off:], ",")
		start, end := off, off+len(elem)
		off = end + 1
		for start < end && (list[start] == ' ' || list[start] == '\t') {
			start++
		}
		for end > start && (list[end-1] == ' ' || list[end-1] == '\t') {
			end--
		}
		name := list[start:end]
		var k coding
		switch {
		case name == "" || strings.EqualFold(name, "identity"):
			continue
		case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
			k = codingGzip
		case strings.EqualFold(name, "deflate"):
			k = codingDeflate
		default:
			return identity, unsupportedEncoding(loc, list, start)
		}
		if n++; n > 1 {
			return identity, unsupportedEncoding(loc, list, start)
		}
		c = k
	}
	return c, nil
}

// unsupportedEncoding is the Rejection of the Content-Encoding value list
// for the coding at off, which the middleware does not decode.
func unsupportedEncoding(loc rules.Location, list string, off int) *Rejection {
	return &Rejection{Reason: sanitize.UnsupportedEncoding, Location: loc, Field: "Content-Encoding",
		Offset: off, Sample: finding.Sample(list, off), Err: sanitize.ErrUnsupportedEncoding}
}

// readText reads the body of r, which the route checks as text at loc,
// whole through the body limit, and decodes its content coding. It
// returns the text to check, and, in Monitor mode, the body as the client
// sent it (the same slice when it came without a coding), which Monitor
// hands on. In Enforce mode a decoded body's Content-Encoding is removed
// at once: the handler, if it runs, gets the decoded text (handOn).
func (s *scratch) readText(r *http.Request, p *compiled.Policy, loc rules.Location) (text, sent []byte, rj *Rejection) {
	if len(r.Header["Content-Encoding"]) != 0 {
		return s.readCoded(r, p, loc)
	}
	sent, rj = s.readSent(r, p, loc)
	return sent, sent, rj
}

// readSent reads the body of r as it came, whole through the body limit;
// in Monitor mode r.Body then gives it again, or what was read and the
// rest when it is over the limit or its read fails (readBody).
func (s *scratch) readSent(r *http.Request, p *compiled.Policy, loc rules.Location) ([]byte, *Rejection) {
	limit := p.Limits.BodyBytes
	sent, over, err := s.readBody(r, limit, p.Mode == rules.Monitor)
	if err != nil {
		return nil, unreadable(loc, err)
	} else if over {
		return nil, finding.TooLarge(loc, "", limit)
	}
	return sent, nil
}

// readCoded is readText for a request with a Content-Encoding header.
func (s *scratch) readCoded(r *http.Request, p *compiled.Policy, loc rules.Location) (text, sent []byte, rj *Rejection) {
	c, rj := requestCoding(r, loc)
	if rj != nil {
		return nil, nil, rj
	}
	limit, monitor := p.Limits.BodyBytes, p.Mode == rules.Monitor
	if c == identity || c == codingGzip && decodedBefore(r) {
		// No coding, or one a decoder before utf8guard has decoded: the
		// octets read are the text, which the handler gets (without the
		// header that no longer says what they are).
		if sent, rj = s.readSent(r, p, loc); rj == nil && c != identity && !monitor {
			delete(r.Header, "Content-Encoding")
		}
		return sent, sent, rj
	}
	d := decoders.Get().(*decoder)
	defer d.release()
	var src codedReader
	if monitor {
		if sent, rj = s.readSent(r, p, loc); rj != nil {
			return nil, nil, rj
		}
		d.sent.Reset(sent)
		src = &d.sent
		// As it came, whatever the check finds (handOn does the same
		// once the text has been checked).
		r.Body = newBodyReader(sent)
	} else {
		// Read into the pooled chunks, which the decoder reads: memory
		// of its own only for the decoded text.
		n, over, err := s.work.readChunks(r.Body, limit)
		if err != nil {
			s.work.dropChunks()
			return nil, nil, unreadable(loc, errors.Join(errBodyRead, err))
		} else if over {
			s.work.dropChunks()
			return nil, nil, finding.TooLarge(loc, "", limit)
		}
		d.chunks = newChunkReader(s.work.chunks, n)
		src = &d.chunks
	}
	text, over, err := s.work.decode(d, src, c, limit)
	s.work.dropChunks()
	switch {
	case err != nil:
		rj := unreadable(loc, errors.Join(errBodyRead, err))
		rj.Field = "Content-Encoding"
		return nil, nil, rj
	case over:
		return nil, nil, finding.TooLarge(loc, "", limit)
	}
	if !monitor {
		delete(r.Header, "Content-Encoding")
	}
	return text, sent, nil
}

// decodedBefore reports whether the body of r, whose Content-Encoding is
// gzip, is read through a gzip.Reader already: Echo's Decompress, mounted
// before utf8guard, puts one there (v5's wrapped in a size limit that
// embeds it) and leaves Content-Encoding as it was. The octets read from
// it are the decoded ones, which the handler would read: those are
// checked. The type of r.Body is the server's, never the client's.
func decodedBefore(r *http.Request) bool {
	body := r.Body
	if pb, ok := body.(*peekedBody); ok {
		body = pb.ReadCloser // v5's sets the length unknown: hasBody read it
	}
	_, ok := body.(interface{ Multistream(bool) })
	return ok
}

// readChunks reads src to its end into chunks appended to s.work.chunks, up to
// limit octets (negative: no limit), and returns how many it read, or
// that they are over the limit (one past it read), or the read's error.
// The chunks are the scratch's: the caller drops them.
func (w *work) readChunks(src io.Reader, limit int64) (n int, over bool, err error) {
	base := len(w.chunks) // the chunks already there: src may be reading them
	for {
		off := n % chunkSize
		if off == 0 && base+n/chunkSize == len(w.chunks) {
			w.chunks = append(w.chunks, chunkPool.Get().(*[chunkSize]byte))
		}
		buf := w.chunks[base+n/chunkSize][off:]
		// As room (body.go): limit+1 may overflow, limit-n cannot.
		if limit >= 0 && int64(len(buf))-1 > limit-int64(n) {
			buf = buf[:limit-int64(n)+1] // one past the limit tells it is over
		}
		k, rerr := src.Read(buf)
		n += k
		switch {
		case limit >= 0 && int64(n) > limit:
			return n, true, nil
		case rerr == io.EOF:
			return n, false, nil
		case rerr != nil:
			return n, false, rerr
		}
	}
}

// codedReader is what the decoders read: octets, one at a time too (so
// that compress/flate reads no more than its stream), and how many are
// left after it.
type codedReader interface {
	flate.Reader
	Len() int
}

// chunkReader reads the first n octets of chunks.
type chunkReader struct {
	chunks []*[chunkSize]byte
	n      int    // octets in chunks
	next   int    // the chunk after cur
	cur    []byte // the current chunk's octets
	i      int    // the next octet of cur
}

func newChunkReader(chunks []*[chunkSize]byte, n int) chunkReader {
	return chunkReader{chunks: chunks, n: n}
}

// fill makes cur the next chunk's octets, and reports whether there are
// any.
func (c *chunkReader) fill() bool {
	start := c.next * chunkSize
	if start >= c.n {
		return false
	}
	c.cur, c.i = c.chunks[c.next][:min(chunkSize, c.n-start)], 0
	c.next++
	return true
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.i >= len(c.cur) && !c.fill() {
		return 0, io.EOF
	}
	k := copy(p, c.cur[c.i:])
	c.i += k
	return k, nil
}

func (c *chunkReader) ReadByte() (byte, error) {
	if c.i >= len(c.cur) && !c.fill() {
		return 0, io.EOF
	}
	b := c.cur[c.i]
	c.i++
	return b, nil
}

// Len returns how many octets are left.
func (c *chunkReader) Len() int { return len(c.cur) - c.i + max(c.n-c.next*chunkSize, 0) }

// decoders holds the decoders of content codings, with their state:
// compress/flate's is some 40 KiB, which a request should not allocate.
var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decoder is the readers of one decoding: of the coded octets, and the
// decoder of each coding, made on first use and reset after.
type decoder struct {
	sent   bytes.Reader // the body as sent (Monitor)
	chunks chunkReader  // the body in the scratch's chunks (Enforce)
	wire   wireReader   // the body as it comes, for a codedStream
	br     *bufio.Reader
	coded  codedStream // the body decoded, as it is read
	gz     gzip.Reader
	zl     io.ReadCloser // compress/zlib's, a zlib.Resetter
	fl     io.ReadCloser // compress/flate's, a flate.Resetter
}

// release forgets the body and puts d back in the pool.
func (d *decoder) release() {
	d.sent.Reset(nil)
	d.chunks = chunkReader{}
	d.wire = wireReader{}
	d.coded = codedStream{}
	if d.br != nil {
		d.br.Reset(nil)
	}
	decoders.Put(d)
}

// open sets d to decode src, coded as c, and returns the reader of the
// decoded octets; zl says that src starts with a zlib header
// (zlibHeader), which a deflate stream is then read as.
func (d *decoder) open(src flate.Reader, c coding, zl bool) (io.Reader, error) {
	switch {
	case c == codingGzip:
		if err := d.gz.Reset(src); err != nil {
			return nil, err
		}
		return &d.gz, nil
	case zl:
		if d.zl == nil {
			zl, err := zlib.NewReader(src)
			if err != nil {
				return nil, err
			}
			d.zl = zl
		} else if err := d.zl.(zlib.Resetter).Reset(src, nil); err != nil {
			return nil, err
		}
		return d.zl, nil
	}
	if d.fl == nil {
		d.fl = flate.NewReader(src)
	} else if err := d.fl.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	return d.fl, nil
}

// zlibHeader reports whether src starts with a zlib header (RFC 1950
// section 2.2): compression method 8 (deflate), a window of at most 32
// KiB, and check bits that make the two octets a multiple of 31. A raw
// DEFLATE stream is taken for zlib only when it starts with such a pair,
// which then fails zlib's checksum: refused, never misread.
func zlibHeader(src codedReader) bool {
	var p [2]byte
	switch r := src.(type) {
	case *bytes.Reader:
		if n, _ := r.ReadAt(p[:], 0); n < 2 {
			return false
		}
	case *chunkReader:
		if r.n < 2 {
			return false
		}
		p[0], p[1] = r.chunks[0][0], r.chunks[0][1]
	}
	return isZlibHeader(p[0], p[1])
}

// isZlibHeader reports whether the octets a and b are a zlib header.
func isZlibHeader(a, b byte) bool {
	return a&0x0F == 8 && a>>4 <= 7 && (uint16(a)<<8|uint16(b))%31 == 0
}

// errTrailingData is the error of a zlib or DEFLATE stream followed by
// more octets.
var errTrailingData = errors.New("octets after the end of the stream")

// codingError is a content coding that failed to decode.
type codingError struct {
	c   coding
	err error
}

// Error returns the coding and the decoder's error, without the prefix
// the decoder's own package gives it ("gzip: invalid checksum",
// "deflate: corrupt input before offset 5").
func (e *codingError) Error() string {
	msg := e.err.Error()
	for _, pkg := range []string{"gzip: ", "flate: ", "zlib: "} {
		msg = strings.TrimPrefix(msg, pkg)
	}
	return e.c.String() + ": " + msg
}

func (e *codingError) Unwrap() error { return e.err }

// decode decodes src, coded as c, with d, into memory of its own, up to
// limit decoded octets (negative: no limit). It returns the decoded
// octets, or that they are over the limit, having decoded at most one
// buffer more than it, or the decoder's error as a *codingError. It reads
// the decoded octets into s.work.chunks after those already there (which src
// may be reading), and leaves them there for the caller to drop.
func (w *work) decode(d *decoder, src codedReader, c coding, limit int64) (text []byte, over bool, err error) {
	if src.Len() == 0 {
		return []byte{}, false, nil // empty whatever its coding, as Echo's Decompress takes it
	}
	dec, err := d.open(src, c, zlibHeader(src))
	if err != nil {
		return nil, false, &codingError{c, err}
	}
	base := len(w.chunks)
	n, over, err := w.readChunks(dec, limit)
	switch {
	case over:
		return nil, true, nil
	case err != nil:
		return nil, false, &codingError{c, err}
	case src.Len() > 0:
		// gzip reads members to the end; zlib and DEFLATE stop at theirs.
		return nil, false, &codingError{c, errTrailingData}
	}
	text = make([]byte, n)
	for i := 0; i*chunkSize < n; i++ {
		copy(text[i*chunkSize:], w.chunks[base+i][:])
	}
	return text, false, nil
}

// passText passes on a body of a type checked as text that the route does
// not check (its location is off, or it declares a charset other than
// UTF-8 and the policy leaves such bodies unchecked). One of a declared
// length is passed unread, as passUnread passes it: a length over the
// limit is refused before reading, and net/http delivers no more than the
// length declared. One of unknown length (chunked) is read whole through
// the limit first, so that one over it is refused, 413 with its log line,
// rather than handed to the handler cut off at the limit with a read
// error; and its trailers are checked as a checked body's are. Its
// content coding is left as it came: a body that is not checked is not
// decoded.
func (s *scratch) passText(r *http.Request, p *compiled.Policy, loc rules.Location) *Rejection {
	limit := p.Limits.BodyBytes
	if r.ContentLength >= 0 || limit < 0 {
		return s.passUnread(r, p, limit)
	}
	body, over, err := s.readBody(r, limit, p.Mode == rules.Monitor)
	if err != nil {
		return unreadable(loc, err)
	}
	if over {
		return finding.TooLarge(loc, "", limit)
	}
	rj := checkTrailers(r, p)
	s.handOn(r, p, body, body, rj)
	return rj
}

// Coded multipart bodies. A multipart body with a content coding is not
// read whole: it takes the way of any multipart body (checkMultipartBody,
// upload.go), through a codedStream, which decodes it as the check reads
// it. The spool then holds the decoded body, which the check read and the
// handler reads; the contents of its data file parts, decoded like the
// rest (the coding covers the whole body), go by unread as they do in a
// body without a coding. The codings, and what makes a stream corrupt,
// are those above. The bound is that of the body without a coding: the
// decoded octets are read through the same limits (text, each file, the
// data, and the two together), and the octets received are bounded by
// the two together too, as a declared length is; so the decoder produces
// at most the limits plus one buffer, whatever the stream expands to, and
// a stream that decodes to nothing (empty DEFLATE blocks, empty gzip
// members) is not read without end. In Monitor mode the body as it came
// is kept beside, in a spool of its own (spool.sent), which the handler
// gets, still coded.

// wireReader reads the body of a request as it came, for a codedStream:
// at most limit octets (negative: no limit), and one more to tell that
// it is over. With sent (Monitor), it copies what it reads there.
type wireReader struct {
	src   io.Reader
	sent  *spool
	limit int64
	n     int64
	over  bool  // more than limit octets
	eof   bool  // src is at its end
	err   error // src's failure, or sent's
}

func (w *wireReader) Read(p []byte) (int, error) {
	switch {
	case w.over:
		return 0, errOverLimit
	case w.err != nil:
		return 0, w.err
	case w.eof:
		return 0, io.EOF
	}
	if w.limit >= 0 && int64(len(p))-1 > w.limit-w.n {
		p = p[:w.limit-w.n+1] // one past the limit tells it is over
	}
	k, err := w.src.Read(p)
	w.n += int64(k)
	if k > 0 && w.sent != nil {
		if _, werr := w.sent.Write(p[:k]); werr != nil {
			w.err = werr // octets lost: the body as it came cannot be handed on
			return 0, w.err
		}
	}
	if w.limit >= 0 && w.n > w.limit {
		w.over = true
		return 0, errOverLimit
	}
	switch {
	case err == io.EOF:
		w.eof = true
	case err != nil:
		w.err = err
	}
	return k, err
}

// rest returns what the handler reads after the spool of the body as it
// came, in Monitor mode (as spoolReader.rest): body's unread octets, or
// the failure reading stopped at.
func (w *wireReader) rest(body io.Reader) io.Reader {
	switch {
	case w.eof:
		return nil
	case w.err != nil:
		return errorReader{w.err}
	}
	return body
}

// codedStream reads a body, coded as c, decoded. A failure to read the
// body, or a body over its limit, fails the read with the wireReader's
// error (checkMultipartBody tells them apart: wireOver, and the spool's
// read failure); a stream that does not decode fails it with a
// *codingError.
type codedStream struct {
	d   *decoder
	c   coding
	dec io.Reader // the decoder, once opened; nil before
	err error     // what ended the stream: io.EOF at its end
}

// stream sets d to decode body, coded as c, as it is read, within limit
// octets received (negative: none), copying them to sent when not nil
// (Monitor); d holds the stream until it is released.
func (d *decoder) stream(body io.Reader, c coding, limit int64, sent *spool) *codedStream {
	d.wire = wireReader{src: body, sent: sent, limit: limit}
	if d.br == nil {
		d.br = bufio.NewReaderSize(&d.wire, 4096)
	} else {
		d.br.Reset(&d.wire)
	}
	d.coded = codedStream{d: d, c: c}
	return &d.coded
}

// wireOver reports whether the body received is over its limit.
func (cs *codedStream) wireOver() bool { return cs.d.wire.over }

// rest is wireReader.rest.
func (cs *codedStream) rest(body io.Reader) io.Reader { return cs.d.wire.rest(body) }

func (cs *codedStream) Read(p []byte) (int, error) {
	if cs.err != nil {
		return 0, cs.err
	}
	if cs.dec == nil {
		if err := cs.open(); err != nil {
			cs.err = cs.failure(err)
			return 0, cs.err
		}
	}
	n, err := cs.dec.Read(p)
	if err == io.EOF {
		// gzip reads members to the end; zlib and DEFLATE stop at theirs,
		// and the body must end there too.
		if _, berr := cs.d.br.ReadByte(); berr == nil {
			err = errTrailingData
		} else if berr != io.EOF {
			err = berr
		}
	}
	if err != nil {
		cs.err = cs.failure(err)
	}
	return n, cs.err
}

// open opens the decoder on the body, once its first octets have come: an
// empty body is empty whatever its coding, as Echo's Decompress takes it.
func (cs *codedStream) open() error {
	head, err := cs.d.br.Peek(2)
	if err != nil && err != io.EOF {
		return err
	}
	if len(head) == 0 {
		cs.dec = eofReader{}
		return nil
	}
	zl := len(head) == 2 && isZlibHeader(head[0], head[1])
	cs.dec, err = cs.d.open(cs.d.br, cs.c, zl)
	return err
}

// failure is the error a read of cs ends with, for err, what the decoder
// or the body gave: io.EOF at the end; the body's own failure (or its
// limit) as it is; anything else is the stream's, a *codingError.
func (cs *codedStream) failure(err error) error {
	switch w := &cs.d.wire; {
	case err == io.EOF:
		return io.EOF
	case w.over:
		return errOverLimit
	case w.err != nil:
		return w.err
	}
	return &codingError{cs.c, err}
}

// eofReader is an empty body.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
