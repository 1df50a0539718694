package upload

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
)

// Spooling. A multipart body holds text, which is checked, and may hold
// files whose contents are data, which are not; and a text field may come
// after a file of any size. The whole body must have arrived, and every
// text in it been checked, before the handler reads any of it, and the
// handler must then read exactly the octets that were checked. So the
// body is checked as it arrives and kept, octet for octet, in a spool:
// in memory up to spoolMemory, and past that in a temporary file, as
// net/http's ParseMultipartForm keeps the files of a form. The handler
// reads the spool. Memory stays bounded whatever the body's size: the
// spool's first spoolMemory octets (dropped once it spills), one read
// buffer, and the text being checked (bounded by the text limits).
//
// The temporary file is removed when the handler returns, whatever
// happens: the adapters call Verdict.Release in a deferred call, which runs
// after a panic too. A handler (or a goroutine it started) that reads the
// body after it returned gets an error, never another request's octets.

// spoolMemory is how many octets of a body the spool keeps in memory
// before it spills to a temporary file: the text limit's default, so that
// a body that is all text, within the default limits, never touches the
// disk.
const spoolMemory = 1 << 20

// ReadSize is the size of the reads from the request's body while it
// is spooled.
const ReadSize = 32 << 10

// spoolWriteSize is the size of the buffer in front of the spool's file:
// a write to a file costs a system call, whatever its size.
const spoolWriteSize = 256 << 10

// handlerBufSize is the size of the buffer between the spool's file and
// the handler: a multipart.Reader reads 4 KiB at a time.
const handlerBufSize = 256 << 10

// spoolBuf is a pooled buffer of one read from the request's body.
type spoolBuf struct {
	b [ReadSize]byte
}

var spoolBufPool = sync.Pool{New: func() any { return new(spoolBuf) }}

func getSpoolBuf() *spoolBuf { return spoolBufPool.Get().(*spoolBuf) }

// put gives sb back to the pool, where any request may take it.
func (sb *spoolBuf) put() { spoolBufPool.Put(sb) }

// ErrSpool is what every failure to write the spool is (a full disk, a
// temporary directory that cannot be written): the server's failure, not
// the client's, answered 500 (Rejection.Status).
var ErrSpool = errors.New("utf8guard: spooling the request body failed")

// errSpoolFull is what a spool fails with when its file would take the
// octets that the spooled bodies of a pipeline hold on disk together past
// their budget (PipelineConfig.SpoolBytes): the request is refused with
// spool_full, 503.
var errSpoolFull = errors.New("utf8guard: the spooled bodies would go over their disk budget")

// Store is where the spooled bodies of one pipeline go: a directory
// ("" is os.TempDir()), and the budget of the octets they hold there
// together, which every spool takes from as it writes to its file and
// gives back when it is released. The nil store is os.TempDir() without a
// budget.
type Store struct {
	dir   string
	limit int64 // -1: no budget
	used  atomic.Int64
}

// NewStore returns the store of dir ("": os.TempDir()) with the budget
// limit, in octets (-1: none).
func NewStore(dir string, limit int64) *Store { return &Store{dir: dir, limit: limit} }

func (st *Store) directory() string {
	if st == nil {
		return ""
	}
	return st.dir
}

// take takes n octets from the budget, or reports that they would take it
// past its limit (and takes none).
func (st *Store) take(n int64) bool {
	if st == nil || st.limit < 0 || n == 0 {
		return true
	}
	for {
		used := st.used.Load()
		// Compared without adding first: a declared length near
		// MaxInt64 would wrap the sum around.
		if n > st.limit-used {
			return false
		}
		if st.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// give gives n octets back to the budget.
func (st *Store) give(n int64) {
	if st != nil && st.limit >= 0 && n != 0 {
		st.used.Add(-n)
	}
}

// spoolError is a failure to write the spool: errors.Is(e, errSpool), and
// one line that says what failed, for the log's "error".
type spoolError struct{ err error }

func (e *spoolError) Error() string        { return ErrSpool.Error() + ": " + e.err.Error() }
func (e *spoolError) Unwrap() error        { return e.err }
func (e *spoolError) Is(target error) bool { return target == ErrSpool }

// Spool keeps a body as it is read: in memory, then in a temporary file.
// In memory it is held in pooled chunks, as readBody holds a body, until
// a commitShare-th of its declared length has come, and then in one array
// of that length: pooled memory (takeBodyMem) that is lent to the handler
// of an accepted request (scratch.handSpool) and given back at once for a
// refused one (scratch.reclaim), as a body readBody read is. A body of
// unknown length is copied once into memory of its own when it is handed
// on. What a body that is refused half-way costs is working memory, not
// garbage. Once it
// has spilled, each read is written to the file as it comes, through a
// buffer (bw); flush writes out the buffer, and must come before the file
// is read. (Writing behind the check from a goroutine of its own saved no
// time: BenchmarkUpload, 64 MiB, 170 ms a request written here against
// 198 ms from a writer goroutine, medians of 5 on a shared 2-core machine.)
type Spool struct {
	store    *Store                    // the directory of the temporary file, and the budget
	declared int64                     // the body's declared length, -1 if unknown
	taken    int64                     // octets taken from the store's budget, given back at release
	direct   bool                      // the body is declared larger than spoolMemory: to the file at once
	chunks   []*[bodyio.ChunkSize]byte // the octets, while they fit in spoolMemory
	mem      []byte                    // the octets, gathered: the handler's
	f        *os.File                  // the temporary file, once spilled
	n        int64                     // octets given to the spool
	werr     atomic.Pointer[error]
	bw       *bufio.Writer // to f, once spilled
	mu       sync.Mutex
	gone     bool // released
	// want is the body's declared length when it fits in spoolMemory, 0
	// otherwise; buf, once a commitShare-th of it has come, holds the
	// octets in one array of that length (the chunks copied into it), as
	// readBody commits to a declared length: the handler's, with no copy
	// when it is handed on, and no chunks past the pooled ones.
	want int64
	buf  []byte
	// pool is the pooled memory (takeBodyMem) buf was taken from, while
	// buf lies at its start: lent to the handler with the body
	// (scratch.handSpool), or given back at once for a refused request
	// (scratch.reclaim); nil once the body moved elsewhere (spill, a
	// body longer than declared) or it went.
	pool []byte
	// pooled keeps the octets in pooled chunks, all of them given back,
	// rather than committing to one array (want): for a body that may
	// be rebuilt, so that it costs no garbage when it is.
	pooled bool
	// rebuild is the body as its walk rebuilt it, on a route that
	// canonicalizes (canon), released with the spool.
	rebuild *mpRebuild
	// sent is the body as it came, for a body with a content coding in
	// Monitor mode: the spool holds it decoded, as checked, and the
	// handler gets it as it came (codedStream). Released with the spool.
	sent *Spool
}

// newSpool returns a spool for a body whose Content-Length is size (-1
// unknown): one declared larger than spoolMemory goes to the file from its
// first octet.
func newSpool(st *Store, size int64) *Spool {
	sp := &Spool{store: st, declared: size, direct: size > spoolMemory}
	if size > 0 && size <= spoolMemory {
		sp.want = size
	}
	return sp
}

// err returns the first failure to write the spool, or nil.
func (sp *Spool) err() error {
	if e := sp.werr.Load(); e != nil {
		return *e
	}
	return nil
}

func (sp *Spool) fail(err error) {
	var e error = &spoolError{err}
	sp.werr.CompareAndSwap(nil, &e)
}

// Write appends p to the spool, copying it. A failure is kept, and every
// later write fails with it.
func (sp *Spool) Write(p []byte) (int, error) {
	if err := sp.err(); err != nil {
		return 0, err
	}
	if sp.f == nil && !sp.direct && sp.n+int64(len(p)) <= spoolMemory {
		if sp.buf == nil && sp.want > 0 && !sp.pooled && sp.n+int64(len(p)) > sp.want/bodyio.CommitShare {
			if size := max(sp.want, sp.n+int64(len(p))); size <= bodyio.MaxLentBytes {
				sp.pool = bodyio.TakeMem(int(size))
				sp.buf = sp.pool[:sp.n]
			} else {
				sp.buf = make([]byte, sp.n, size)
			}
			for i, c := range sp.chunks {
				copy(sp.buf[i*bodyio.ChunkSize:], c[:])
			}
			sp.dropChunks()
		}
		if sp.buf != nil {
			sp.buf = append(sp.buf, p...) // past want only if the body is longer than declared
			sp.n += int64(len(p))
			return len(p), nil
		}
		for rest := p; len(rest) > 0; {
			off := int(sp.n % bodyio.ChunkSize)
			if off == 0 {
				sp.chunks = append(sp.chunks, bodyio.ChunkPool.Get().(*[bodyio.ChunkSize]byte))
			}
			k := copy(sp.chunks[len(sp.chunks)-1][off:], rest)
			rest = rest[k:]
			sp.n += int64(k)
		}
		return len(p), nil
	}
	if sp.f == nil {
		if err := sp.spill(); err != nil {
			sp.fail(err)
			return 0, sp.err()
		}
	}
	if err := sp.reserve(sp.n + int64(len(p))); err != nil {
		return 0, err
	}
	sp.n += int64(len(p))
	if _, err := sp.bw.Write(p); err != nil {
		sp.fail(err)
	}
	return len(p), sp.err()
}

// reserve takes from the store's budget what the file needs to hold
// upTo octets beyond what the spool has taken, or fails the spool with
// errSpoolFull. (A body of declared length took it all when it spilled.)
func (sp *Spool) reserve(upTo int64) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	switch {
	case sp.gone:
		return os.ErrClosed // released: nothing to give back later
	case upTo <= sp.taken:
		return nil
	case !sp.store.take(upTo - sp.taken):
		sp.fail(errSpoolFull)
		return sp.err()
	}
	sp.taken = upTo
	return nil
}

// spill moves the octets in memory to a new temporary file, and puts bw
// in front of it.
func (sp *Spool) spill() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.gone {
		return os.ErrClosed
	}
	// A body of declared length takes all of it at once: among uploads
	// that would go past the budget together, the first ones are taken
	// whole, rather than each going part of the way and all failing.
	want := max(sp.n, sp.declared)
	if !sp.store.take(want) {
		return errSpoolFull
	}
	sp.taken = want
	f, err := os.CreateTemp(sp.store.directory(), "utf8guard-body-*")
	if err != nil {
		return err
	}
	sp.f = f
	if sp.buf != nil {
		_, err := f.Write(sp.buf)
		sp.buf, sp.pool = nil, nil // to the collector: it may be read still
		if err != nil {
			return err
		}
	}
	for i, c := range sp.chunks {
		k := min(bodyio.ChunkSize, int(sp.n)-i*bodyio.ChunkSize)
		if _, err := f.Write(c[:k]); err != nil {
			return err
		}
	}
	sp.dropChunks()
	sp.bw = bufio.NewWriterSize(f, spoolWriteSize)
	return nil
}

// flush writes out what bw holds, so that the file is whole. It returns
// the first failure to write the spool.
func (sp *Spool) flush() error {
	if sp.bw != nil && sp.err() == nil {
		if err := sp.bw.Flush(); err != nil {
			sp.fail(err)
		}
	}
	return sp.err()
}

// dropChunks gives the chunks back to the pool, as scratch.dropChunks
// does.
func (sp *Spool) dropChunks() {
	for i, c := range sp.chunks {
		if i < bodyio.MaxPooledChunks || sp.pooled {
			bodyio.ChunkPool.Put(c)
		}
		sp.chunks[i] = nil
	}
	sp.chunks = nil
}

// inMemory returns the body when it never spilled, gathered into memory
// of its own.
func (sp *Spool) inMemory() ([]byte, bool) {
	if sp.f != nil {
		return nil, false
	}
	if sp.mem == nil && sp.buf != nil {
		sp.mem, sp.buf = sp.buf, nil
	}
	if sp.mem == nil {
		sp.mem = make([]byte, sp.n)
		for i, c := range sp.chunks {
			copy(sp.mem[i*bodyio.ChunkSize:], c[:])
		}
		sp.dropChunks()
	}
	return sp.mem, true
}

// pooledMemory returns the pooled memory the body lies in, from its
// first octet, once gathered (inMemory): what scratch.handSpool lends
// the handler, or scratch.reclaim gives back; nil when the body is in
// memory of its own or in the file.
func (sp *Spool) pooledMemory() []byte {
	if sp.pool == nil || sp.f != nil || len(sp.mem) == 0 || &sp.mem[0] != &sp.pool[0] || cap(sp.mem) > len(sp.pool) {
		return nil
	}
	return sp.pool
}

// PooledBody returns the pooled memory (bodyio.TakeMem) of a body the
// spool gathered whole in it, or nil: the memory a refused request gives
// back at once (dropPooled, then bodyio.PutMem).
func (sp *Spool) PooledBody() []byte {
	if sp.pool == nil || sp.f != nil {
		return nil
	}
	if _, ok := sp.inMemory(); !ok {
		return nil
	}
	return sp.pooledMemory()
}

// DropPooled forgets the pooled memory pooledBody returned, which the
// caller puts back.
func (sp *Spool) DropPooled() { sp.pool, sp.mem, sp.buf = nil, nil, nil }

// reader returns a reader of the whole spooled body, from its start: the
// handler's body. It reads the file at fixed offsets, so several readers
// of one spool do not disturb each other.
func (sp *Spool) reader() io.ReadCloser {
	if mem, ok := sp.inMemory(); ok {
		return bodyio.NewReader(mem)
	}
	_ = sp.flush() // a failure was reported where the body was read
	return bodyio.ReadCloser{Reader: bufio.NewReaderSize(io.NewSectionReader(sp.f, 0, sp.n), handlerBufSize), Closer: nopCloser{}}
}

// section returns a reader of the n octets of the spool from off, which
// it must hold: in memory, or in the file, once flushed.
func (sp *Spool) section(off, n int64) io.Reader {
	if mem, ok := sp.inMemory(); ok {
		return bytes.NewReader(mem[off : off+n])
	}
	_ = sp.flush()
	return io.NewSectionReader(sp.f, off, n)
}

// Release stops the writer, and closes and removes the temporary file, if
// any. It is safe to call more than once. A read after it fails.
func (sp *Spool) Release() {
	if sp == nil {
		return
	}
	_ = sp.flush()
	sp.rebuild.release()
	sp.sent.Release()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.gone {
		return
	}
	sp.gone = true
	sp.dropChunks()
	sp.store.give(sp.taken)
	sp.taken = 0
	if sp.f != nil {
		name := sp.f.Name()
		_ = sp.f.Close()
		_ = os.Remove(name)
	}
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// spoolReader reads a request's body into a spool, and hands what it read
// on to the check: every octet the check reads is in the spool, in the
// order read. It reads past nothing: at most limit octets (negative: no
// limit), and one more to tell that the body is over it. outside, when
// set, sees every octet too (the preamble and epilogue scan).
//
// It also stops (over) once the body's text is surely over textLimit
// (negative: none): the octets read, less the data the check has counted
// (dat), less what multipart.Reader may hold read ahead. So no flood of
// text (a preamble, a part header, lines after a syntax error) is read
// further than the text limit, whichever part of the check it meets.
type spoolReader struct {
	src     io.Reader
	sp      *Spool
	outside *outsideScan
	// heads, when set, counts the lines of the part headers; once a part
	// has more than its limit, reading stops after the line that went
	// over (headScan.write), so that multipart.Reader never parses more.
	heads     headScan
	limit     int64
	textLimit int64
	dat       int64 // octets of data the check has read

	cur  *spoolBuf // the buffer b is in, nil before the first read and after done
	b    []byte    // read, spooled, not yet handed on
	n    int64     // octets read from src
	eof  bool      // src is at its end
	over bool      // more than limit octets
	err  error     // src's read failure, or the spool's write failure
}

func newSpoolReader(src io.Reader, sp *Spool, limit int64) *spoolReader {
	return &spoolReader{src: src, sp: sp, limit: limit, textLimit: -1}
}

// textOver reports whether the body's text is over textLimit: surely, as
// far as it has been read (ended false), or exactly, once it has ended.
func (t *spoolReader) textOver(ended bool) bool {
	if t.outside != nil && t.outside.over {
		return true // the preamble or the epilogue alone
	}
	if t.textLimit < 0 {
		return false
	}
	text := t.n - t.dat
	if !ended {
		text = t.consumed() - PeekBufferSize - t.dat
	}
	return text > t.textLimit
}

// countData wraps r, the content of a data part, so that what the check
// reads of it counts as data, not text.
func (t *spoolReader) countData(r io.Reader) io.Reader { return &dataCounter{r, t} }

type dataCounter struct {
	r io.Reader
	t *spoolReader
}

func (d *dataCounter) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.t.dat += int64(n)
	return n, err
}

// done drops the read buffer: the check is through with it.
func (t *spoolReader) done() {
	t.b = nil
	if t.cur != nil {
		t.cur.put()
		t.cur = nil
	}
}

// failed reports whether reading stopped short of the body's end.
func (t *spoolReader) failed() bool { return t.over || t.err != nil }

// headsOver reports whether reading stopped at a part header over its
// limit of lines.
func (t *spoolReader) headsOver() bool { return t.heads.over }

// errHeadLines is what a spoolReader returns once a part header is over
// its limit of lines.
var errHeadLines = errors.New("utf8guard: multipart part header over its limit of lines")

// consumed is how many octets the check has taken.
func (t *spoolReader) consumed() int64 { return t.n - int64(len(t.b)) }

func (t *spoolReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(t.b) == 0 { // fill may end with nothing to hand on: a header cut off
		if err := t.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, t.b)
	t.b = t.b[n:]
	return n, nil
}

// fill reads the next octets from src, spools them and shows them to
// outside. It returns io.EOF at the body's end, and the failure that
// ends reading before it.
func (t *spoolReader) fill() error {
	for tries := 0; ; tries++ {
		switch {
		case t.over:
			return bodyio.ErrOverLimit
		case t.err != nil:
			return t.err
		case t.headsOver():
			return errHeadLines
		case t.eof:
			return io.EOF
		case tries == 100:
			t.err = io.ErrNoProgress
			return t.err
		case t.textOver(false):
			t.over = true
			return bodyio.ErrOverLimit
		}
		// The check is through with the last read: the buffer takes the
		// next.
		t.b = nil
		if t.cur == nil {
			t.cur = getSpoolBuf()
		}
		buf := t.cur.b[:]
		if t.limit >= 0 && int64(len(buf))-1 > t.limit-t.n {
			buf = buf[:t.limit-t.n+1] // one past the limit tells it is over
		}
		k, err := t.src.Read(buf)
		if k > 0 {
			t.n += int64(k)
			if t.sp != nil {
				if _, werr := t.sp.Write(buf[:k]); werr != nil {
					t.err = werr
					return t.err
				}
			}
			if t.outside != nil {
				t.outside.write(buf[:k])
			}
			if t.limit >= 0 && t.n > t.limit {
				t.over = true
				return bodyio.ErrOverLimit
			}
			t.b = buf[:k]
			if t.heads.on() {
				if cut := t.heads.write(t.b); cut >= 0 {
					t.b = t.b[:cut] // the rest is read no further
				}
			}
		}
		switch {
		case err == io.EOF:
			t.eof = true
			if t.outside != nil {
				t.outside.end()
			}
		case err != nil:
			t.err = errors.Join(bodyio.ErrRead, err)
		}
		if k > 0 {
			return nil
		}
	}
}

// drain reads the rest of the body into the spool, past the check: the
// epilogue, which no part holds, up to the body's end, where net/http
// reads the trailers.
func (t *spoolReader) drain() {
	for t.fill() == nil {
		t.b = nil
	}
	t.b = nil
}

// rest returns what the handler reads after the spool in Monitor mode: the
// body's unread octets, or the failure reading stopped at (a spool that
// could not be written lost octets: the read fails there too).
func (t *spoolReader) rest(body io.Reader) io.Reader {
	switch {
	case t.eof:
		return nil
	case t.err != nil:
		return bodyio.ErrorReader{Err: bodyio.ReadCause(t.err)}
	}
	return body
}

// setSpoolBody hands the spooled body to the handler as r's body, as
// setBody does a body in memory: complete, with a correct length.
func setSpoolBody(r *http.Request, sp *Spool) {
	if mem, ok := sp.inMemory(); ok {
		bodyio.SetBody(r, mem)
		return
	}
	r.Body = sp.reader()
	r.GetBody = nil
	r.ContentLength = sp.n
	r.TransferEncoding = nil
	if v, ok := r.Header["Content-Length"]; ok && !(len(v) == 1 && v[0] == strconv.FormatInt(sp.n, 10)) {
		r.Header["Content-Length"] = []string{strconv.FormatInt(sp.n, 10)}
	}
}
