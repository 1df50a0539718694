package upload

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"slices"
	"strings"
	"sync"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Multipart bodies (every multipart/* media type: Request.MultipartReader
// takes multipart/form-data and multipart/mixed, and multipart.NewReader
// any) are read here exactly as Go's multipart.Reader hands them to a
// handler, part by part, and every octet a handler can read through it is
// checked:
//
//   - the part's header values, and the decoded parameters of its
//     Content-Disposition and Content-Type (the field name and the file
//     name as mime.ParseMediaType decodes them, filename* and name*
//     included), under the names classes (namesForbid), octets and the
//     escapes a JSON or XML decoder would decode alike; its extended
//     values, which must decode; and, under RefuseAmbiguousParts, no
//     field or parameter given twice (headers.go);
//   - a field's declared charset, as a text body's (RefuseCharsets);
//   - the content of every text part: every field (a part without a file
//     name, one without a Content-Disposition included) and every file
//     part whose media type the policy lists as text; a part without a
//     Content-Type is text/plain (RFC 7578, section 4.4);
//   - the content as NextPart reads it: a quoted-printable part decoded,
//     as NextPart decodes it;
//   - nested bodies: a part whose Content-Type is multipart/* with a
//     boundary is read again as a multipart body (a handler may hand it
//     to multipart.NewReader), and checked as text besides when it is a
//     field (Request.ParseMultipartForm makes it a form value).
//
// Two ways a handler can read more than a parser that stops at the first
// error are closed too. After a syntax error (a line where a delimiter
// must be, a malformed part header) a handler that calls NextPart again
// reads on, line by line, to the next delimiter line: the scan does the
// same, and checks the parts it finds there. A body that is not well
// formed to its closing delimiter (a syntax error, or an end inside a
// part) is then refused all the same, body_unreadable, when nothing
// before refused it: a handler reading it raw would read the octets from
// the error to the next delimiter, which no part held (brokenMultipart). A quoted-printable decoding
// error leaves the reader somewhere inside the part, at a place that
// depends on how the part was read, and a handler that ignores the error
// (data, _ := io.ReadAll(part)) and calls NextPart reads on from there,
// into octets no check read as a part: such a body is refused
// (bad_escape). So is a boundary longer than the 70 octets RFC 2046
// allows (bad_media_type): no client sends one, and past about 4 KiB a
// delimiter no longer fits Go's reader's buffer and it fails inside a part
// the same way.

// maxBoundary is the longest boundary RFC 2046 (section 5.1.1) allows.
// multipart.Writer refuses longer ones; multipart.Reader takes them, but
// with one of more than about 4 KiB a delimiter no longer fits its buffer
// and the reader fails in the middle of a part.
const maxBoundary = 70

// MaxDepth is the deepest nesting of multipart bodies read: a
// top-level body is at depth 0, a multipart part of it at 1. RFC 7578
// forms nest once at most (RFC 2388's multipart/mixed for several files).
const MaxDepth = 8

// mimePart is one part of a multipart body, as multipart.Reader.NextPart
// hands it to a handler.
type mimePart struct {
	raw *multipart.Part // read with NextRawPart: content not decoded
	// header is the part's header as NextPart gives it: a
	// quoted-printable part without its Content-Transfer-Encoding.
	header textproto.MIMEHeader
	qp     bool // the content is quoted-printable, decoded on reading
	// dropped are the values of the Content-Transfer-Encoding NextPart
	// drops from a quoted-printable part's header: text of the body all
	// the same, checked as the other values are.
	dropped []string
	// max is the most octets of content read into memory (negative: no
	// limit), for a part of a body that streams; over says it had more.
	max  int64
	over bool
	// scan is the scanner that read the part: readContent finds the
	// content of a part of a body in memory there (mpScanner.readRaw).
	// inBody says that the content it returned is the body's own
	// octets, which stay as they are while the body is walked, where
	// other contents are in memory the next part reuses.
	scan   *mpScanner
	inBody bool

	// The Content-Disposition, as multipart.Part reads it: its type (lower
	// case) and decoded parameters, nil when it is missing or does not
	// parse (Part.FormName and Part.FileName are then empty).
	disp       string
	dispParams map[string]string
	name, file string // the "name" and "filename" parameters

	// The Content-Type: type and subtype, lower case, and the decoded
	// parameters. Missing or empty, it is text/plain (RFC 7578, section
	// 4.4); a value mime.ParseMediaType cannot read a type from is
	// text/plain too, so that its content is checked rather than
	// skipped.
	media      string // type/subtype
	typ, sub   string
	typeParams map[string]string
}

// isFile reports whether the part is a file part: one with a file name, as
// multipart.Part.FileName and Reader.ReadForm tell. An empty filename="" is
// a form value, and so is a field named "filename".
func (pt *mimePart) isFile() bool { return pt.file != "" }

// nestedBoundary returns the boundary of a part whose content is itself a
// multipart body, or "".
func (pt *mimePart) nestedBoundary() string {
	if pt.typ != "multipart" {
		return ""
	}
	return pt.typeParams["boundary"]
}

// readContent reads the part's content as NextPart hands it to a handler:
// quoted-printable decoded. truncated says that the body ends inside the
// part (the content is what came before). qpOff is -1, or, when the
// quoted-printable content does not decode, the offset in raw (the content
// as sent) of the line where Go's decoder fails: content is then what it
// decoded before.
//
// The part is read into buf, appending (its earlier contents stay where
// they are), which it returns grown: raw and content are parts of it. A
// part of a body that streams is read up to pt.max octets (readUpTo):
// past them, pt.over is set and nothing is returned. A quoted-printable
// part is decoded into buf.
func (pt *mimePart) readContent(buf []byte, dec *qpDecoder) (content, raw, grown []byte, truncated bool, qpOff int) {
	var err error
	lo := len(buf)
	switch {
	case pt.scan != nil && pt.scan.body != nil:
		raw, buf, pt.inBody, err = pt.scan.readRaw(pt.raw, buf)
	case pt.max >= 0:
		if buf, pt.over, err = readUpTo(buf, pt.raw, pt.max); pt.over {
			return nil, nil, buf[:lo], true, -1
		}
		raw = buf[lo:len(buf):len(buf)]
	default:
		buf, err = readAll(buf, pt.raw)
		raw = buf[lo:len(buf):len(buf)]
	}
	// The only error a part of a body in memory can end with, given a
	// boundary of at most maxBoundary octets, is io.ErrUnexpectedEOF:
	// the body ends before the part's delimiter. Any other is taken as
	// that too.
	truncated = err != nil
	if !pt.qp {
		return raw, raw, buf, truncated, -1
	}
	pt.inBody = false // decoded into buf
	mid := len(buf)
	buf, err = readAll(buf, dec.reader(raw))
	content = buf[mid:len(buf):len(buf)]
	if err == nil {
		return content, raw, buf, truncated, -1
	}
	return content, raw, buf, truncated, qpErrorLine(raw)
}

// qpDecoder decodes quoted-printable contents in memory that is reused
// from part to part: quotedprintable.NewReader reads through a
// bufio.Reader of 4 KiB, and bufio.NewReaderSize takes a *bufio.Reader of
// that size as it is, so that a part costs the decoder's small state, not
// a 4 KiB buffer. The buffer's size is the one Go's decoder makes, so
// lines are cut where they would be (qpErrorLine).
type qpDecoder struct {
	src bytes.Reader
	br  *bufio.Reader
}

// qpBufferSize is the size of the buffer quotedprintable.NewReader reads
// through (bufio.NewReader's).
const qpBufferSize = 4096

// reader returns a quoted-printable decoder of raw.
func (d *qpDecoder) reader(raw []byte) io.Reader {
	d.src.Reset(raw)
	if d.br == nil {
		d.br = bufio.NewReaderSize(&d.src, qpBufferSize)
	} else {
		d.br.Reset(&d.src)
	}
	return quotedprintable.NewReader(d.br)
}

// readAll appends what r reads, up to its end or an error, to dst, as
// io.ReadAll reads it into memory of its own. It doubles dst when it is
// full (append grows a large slice by a quarter, which, a few kilobytes
// read at a time, allocates four times the content along the way).
func readAll(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			nb := make([]byte, len(dst), max(2*cap(dst), 512))
			copy(nb, dst)
			dst = nb
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// readUpTo is readAll, of at most limit octets of r: over says that r holds
// more, and then dst is returned as it came. It reads through pooled
// chunks (chunkPool, as readBody), and appends what it read to dst only once it is
// known to be within the limit, growing dst to the size read, no more: a
// part over the limit costs working memory, not garbage, and dst, pooled
// itself (mpMem), is not outgrown.
func readUpTo(dst []byte, r io.Reader, limit int64) ([]byte, bool, error) {
	// Into dst's free room first: pooled too, and what fits there is
	// not copied again. The rest goes through chunks.
	lo := len(dst)
	for len(dst) < cap(dst) {
		room := dst[len(dst):cap(dst)]
		if left := limit - int64(len(dst)-lo); int64(len(room)) > left {
			room = room[:left+1] // one past the limit tells there is more
		}
		k, err := r.Read(room)
		dst = dst[:len(dst)+k]
		if int64(len(dst)-lo) > limit {
			return dst[:lo], true, nil
		}
		if err == io.EOF {
			return dst, false, nil
		}
		if err != nil {
			return dst, false, err
		}
	}
	limit -= int64(len(dst) - lo)
	var arr [bodyio.MaxPooledChunks]*[bodyio.ChunkSize]byte
	chunks := arr[:0]
	defer func() {
		for i, c := range chunks {
			if i < bodyio.MaxPooledChunks {
				bodyio.ChunkPool.Put(c)
			}
		}
	}()
	var n int64
	for {
		off := n % bodyio.ChunkSize
		if off == 0 {
			chunks = append(chunks, bodyio.ChunkPool.Get().(*[bodyio.ChunkSize]byte))
		}
		buf := chunks[len(chunks)-1][off:]
		if left := limit - n; left < int64(len(buf)) {
			buf = buf[:left+1] // one past the limit tells there is more
		}
		k, err := r.Read(buf)
		n += int64(k)
		if n > limit {
			return dst[:lo], true, nil
		}
		if err == nil {
			continue
		}
		if err == io.EOF {
			err = nil
		}
		if int64(cap(dst)-len(dst)) < n {
			nb := make([]byte, len(dst), int64(len(dst))+n)
			copy(nb, dst)
			dst = nb
		}
		for i, c := range chunks {
			k := min(bodyio.ChunkSize, n-int64(i)*bodyio.ChunkSize)
			dst = append(dst, c[:k]...)
		}
		return dst, false, err
	}
}

// mpMem is the working memory of the multipart passes, pooled: nothing in
// it is handed to a handler (a rebuilt body is written into memory of its
// own). bufs holds the contents of the parts being checked, one buffer
// per nesting depth (a nested body is read from its parent's buffer while
// its own parts are read into the next); arena the contents a rebuild
// keeps until it writes them.
type mpMem struct {
	bufs  [MaxDepth + 1][]byte
	arena []byte
	// cmp holds a part read back by rebuiltLevel.verify.
	cmp []byte
	qp  qpDecoder
	// parts holds the parts of a top-level body rebuilt (topParts).
	parts []rebuiltPart
}

// maxPooledParts is the most parts of a rebuilt body whose slice is kept
// for the next request.
const maxPooledParts = 1024

// topParts appends part to lv.parts, the parts of a top-level body, whose
// slice is m's: a body of a hundred parts, grown by appending, leaves
// copies of the ones before behind.
func (m *mpMem) topParts(lv *rebuiltLevel, part rebuiltPart) {
	if lv.parts == nil {
		lv.parts = m.parts[:0]
	}
	lv.parts = append(lv.parts, part)
	m.parts = lv.parts
}

var mpMems = sync.Pool{New: func() any { return new(mpMem) }}

// Past these sizes an mpMem's buffers are not kept for the next request:
// the top-level ones up to the default body limit, so that a route of
// uploads does not allocate its body's size again for every request, and
// the others, which only nested bodies use, up to 64 KiB. The arena up
// to what the rebuild of a body at the default limit takes: its contents
// and, while a nested body is written, that body again (nestedRoom).
const (
	maxPooledMPTop    = rules.DefaultBodyBytes
	maxPooledMPNested = 64 << 10
	maxPooledMPArena  = 2*rules.DefaultBodyBytes + 64<<10
)

func getMPMem() *mpMem { return mpMems.Get().(*mpMem) }

// release empties m and puts it back in the pool.
func (m *mpMem) release() {
	for i := range m.bufs {
		m.bufs[i] = trimPooled(m.bufs[i], i == 0)
	}
	if cap(m.arena) > maxPooledMPArena {
		m.arena = nil
	}
	m.arena = m.arena[:0]
	clear(m.parts) // what they point at goes
	if cap(m.parts) > maxPooledParts {
		m.parts = nil
	}
	m.parts = m.parts[:0]
	m.cmp = trimPooled(m.cmp, true)
	m.qp.src.Reset(nil)
	mpMems.Put(m)
}

// growArena makes room for n more octets in *arena, at least doubling it
// when it must move: grown by a quarter at a time (append, slices.Grow),
// a body's rebuild in it costs several times its size in copies left
// behind.
func growArena(arena *[]byte, n int) {
	a := *arena
	if cap(a)-len(a) >= n {
		return
	}
	nb := make([]byte, len(a), max(2*cap(a), len(a)+n))
	copy(nb, a)
	*arena = nb
}

// nestedRoom is the room growArena makes in the arena for a nested body
// of n octets before its walk: its contents as normalized (no longer
// than the body, but for the rare characters whose normal form is
// longer) and, once all are read, its header blocks and the body written.
func nestedRoom(n int) int { return 2*n + 4096 }

// trimPooled returns b emptied, or nil when it is too large to keep.
func trimPooled(b []byte, top bool) []byte {
	if cap(b) > maxPooledMPNested && !top || cap(b) > maxPooledMPTop {
		return nil
	}
	return b[:0]
}

// qpErrorLine returns the offset of the first line of raw that Go's
// quoted-printable decoder refuses. The decoder works a line at a time
// (each read up to '\n', in a buffer of 4 KiB), so decoding each line on
// its own fails on the same line; this runs only once decoding has failed.
func qpErrorLine(raw []byte) int {
	off := 0
	for line := range bytes.SplitAfterSeq(raw, []byte("\n")) {
		if _, err := io.Copy(io.Discard, quotedprintable.NewReader(bytes.NewReader(line))); err != nil {
			return off
		}
		off += len(line)
	}
	return 0
}

// mpScanner reads the parts of one multipart body in the order a handler
// gets them from multipart.Reader.NextPart, the quoted-printable decoding
// aside (mimePart.readContent does it, to tell its errors from the body's
// end).
type mpScanner struct {
	mr    *multipart.Reader
	steps int // NextRawPart calls
	limit int // at most this many: each call that fails reads an octet at least
	// src is the body a streaming scan reads, nil for one in memory: the
	// scan stops where reading it does, and limit grows as it is read.
	src  *spoolReader
	max  int64 // mimePart.max of the parts
	done bool
	// broken is set when the body is not well formed to its closing
	// delimiter: a syntax error, or a body that ends early.
	broken bool
	part   mimePart // the part next returned

	// body is the body a scan in memory reads, nil for one that streams.
	// A part's content is a run of its octets (unless quoted-printable):
	// readRaw looks for it there, from at on, rather than copy it, while
	// locate holds (it stops at the first part not found where it
	// looked). delim is "--" + boundary: delimBuf[:delimLen].
	body     []byte
	at       int
	locate   bool
	delimBuf [maxBoundary + 2]byte
	delimLen int
}

func newScanner(body []byte, boundary string) *mpScanner {
	s := &mpScanner{mr: multipart.NewReader(bytes.NewReader(body), boundary), limit: len(body) + 2, max: -1, body: body}
	// A longer boundary is refused (boundaryRejection) before a scan.
	if len(boundary) <= maxBoundary {
		s.delimLen = copy(s.delimBuf[2:], boundary) + 2
		s.delimBuf[0], s.delimBuf[1] = '-', '-'
		s.locate = true
	}
	return s
}

// contentStart returns where the content of the next part is likely to
// start in s.body: after the next delimiter from s.at on, its line, and
// the header lines up to the first empty one. It is a guess, -1 when
// there is none: readRaw compares what Go's reader reads with the octets
// there. Each call scans from s.at, which readRaw moves past what it
// scanned, so that the guesses of a body cost one pass over it.
func (s *mpScanner) contentStart() int {
	if !s.locate {
		return -1
	}
	i := bytes.Index(s.body[s.at:], s.delimBuf[:s.delimLen])
	if i < 0 {
		return -1
	}
	p := s.at + i + s.delimLen
	for {
		j := bytes.IndexByte(s.body[p:], '\n')
		if j < 0 {
			return -1
		}
		p += j + 1
		switch rest := s.body[p:]; {
		case len(rest) > 0 && rest[0] == '\n':
			return p + 1
		case len(rest) > 1 && rest[0] == '\r' && rest[1] == '\n':
			return p + 2
		}
	}
}

// readRaw reads the content of r, the part just returned, up to its end or
// an error. When the content is a run of s.body, the guess of
// contentStart, it returns that run (inBody), and nothing is copied:
// every octet Go's reader hands out is compared with the body's, so that
// the run is exactly what a handler reads. Otherwise (the guess is wrong,
// as it may be after a syntax error) the content is read into buf,
// appended, and the scan stops guessing.
func (s *mpScanner) readRaw(r io.Reader, buf []byte) (raw, grown []byte, inBody bool, err error) {
	c := s.contentStart()
	if c < 0 {
		s.locate = false
		lo := len(buf)
		buf, err = readAll(buf, r)
		return buf[lo:len(buf):len(buf)], buf, false, err
	}
	chunk := bodyio.ChunkPool.Get().(*[bodyio.ChunkSize]byte)
	defer bodyio.ChunkPool.Put(chunk)
	n := 0 // s.body[c:c+n] is what was read
	for {
		k, rerr := r.Read(chunk[:])
		if c+n+k > len(s.body) || !bytes.Equal(chunk[:k], s.body[c+n:c+n+k]) {
			// Not there: what was read goes into buf, and the rest.
			s.locate = false
			lo := len(buf)
			buf = append(append(slices.Grow(buf, n+k), s.body[c:c+n]...), chunk[:k]...)
			if rerr == nil {
				buf, rerr = readAll(buf, r)
			} else if rerr == io.EOF {
				rerr = nil
			}
			return buf[lo:len(buf):len(buf)], buf, false, rerr
		}
		n += k
		if rerr != nil {
			if rerr == io.EOF {
				rerr = nil
			}
			s.at = c + n
			return s.body[c : c+n : c+n], buf, true, rerr
		}
	}
}

// newStreamScanner returns a scanner of the body src reads, as it is read,
// whose text parts are read into memory up to max octets.
func newStreamScanner(src *spoolReader, boundary string, max int64) *mpScanner {
	return &mpScanner{mr: multipart.NewReader(src, boundary), src: src, max: max}
}

// next returns the next part, or nil after the last one.
//
// A syntax error does not end the scan: a handler that calls NextPart
// again after an error gets the next part the reader finds, reading on
// from the line after the error, so the scan reads on too (and marks the
// body broken). Request.ParseMultipartForm stops at the error, and so sees
// a prefix of these parts. The scan ends at the closing delimiter or where
// the body ends.
func (s *mpScanner) next() *mimePart {
	for !s.done {
		if s.src != nil {
			if s.src.failed() {
				s.done, s.broken = true, true // the body could not be read: refused
				break
			}
			s.limit = int(min(s.src.n, int64(maxInt-2))) + 2
		}
		if s.steps++; s.steps > s.limit {
			s.done, s.broken = true, true // cannot happen: no progress
			break
		}
		raw, err := s.mr.NextRawPart()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			s.broken = true
			// Reading stops at a part header over its limit of lines
			// (headScan), which the parts before it were read up to.
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errHeadLines) {
				s.done = true
			}
			continue
		}
		// The scanner's own part, which the next one replaces: nothing
		// keeps a part past the call that checks (or rebuilds) it.
		s.part.read(raw)
		s.part.max, s.part.scan = s.max, s
		return &s.part
	}
	return nil
}

// maxInt is the largest int.
const maxInt = int(^uint(0) >> 1)

// read makes pt the part read with NextRawPart, its header as NextPart
// would present it.
func (pt *mimePart) read(raw *multipart.Part) {
	*pt = mimePart{raw: raw, header: raw.Header}
	// As NextPart does: the first Content-Transfer-Encoding decides, and
	// every one goes.
	const cte = "Content-Transfer-Encoding"
	if strings.EqualFold(pt.header.Get(cte), "quoted-printable") {
		pt.dropped = pt.header[cte]
		pt.header.Del(cte)
		pt.qp = true
	}
	if disp, params, ok := media.Read(pt.header.Get("Content-Disposition")); ok {
		pt.disp, pt.dispParams = disp, params
		pt.name, pt.file = params["name"], params["filename"]
	}
	pt.media, pt.typ, pt.sub, pt.typeParams = partType(pt.header)
}

// partType reads a part's Content-Type as a handler reads it with
// mime.ParseMediaType, with RFC 7578's default: a part without one (or
// with an empty one) is text/plain. A value whose media type does not
// parse is taken as text/plain as well, so that its content is checked
// as text rather than passed unread; one whose parameters do not parse
// keeps its type, without parameters (as ParseMediaType returns it).
func partType(hdr textproto.MIMEHeader) (mt, typ, sub string, params map[string]string) {
	ct := hdr.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return "text/plain", "text", "plain", nil
	}
	mt, params, ok := media.Read(ct)
	if mt == "" {
		return "text/plain", "text", "plain", nil
	}
	if !ok {
		params = nil
	}
	typ, sub, _ = strings.Cut(mt, "/")
	return mt, typ, sub, params
}

// textPart reports whether the content of pt is checked (and
// canonicalized) as text: a field always; a file part when the policy
// takes file contents as text (rules.TextFiles), lists its media type as
// text and its charset leaves it UTF-8. badCharset reports a part checked
// as text that declares another charset, as a text body may: the policy
// refuses it with RefuseCharsets, as it refuses such a body, and
// otherwise checks a field's octets all the same (it is a form value)
// and passes a file part as binary. A data file part's charset is the
// application's business, as its content is.
func textPart(p *compiled.Policy, pt *mimePart) (text, badCharset bool) {
	if !pt.isFile() {
		// A field in UTF-7 ("+IC4-" is U+202E) is ASCII to the check
		// and something else to a handler that honours its charset.
		return true, !media.UTF8Charset(pt.typeParams["charset"])
	}
	if p.FileContents == rules.DataFiles {
		return false, false // data: its charset is the application's business
	}
	if !compiled.MatchMedia(p.MultiPatterns, pt.typ, pt.sub) {
		return false, false
	}
	if !media.UTF8Charset(pt.typeParams["charset"]) {
		return false, true
	}
	return true, false
}

// dataPart reports whether the content of pt is data: a file part that is
// not text (textPart), not a multipart body itself and not
// quoted-printable (whose decoding can fail, which the check must see).
// Data is never read into memory: in a body that streams, it goes by,
// counted against the limits of data.
func dataPart(p *compiled.Policy, pt *mimePart) bool {
	text, _ := textPart(p, pt)
	return !text && pt.nestedBoundary() == "" && !pt.qp
}

// mpCounts counts the parts and fields of a body, nested ones included.
// st is the top-level body as it streams, nil for a body in memory; mem
// the memory its parts are read into (memory), nil until then.
//
// rb, when set, rebuilds the body in the same walk (the walk that checks
// it reads each part once, for both): levels holds the body being
// rebuilt at each depth. The first rejection of the rebuild is kept in
// rb.rj, and ends the rebuild, not the check: a body the check refuses is
// refused for that, wherever it comes, as when the rebuild came after.
type mpCounts struct {
	parts, fields int
	st            *mpFlow
	mem           *mpMem
	rb            *rebuilder
	levels        [MaxDepth + 1]*rebuiltLevel
	// want, when set at a depth, is the rebuilt body the walk reads
	// there (recheckRebuilt): each part read must be the one written,
	// part its part the next checkPart compares (nil outside a rebuilt
	// body).
	want [MaxDepth + 1]*rebuiltLevel
	part *rebuiltPart
}

// memory returns n.mem, made if there is none (a count made without it
// gets memory of its own, not pooled).
func (n *mpCounts) memory() *mpMem {
	if n.mem == nil {
		n.mem = new(mpMem)
	}
	return n.mem
}

// rebuilding returns the rebuilder while the body is rebuilt: nil when it
// is not, or no longer (a rejection).
func (n *mpCounts) rebuilding() *rebuilder {
	if n.rb == nil || n.rb.rj != nil {
		return nil
	}
	return n.rb
}

// keep adds a part the rebuild made to the body at depth, or keeps its
// rejection.
func (n *mpCounts) keep(depth int, part rebuiltPart, changed, complete bool, rj *finding.Rejection) {
	if rj != nil {
		n.rb.rj = rj
		return
	}
	lv := n.levels[depth]
	if depth == 0 {
		n.memory().topParts(lv, part)
	} else {
		lv.parts = append(lv.parts, part)
	}
	lv.changed = lv.changed || changed
	lv.complete = lv.complete && complete
}

// checkLevel checks one multipart body, the top-level one at depth 0 or a
// nested one, reading its parts' contents into n's memory, at depth.
func checkLevel(p *compiled.Policy, body []byte, boundary string, depth int, n *mpCounts) *finding.Rejection {
	_, rj := walkLevel(p, body, boundary, depth, n, false)
	return rj
}

// walkLevel is checkLevel, which, with rebuild (and n.rb), also rebuilds
// the body as rebuilder.level does, in the same walk: it returns the body
// rebuilt, written into the arena when it changes and is complete; nil
// once the rebuild has stopped.
func walkLevel(p *compiled.Policy, body []byte, boundary string, depth int, n *mpCounts, rebuild bool) (*rebuiltLevel, *finding.Rejection) {
	if rj := boundaryRejection(boundary, depth); rj != nil {
		return nil, rj
	}
	// No buffer is reserved for the parts: their contents are the
	// body's own octets (mpScanner.readRaw) but for quoted-printable
	// ones, decoded into m.bufs[depth].
	m := n.memory()
	var lv *rebuiltLevel
	if rebuild {
		growArena(&m.arena, nestedRoom(len(body)))
		lv = &rebuiltLevel{complete: true, mark: len(m.arena)}
		n.levels[depth] = lv
	}
	// A part header with too many lines is refused once the parts
	// before it are checked, which are read up to its line that goes
	// over, as a body that streams in is (headScan).
	headsOver := false
	if lim := p.Limits.MultipartHeaderLines; lim >= 0 {
		var h headScan
		h.start(boundary, lim)
		if cut := h.write(body); cut >= 0 {
			body, headsOver = body[:cut], true
		}
	}
	s := newScanner(body, boundary)
	want, i := n.want[depth], 0
	for pt := s.next(); pt != nil; pt = s.next() {
		if want != nil {
			// As verifyWith: a syntax error before the part, a part
			// too many or one whose header is not the one written.
			if s.broken || i == len(want.parts) {
				return nil, multipartSyntax("")
			}
			n.part, i = &want.parts[i], i+1
			if !n.part.sameHead(pt) {
				return nil, multipartSyntax(n.part.name)
			}
		}
		if rj := checkPart(p, pt, depth, n); rj != nil {
			return nil, rj
		}
	}
	if headsOver {
		return nil, headersRejection(p.Limits.MultipartHeaderLines)
	}
	if want != nil && (s.broken || i != len(want.parts)) {
		return nil, multipartSyntax("") // a syntax error, or parts too few
	}
	rb := n.rebuilding()
	if lv == nil || rb == nil {
		return nil, nil
	}
	lv.complete = lv.complete && !s.broken
	if lv.changed && lv.complete {
		// Written into the arena: its parent's part holds it, and the
		// parent is written out in turn.
		if rj := lv.writeTo(rb.boundary, &m.arena, true); rj != nil {
			rb.rj = rj
			return nil, nil
		}
	}
	return lv, nil
}

// boundaryRejection refuses a body nested deeper than MaxDepth
// (too_large, a count: 400) and a boundary longer than maxBoundary
// (bad_media_type: the Content-Type's boundary is outside RFC 2046).
func boundaryRejection(boundary string, depth int) *finding.Rejection {
	if depth > MaxDepth {
		return finding.TooMany(rules.Multipart, MaxDepth)
	}
	if len(boundary) > maxBoundary {
		return &finding.Rejection{Reason: sanitize.BadMediaType, Location: rules.Multipart, Field: "boundary",
			Offset: maxBoundary, Sample: finding.Sample(boundary, maxBoundary), Err: sanitize.ErrBadMediaType}
	}
	return nil
}

// checkPart checks one part: its names and header values first, so that a
// rejection names the field rather than the header that carries it, then
// its content.
func checkPart(p *compiled.Policy, pt *mimePart, depth int, n *mpCounts) *finding.Rejection {
	want := n.part // the part written, when this is a rebuilt body read back
	n.part = nil
	if n.parts++; p.Limits.MultipartParts >= 0 && n.parts > p.Limits.MultipartParts {
		return finding.TooMany(rules.Multipart, p.Limits.MultipartParts)
	}
	if rj := checkPartNames(p, pt); rj != nil {
		return rj
	}
	// The field as logged is made only for a rejection: escaping a
	// name that is not ASCII allocates.
	if !pt.isFile() {
		if n.fields++; p.Limits.Fields >= 0 && n.fields > p.Limits.Fields {
			return finding.TooMany(rules.Multipart, p.Limits.Fields)
		}
	}
	text, badCharset := textPart(p, pt)
	if badCharset && p.RefuseCharsets {
		return &finding.Rejection{Reason: sanitize.BadCharset, Location: rules.Multipart, Field: finding.SafeField(pt.name), Err: sanitize.ErrBadCharset}
	}
	// The rebuild, if any, takes the names now, as it takes them before
	// the content (and, for a nested body, before its parts).
	rb := n.rebuilding()
	var out rebuiltPart
	var canonField string
	var changed bool
	if rb != nil {
		var rj *finding.Rejection
		if out, canonField, changed, rj = rb.names(pt); rj != nil {
			n.rb.rj, rb = rj, nil
		}
	}
	nested := pt.nestedBoundary()
	if dataPart(p, pt) {
		if depth == 0 && n.st != nil {
			// Data, streaming: counted and bounded, and copied to the
			// rebuild's spool as it passes.
			off := n.st.sinkLen()
			complete, rj := n.st.data(pt, finding.SafeField(pt.name), rb != nil)
			if rj != nil || rb == nil {
				return rj
			}
			out.data, out.dataOff, out.dataLen = true, off, n.st.sinkLen()-off
			part, ch, complete, rj := rb.content(pt, depth, out, canonField, changed, nil, complete, nil)
			n.keep(depth, part, ch, complete, rj)
			return nil
		}
		if rb == nil && want == nil {
			return nil // data: not read (NextRawPart drains it)
		}
		// Read for the rebuild, which keeps it: a data part of a
		// nested body, bounded by the body it is in; or read back, to
		// be compared with what was written.
	}
	// A broken part (the body ends inside it) fails the handler's parser
	// too, but only after a streaming handler has read what came before
	// the break: that much is checked all the same, and the scan ends.
	m := n.memory()
	content, raw, buf, truncated, qpOff := pt.readContent(m.bufs[depth][:0], &m.qp)
	m.bufs[depth] = buf
	if want != nil && (truncated || qpOff >= 0 || !bytes.Equal(content, want.content)) {
		return multipartSyntax(want.name) // not the content written
	}
	if pt.over {
		return finding.TooLarge(rules.Multipart, "", pt.max) // text over the body's text limit
	}
	if qpOff >= 0 {
		return qpRejection(finding.SafeField(pt.name), raw, qpOff)
	}
	if text {
		if rj := checkPartText(p, pt, content); rj != nil {
			return rj
		}
	}
	var sub *rebuiltLevel
	if want != nil && want.nested != nil && nested != want.nested.boundary {
		return multipartSyntax(want.name) // not the nested body written
	}
	if nested != "" {
		if depth < MaxDepth {
			// A nested body rebuilt is read back as such; one that
			// was not is the content compared above.
			n.want[depth+1] = nil
			if want != nil {
				n.want[depth+1] = want.nested
			}
		}
		var rj *finding.Rejection
		if sub, rj = walkLevel(p, content, nested, depth+1, n, rb != nil); rj != nil {
			return rj
		}
	}
	if rb != nil && n.rebuilding() != nil {
		part, ch, complete, rj := rb.content(pt, depth, out, canonField, changed, content, !truncated, sub)
		n.keep(depth, part, ch, complete, rj)
	}
	return nil
}

// checkPartText checks the content of a text part: a field's against the
// field length limit (a text file part is bounded by the body), and every
// one against the multipart classes, octets and the escapes a JSON or XML
// decoder would decode in it alike.
func checkPartText(p *compiled.Policy, pt *mimePart, content []byte) *finding.Rejection {
	if !pt.isFile() && p.Limits.FieldBytes >= 0 && len(content) > p.Limits.FieldBytes {
		return finding.TooLarge(rules.Multipart, finding.SafeField(pt.name), int64(p.Limits.FieldBytes))
	}
	if err := sanitize.Check(content, p.Multipart.Forbid); err != nil {
		return finding.Reject(err, rules.Multipart, finding.SafeField(pt.name), content)
	}
	// The escapes any decoder of a text type would read in it (package escape):
	// one reading the part (a file part handed to json.NewDecoder), or
	// the whole body (an XML decoder skips the text before its first
	// element, delimiters and part headers included).
	if rj := escape.Check(content, rules.Multipart, p.Multipart.Forbid, 0); rj != nil {
		rj.Field = finding.SafeField(pt.name)
		return rj
	}
	return nil
}

// qpRejection refuses a quoted-printable part that Go's decoder fails on
// (bad_escape: an '=' not followed by two hexadecimal digits or a line
// break, a control octet, a line longer than the decoder's buffer), at the
// failing line, off in the raw content: its offset is where the line would
// start in the decoded content, as every offset counts decoded octets (the
// lines before it decode, so decoding them again counts them), and its
// sample is the line as sent.
func qpRejection(field string, raw []byte, off int) *finding.Rejection {
	dec, _ := io.Copy(io.Discard, quotedprintable.NewReader(bytes.NewReader(raw[:off])))
	return &finding.Rejection{Reason: sanitize.BadEscape, Location: rules.Multipart, Field: field, Offset: int(dec),
		Sample: finding.Sample(raw, off), Err: &sanitize.Error{Reason: sanitize.BadEscape, Offset: int(dec)}}
}

// checkPartNames checks what a handler reads of a part's header: the field
// name and the file name (as mime decodes them), each against the field
// length limit too, the other decoded parameters of the Content-Disposition
// and the Content-Type, and every header value as it came. Where several
// parameters or headers break the policy, the one whose name sorts first
// is reported, so that a request is always refused the same way.
func checkPartNames(p *compiled.Policy, pt *mimePart) *finding.Rejection {
	// What makes Go drop a parameter, then what parsers read two ways
	// (headers.go): the values checked below are Go's reading.
	if rj := checkExtendedParams(pt); rj != nil {
		return rj
	}
	if p.RefuseAmbiguousParts {
		if rj := ambiguousPart(pt); rj != nil {
			return rj
		}
	}
	forbid := p.NamesForbid()
	for _, v := range [...]string{pt.name, pt.file} {
		if p.Limits.FieldBytes >= 0 && len(v) > p.Limits.FieldBytes {
			return finding.TooLarge(rules.Multipart, finding.SafeField(pt.name), int64(p.Limits.FieldBytes))
		}
		if err := nameCheck(v, forbid); err != nil {
			return finding.Reject(err, rules.Multipart, finding.SafeField(pt.name), v)
		}
	}
	for _, params := range [...]map[string]string{pt.dispParams, pt.typeParams} {
		if k, err := firstBad(params, func(v string) error { return nameCheck(v, forbid) }); err != nil {
			return finding.Reject(err, rules.Multipart, finding.SafeField(pt.name), params[k])
		}
	}
	// The header values, in one walk that counts them too: the lines
	// headScan bounds, less the Content-Transfer-Encoding of a
	// quoted-printable part (NextPart drops it, but it is text of the
	// body: its values are checked with the others).
	var name, bad string
	var first error
	lines := 0
	for k, vals := range pt.header {
		lines += len(vals)
		if first != nil && k >= name {
			continue
		}
		for _, v := range vals {
			if err := nameCheck(v, forbid); err != nil {
				name, bad, first = k, v, err
				break
			}
		}
	}
	if cte := "Content-Transfer-Encoding"; first == nil || cte < name {
		for _, v := range pt.dropped {
			if err := nameCheck(v, forbid); err != nil {
				name, bad, first = cte, v, err
				break
			}
		}
	}
	if lim := p.Limits.MultipartHeaderLines; lim >= 0 && lines > lim {
		// Cannot happen: headScan counts at least these lines, and
		// reading stops at a header over the limit.
		return headersRejection(lim)
	}
	if first != nil {
		return finding.Reject(first, rules.Multipart, finding.SafeField(name), bad)
	}
	return partHeaderNormal(p, pt)
}

// partHeaderNormal refuses as not_normalized, on a route that normalizes,
// a part header value that the rebuild does not rewrite and that is not in
// the route's form: every parameter of the Content-Disposition but "name"
// and "filename" (rebuilder.names rewrites those two) and of the
// Content-Type, decoded as mime.ParseMediaType gives them to a handler,
// and every header value but the Content-Disposition's, as Part.Header
// gives them. Where several are not, the one whose name sorts first is
// reported, in checkPartNames' order. Nothing is allocated for a part
// whose values are all in the form.
func partHeaderNormal(p *compiled.Policy, pt *mimePart) *finding.Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	off := func(v string) int { return p.Norm.FirstNonNormalString(v) }
	for i, params := range [...]map[string]string{pt.dispParams, pt.typeParams} {
		key, at := "", -1
		for k, v := range params {
			if i == 0 && (k == "name" || k == "filename") || at >= 0 && k >= key {
				continue
			}
			if o := off(v); o >= 0 {
				key, at = k, o
			}
		}
		if at >= 0 {
			return finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: at}, rules.Multipart, finding.SafeField(pt.name), params[key])
		}
	}
	key, bad, at := "", "", -1
	for k, vs := range pt.header {
		if k == "Content-Disposition" || at >= 0 && k >= key {
			continue
		}
		for _, v := range vs {
			if o := off(v); o >= 0 {
				key, bad, at = k, v, o
				break
			}
		}
	}
	if at >= 0 {
		return finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: at}, rules.Multipart, finding.SafeField(key), bad)
	}
	return nil
}

// firstBad returns the smallest key of m whose value check refuses, and
// check's error for it; "" and nil when check refuses none. It sorts
// nothing: a clean map is walked once.
func firstBad[V any](m map[string]V, check func(V) error) (string, error) {
	var key string
	var first error
	for k, v := range m {
		if first != nil && k >= key {
			continue
		}
		if err := check(v); err != nil {
			key, first = k, err
		}
	}
	return key, first
}

// fileNameSyntax are the octets that mean something in a file name to a
// handler that joins it into a path or decodes it: separators and '%'.
const fileNameSyntax = "/\\%"

// Rebuilding a multipart body. On a route that normalizes (or applies
// PRECIS profiles to multipart fields), the handler must read the
// canonical form of every field name, file name and text content, and a
// multipart body cannot be rewritten in place: it is written anew. The
// danger is that canonical text written between delimiters is syntax to
// the handler's parser: a quoted-printable part whose decoded content holds
// "\r\n--BOUNDARY" and a header block, or text that normalization turns
// into a delimiter (U+1FEF is '`' in NFC, so "--\u1FEFX" is "--`X"),
// would become parts of the attacker's choosing. So the rebuilt body
//
//   - holds exactly the parts a handler read in the body as sent (the
//     parts the check saw), in the same order, with the same header fields
//     but for the canonical names, and their contents as NextPart read
//     them, text ones in canonical form;
//   - is delimited by a fresh random boundary that occurs in none of
//     them, header blocks included (checked; drawn again if it does), and
//     announced in the request's Content-Type, rewritten with the same
//     media type and parameters (mime.FormatMediaType);
//   - carries no Content-Transfer-Encoding a parser would decode again: a
//     quoted-printable part is written decoded, without the header, as
//     NextPart presents it;
//   - is parsed again with multipart.Reader before the handler sees it,
//     and refused (canonical_syntax) unless it gives back exactly those
//     parts; and checked again, whole, as the body as sent was
//     (checkLevel), so that canonical names and contents meet the same
//     policy: classes, field length and counts (both in one walk,
//     recheckRebuilt); it must also fit the body limit (too_large, 413);
//   - has no preamble or epilogue, which no form parser reads.
//
// Two distinct field names whose canonical forms are equal ("\u00e9" and
// "e\u0301" under NFC, "ｑ" and "q" under NFKC) would become one field for
// the handler, its values merged or the first or last one taken: such a
// body is refused (key_collision) on routes that normalize, whether or
// not it is rebuilt, in Monitor mode flagged. Canonical equality is the
// test: Echo's binder also matches form names to struct tags without
// regard to case, but only as a fallback when no exact match exists, as
// the query and form checks leave it too.

// errMultipartBroken is the error of brokenMultipart. It names no octet
// of the body: Go's own error quotes the header line it could not parse.
var errMultipartBroken = errors.New("multipart body not well formed to its closing delimiter: " +
	"a malformed part header, a line where a delimiter must be, or an end inside a part")

// brokenMultipart is the Rejection of a top-level multipart body that is
// not well formed to its closing delimiter: body_unreadable, 400. Go's
// multipart reader fails there, so a handler that reads the form gets an
// error; one that reads the body raw would read octets that were never
// checked as part of any part (from the bad header up to the next
// delimiter), so such a body is refused, not passed on.
func brokenMultipart() *finding.Rejection {
	return finding.Unreadable(rules.Multipart, errMultipartBroken, false)
}

// multipartSyntax refuses a rebuilt body that its parser would not read as
// the parts it was built from: canonical_syntax, the reason of a canonical
// form that holds syntax its input did not. field is the part's field
// name, in canonical form, or "".
func multipartSyntax(field string) *finding.Rejection {
	return &finding.Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Multipart, Field: finding.SafeField(field),
		Err: &sanitize.Error{Reason: sanitize.CanonicalSyntax}}
}

// rebuilder rebuilds one multipart body, nested ones included.
type rebuilder struct {
	p        *compiled.Policy
	boundary func() string // draws a boundary: crypto/rand.Text
	// first is the not_normalized rejection of the first text that
	// changes, for a body that cannot be rebuilt.
	first *finding.Rejection
	// keys maps each field name's canonical form to the first name seen
	// as sent, across the whole body.
	keys map[string]string
	// leaves is the length of the contents of the parts that are not
	// themselves multipart bodies, in the form they will be written:
	// the rebuilt body holds each of them, so it bounds the body's size
	// while it is built.
	leaves int64
	data   int64 // the length of the contents of the top-level data parts
	// stream says that the top-level body is spooled: the contents of its
	// data parts are not read, but copied from the spool (canon).
	stream bool
	// rj is the first rejection of a rebuild made in the walk that
	// checks the body (mpCounts), which ends the rebuild there.
	rj *finding.Rejection
	// mem is the working memory: the probe reads parts into its bufs,
	// the rebuild into its arena, which holds them, and the normal forms
	// it makes, until they are written. Nil until a part is read (a
	// rebuilder made without it gets memory of its own).
	mem *mpMem
	// probe makes the rebuilder a probe: it keeps no part, and stops with
	// errMPChanged at the first text that changes.
	probe bool
}

// errMPChanged is how a probe stops: some text changes, so the body is to
// be rebuilt. It is never a request's rejection.
var errMPChanged = &finding.Rejection{Reason: sanitize.NotNormalized, Location: rules.Multipart}

// rebuiltLevel is one multipart body, rebuilt.
type rebuiltLevel struct {
	parts    []rebuiltPart
	changed  bool   // a part's name or content changes
	complete bool   // well formed to its closing delimiter, nested bodies included
	boundary string // the fresh boundary, once written
	out      []byte // the body, once written
	// mark is the length of the arena when the level was begun: what
	// lies past it is the level's own (its contents, nested bodies and
	// header blocks), which writeTo replaces with the body written.
	mark int
}

// rebuiltPart is one part of a rebuilt body: what is written, and what a
// handler's parser must read back.
type rebuiltPart struct {
	header  textproto.MIMEHeader
	head    []byte // header, written: fields sorted by name, then an empty line
	content []byte
	// The part's Content-Disposition parameters "name" and "filename", in
	// canonical form, and whether it has one that parses.
	name, file string
	hasDisp    bool
	nested     *rebuiltLevel // the content is this rebuilt nested body
	at         int           // where head starts in the body written
	// data says that the content is a data part's, left in the spool
	// (rebuilder.stream): content is nil. A walk that checks and rebuilds
	// at once (mpRebuild) copies it to a spool of its own as it passes:
	// dataOff and dataLen are where it lies there.
	data             bool
	dataOff, dataLen int64
}

// text canonicalizes one name or content (canonValue), and keeps the
// not_normalized rejection of the first text that changes. A probe stops
// there (errMPChanged).
func (rb *rebuilder) text(field string, v []byte, content bool) ([]byte, bool, *finding.Rejection) {
	out, changed, rj := rb.canon(field, v, content)
	if changed && rb.probe {
		return nil, false, errMPChanged
	}
	if changed && rb.first == nil {
		off := 0 // a PRECIS field: the enforced form differs
		if n := rb.p.Norm.FirstNonNormal(v); n >= 0 {
			off = n
		}
		rb.first = finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, rules.Multipart, finding.SafeField(field), v)
	}
	return out, changed, rj
}

// canon is p.canonValue at Multipart, but for the work and the memory: the
// normal form of a text the route's normalization changes is appended to
// the arena (a probe does not make it: that the text is not normal is all
// it needs), where canonValue allocates it.
func (rb *rebuilder) canon(field string, v []byte, content bool) ([]byte, bool, *finding.Rejection) {
	p := rb.p
	if p.Mode == rules.Monitor || p.Norm == normalize.None || p.RejectUnnormalized {
		return compiled.CanonValue(p, rules.Multipart, field, v, content)
	}
	if _, ok := p.PrecisProfile(rules.Multipart, field); ok && content {
		return compiled.CanonValue(p, rules.Multipart, field, v, true)
	}
	if p.Norm.IsNormal(v) {
		return v, false, nil
	}
	if rb.probe {
		return v, true, nil
	}
	lo := len(rb.mem.arena)
	growArena(&rb.mem.arena, len(v)+len(v)/8)
	rb.mem.arena = p.Norm.Append(rb.mem.arena, v)
	return rb.mem.arena[lo:len(rb.mem.arena):len(rb.mem.arena)], true, nil
}

// checkFileNameSyntax refuses a file name whose canonical form holds
// syntax it did not (a '/', '\\' or '%', or a dot segment: NFKC maps
// "．．／x" to "../x"), as a path's is refused (canonical_syntax): a
// handler that joins the name it reads from the Content-Disposition (not
// FileHeader.Filename, which net/http cuts to its base) into a path would
// otherwise get a traversal the checks never saw. In Monitor mode too, so
// that it is flagged.
func checkFileNameSyntax(p *compiled.Policy, field, v string) *finding.Rejection {
	cf, changed, _ := compiled.CanonOf(p, rules.Multipart, field, octets.StringBytes(v), false)
	if !changed || !compiled.AddsSyntaxOf(fileNameSyntax, octets.StringBytes(v), cf) {
		return nil
	}
	return &finding.Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Multipart, Field: finding.SafeField(field),
		Sample: finding.Sample(v, 0), Err: &sanitize.Error{Reason: sanitize.CanonicalSyntax}}
}

// collide refuses name, a field name as sent, when an earlier field name
// of the body that differs from it as sent has the same canonical form:
// canon, or, when canon is "", name's normal form.
func (rb *rebuilder) collide(name, canon string) *finding.Rejection {
	if rb.p.Norm == normalize.None || name == "" {
		return nil
	}
	key := canon
	if key == "" {
		key = rb.p.Norm.String(name)
	}
	prev, ok := rb.keys[key]
	switch {
	case !ok:
		if rb.keys == nil {
			rb.keys = make(map[string]string)
		}
		rb.keys[key] = name
	case prev != name:
		return &finding.Rejection{Reason: sanitize.KeyCollision, Location: rules.Multipart, Field: finding.SafeField(name),
			Sample: finding.Sample(name, 0), Err: &sanitize.Error{Reason: sanitize.KeyCollision}}
	}
	return nil
}

// names canonicalizes the names of one part: the parameters "name" and
// "filename" of its Content-Disposition, rewritten in the header in the
// client's form, a file name refused if its canonical form adds syntax,
// and a field name refused if it collides with another. field is the
// part's field name, canonical (as sent in Monitor mode).
func (rb *rebuilder) names(pt *mimePart) (out rebuiltPart, field string, changed bool, rj *finding.Rejection) {
	p := rb.p
	hdr := pt.header // the part's own: NextRawPart made it for this part
	out = rebuiltPart{header: hdr, hasDisp: pt.dispParams != nil}
	field = pt.name // as sent, until its canonical form is known
	params := pt.dispParams
	if params == nil {
		return out, field, false, nil
	}
	sent := hdr.Get("Content-Disposition")
	var keys [2]string // the keys rewritten, of the two: on the stack
	touched := keys[:0]
	// A canonical name made in the arena is copied into params: the
	// arena is given back, so that names do not accumulate there.
	if rb.mem != nil {
		defer func(lo int) { rb.mem.arena = rb.mem.arena[:lo] }(len(rb.mem.arena))
	}
	for _, key := range [...]string{"name", "filename"} {
		v, ok := params[key]
		if !ok {
			continue
		}
		if key == "filename" {
			if rj := checkFileNameSyntax(p, field, v); rj != nil {
				return out, field, false, rj
			}
		}
		nv, ch, rj := rb.text(field, octets.StringBytes(v), false)
		if rj != nil {
			return out, field, false, rj
		}
		if ch {
			params[key], touched = string(nv), append(touched, key)
		}
	}
	canonName := params["name"] // rewritten already, but in Monitor mode
	if p.Mode == rules.Monitor {
		canonName = ""
	}
	if rj := rb.collide(pt.name, canonName); rj != nil {
		return out, field, false, rj
	}
	field = params["name"] // the canonical name names the field
	out.name, out.file = field, params["filename"]
	if len(touched) > 0 {
		// In the client's form where it can be (disposition.go).
		cd, ok := rewriteDisposition(sent, pt.disp, params, touched)
		if !ok {
			cd = mime.FormatMediaType(pt.disp, params)
		}
		if cd == "" {
			return out, field, false, multipartSyntax(field) // cannot happen: parsed as tokens
		}
		hdr.Set("Content-Disposition", cd)
		changed = true
	}
	return out, field, changed, nil
}

// content canonicalizes the content of one part, read as NextPart reads
// it (complete false when the body ends inside it), given what names made
// of its header: out, field and changed. sub is its nested body, rebuilt,
// when it is one. A data part's content, left in a spool, is nil, and
// out.data set.
func (rb *rebuilder) content(pt *mimePart, depth int, out rebuiltPart, field string, changed bool,
	content []byte, complete bool, sub *rebuiltLevel) (rebuiltPart, bool, bool, *finding.Rejection) {
	p := rb.p
	hdr := out.header
	kept := false              // content is memory the next part does not reuse
	text, _ := textPart(p, pt) // a refused charset was refused by the check
	if sub != nil {
		if sub.changed {
			changed = true
			complete = complete && sub.complete
			if sub.complete {
				content, out.nested, kept = sub.out, sub, true
				tp := maps.Clone(pt.typeParams)
				tp["boundary"] = sub.boundary
				ct := mime.FormatMediaType(pt.media, tp)
				if ct == "" {
					return out, false, false, multipartSyntax(field) // cannot happen: parsed as tokens
				}
				hdr.Set("Content-Type", ct)
			}
		}
		if text {
			// A field: Request.ParseMultipartForm makes the same
			// octets one form value, which must be canonical as it
			// is. Normalizing it as text would rewrite the nested
			// body's syntax (its delimiters, its headers) behind its
			// parser's back, so a body that is not is refused.
			if _, ch, rj := compiled.CanonValue(p, rules.Multipart, field, content, true); rj != nil || ch {
				if rj == nil {
					rj = finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: max(p.Norm.FirstNonNormal(content), 0)},
						rules.Multipart, finding.SafeField(field), content)
				}
				return out, false, false, rj
			}
		}
	} else {
		if text {
			nc, ch, rj := rb.text(field, content, true)
			if rj != nil {
				return out, false, false, rj
			}
			if ch {
				content, changed, kept = nc, true, true // in the arena, or a PRECIS form of its own
			}
		}
		// Only once something changes: a body passed on as it came is
		// within the limit already. The text limit bounds text: data is
		// written as it came, within the limits of data.
		if depth == 0 && dataPart(p, pt) {
			rb.data += int64(len(content)) + out.dataLen
		} else {
			rb.leaves += int64(len(content))
		}
		if lim := p.Limits.BodyBytes; lim >= 0 && rb.leaves > lim && rb.first != nil {
			return out, false, false, finding.TooLarge(rules.Multipart, "", lim)
		}
	}
	if out.data {
		return out, changed, complete, nil
	}
	// A content that is the body's own octets stays where it is: the
	// body outlives the writing of its level (a nested body is its
	// parent part's content, and is written before the parent part is
	// done), and writeTo points the parts at the body written.
	if !kept && !rb.probe && !pt.inBody {
		lo := len(rb.mem.arena)
		growArena(&rb.mem.arena, len(content))
		rb.mem.arena = append(rb.mem.arena, content...)
		content = rb.mem.arena[lo:len(rb.mem.arena):len(rb.mem.arena)]
	}
	out.content = content
	return out, changed, complete, nil
}

// writeTo is write, with arena as working memory (nil: none): the header
// blocks are written there. The body goes into memory of its own, or,
// nested, into the arena, where it replaces what the level gathered past
// lv.mark: its contents and nested bodies, which the body written holds.
// Either way, the parts (and those of nested bodies) are pointed at their
// octets in the body written (rebase), so that nothing the level
// gathered is needed any more, and an arena holds a nested body once, not
// once per level it is nested in.
func (lv *rebuiltLevel) writeTo(draw func() string, arena *[]byte, nested bool) *finding.Rejection {
	lv.writeHeadsInto(arena)
	size := 0
	for _, pt := range lv.parts {
		size += len(pt.head) + len(pt.content)
	}
	var b string
	for range 4 {
		if c := draw(); c != "" && !lv.holds(c) {
			b = c
			break
		}
	}
	if b == "" {
		return multipartSyntax("")
	}
	n := size + len(lv.parts)*(len(b)+8) + len(b) + 8
	var out []byte
	if !nested {
		out = make([]byte, 0, n)
	} else {
		growArena(arena, n)
		out = (*arena)[len(*arena):len(*arena)] // its free capacity: n octets at least
	}
	for i := range lv.parts {
		pt := &lv.parts[i]
		if i > 0 {
			out = append(out, "\r\n"...)
		}
		out = append(append(append(out, "--"...), b...), "\r\n"...)
		pt.at = len(out)
		out = append(append(out, pt.head...), pt.content...)
	}
	out = append(append(append(out, "\r\n--"...), b...), "--\r\n"...)
	if nested {
		// Moved down over what the level gathered, all of it in out.
		mark := min(lv.mark, len(*arena))
		k := copy((*arena)[mark:cap(*arena)], out)
		*arena = (*arena)[:mark+k]
		out = (*arena)[mark : mark+k : mark+k]
	}
	lv.boundary = b
	lv.rebase(out)
	return nil
}

// rebase makes out lv's body and points each part's header block and
// content, and the parts of its nested body, at their octets in out,
// where writeTo wrote them.
func (lv *rebuiltLevel) rebase(out []byte) {
	lv.out = out
	for i := range lv.parts {
		pt := &lv.parts[i]
		if pt.data {
			continue // not written here (writeSpool)
		}
		c := pt.at + len(pt.head)
		e := c + len(pt.content)
		pt.head, pt.content = out[pt.at:c:c], out[c:e:e]
		if pt.nested != nil {
			pt.nested.rebase(pt.content)
		}
	}
}

// holds reports whether boundary occurs in a header block or a content of
// lv's parts.
func (lv *rebuiltLevel) holds(boundary string) bool {
	bb := []byte(boundary)
	return slices.ContainsFunc(lv.parts, func(pt rebuiltPart) bool {
		return bytes.Contains(pt.head, bb) || bytes.Contains(pt.content, bb)
	})
}

// writeHeads writes the header block of every part into pt.head, all of
// them in one buffer: a part costs no allocation of its own.
func (lv *rebuiltLevel) writeHeads() { lv.writeHeadsInto(nil) }

// writeHeadsInto is writeHeads, appending to *arena when arena is not nil.
func (lv *rebuiltLevel) writeHeadsInto(arena *[]byte) {
	// Sized in advance: grown by appending, a hundred header blocks
	// cost a dozen copies of the ones before.
	size := 0
	for i := range lv.parts {
		for k, vals := range lv.parts[i].header {
			for _, v := range vals {
				size += len(k) + len(v) + 4 // "Name: value\r\n"
			}
		}
		size += 2
	}
	var heads []byte
	if arena != nil {
		growArena(arena, size)
		heads = (*arena)[len(*arena):len(*arena)]
	} else {
		heads = make([]byte, 0, size)
	}
	// Each part's block is cut from heads once all are written: heads
	// does not move, sized as it is.
	for i := range lv.parts {
		lo := len(heads)
		heads = appendHeader(heads, lv.parts[i].header)
		lv.parts[i].head = heads[lo:len(heads):len(heads)]
	}
	if arena != nil && len(heads) <= size { // else heads outgrew it: cannot happen
		*arena = (*arena)[:len(*arena)+len(heads)]
	}
}

// appendHeader appends hdr to dst as a part's header block: one
// "Name: value" line per value, names sorted, values in order, and the
// empty line that ends the block. Values read by net/textproto hold no CR
// or LF (it refuses them), so each is one line.
func appendHeader(dst []byte, hdr textproto.MIMEHeader) []byte {
	// Sorted in an array on the stack: a header holds a few fields
	// (Limits.MultipartHeaderLines).
	var arr [8]string
	keys := arr[:0]
	for k := range hdr {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range hdr[k] {
			dst = append(append(append(append(dst, k...), ": "...), v...), "\r\n"...)
		}
	}
	return append(dst, "\r\n"...)
}

// sameHead reports whether pt, a part read back from a rebuilt body, has
// the header written for want, and the field name and file name meant
// (as verifyWith compares them: pt.read parses the Content-Disposition as
// verifyWith does).
func (want *rebuiltPart) sameHead(pt *mimePart) bool {
	return maps.EqualFunc(pt.header, want.header, slices.Equal) &&
		(pt.dispParams != nil) == want.hasDisp && pt.name == want.name && pt.file == want.file
}

// recheckRebuilt parses lv.out, a rebuilt body, as a handler does and
// checks it again, whole, as the body as sent was (checkLevel), in one
// walk: the walk reads back every part, refusing the body
// (canonical_syntax) unless it reads exactly lv.parts as verifyWith
// does, and checks each part it reads. Mime's parser costs a dozen
// allocations a part, so one walk, not one to verify and one to check.
//
// What it returns is what verifyWith, then checkLevel, return: a walk
// stops at the first rejection, a check's or a comparison's, and a part
// refused by the check may come before one that does not read back, so
// a refused body is verified whole (verifyWith, the refusal path only)
// and its rejection is canonical_syntax if that fails.
func recheckRebuilt(p *compiled.Policy, lv *rebuiltLevel, m *mpMem) *finding.Rejection {
	n := mpCounts{mem: m}
	n.want[0] = lv
	rj := checkLevel(p, lv.out, lv.boundary, 0, &n)
	if rj == nil {
		return nil
	}
	if field, ok := lv.verifyWith(&m.cmp); !ok {
		return multipartSyntax(field)
	}
	return rj
}

// verify is verifyWith working memory of its own.
func (lv *rebuiltLevel) verify() (field string, ok bool) {
	var buf []byte
	return lv.verifyWith(&buf)
}

// verifyWith parses lv.out again as a handler does (multipart.Reader.NextPart,
// quoted-printable decoding and all) and reports whether it gives exactly
// lv.parts: as many, in order, each with the header written, the field
// name and file name meant (as mime.ParseMediaType reads the written
// Content-Disposition) and the content written; and, for a rebuilt nested
// body, its own parts, read with the boundary its Content-Type announces.
// When it does not, field names the first part that differs. It reads
// the parts into *buf.
func (lv *rebuiltLevel) verifyWith(buf *[]byte) (field string, ok bool) {
	mr := multipart.NewReader(bytes.NewReader(lv.out), lv.boundary)
	for i := 0; ; i++ {
		got, err := mr.NextPart()
		if err == io.EOF {
			if i != len(lv.parts) {
				return "", false
			}
			return "", true
		}
		if err != nil || i == len(lv.parts) {
			return "", false
		}
		want := &lv.parts[i]
		if !maps.EqualFunc(got.Header, want.header, slices.Equal) {
			return want.name, false
		}
		_, params, parsed := media.Read(got.Header.Get("Content-Disposition"))
		if parsed != want.hasDisp || params["name"] != want.name || params["filename"] != want.file {
			return want.name, false
		}
		*buf, err = readAll((*buf)[:0], got)
		if err != nil || !bytes.Equal(*buf, want.content) {
			return want.name, false
		}
		if want.nested != nil {
			_, _, _, tp := partType(got.Header)
			if tp["boundary"] != want.nested.boundary {
				return want.name, false
			}
			if f, ok := want.nested.verifyWith(buf); !ok {
				return f, false
			}
		}
	}
}
