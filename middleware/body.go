package middleware

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/bits"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/middleware/internal/xmlbody"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// errBodyRead wraps a failure to read the request body (a client that went
// away, a broken chunked encoding): the request is refused with 400, since
// the handler must never see part of a body.
var errBodyRead = errors.New("utf8guard: reading the request body failed")

// chunkSize is the size of the pooled arrays a body is read into before
// it goes to memory of its own.
const chunkSize = 8 << 10

// chunkPool holds the arrays bodies are read into. They are working
// memory only: a body is copied out of them into memory of its own before
// anything else sees it, so no handler, goroutine or timeout wrapper ever
// holds a pooled array, and a slow reader can never see another request's
// octets in one.
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// maxPooledChunks is how many pooled chunks one body is read into (and so
// goes back to the pool): a large body must not leave its whole size
// pooled behind it. Past them, the working memory is allocated, each new
// segment as large as all before it.
const maxPooledChunks = 8

// upfrontBytes is the most readBody allocates for a body before any of it
// has arrived: a body whose declared length is at most this is read
// straight into one buffer of that length, the handler's.
const upfrontBytes = maxPooledChunks * chunkSize

// commitShare sets when a body declared longer than upfrontBytes moves to
// one buffer of its declared length: once a commitShare-th of that length
// has arrived (in the pooled chunks, then working memory). Before, the
// memory held grows with the octets that arrive; after, it is at most
// commitShare times them. The working memory allocated beyond the pooled
// chunks (none up to 1 MiB) is at most a commitShare-th of the body.
const commitShare = 16

// readBody reads the whole body of r, up to limit octets (negative: no
// limit), into memory of its own: in Enforce mode, one declared at most
// maxLentBytes long into pooled memory it records as the scratch's
// (lend), which handOn lends to the handler. It returns the body and
// whether it was over the limit; it reads at most limit+1 octets. A
// declared length over the limit is refused before reading.
//
// The memory it allocates is the body itself, plus, for a body whose
// length is not declared or declared over upfrontBytes, what it reads
// into before it knows the size: a body of declared length at most
// upfrontBytes is read into one buffer of that length, which the handler
// gets; a longer one into pooled chunks until a commitShare-th of it has
// arrived, then into one buffer of the declared length; a body of unknown
// length into pooled chunks and then segments that double the room, and
// is copied into one buffer of its length at the end. So the memory held
// grows with the octets that arrive, not with the length a client
// declares, beyond upfrontBytes and a commitShare-th.
//
// When the body is over the limit or its read fails, readBody returns no
// body; with keep (Monitor), r.Body then gives what was read followed by
// the unread rest, or by the same error, so a monitored request loses
// nothing.
//
// probe is working memory, a few octets, that the read telling the end of
// a body of declared length goes into.
func readBody(ls *lazyScratch, r *http.Request, limit int64, keep bool, probe []byte) (body []byte, over bool, err error) {
	cl := r.ContentLength
	if limit >= 0 && cl > limit {
		return nil, true, nil
	}
	if cl < 0 || cl > upfrontBytes {
		return ls.readGrowing(r, limit, keep, nil, nil, nil)
	}
	// In Enforce mode the body is read into pooled memory (bodyMem), which
	// the handler gets through a lentBody and the pipeline takes back once
	// the handler has returned. In Monitor mode, where what the handler
	// gets may be a reader of what was read followed by the error the read
	// failed with, it is memory of the body's own.
	var mem []byte
	var out []byte
	if keep || cl == 0 {
		out = make([]byte, cl)
	} else {
		mem = takeBodyMem(int(cl))
		out = mem[:cl:cl]
	}
	for k := 0; ; {
		if k < len(out) {
			m, rerr := r.Body.Read(out[k:])
			k += m
			switch {
			case rerr == io.EOF:
				ls.lend(mem)
				return out[:k], false, nil
			case rerr != nil:
				return nil, false, readFailed(r, out[:k], rerr, keep)
			}
			continue
		}
		// out holds the declared length: the read that tells the end
		// (net/http's body says io.EOF with the last octets, other
		// readers with none after them), at most up to one past the
		// limit.
		probe := probe[:min(len(probe), room(limit, k))]
		m, rerr := r.Body.Read(probe)
		switch {
		case m == 0 && rerr == io.EOF:
			ls.lend(mem)
			return out, false, nil
		case m == 0 && rerr == nil:
			continue
		}
		// More than declared, or a failure: on with what the probe read.
		return ls.readGrowing(r, limit, keep, out, probe[:m], rerr)
	}
}

// lend records mem, the pooled memory (takeBodyMem) a body was read whole
// into, as the scratch's: handOn lends it to the handler (lentBody), and
// whatever does not go that way is left to the collector.
func (ls *lazyScratch) lend(mem []byte) {
	if mem != nil {
		ls.get().mem = mem
	}
}

// readGrowing is work.readGrowing in the scratch's working memory, the
// pooled memory it returns recorded as the scratch's (lend).
func (ls *lazyScratch) readGrowing(r *http.Request, limit int64, keep bool, out, pre []byte, perr error) ([]byte, bool, error) {
	body, mem, over, err := ls.get().work.readGrowing(r, limit, keep, out, pre, perr)
	ls.lend(mem)
	return body, over, err
}

// readFailed is the error of a body whose read failed with err after the
// octets read; with keep (Monitor), r.Body then gives them and the same
// error. read must be memory of the body's own.
func readFailed(r *http.Request, read []byte, err error, keep bool) error {
	if keep {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(read), errorReader{err}), r.Body}
	}
	return errors.Join(errBodyRead, err)
}

// work is the working memory a body is read into before its size is
// known (readGrowing) or while it is decoded (readChunks, decode): segs
// are its segments, each sliced to the octets read into it, the first
// ones the pooled arrays of chunks. None of it ever holds a body a
// handler gets.
type work struct {
	segs   [][]byte
	chunks []*[chunkSize]byte
	probe  [8]byte // where readBody reads to tell the end of a body
}

// readGrowing is readBody for a body whose size is not known up front:
// not declared, declared over upfrontBytes, or longer than declared. out
// holds the octets read so far, in memory of the body's own (nil: none),
// and pre and perr what the last read gave after them (pre in working
// memory), if one is pending.
func (w *work) readGrowing(r *http.Request, limit int64, keep bool, out, pre []byte, perr error) (body, mem []byte, over bool, err error) {
	cl := r.ContentLength
	defer w.dropChunks()
	// out is followed by the octets in the working memory (w.segs), which
	// is empty until out is full.
	commitAt := -1 // working octets at which to move to one buffer of cl
	if out == nil && cl > upfrontBytes {
		commitAt = int(cl / commitShare)
	}
	// In Enforce mode a body of declared length up to maxLentBytes moves
	// into pooled memory (bodyMem) at the commit, which is lent to the
	// handler as readBody's is when the body fills exactly it.
	n := 0 // octets in the working memory
	pending := pre != nil || perr != nil
	for {
		rerr := perr
		if pending {
			if len(pre) > 0 {
				copy(w.space(len(pre)), pre)
				w.advance(len(pre))
				n += len(pre)
			}
			pending = false
		} else {
			var buf []byte
			if n == 0 && len(out) < cap(out) {
				buf = out[len(out):cap(out)]
			} else {
				buf = w.space(room(limit, len(out)+n))
			}
			if r := room(limit, len(out)+n); len(buf) > r {
				buf = buf[:r] // one past the limit tells it is over
			}
			var k int
			k, rerr = r.Body.Read(buf)
			if n == 0 && len(out) < cap(out) {
				out = out[:len(out)+k]
			} else {
				w.advance(k)
				n += k
			}
		}
		switch {
		case limit >= 0 && int64(len(out)+n) > limit:
			if keep {
				r.Body = readCloser{io.MultiReader(bytes.NewReader(w.gather(out, n)), r.Body), r.Body}
			}
			return nil, nil, true, nil
		case rerr == io.EOF:
			if n == 0 && out != nil {
				return out, mem, false, nil
			}
			return w.gather(out, n), nil, false, nil
		case rerr != nil:
			return nil, nil, false, readFailed(r, w.gather(out, n), rerr, keep)
		}
		if commitAt >= 0 && n >= commitAt {
			// A commitShare-th of the declared length has come: the rest
			// goes straight into the body's own memory.
			if !keep && cl <= maxLentBytes && int(cl) >= n {
				mem = takeBodyMem(int(cl))
				out = mem[:n:cl]
			} else {
				out = make([]byte, n, max(int(cl), n))
			}
			w.copyOut(out)
			w.dropChunks()
			n, commitAt = 0, -1
		}
	}
}

// space returns the free part of the working memory, adding a segment if
// the last one is full: a pooled chunk for the first maxPooledChunks, then
// an allocated one as large as all before it, but no larger than room, the
// most octets still to be read.
func (w *work) space(room int) []byte {
	if k := len(w.segs); k > 0 {
		if last := w.segs[k-1]; len(last) < cap(last) {
			return last[len(last):cap(last)]
		}
	}
	var seg []byte
	if len(w.chunks) < maxPooledChunks {
		c := chunkPool.Get().(*[chunkSize]byte)
		w.chunks = append(w.chunks, c)
		seg = c[:0]
	} else {
		total := 0
		for _, g := range w.segs {
			total += cap(g)
		}
		seg = make([]byte, 0, min(total, room))
	}
	w.segs = append(w.segs, seg)
	return seg[:cap(seg)]
}

// room returns how many octets may still be read of a body of which n have
// been, under limit (negative: none): up to one past the limit, which
// tells that the body is over it.
func room(limit int64, n int) int {
	// limit-n is -1 at least (n is at most limit+1) and limit+1 may
	// overflow: the sum is formed last, where it cannot.
	if limit < 0 || limit-int64(n) >= math.MaxInt-1 {
		return math.MaxInt
	}
	return int(limit - int64(n) + 1)
}

// advance counts k octets read into the space space returned.
func (w *work) advance(k int) {
	if k > 0 {
		last := &w.segs[len(w.segs)-1]
		*last = (*last)[:len(*last)+k]
	}
}

// gather copies out and then the n octets of the working memory into a new
// slice, the body's own. It never returns nil: an empty body is a body.
func (w *work) gather(out []byte, n int) []byte {
	b := make([]byte, len(out)+n)
	w.copyOut(b[copy(b, out):])
	return b
}

// copyOut copies the octets of the working memory to b.
func (w *work) copyOut(b []byte) {
	k := 0
	for _, g := range w.segs {
		k += copy(b[k:], g)
	}
}

// dropChunks gives the pooled chunks back to the pool, up to
// maxPooledChunks of them, and forgets the working memory.
func (w *work) dropChunks() {
	for i, c := range w.chunks {
		if i < maxPooledChunks { // readChunks (encoding.go) may hold more
			chunkPool.Put(c)
		}
		w.chunks[i] = nil
	}
	w.chunks = w.chunks[:0]
	clear(w.segs)
	w.segs = w.segs[:0]
}

// errorReader always fails with err.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// setBody hands body to the handler as r's body, complete and with a
// correct length: ContentLength, and the Content-Length header when the
// client sent one (a chunked body has none, and gets none). GetBody, a
// client-side field that a server request does not have, is cleared: one
// set by an earlier middleware would give the body already read. body is
// the handler's from then on: nothing else writes to it or reuses it.
func setBody(r *http.Request, body []byte) { install(r, newBodyReader(body), len(body)) }

// install makes rd, which reads a body of n octets, r's body, as setBody
// describes.
func install(r *http.Request, rd io.ReadCloser, n int) {
	r.Body = rd
	r.GetBody = nil
	r.ContentLength = int64(n)
	r.TransferEncoding = nil
	if v, ok := r.Header["Content-Length"]; ok {
		// Compared in a buffer on the stack: the common header, already
		// right, costs no allocation.
		var nb [20]byte
		if n := strconv.AppendInt(nb[:0], int64(n), 10); !(len(v) == 1 && v[0] == string(n)) {
			r.Header["Content-Length"] = []string{string(n)}
		}
	}
}

// The pooled memory of accepted bodies. In Enforce mode a body of
// declared length at most maxLentBytes is read into memory from
// bodyMemPools (one longer than upfrontBytes once a commitShare-th of it
// has arrived). When the request is accepted and the handler gets that
// memory as it is, it gets it through a lentBody, and the pipeline puts
// the memory back once the handler has returned (lentBody.giveBack). A
// body rewritten to its canonical form, which is memory of its own, gives
// its memory back then too (lentBody.spare), unless the canonical form
// lies in it. A refused request gives it back at once, after its
// Rejection has been made to refer to memory of its own (reclaim), unless
// its error is not one known to refer to none. Any other way (a repaired
// body, a decoded one) leaves the memory to the collector: so no
// Rejection, log line or canonical form that might point into a body is
// ever written over by another request's.
//
// The classes are 512 octets, then four to every doubling up to
// maxLentBytes (640, 768, 896, 1024, 1280, ...): a body takes memory of the
// smallest class that holds it, new memory of that class's size when its
// pool has none, so that memory goes back to the class it came from, and
// a body never has more than a quarter of its length again around it.
// Each entry of a pool is the address of the memory's first octet, which
// keeps the whole of it alive and costs the pool no allocation, as a
// slice would.
const (
	bodyMemMinShift = 9  // the smallest class: 512 octets
	bodyMemMaxShift = 20 // the largest: maxLentBytes
	bodyMemClasses  = 1 + 4*(bodyMemMaxShift-bodyMemMinShift)
)

// maxLentBytes is the longest body read into pooled memory: the default
// body limit (rules.DefaultBodyBytes). A longer one, on a route whose
// limit lets it through, is read into memory of its own. A pool keeps
// what it holds through one garbage collection at most, so the memory
// pooled is what recent requests' bodies took, no more.
const maxLentBytes = 1 << bodyMemMaxShift

var bodyMemPools [bodyMemClasses]sync.Pool

// bodyMemClass returns the class of the smallest memory that holds n
// octets, 0 < n <= maxLentBytes, and its size.
func bodyMemClass(n int) (class, size int) {
	if n <= 1<<bodyMemMinShift {
		return 0, 1 << bodyMemMinShift
	}
	o := bits.Len(uint(n-1)) - 1 // 1<<o < n <= 2<<o
	step := 1 << (o - 2)
	q := (n - 1<<o + step - 1) / step // 1 to 4
	return (o-bodyMemMinShift)*4 + q, 1<<o + q*step
}

// takeBodyMem returns memory for a body of n octets, 0 < n <= maxLentBytes:
// pooled, its octets a former body's, or new.
func takeBodyMem(n int) []byte {
	c, size := bodyMemClass(n)
	if p, ok := bodyMemPools[c].Get().(unsafe.Pointer); ok {
		return unsafe.Slice((*byte)(p), size)
	}
	return make([]byte, size)
}

// putBodyMem gives m, memory takeBodyMem returned, back to its pool.
func putBodyMem(m []byte) {
	if c, size := bodyMemClass(len(m)); size == len(m) {
		bodyMemPools[c].Put(unsafe.Pointer(unsafe.SliceData(m)))
	}
}

// lentBody hands the handler an accepted body in pooled memory. It reads
// as bodyReader does, under a lock: once the handler has returned, the
// pipeline takes the memory back (giveBack), first moving what was not
// read yet to memory of the body's own. So a goroutine or a timeout
// wrapper that reads on after the handler returned gets the rest of this
// body, and never an octet of another request's. A lentBody is new for
// every request; only the memory under it is pooled.
//
// It is allocated for every request lent a body, so it is kept to 64
// octets: the pooled memory is held by the address of its first octet,
// as the pools hold it, with its size beside.
type lentBody struct {
	mu      sync.Mutex
	writers int32          // the WriteTo calls handing p to their writers, outside the lock
	size    int32          // the size of the pooled memory: its class's
	p       []byte         // the body
	off     int            // how much of it was read
	mem     unsafe.Pointer // the pooled memory p is in; nil once given back
	// spare is pooled memory the handler never gets: the body as read,
	// when p is its canonical form (canonBody). It goes back with mem.
	spare unsafe.Pointer
}

// newLentBody returns a lentBody reading body, which is in mem, memory
// takeBodyMem returned.
func newLentBody(body, mem []byte) *lentBody {
	return &lentBody{p: body, mem: unsafe.Pointer(unsafe.SliceData(mem)), size: int32(len(mem))}
}

// memory returns the pooled memory at m, of b's size.
func (b *lentBody) memory(m unsafe.Pointer) []byte { return unsafe.Slice((*byte)(m), b.size) }

// overlaps reports whether a and b share memory.
func overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}

// Read reads the next octets of the body, and says io.EOF with the last
// of them, as net/http's request body does: a reader of the whole body
// (io.ReadAll, a JSON decoder) needs no read more to learn its end.
func (b *lentBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.off >= len(b.p) {
		return 0, io.EOF
	}
	n := copy(p, b.p[b.off:])
	b.off += n
	if b.off == len(b.p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteTo writes the rest of the body to w, as bytes.Reader does: io.Copy
// needs no buffer of its own. w gets the octets where they are, outside
// the lock (w may be slow: a giveBack meanwhile must not wait for it), so
// a giveBack during the Write leaves the memory to the collector rather
// than to the pool. Like any io.Writer, w must not keep the slice.
func (b *lentBody) WriteTo(w io.Writer) (int64, error) {
	b.mu.Lock()
	rest := b.p[min(b.off, len(b.p)):]
	if len(rest) == 0 {
		b.mu.Unlock()
		return 0, nil
	}
	b.writers++
	b.mu.Unlock()
	n, err := w.Write(rest)
	b.mu.Lock()
	b.writers--
	if n < 0 || n > len(rest) {
		b.mu.Unlock()
		panic("utf8guard: invalid Write count")
	}
	b.off += n
	b.mu.Unlock()
	if err == nil && n != len(rest) {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

// Close does nothing: the pipeline takes the memory back (giveBack).
func (b *lentBody) Close() error { return nil }

// giveBack puts the body's memory back in its pool, once the handler has
// returned. The octets not read yet, if any, move to memory of their own
// first, so that a read after the handler returned still gets them; while
// a WriteTo is writing, the memory stays where it is and goes to the
// collector instead. Safe on nil, and more than once.
func (b *lentBody) giveBack() {
	if b == nil {
		return
	}
	b.mu.Lock()
	m, spare := b.mem, b.spare
	b.mem, b.spare = nil, nil
	if m != nil && b.writers != 0 {
		m = nil // the writer reads it: not the pool's again
	} else if m != nil {
		var rest []byte
		if b.off < len(b.p) {
			rest = bytes.Clone(b.p[b.off:])
		}
		b.p, b.off = rest, 0
	}
	b.mu.Unlock()
	if m != nil {
		putBodyMem(b.memory(m))
	}
	if spare != nil {
		putBodyMem(b.memory(spare))
	}
}

// revoke takes the memory back from the body of a refused request, which
// no handler reads (Enforce mode): from then on the body reads as empty,
// as that of a request refused before the body was handed on does.
func (b *lentBody) revoke() {
	b.mu.Lock()
	m, spare := b.mem, b.spare
	b.mem, b.spare, b.p, b.off = nil, nil, nil, 0
	if b.writers != 0 {
		m = nil // a writer reads it: not the pool's again
	}
	b.mu.Unlock()
	if m != nil {
		putBodyMem(b.memory(m))
	}
	if spare != nil {
		putBodyMem(b.memory(spare))
	}
}

// reclaim puts back in its pool the memory the body of r, refused in
// Enforce mode with rj, was read into: no handler reads it. rj, which the
// log, OnReject and the ErrorHandler get, is first made to refer to
// memory of its own: its Field may be a member or field name in the body.
// A Rejection whose Err is not one known to refer to no request memory
// leaves the body's memory to the collector.
func (s *scratch) reclaim(r *http.Request, rj *Rejection) {
	lb := s.lent
	if lb != nil && r.Body != io.ReadCloser(lb) {
		lb = nil // replaced, and so not ours to take back
	}
	var spooled []byte // a multipart body's, gathered in pooled memory (spool.pool)
	if sp := s.spool; sp != nil && sp.pool != nil && sp.f == nil {
		if _, ok := sp.inMemory(); ok {
			spooled = sp.pooledMemory()
		}
	}
	if s.mem == nil && lb == nil && spooled == nil {
		return
	}
	switch err := rj.Err; {
	case err == nil, err == finding.ErrTooMany, err == finding.ErrFileTooLarge, err == rj.Reason.Sentinel():
	default:
		if _, ok := err.(*sanitize.Error); !ok {
			return
		}
	}
	rj.Field, rj.Sample = strings.Clone(rj.Field), strings.Clone(rj.Sample)
	if lb != nil {
		lb.revoke()
	}
	if m := s.mem; m != nil {
		s.mem = nil
		putBodyMem(m)
	}
	if spooled != nil {
		sp := s.spool
		sp.pool, sp.mem, sp.buf = nil, nil, nil
		putBodyMem(spooled)
	}
}

// bodyReader is a body read whole, as an io.ReadCloser: one allocation,
// where io.NopCloser(bytes.NewReader(body)) makes two. Each is new, never
// reused: it is the handler's.
type bodyReader struct{ bytes.Reader }

func newBodyReader(body []byte) *bodyReader {
	b := &bodyReader{}
	b.Reset(body)
	return b
}

// readBody is readBody with s as the scratch, and its probe.
func (s *scratch) readBody(r *http.Request, limit int64, keep bool) (body []byte, over bool, err error) {
	ls := lazyScratch{s: s, lent: true}
	return readBody(&ls, r, limit, keep, s.work.probe[:])
}

// Close does nothing.
func (b *bodyReader) Close() error { return nil }

// checkBody reads and checks the body of r when p checks its media type.
// The handler always gets the whole body back, repaired where the policy
// repairs and unchanged otherwise; in Monitor mode r keeps its length and
// transfer coding as the client sent them. A body that cannot be read
// whole is body_unreadable: none of it can be checked, and the handler
// must never see part of one (in Monitor mode its read fails as ours did,
// after the same octets).
func (s *scratch) checkBody(r *http.Request, p *compiled.Policy) *Rejection {
	s.body, s.bodyLoc = nil, 0
	if !checksBody(r, p) {
		return nil
	}
	ct, single := requestContentType(r)
	typ, sub, charset, parsed := media.Parse(ct)
	if !single || !parsed {
		return refused(r, p, badMediaType(rules.Body, ct))
	}
	loc, text, rj := bodyLocation(p, ct, typ, sub)
	if rj != nil {
		return refused(r, p, rj)
	}
	if !text {
		if p.RefuseUnlistedTypes && (ct == "" || !compiled.MatchMedia(p.BinaryPatterns, typ, sub)) {
			return refused(r, p, &Rejection{Reason: sanitize.UnsupportedMediaType, Location: rules.Body,
				Field: "Content-Type", Sample: finding.Sample(ct, 0), Err: sanitize.ErrUnsupportedMediaType})
		}
		return s.passUnread(r, p, p.Limits.BinaryBodyBytes)
	}
	if !p.Location(loc).On {
		return s.passText(r, p, loc) // encoding.go
	}
	if !media.UTF8Charset(charset) {
		if p.RefuseCharsets {
			return refused(r, p, &Rejection{Reason: sanitize.BadCharset, Location: loc, Field: finding.SafeField(charset),
				Err: sanitize.ErrBadCharset})
		}
		// Go's readers of forms (ParseForm, ParseMultipartForm), of JSON
		// (encoding/json, Echo's binder) and of multipart bodies ignore
		// the charset parameter and read the octets as UTF-8: those are
		// checked as UTF-8 all the same. A text or XML body in another
		// charset is left to a decoder for it: not ours to check.
		if loc == rules.Body || loc == rules.XML {
			return s.passText(r, p, loc)
		}
	}
	if !hasBody(r) {
		return checkTrailers(r, p) // no text to check
	}
	if loc == rules.Multipart {
		// Checked as it streams in, through a spool (upload.go), decoded
		// from its content coding as it comes (encoding.go).
		return s.checkMultipartBody(r, p, ct)
	}
	// Read through the limit and decoded from its content coding; sent
	// is the body as it came (encoding.go).
	body, sent, rj := s.readText(r, p, loc)
	if rj != nil {
		return rj
	}
	// The body was read to its end: net/http has put its trailers, if
	// any, in r.Trailer.
	if rj := checkTrailers(r, p); rj != nil {
		s.handOn(r, p, body, sent, rj)
		return rj
	}
	fixed, noRefs := body, false
	switch loc {
	case rules.Form:
		var text string
		var changed bool
		text, changed, rj = s.pairs.CheckPairs(octets.BytesString(body), loc, &p.Form, p.FormMode, &p.Limits)
		if changed {
			// The repaired text is memory of its own, which nothing
			// else references (rebuildPairs): the handler gets it.
			fixed = octets.StringBytes(text)
		}
		if rj == nil {
			// The escapes of each decoded key and value (package escape);
			// the whole text's come below.
			rj = s.pairs.CheckFormEscapes(octets.BytesString(fixed), p.FormMode, &p.Form)
		}
	case rules.JSON:
		if jsonbody.IsLines(typ, sub) {
			fixed, rj = jsonbody.CheckLines(body, p) // jsonlines.go
		} else {
			fixed, noRefs, rj = jsonbody.Check(body, p)
		}
	case rules.XML:
		rj = xmlbody.Check(body, &p.XML, p.RefuseCharsets)
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj == nil && !noRefs {
		// What any decoder of a text type would read in it, whatever its type
		// (package escape); a multipart body's text parts are scanned one by
		// one (checkPartText), and its preamble and epilogue by
		// checkStream. (In a JSON body jsonbody.Check has decoded every
		// escape: one without an '&' or a '<' has nothing more for it.)
		rj = escape.Check(fixed, loc, p.Location(loc).Forbid, 0)
	}
	if rj == nil {
		s.handOn(r, p, fixed, sent, nil)
		s.body, s.bodyLoc = fixed, loc
	} else {
		s.handOn(r, p, body, sent, rj)
	}
	return rj
}

// checksBody reports whether checkBody has anything to do for r: a body
// that may hold octets, on a route that reads bodies or refuses unlisted
// media types. A body of declared length 0 that is not http.NoBody (Go's
// HTTP/2 server gives one to a request whose HEADERS frame ended the
// stream: every bodyless GET a browser sends over TLS) is read once to
// tell (hasBody); one of unknown length only where its check needs to
// know (refused, and before it is read as text).
func checksBody(r *http.Request, p *compiled.Policy) bool {
	return (p.ReadsBody || p.RefuseUnlistedTypes) && r.Body != nil && r.Body != http.NoBody &&
		(r.ContentLength != 0 || hasBody(r))
}

// refused returns rj, the refusal of r's body for what its headers say of
// it, when the body holds an octet (hasBody). One that holds none is no
// body: only its trailers are checked. So the body of unknown length of a
// request refused for its headers is read once, as it would be if it were
// checked; one passed on unread is not read before the handler, whose
// client may be waiting for an answer to "Expect: 100-continue".
func refused(r *http.Request, p *compiled.Policy, rj *Rejection) *Rejection {
	if hasBody(r) {
		return rj
	}
	return checkTrailers(r, p)
}

// hasBody reports whether r's body holds an octet: a declared length over
// zero, or a length not declared (or declared zero, by Go's HTTP/2 server
// or a reader that is not net/http's) whose first read gives one. Only
// then is there a body to check; any other request is bodyless, whatever
// its headers say of a body, on HTTP/1.1 and HTTP/2 alike: a request
// whose chunks or DATA frames hold nothing is as one without a body.
//
// A body that gives an octet (or an error) to that read becomes a
// peekedBody, which gives it back first, of unknown length: nothing is
// lost or reordered. A body that ends at once was read to its end,
// trailers included (net/http puts them in r.Trailer), and becomes
// http.NoBody, of length 0.
func hasBody(r *http.Request) bool {
	switch b := r.Body; {
	case b == nil || b == http.NoBody:
		return false
	case r.ContentLength > 0:
		return true
	default:
		if _, ok := b.(*peekedBody); ok {
			return true
		}
	}
	pb := &peekedBody{ReadCloser: r.Body}
	// An io.Reader may say nothing, nor fail, a few times; net/http's
	// never does.
	for range 100 {
		pb.n, pb.err = r.Body.Read(pb.first[:])
		if pb.n != 0 || pb.err != nil {
			break
		}
	}
	if pb.n == 0 && pb.err == io.EOF {
		r.Body, r.ContentLength = http.NoBody, 0
		return false
	}
	// The length the request declared, if any, was not the body's: it
	// is one of unknown length now.
	r.ContentLength = -1
	r.Body = pb
	return true
}

// peekedBody is a body whose first read hasBody made: it gives what that
// read gave (an octet, an error) first, then reads on.
type peekedBody struct {
	io.ReadCloser
	first [1]byte
	n     int   // octets of first not given back yet
	err   error // the first read's error, not given back yet
}

func (b *peekedBody) Read(p []byte) (int, error) {
	switch {
	case len(p) == 0:
		return 0, nil
	case b.n > 0:
		p[0], b.n = b.first[0], 0
		return 1, nil
	case b.err != nil:
		err := b.err
		b.err = nil
		return 0, err
	}
	return b.ReadCloser.Read(p)
}

// handOn gives the handler the body read from r: in Monitor mode the body
// as it came (sent: still in its content coding), with r's length and
// transfer coding left as the client sent them; in Enforce mode the
// accepted (perhaps repaired, decoded) body with its length set, or
// nothing for a rejected request, which no handler reads.
//
// An accepted body the handler gets in the pooled memory it was read into
// (readBody) goes through a lentBody, which run hands the adapter to give
// back after the handler.
func (s *scratch) handOn(r *http.Request, p *compiled.Policy, body, sent []byte, rj *Rejection) {
	switch {
	case p.Mode == rules.Monitor:
		r.Body = newBodyReader(sent)
	case rj == nil:
		if m := s.mem; m != nil && len(body) != 0 && &body[0] == &m[0] {
			lb := newLentBody(body, m)
			s.mem, s.lent = nil, lb
			install(r, lb, len(body))
			return
		}
		setBody(r, body)
	}
}

// passUnread passes on a body the policy does not read as text (a binary
// media type, none declared, another charset), on a route that checks
// bodies. It bounds it by limit (Limits.BinaryBodyBytes for a binary type,
// Limits.BodyBytes for text that is not checked): a declared length over
// it is refused (too_large, 413) before anything is read; a body of
// unknown length is cut off past the limit, the handler's read fails with
// an *http.MaxBytesError, and the pipeline logs a too_large line then
// (binaryLimit; the Echo adapters answer 413 when the handler returns
// the error: CutOff). So a route's limits hold whatever the body's type. And
// it guards the trailers of a chunked or HTTP/2 body (mayTrail,
// trailerGuard). The wrapped
// body is an unreadBody, which the adapters hand to the handler on a copy
// of the request (detachBody).
func (s *scratch) passUnread(r *http.Request, p *compiled.Policy, limit int64) *Rejection {
	chunked := r.ContentLength < 0
	trailers := mayTrail(r) && p.ChecksTrailers()
	if trailers {
		// A chunked body's trailers arrive only once the handler has read
		// it. A trailer the client announces (the Trailer header) that
		// names a checked header is refused now; one it does not announce
		// fails the handler's read at the end of the body (trailerGuard).
		for name := range r.Trailer {
			if p.ChecksHeader(name) {
				return &Rejection{Reason: sanitize.ForbiddenTrailer, Location: rules.Header,
					Field: "Trailer:" + finding.SafeField(name), Err: sanitize.ErrForbiddenTrailer}
			}
		}
	}
	if limit >= 0 && r.ContentLength > limit {
		return finding.TooLarge(rules.Body, "", limit)
	}
	if !chunked && !trailers || p.Mode == rules.Monitor {
		// Monitor mode hands the body on as it came: a chunked body over
		// the limit is not cut, and its trailers are not guarded (what
		// Enforce would refuse there shows only when the handler reads).
		return nil
	}
	body := r.Body
	if chunked && limit >= 0 {
		s.limited = &binaryLimit{ReadCloser: body, left: limit, limit: limit}
		body = s.limited
	}
	if trailers {
		body = &trailerGuard{ReadCloser: body, r: r, p: p}
	}
	if body != r.Body {
		r.Body = &unreadBody{body, r.Body}
	}
	return nil
}

// mayTrail reports whether r's body may end with trailers: a chunked
// HTTP/1.1 body, or the body of any HTTP/2 request, which may send a
// HEADERS frame of trailers after its DATA frames whatever its
// content-length says.
func mayTrail(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && (r.ContentLength < 0 || r.ProtoMajor >= 2)
}

// unreadBody is a body passUnread wrapped, and the body it wraps.
type unreadBody struct {
	io.ReadCloser               // the wrapped body, for the handler
	orig          io.ReadCloser // the request's own body
}

// detachBody returns the request to hand to the handler: r itself, or,
// when passUnread wrapped its body, a shallow copy of r with the wrapped
// body, r keeping its own, as http.MaxBytesHandler does. net/http looks at
// the body of the request it made, after the handler, to tell whether the
// handler read it: a wrapper there makes it read the rest itself, and for
// a client that sent "Expect: 100-continue" and waits for an answer before
// sending, that read waits for a body never asked for, until ReadTimeout
// (or for ever), instead of answering at once and closing. The two share
// one Trailer map, which net/http fills once the body is read.
func detachBody(r *http.Request) *http.Request {
	ub, ok := r.Body.(*unreadBody)
	if !ok {
		return r
	}
	if r.Trailer == nil {
		// net/http puts trailers it was not told of in a map it makes
		// then, in r's field: one made now is the copy's too.
		r.Trailer = http.Header{}
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = ub.ReadCloser
	r.Body = ub.orig
	return r2
}

// checkText checks a text body, repairing it if the check says so.
func checkText(body []byte, c *rules.Check) ([]byte, *Rejection) {
	err := sanitize.Check(body, c.Forbid)
	if err == nil {
		return body, nil
	}
	rj := finding.Reject(err, rules.Body, "", body)
	if !(c.Repair && finding.IsEncodingReason(rj.Reason)) {
		return nil, rj
	}
	fixed := sanitize.ToValid(body)
	if err := sanitize.CheckClasses(fixed, c.Forbid); err != nil {
		return nil, finding.Reject(err, rules.Body, "", fixed)
	}
	return fixed, nil
}

// canonBody canonicalizes a body that checkBody read and accepted.
func (s *scratch) canonBody(r *http.Request, p *compiled.Policy) *Rejection {
	body, loc := s.body, s.bodyLoc
	if loc == rules.Multipart && body == nil && s.spool != nil && p.CanonAt(loc) {
		return s.canonSpool(r, p) // every multipart body is spooled (upload.go)
	}
	if body == nil || !p.CanonAt(loc) {
		return nil // no body read: not a checked one
	}
	var out []byte
	switch loc {
	case rules.Form:
		// The canonical text is memory of its own, which nothing else
		// references (canonText): the handler gets it as it is.
		var rj *Rejection
		if out, rj = s.pairs.CanonText(octets.BytesString(body), loc, p); rj != nil {
			return rj
		}
	case rules.JSON:
		var rj *Rejection
		if out, rj = jsonbody.Canon(p, body); rj != nil {
			ct, _ := requestContentType(r)
			if typ, sub, _ := media.ContentType(ct); jsonbody.IsLines(typ, sub) {
				return jsonbody.NameLine(body, rj) // the line's index
			}
			return rj
		}
	case rules.XML:
		// XML is checked, not rewritten: text not in the form is refused.
		return xmlbody.Canon(p, body)
	case rules.Body:
		nb, changed, rj := compiled.CanonOf(p, loc, "", body, false)
		if rj != nil || !changed {
			return rj
		}
		if rj := compiled.Recheck(loc, "", nb, p.Body.Forbid, -1, 0); rj != nil {
			return rj
		}
		out = nb
	}
	if out == nil {
		return nil
	}
	// The body limit bounds the canonical form too: NFKC expands U+FDFA
	// eighteen times.
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(out)) > lim {
		return finding.TooLarge(loc, "", lim)
	}
	// And the escapes any decoder of a text type would read in it: NFKC makes
	// "\u202E" of "＼ｕ２０２Ｅ", and "&#x85;" of "＆＃ｘ８５；" (package escape).
	if rj := escape.Check(out, loc, p.Location(loc).Forbid, 0); rj != nil {
		return rj
	}
	if p.Mode == rules.Enforce {
		if lb := s.lent; lb != nil && r.Body == io.ReadCloser(lb) {
			// The body lent a moment ago, which no handler has seen: its
			// reader reads the canonical form instead, memory of its own.
			// The pooled memory goes back after the handler (giveBack)
			// if the canonical form is not in it; nothing else of an
			// accepted request refers to it.
			if !overlaps(out, lb.memory(lb.mem)) {
				lb.spare = lb.mem
			}
			lb.p, lb.mem = out, nil
			install(r, lb, len(out))
			return nil
		}
		setBody(r, out)
	}
	return nil
}
