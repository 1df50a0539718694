// Package bodyio reads request bodies under limits and hands them on: the
// working memory a body is read into before its size is known (Work), the
// pooled memory an accepted body is lent to the handler in (LentBody,
// TakeMem, PutMem), the content codings (RequestCoding, Decoder,
// CodedStream), and installing a body on a request with a correct length
// (SetBody, Install).
//
// The memory invariant, stated once: working memory (Work's chunks and
// segments) never reaches a handler, which gets octets copied out of it;
// pooled body memory reaches one only through a LentBody, which takes it
// back after the handler (GiveBack) having moved what was not read yet to
// memory of its own, and which a refused request's pipeline empties at
// once (Revoke). So no handler, goroutine or timeout wrapper ever reads
// another request's octets.
package bodyio

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/bits"
	"net/http"
	"strconv"
	"sync"
	"unsafe"
)

// ErrRead wraps a failure to read the request body (a client that went
// away, a broken chunked encoding): the request is refused with 400, since
// the handler must never see part of a body.
var ErrRead = errors.New("utf8guard: reading the request body failed")

// ChunkSize is the size of the pooled arrays a body is read into before
// it goes to memory of its own.
const ChunkSize = 8 << 10

// ChunkPool holds the arrays bodies are read into. They are working
// memory only: a body is copied out of them into memory of its own before
// anything else sees it, so no handler, goroutine or timeout wrapper ever
// holds a pooled array, and a slow reader can never see another request's
// octets in one.
var ChunkPool = sync.Pool{New: func() any { return new([ChunkSize]byte) }}

// MaxPooledChunks is how many pooled chunks one body is read into (and so
// goes back to the pool): a large body must not leave its whole size
// pooled behind it. Past them, the working memory is allocated, each new
// segment as large as all before it.
const MaxPooledChunks = 8

// UpfrontBytes is the most readBody allocates for a body before any of it
// has arrived: a body whose declared length is at most this is read
// straight into one buffer of that length, the handler's.
const UpfrontBytes = MaxPooledChunks * ChunkSize

// CommitShare sets when a body declared longer than upfrontBytes moves to
// one buffer of its declared length: once a CommitShare-th of that length
// has arrived (in the pooled chunks, then working memory). Before, the
// memory held grows with the octets that arrive; after, it is at most
// CommitShare times them. The working memory allocated beyond the pooled
// chunks (none up to 1 MiB) is at most a CommitShare-th of the body.
const CommitShare = 16

// ReadFailed is the error of a body whose read failed with err after the
// octets read; with keep (Monitor), r.Body then gives them and the same
// error. read must be memory of the body's own.
func ReadFailed(r *http.Request, read []byte, err error, keep bool) error {
	if keep {
		r.Body = ReadCloser{io.MultiReader(bytes.NewReader(read), ErrorReader{err}), r.Body}
	}
	return errors.Join(ErrRead, err)
}

// Work is the working memory a body is read into before its size is
// known (readGrowing) or while it is decoded (readChunks, decode): segs
// are its segments, each sliced to the octets read into it, the first
// ones the pooled arrays of chunks. None of it ever holds a body a
// handler gets.
type Work struct {
	segs   [][]byte
	chunks []*[ChunkSize]byte
	Probe  [8]byte // where readBody reads to tell the end of a body
}

// ReadGrowing is readBody for a body whose size is not known up front:
// not declared, declared over upfrontBytes, or longer than declared. out
// holds the octets read so far, in memory of the body's own (nil: none),
// and pre and perr what the last read gave after them (pre in working
// memory), if one is pending.
func (w *Work) ReadGrowing(r *http.Request, limit int64, keep bool, out, pre []byte, perr error) (body, mem []byte, over bool, err error) {
	cl := r.ContentLength
	defer w.DropChunks()
	// out is followed by the octets in the working memory (w.segs), which
	// is empty until out is full.
	commitAt := -1 // working octets at which to move to one buffer of cl
	if out == nil && cl > UpfrontBytes {
		commitAt = int(cl / CommitShare)
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
				buf = w.space(Room(limit, len(out)+n))
			}
			if r := Room(limit, len(out)+n); len(buf) > r {
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
				r.Body = ReadCloser{io.MultiReader(bytes.NewReader(w.gather(out, n)), r.Body), r.Body}
			}
			return nil, nil, true, nil
		case rerr == io.EOF:
			if n == 0 && out != nil {
				return out, mem, false, nil
			}
			return w.gather(out, n), nil, false, nil
		case rerr != nil:
			return nil, nil, false, ReadFailed(r, w.gather(out, n), rerr, keep)
		}
		if commitAt >= 0 && n >= commitAt {
			// A commitShare-th of the declared length has come: the rest
			// goes straight into the body's own memory.
			if !keep && cl <= MaxLentBytes && int(cl) >= n {
				mem = TakeMem(int(cl))
				out = mem[:n:cl]
			} else {
				out = make([]byte, n, max(int(cl), n))
			}
			w.copyOut(out)
			w.DropChunks()
			n, commitAt = 0, -1
		}
	}
}

// space returns the free part of the working memory, adding a segment if
// the last one is full: a pooled chunk for the first maxPooledChunks, then
// an allocated one as large as all before it, but no larger than room, the
// most octets still to be read.
func (w *Work) space(room int) []byte {
	if k := len(w.segs); k > 0 {
		if last := w.segs[k-1]; len(last) < cap(last) {
			return last[len(last):cap(last)]
		}
	}
	var seg []byte
	if len(w.chunks) < MaxPooledChunks {
		c := ChunkPool.Get().(*[ChunkSize]byte)
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

// Room returns how many octets may still be read of a body of which n have
// been, under limit (negative: none): up to one past the limit, which
// tells that the body is over it.
func Room(limit int64, n int) int {
	// limit-n is -1 at least (n is at most limit+1) and limit+1 may
	// overflow: the sum is formed last, where it cannot.
	if limit < 0 || limit-int64(n) >= math.MaxInt-1 {
		return math.MaxInt
	}
	return int(limit - int64(n) + 1)
}

// advance counts k octets read into the space space returned.
func (w *Work) advance(k int) {
	if k > 0 {
		last := &w.segs[len(w.segs)-1]
		*last = (*last)[:len(*last)+k]
	}
}

// gather copies out and then the n octets of the working memory into a new
// slice, the body's own. It never returns nil: an empty body is a body.
func (w *Work) gather(out []byte, n int) []byte {
	b := make([]byte, len(out)+n)
	w.copyOut(b[copy(b, out):])
	return b
}

// copyOut copies the octets of the working memory to b.
func (w *Work) copyOut(b []byte) {
	k := 0
	for _, g := range w.segs {
		k += copy(b[k:], g)
	}
}

// DropChunks gives the pooled chunks back to the pool, up to
// maxPooledChunks of them, and forgets the working memory.
func (w *Work) DropChunks() {
	for i, c := range w.chunks {
		if i < MaxPooledChunks { // ReadChunks (coding.go) may hold more
			ChunkPool.Put(c)
		}
		w.chunks[i] = nil
	}
	w.chunks = w.chunks[:0]
	clear(w.segs)
	w.segs = w.segs[:0]
}

// ErrorReader always fails with err.
type ErrorReader struct{ Err error }

func (e ErrorReader) Read([]byte) (int, error) { return 0, e.Err }

// ReadCloser reads from one reader and closes another.
type ReadCloser struct {
	io.Reader
	io.Closer
}

// SetBody hands body to the handler as r's body, complete and with a
// correct length: ContentLength, and the Content-Length header when the
// client sent one (a chunked body has none, and gets none). GetBody, a
// client-side field that a server request does not have, is cleared: one
// set by an earlier middleware would give the body already read. body is
// the handler's from then on: nothing else writes to it or reuses it.
func SetBody(r *http.Request, body []byte) { Install(r, NewReader(body), len(body)) }

// Install makes rd, which reads a body of n octets, r's body, as setBody
// describes.
func Install(r *http.Request, rd io.ReadCloser, n int) {
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

// MaxLentBytes is the longest body read into pooled memory: the default
// body limit (rules.DefaultBodyBytes). A longer one, on a route whose
// limit lets it through, is read into memory of its own. A pool keeps
// what it holds through one garbage collection at most, so the memory
// pooled is what recent requests' bodies took, no more.
const MaxLentBytes = 1 << bodyMemMaxShift

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

// TakeMem returns memory for a body of n octets, 0 < n <= maxLentBytes:
// pooled, its octets a former body's, or new.
func TakeMem(n int) []byte {
	c, size := bodyMemClass(n)
	if p, ok := bodyMemPools[c].Get().(unsafe.Pointer); ok {
		return unsafe.Slice((*byte)(p), size)
	}
	return make([]byte, size)
}

// PutMem gives m, memory takeBodyMem returned, back to its pool.
func PutMem(m []byte) {
	if c, size := bodyMemClass(len(m)); size == len(m) {
		bodyMemPools[c].Put(unsafe.Pointer(unsafe.SliceData(m)))
	}
}

// LentBody hands the handler an accepted body in pooled memory. It reads
// as bodyReader does, under a lock: once the handler has returned, the
// pipeline takes the memory back (giveBack), first moving what was not
// read yet to memory of the body's own. So a goroutine or a timeout
// wrapper that reads on after the handler returned gets the rest of this
// body, and never an octet of another request's. A LentBody is new for
// every request; only the memory under it is pooled.
//
// It is allocated for every request lent a body, so it is kept to 64
// octets: the pooled memory is held by the address of its first octet,
// as the pools hold it, with its size beside.
type LentBody struct {
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

// NewLentBody returns a lentBody reading body, which is in mem, memory
// takeBodyMem returned.
func NewLentBody(body, mem []byte) *LentBody {
	return &LentBody{p: body, mem: unsafe.Pointer(unsafe.SliceData(mem)), size: int32(len(mem))}
}

// memory returns the pooled memory at m, of b's size.
func (b *LentBody) memory(m unsafe.Pointer) []byte { return unsafe.Slice((*byte)(m), b.size) }

// Overlaps reports whether a and b share memory.
func Overlaps(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(len(b)) && b0 < a0+uintptr(len(a))
}

// Memory reports where b's body is, for the tests of the pipeline that
// lends it: whether it is in pooled memory (lent), whether pooled memory
// goes back beside it after the handler (spare: the body as read, where b
// reads its canonical form), whether the body lies in that spare memory
// (it must not), and the size of the pooled memory, its class's.
func (b *LentBody) Memory() (lent, spare, inSpare bool, size int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	inSpare = b.spare != nil && Overlaps(b.p, b.memory(b.spare))
	return b.mem != nil, b.spare != nil, inSpare, int(b.size)
}

// Read reads the next octets of the body, and says io.EOF with the last
// of them, as net/http's request body does: a reader of the whole body
// (io.ReadAll, a JSON decoder) needs no read more to learn its end.
func (b *LentBody) Read(p []byte) (int, error) {
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
func (b *LentBody) WriteTo(w io.Writer) (int64, error) {
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
func (b *LentBody) Close() error { return nil }

// GiveBack puts the body's memory back in its pool, once the handler has
// returned. The octets not read yet, if any, move to memory of their own
// first, so that a read after the handler returned still gets them; while
// a WriteTo is writing, the memory stays where it is and goes to the
// collector instead. Safe on nil, and more than once.
func (b *LentBody) GiveBack() {
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
		PutMem(b.memory(m))
	}
	if spare != nil {
		PutMem(b.memory(spare))
	}
}

// Swap makes b read out, memory of its own, instead of the body it was
// lent: the body's canonical form, before any handler has read it. The
// pooled memory goes back after the handler (giveBack), unless out lies
// in it.
func (b *LentBody) Swap(out []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !Overlaps(out, b.memory(b.mem)) {
		b.spare = b.mem
	}
	b.p, b.mem = out, nil
}

// Revoke takes the memory back from the body of a refused request, which
// no handler reads (Enforce mode): from then on the body reads as empty,
// as that of a request refused before the body was handed on does.
func (b *LentBody) Revoke() {
	b.mu.Lock()
	m, spare := b.mem, b.spare
	b.mem, b.spare, b.p, b.off = nil, nil, nil, 0
	if b.writers != 0 {
		m = nil // a writer reads it: not the pool's again
	}
	b.mu.Unlock()
	if m != nil {
		PutMem(b.memory(m))
	}
	if spare != nil {
		PutMem(b.memory(spare))
	}
}

// Reader is a body read whole, as an io.ReadCloser: one allocation,
// where io.NopCloser(bytes.NewReader(body)) makes two. Each is new, never
// reused: it is the handler's.
type Reader struct{ bytes.Reader }

func NewReader(body []byte) *Reader {
	b := &Reader{}
	b.Reset(body)
	return b
}

// Close does nothing.
func (b *Reader) Close() error { return nil }

// HasBody reports whether r's body holds an octet: a declared length over
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
func HasBody(r *http.Request) bool {
	switch b := r.Body; {
	case b == nil || b == http.NoBody:
		return false
	case r.ContentLength > 0:
		return true
	default:
		if _, ok := b.(*PeekedBody); ok {
			return true
		}
	}
	pb := &PeekedBody{ReadCloser: r.Body}
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

// PeekedBody is a body whose first read hasBody made: it gives what that
// read gave (an octet, an error) first, then reads on.
type PeekedBody struct {
	io.ReadCloser
	first [1]byte
	n     int   // octets of first not given back yet
	err   error // the first read's error, not given back yet
}

func (b *PeekedBody) Read(p []byte) (int, error) {
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

// ReadCause returns what made a body read fail: err without the
// errBodyRead that readBody joins to it.
func ReadCause(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != ErrRead {
				return e
			}
		}
	}
	return err
}
