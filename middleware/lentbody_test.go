package middleware

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestBodyMemClass: every body size up to maxLentBytes has a class whose
// memory holds it with less than a quarter of its length to spare, the
// classes grow with the size, and memory of a class's size goes back to
// that class (putBodyMem).
func TestBodyMemClass(t *testing.T) {
	prevClass, prevSize := bodyMemClass(1)
	for n := 1; n <= maxLentBytes; n++ {
		c, size := bodyMemClass(n)
		switch {
		case c < 0 || c >= bodyMemClasses:
			t.Fatalf("%d octets: class %d, want 0 to %d", n, c, bodyMemClasses-1)
		case size < n:
			t.Fatalf("%d octets: class %d of %d octets does not hold them", n, c, size)
		case n > 1<<bodyMemMinShift && 4*(size-n) >= n:
			t.Fatalf("%d octets: class %d of %d octets, a quarter or more to spare", n, c, size)
		case c < prevClass || size < prevSize || (c == prevClass) != (size == prevSize):
			t.Fatalf("%d octets: class %d of %d after class %d of %d", n, c, size, prevClass, prevSize)
		}
		if c2, size2 := bodyMemClass(size); c2 != c || size2 != size {
			t.Fatalf("memory of %d octets: class %d of %d, want its own, %d", size, c2, size2, c)
		}
		prevClass, prevSize = c, size
	}
	if prevClass != bodyMemClasses-1 || prevSize != maxLentBytes {
		t.Fatalf("the largest class is %d of %d octets, want %d of %d", prevClass, prevSize, bodyMemClasses-1, maxLentBytes)
	}
}

// lend returns a lentBody over a copy of body in memory of a class's size,
// as handOn makes one, and that memory.
func lend(body []byte) (*lentBody, []byte) {
	_, size := bodyMemClass(max(len(body), 1))
	mem := make([]byte, size)
	copy(mem, body)
	return newLentBody(mem[:len(body):len(body)], mem), mem
}

// TestLentBodyReads: a lentBody reads as any io.Reader must, before the
// pipeline takes its memory back and after, with what was left then.
func TestLentBodyReads(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 1000, 4096, 60 << 10} {
		body := leakBody(n, n)
		lb, _ := lend(body)
		if err := iotest.TestReader(lb, body); err != nil {
			t.Errorf("%d octets: %v", n, err)
		}
		for _, readFirst := range []int{0, n / 3, n} {
			lb, mem := lend(body)
			got := make([]byte, readFirst)
			if _, err := io.ReadFull(lb, got); err != nil {
				t.Fatalf("%d octets: %v", n, err)
			}
			lb.giveBack()
			clear(mem) // as the next request's body would write over it
			lb.giveBack()
			if err := iotest.TestReader(lb, body[readFirst:]); err != nil {
				t.Errorf("%d octets, %d read before the memory went back: %v", n, readFirst, err)
			}
		}
	}
}

// TestLentBodyEOF: the read that returns a body's last octets says
// io.EOF with them, as net/http's body of a declared length does, and
// every read after it says io.EOF alone.
func TestLentBodyEOF(t *testing.T) {
	body := leakBody(1000, 1000)
	lb, _ := lend(body)
	buf := make([]byte, 600)
	if n, err := lb.Read(buf); n != 600 || err != nil {
		t.Fatalf("first read: %d, %v; want 600, nil", n, err)
	}
	if n, err := lb.Read(buf); n != 400 || err != io.EOF {
		t.Fatalf("last read: %d, %v; want 400, io.EOF", n, err)
	}
	if n, err := lb.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after the end: %d, %v; want 0, io.EOF", n, err)
	}
	lb.giveBack()
}

// blockingWriter blocks in Write until released, and keeps a copy of what
// it was given.
type blockingWriter struct {
	in      chan struct{}
	release chan struct{}
	got     []byte
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	close(w.in)
	<-w.release
	w.got = append(w.got, p...)
	return len(p), nil
}

// TestLentBodyWriteTo: a WriteTo still writing when the handler returns
// does not hold the pipeline up, and its memory goes to the collector,
// not to the pool, where another request's body could be read into it
// under the writer.
func TestLentBodyWriteTo(t *testing.T) {
	body := leakBody(7, 3000)
	lb, mem := lend(body)
	w := &blockingWriter{in: make(chan struct{}), release: make(chan struct{})}
	done := make(chan error)
	go func() {
		_, err := lb.WriteTo(w)
		done <- err
	}()
	<-w.in
	given := make(chan struct{})
	go func() { lb.giveBack(); close(given) }()
	select {
	case <-given:
	case <-time.After(10 * time.Second):
		t.Fatal("giveBack waits for a writer")
	}
	if !stillReads(lb, mem) {
		t.Fatal("the memory a writer reads went back to the pool")
	}
	close(w.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.got, body) {
		t.Fatal("the writer got something else than the body")
	}
	if n, err := lb.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("after the body: %d, %v, want 0, EOF", n, err)
	}
}

// TestLentOnlyWhenHanded: run hands the adapter the lent memory to give
// back only for an accepted request whose handler reads it as lent: not
// for a refused one (its Rejection may point into the body). A body
// rewritten to its canonical form is read by the same reader from memory
// of its own, and the memory the body was read into goes back as spare,
// never read by the handler.
func TestLentOnlyWhenHanded(t *testing.T) {
	strict := rules.Strict()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	for _, tc := range []struct {
		name   string
		pol    rules.Policy
		body   string
		lent   bool
		status bool // accepted
	}{
		{"accepted", strict, `{"a":"café"}`, true, true},
		{"refused", strict, "{\"a\":\"caf\xc3\"}", false, false},
		{"rewritten", nfc, "{\"a\":\"cafe\u0301\"}", true, true},
		{"normal already", nfc, `{"a":"café"}`, true, true},
		{"refused after the check", nfc, "{\"\u00e9\":1,\"e\u0301\":2}", false, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/api/items", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		hand, rj, _, h := runGuard(t, tc.pol, r)
		if (rj == nil) != tc.status {
			t.Errorf("%s: rejection %v", tc.name, rj)
			continue
		}
		if (h.lent != nil) != tc.lent {
			t.Errorf("%s: lent %v, want %v", tc.name, h.lent != nil, tc.lent)
		}
		if h.lent != nil && hand.Body != io.ReadCloser(h.lent) {
			t.Errorf("%s: the handler does not read the lent body", tc.name)
		}
		if lb := h.lent; lb != nil {
			rewritten := tc.name == "rewritten"
			switch {
			case rewritten && (lb.mem != nil || lb.spare == nil):
				t.Errorf("%s: mem %v, spare %v: want the canonical form in memory of its own and the read memory spare", tc.name, lb.mem != nil, lb.spare != nil)
			case rewritten && overlaps(lb.p, lb.memory(lb.spare)):
				t.Errorf("%s: the canonical form is in the spare memory", tc.name)
			case !rewritten && (lb.mem == nil || lb.spare != nil):
				t.Errorf("%s: mem %v, spare %v: want the body in lent memory", tc.name, lb.mem != nil, lb.spare != nil)
			}
		}
		if rj == nil {
			got, _ := io.ReadAll(hand.Body)
			want := tc.body
			if tc.name == "rewritten" {
				want = `{"a":"café"}`
			}
			if string(got) != want {
				t.Errorf("%s: the handler reads %q, want %q", tc.name, got, want)
			}
		}
		h.release()
	}
}

// TestLentBodyTwoWriters: of two WriteTo calls at once, the one that
// returns first does not let the memory go back to the pool under the
// other.
func TestLentBodyTwoWriters(t *testing.T) {
	body := leakBody(9, 2000)
	lb, mem := lend(body)
	w1 := &blockingWriter{in: make(chan struct{}), release: make(chan struct{})}
	w2 := &blockingWriter{in: make(chan struct{}), release: make(chan struct{})}
	done := make(chan struct{}, 2)
	for _, w := range []*blockingWriter{w1, w2} {
		go func() {
			lb.WriteTo(w)
			done <- struct{}{}
		}()
		<-w.in
	}
	close(w1.release)
	<-done
	lb.giveBack()
	if !stillReads(lb, mem) {
		t.Fatal("the memory a writer still reads went back to the pool")
	}
	close(w2.release)
	<-done
	if !bytes.Equal(w2.got, body) {
		t.Fatal("the second writer got something else than the body")
	}
}

// stillReads reports whether lb, given back, still reads mem, which is then
// not the pool's: giveBack moves the rest out of memory it pools.
func stillReads(lb *lentBody, mem []byte) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.mem == nil && len(lb.p) != 0 && &lb.p[0] == &mem[0]
}

// TestLentLargeBodies: an accepted body of declared length up to
// maxLentBytes is lent in pooled memory of its class, one longer than
// upfrontBytes too (moved there once a commitShare-th has come); a longer
// body, one of unknown length, and a Monitor-mode body are the handler's
// own memory.
func TestLentLargeBodies(t *testing.T) {
	for _, tc := range []struct {
		size    int
		chunked bool
		monitor bool
		lent    bool
	}{
		{upfrontBytes, false, false, true},
		{upfrontBytes + 1, false, false, true},
		{300 << 10, false, false, true},
		{maxLentBytes, false, false, true},
		{maxLentBytes + 1, false, false, false},
		{300 << 10, true, false, false},
		{300 << 10, false, true, false},
	} {
		pol := rules.Strict()
		pol.Limits.BodyBytes = 2 << 20
		if tc.monitor {
			pol.Mode = rules.Monitor
		}
		body := leakBody(tc.size, tc.size)
		var rd io.Reader = bytes.NewReader(body)
		if tc.chunked {
			rd = struct{ io.Reader }{rd} // no length: sent chunked
		}
		r := httptest.NewRequest(http.MethodPost, "/up", rd)
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if tc.chunked {
			r.ContentLength = -1
		}
		hand, rj, _, h := runGuard(t, pol, r)
		if rj != nil {
			t.Fatalf("%+v: %v", tc, rj)
		}
		if got := h.lent != nil; got != tc.lent {
			t.Errorf("%+v: lent %v", tc, got)
		} else if got {
			if _, size := bodyMemClass(tc.size); int(h.lent.size) != size {
				t.Errorf("%+v: lent memory of %d octets, want its class's %d", tc, h.lent.size, size)
			}
		}
		got, err := io.ReadAll(hand.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%+v: the handler reads %d octets (%v), want the body's %d", tc, len(got), err, len(body))
		}
		h.release()
	}
}

// TestOverlaps: overlaps tells slices that share memory from slices that
// do not, adjacent ones included.
func TestOverlaps(t *testing.T) {
	m := make([]byte, 100)
	for _, tc := range []struct {
		a, b []byte
		want bool
	}{
		{m, m, true},
		{m[:10], m[9:], true},
		{m[:10], m[10:], false},
		{m[50:60], m[:51], true},
		{m[50:60], m[:50], false},
		{m[:0], m, false},
		{nil, m, false},
		{make([]byte, 10), m, false},
	} {
		if got := overlaps(tc.a, tc.b); got != tc.want {
			t.Errorf("overlaps(%p+%d, %p+%d) = %v, want %v", tc.a, len(tc.a), tc.b, len(tc.b), got, tc.want)
		}
	}
}

// TestLentBodySize: a lentBody, allocated for every request lent a body,
// stays within 64 octets (a size class of its own below 80).
func TestLentBodySize(t *testing.T) {
	if n := unsafe.Sizeof(lentBody{}); n > 64 {
		t.Errorf("a lentBody is %d octets, want at most 64", n)
	}
}

// TestReclaimRefused: in Enforce mode the memory a refused request's body
// was read into goes back to its pool at once (reclaim), both for a body
// refused by its check and for one refused once canonicalized (too large
// in NFKC), and the Rejection refers to memory of its own: a Field that
// names a member in the body is a copy.
func TestReclaimRefused(t *testing.T) {
	if racetest.Enabled {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	nfkc := rules.Strict()
	nfkc.Normalization = normalize.NFKC
	const n = 100 << 10 // past upfrontBytes: moved to pooled memory at the commit
	pad := strings.Repeat(" ", n)
	for _, tc := range []struct {
		name string
		pol  rules.Policy
		body string
	}{
		{"check", rules.Strict(), `{"` + strings.Repeat("k", 40) + "\":\"caf\xc3\"}" + pad},
		{"collision", rules.Strict(), `{"` + strings.Repeat("k", 40) + `":1,"` + strings.Repeat("k", 40) + `":2}` + pad},
		{"canonical form too large", nfkc, `{"a":"` + strings.Repeat("\ufdfa", n/3) + `"}`},
	} {
		if tc.name == "canonical form too large" {
			tc.pol.Limits.BodyBytes = int64(len(tc.body)) + 10
		}
		r := httptest.NewRequest(http.MethodPost, "/api/items", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		runtime.LockOSThread()
		_, rj, pass, h := runGuard(t, tc.pol, r)
		if rj == nil || pass || h.lent != nil {
			runtime.UnlockOSThread()
			t.Fatalf("%s: rejection %v, pass %v, lent %v: want refused, nothing lent", tc.name, rj, pass, h.lent != nil)
		}
		mem := takeBodyMem(len(tc.body))
		runtime.UnlockOSThread()
		if !bytes.HasPrefix(mem, []byte(tc.body[:64])) {
			t.Errorf("%s (%v): the body's memory is not back in its pool", tc.name, rj.Reason)
		}
		if overlaps(unsafe.Slice(unsafe.StringData(rj.Field), len(rj.Field)), mem) ||
			overlaps(unsafe.Slice(unsafe.StringData(rj.Sample), len(rj.Sample)), mem) {
			t.Errorf("%s: the Rejection refers to the body's memory", tc.name)
		}
		if got, _ := io.ReadAll(r.Body); len(got) != 0 && tc.name == "canonical form too large" {
			t.Errorf("%s: the refused body still reads %d octets", tc.name, len(got))
		}
	}
}

// runGuard runs r through the pipeline under pol, routed to its path: the
// request the handler gets, the rejection, whether the handler runs, and
// what the adapter releases after it.
func runGuard(t *testing.T, pol rules.Policy, r *http.Request) (*http.Request, *Rejection, bool, held) {
	t.Helper()
	g, err := newGuard(pol, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	hand, _, rj, pass, h := g.run(r, r.URL.Path, nil, nil, false, g.policies().def, nil)
	return hand, rj, pass, h
}
