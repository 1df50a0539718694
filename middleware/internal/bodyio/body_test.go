package bodyio

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"time"
	"unsafe"
)

// TestBodyMemClass: every body size up to maxLentBytes has a class whose
// memory holds it with less than a quarter of its length to spare, the
// classes grow with the size, and memory of a class's size goes back to
// that class (putBodyMem).
func TestBodyMemClass(t *testing.T) {
	prevClass, prevSize := bodyMemClass(1)
	for n := 1; n <= MaxLentBytes; n++ {
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
	if prevClass != bodyMemClasses-1 || prevSize != MaxLentBytes {
		t.Fatalf("the largest class is %d of %d octets, want %d of %d", prevClass, prevSize, bodyMemClasses-1, MaxLentBytes)
	}
}

// lend returns a lentBody over a copy of body in memory of a class's size,
// as handOn makes one, and that memory.
func lend(body []byte) (*LentBody, []byte) {
	_, size := bodyMemClass(max(len(body), 1))
	mem := make([]byte, size)
	copy(mem, body)
	return NewLentBody(mem[:len(body):len(body)], mem), mem
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
			lb.GiveBack()
			clear(mem) // as the next request's body would write over it
			lb.GiveBack()
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
	lb.GiveBack()
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
	go func() { lb.GiveBack(); close(given) }()
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
	lb.GiveBack()
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
func stillReads(lb *LentBody, mem []byte) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.mem == nil && len(lb.p) != 0 && &lb.p[0] == &mem[0]
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
		if got := Overlaps(tc.a, tc.b); got != tc.want {
			t.Errorf("overlaps(%p+%d, %p+%d) = %v, want %v", tc.a, len(tc.a), tc.b, len(tc.b), got, tc.want)
		}
	}
}

// TestLentBodySize: a lentBody, allocated for every request lent a body,
// stays within 64 octets (a size class of its own below 80).
func TestLentBodySize(t *testing.T) {
	if n := unsafe.Sizeof(LentBody{}); n > 64 {
		t.Errorf("a lentBody is %d octets, want at most 64", n)
	}
}
