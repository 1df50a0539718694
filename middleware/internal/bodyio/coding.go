package bodyio

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

// Coding is a content Coding the middleware decodes.
type Coding uint8

const (
	Identity Coding = iota
	Gzip
	Deflate
)

func (c Coding) String() string {
	switch c {
	case Gzip:
		return "gzip"
	case Deflate:
		return "deflate"
	}
	return "identity"
}

// RequestCoding reads the Content-Encoding of r, the body of which is
// checked at loc: the coding to decode, or the rejection of a coding it
// does not decode (unsupported_encoding), whose offset is that of the
// coding at fault in the header's value (its lines joined by ", ").
func RequestCoding(r *http.Request, loc rules.Location) (Coding, *finding.Rejection) {
	v := r.Header["Content-Encoding"]
	list := v[0]
	if len(v) > 1 {
		list = strings.Join(v, ", ")
	}
	c, n := Identity, 0
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
		var k Coding
		switch {
		case name == "" || strings.EqualFold(name, "identity"):
			continue
		case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
			k = Gzip
		case strings.EqualFold(name, "deflate"):
			k = Deflate
		default:
			return Identity, unsupportedEncoding(loc, list, start)
		}
		if n++; n > 1 {
			return Identity, unsupportedEncoding(loc, list, start)
		}
		c = k
	}
	return c, nil
}

// unsupportedEncoding is the Rejection of the Content-Encoding value list
// for the coding at off, which the middleware does not decode.
func unsupportedEncoding(loc rules.Location, list string, off int) *finding.Rejection {
	return &finding.Rejection{Reason: sanitize.UnsupportedEncoding, Location: loc, Field: "Content-Encoding",
		Offset: off, Sample: finding.Sample(list, off), Err: sanitize.ErrUnsupportedEncoding}
}

// DecodedBefore reports whether the body of r, whose Content-Encoding is
// gzip, is read through a gzip.Reader already: Echo's Decompress, mounted
// before utf8guard, puts one there (v5's wrapped in a size limit that
// embeds it) and leaves Content-Encoding as it was. The octets read from
// it are the decoded ones, which the handler would read: those are
// checked. The type of r.Body is the server's, never the client's.
func DecodedBefore(r *http.Request) bool {
	body := r.Body
	if pb, ok := body.(*PeekedBody); ok {
		body = pb.ReadCloser // v5's sets the length unknown: hasBody read it
	}
	_, ok := body.(interface{ Multistream(bool) })
	return ok
}

// ReadChunks reads src to its end into chunks appended to s.work.chunks, up to
// limit octets (negative: no limit), and returns how many it read, or
// that they are over the limit (one past it read), or the read's error.
// The chunks are the scratch's: the caller drops them.
func (w *Work) ReadChunks(src io.Reader, limit int64) (n int, over bool, err error) {
	base := len(w.chunks) // the chunks already there: src may be reading them
	for {
		off := n % ChunkSize
		if off == 0 && base+n/ChunkSize == len(w.chunks) {
			w.chunks = append(w.chunks, ChunkPool.Get().(*[ChunkSize]byte))
		}
		buf := w.chunks[base+n/ChunkSize][off:]
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

// CodedReader is what the decoders read: octets, one at a time too (so
// that compress/flate reads no more than its stream), and how many are
// left after it.
type CodedReader interface {
	flate.Reader
	Len() int
}

// chunkReader reads the first n octets of chunks.
type chunkReader struct {
	chunks []*[ChunkSize]byte
	n      int    // octets in chunks
	next   int    // the chunk after cur
	cur    []byte // the current chunk's octets
	i      int    // the next octet of cur
}

func newChunkReader(chunks []*[ChunkSize]byte, n int) chunkReader {
	return chunkReader{chunks: chunks, n: n}
}

// fill makes cur the next chunk's octets, and reports whether there are
// any.
func (c *chunkReader) fill() bool {
	start := c.next * ChunkSize
	if start >= c.n {
		return false
	}
	c.cur, c.i = c.chunks[c.next][:min(ChunkSize, c.n-start)], 0
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
func (c *chunkReader) Len() int { return len(c.cur) - c.i + max(c.n-c.next*ChunkSize, 0) }

// decoders holds the decoders of content codings, with their state:
// compress/flate's is some 40 KiB, which a request should not allocate.
var decoders = sync.Pool{New: func() any { return new(Decoder) }}

// Decoder is the readers of one decoding: of the coded octets, and the
// Decoder of each coding, made on first use and reset after.
type Decoder struct {
	sent   bytes.Reader // the body as sent (Monitor)
	chunks chunkReader  // the body in the scratch's chunks (Enforce)
	wire   wireReader   // the body as it comes, for a codedStream
	br     *bufio.Reader
	coded  CodedStream // the body decoded, as it is read
	gz     gzip.Reader
	zl     io.ReadCloser // compress/zlib's, a zlib.Resetter
	fl     io.ReadCloser // compress/flate's, a flate.Resetter
}

// NewDecoder returns a decoder from the pool.
func NewDecoder() *Decoder { return decoders.Get().(*Decoder) }

// FromSent sets d to read sent, the body as the client sent it.
func (d *Decoder) FromSent(sent []byte) CodedReader {
	d.sent.Reset(sent)
	return &d.sent
}

// FromChunks sets d to read the first n octets of w's chunks, the body
// readChunks read there.
func (d *Decoder) FromChunks(w *Work, n int) CodedReader {
	d.chunks = newChunkReader(w.chunks, n)
	return &d.chunks
}

// Release forgets the body and puts d back in the pool.
func (d *Decoder) Release() {
	d.sent.Reset(nil)
	d.chunks = chunkReader{}
	d.wire = wireReader{}
	d.coded = CodedStream{}
	if d.br != nil {
		d.br.Reset(nil)
	}
	decoders.Put(d)
}

// open sets d to decode src, coded as c, and returns the reader of the
// decoded octets; zl says that src starts with a zlib header
// (zlibHeader), which a deflate stream is then read as.
func (d *Decoder) open(src flate.Reader, c Coding, zl bool) (io.Reader, error) {
	switch {
	case c == Gzip:
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
func zlibHeader(src CodedReader) bool {
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

// ErrOverLimit is what a reader of a body (a spoolReader, a CodedStream)
// returns once the body is over its limit.
var ErrOverLimit = errors.New("utf8guard: body over its limit")

// ErrTrailingData is the error of a zlib or DEFLATE stream followed by
// more octets.
var ErrTrailingData = errors.New("octets after the end of the stream")

// CodingError is a content coding that failed to decode.
type CodingError struct {
	c   Coding
	err error
}

// Error returns the coding and the decoder's error, without the prefix
// the decoder's own package gives it ("gzip: invalid checksum",
// "deflate: corrupt input before offset 5").
func (e *CodingError) Error() string {
	msg := e.err.Error()
	for _, pkg := range []string{"gzip: ", "flate: ", "zlib: "} {
		msg = strings.TrimPrefix(msg, pkg)
	}
	return e.c.String() + ": " + msg
}

func (e *CodingError) Unwrap() error { return e.err }

// Decode decodes src, coded as c, with d, into memory of its own, up to
// limit decoded octets (negative: no limit). It returns the decoded
// octets, or that they are over the limit, having decoded at most one
// buffer more than it, or the decoder's error as a *codingError. It reads
// the decoded octets into s.work.chunks after those already there (which src
// may be reading), and leaves them there for the caller to drop.
func (w *Work) Decode(d *Decoder, src CodedReader, c Coding, limit int64) (text []byte, over bool, err error) {
	if src.Len() == 0 {
		return []byte{}, false, nil // empty whatever its coding, as Echo's Decompress takes it
	}
	dec, err := d.open(src, c, zlibHeader(src))
	if err != nil {
		return nil, false, &CodingError{c, err}
	}
	base := len(w.chunks)
	n, over, err := w.ReadChunks(dec, limit)
	switch {
	case over:
		return nil, true, nil
	case err != nil:
		return nil, false, &CodingError{c, err}
	case src.Len() > 0:
		// gzip reads members to the end; zlib and DEFLATE stop at theirs.
		return nil, false, &CodingError{c, ErrTrailingData}
	}
	text = make([]byte, n)
	for i := 0; i*ChunkSize < n; i++ {
		copy(text[i*ChunkSize:], w.chunks[base+i][:])
	}
	return text, false, nil
}

// Coded multipart bodies. A multipart body with a content coding is not
// read whole: it takes the way of any multipart body (upload.Check),
// through a CodedStream, which decodes it as the check reads
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
	sent  io.Writer
	limit int64
	n     int64
	over  bool  // more than limit octets
	eof   bool  // src is at its end
	err   error // src's failure, or sent's
}

func (w *wireReader) Read(p []byte) (int, error) {
	switch {
	case w.over:
		return 0, ErrOverLimit
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
		return 0, ErrOverLimit
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
		return ErrorReader{w.err}
	}
	return body
}

// CodedStream reads a body, coded as c, decoded. A failure to read the
// body, or a body over its limit, fails the read with the wireReader's
// error (upload.Check tells them apart: WireOver, and the spool's
// read failure); a stream that does not decode fails it with a
// *codingError.
type CodedStream struct {
	d   *Decoder
	c   Coding
	dec io.Reader // the decoder, once opened; nil before
	err error     // what ended the stream: io.EOF at its end
}

// Stream sets d to decode body, coded as c, as it is read, within limit
// octets received (negative: none), copying them to sent when not nil
// (Monitor); d holds the Stream until it is released.
func (d *Decoder) Stream(body io.Reader, c Coding, limit int64, sent io.Writer) *CodedStream {
	d.wire = wireReader{src: body, sent: sent, limit: limit}
	if d.br == nil {
		d.br = bufio.NewReaderSize(&d.wire, 4096)
	} else {
		d.br.Reset(&d.wire)
	}
	d.coded = CodedStream{d: d, c: c}
	return &d.coded
}

// WireOver reports whether the body received is over its limit.
func (cs *CodedStream) WireOver() bool { return cs.d.wire.over }

// Rest is wireReader.Rest.
func (cs *CodedStream) Rest(body io.Reader) io.Reader { return cs.d.wire.rest(body) }

func (cs *CodedStream) Read(p []byte) (int, error) {
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
			err = ErrTrailingData
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
func (cs *CodedStream) open() error {
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
func (cs *CodedStream) failure(err error) error {
	switch w := &cs.d.wire; {
	case err == io.EOF:
		return io.EOF
	case w.over:
		return ErrOverLimit
	case w.err != nil:
		return w.err
	}
	return &CodingError{cs.c, err}
}

// eofReader is an empty body.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
