//go:build load

package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// The requests.

// json1K is a clean JSON document of 1 KiB with some non-ASCII text.
var json1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","tags":["café","naïve","日本語","emoji 😀"],"bio":"`)
	for b.Len() < 1000 {
		b.WriteString("Lorem ipsum dolor sit amet, été über straße, Привет мир, 你好世界. ")
	}
	s := b.String()
	for len(s) > 1022 || s[len(s)-1] >= 0x80 {
		s = s[:len(s)-1]
	}
	return []byte(s + strings.Repeat(" ", 1022-len(s)) + `"}`)
}()

var twoMiB = bytes.Repeat([]byte("a"), 2<<20)

// kind is one kind of request, and the answer expected.
type kind struct {
	name    string
	status  int
	reason  string // in the answer of a rejection
	hostile bool   // logged by utf8guard
	build   func(base string) *http.Request
}

func get(path string) func(string) *http.Request {
	return func(base string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			panic(err)
		}
		return r
	}
}

func post(path, ct string, body []byte, chunked bool) func(string) *http.Request {
	return func(base string) *http.Request {
		var rd io.Reader = bytes.NewReader(body)
		if chunked {
			rd = struct{ io.Reader }{rd} // length unknown to the client: chunked
		}
		r, err := http.NewRequest(http.MethodPost, base+path, rd)
		if err != nil {
			panic(err)
		}
		if chunked {
			r.ContentLength = -1
		}
		r.Header.Set("Content-Type", ct)
		return r
	}
}

func cleanKinds(prefix string) (cleanGet, cleanPost kind) {
	return kind{name: prefix + " GET", status: 200, build: get(prefix + "/a/b/c?w=1&x=2&y=3&z=4")},
		kind{name: prefix + " POST json 1KiB", status: 200, build: post(prefix+"/a", "application/json", json1K, false)}
}

// The mixes: each worker goes round its mix, starting at its own index.
var (
	strictGet, strictPost = cleanKinds("/strict")
	openGet, openPost     = cleanKinds("/open")

	hostile = []kind{
		{name: "/strict overlong path", status: 400, reason: "overlong", hostile: true, build: get("/strict/%C0%AE%C0%AE/etc/passwd")},
		{name: "/strict %00 query", status: 400, reason: "forbidden_char", hostile: true, build: get("/strict/a?q=x%00")},
		{name: `/strict json "\ud800"`, status: 400, reason: "surrogate", hostile: true, build: post("/strict/a", "application/json", []byte(`{"q":"\ud800"}`), false)},
		{name: "/strict 2MiB declared", status: 413, reason: "too_large", hostile: true, build: post("/strict/a", "text/plain", twoMiB, false)},
		{name: "/strict 2MiB chunked", status: 413, reason: "too_large", hostile: true, build: post("/strict/a", "text/plain", twoMiB, true)},
	}

	// mixed is 24 requests: 8 clean GETs, 8 clean POSTs and 8 hostile ones
	// (overlong path, %00 query and lone surrogate twice each, a 2 MiB body
	// declared and one chunked), interleaved.
	mixed = []kind{
		strictGet, strictPost, hostile[0],
		strictGet, strictPost, hostile[1],
		strictGet, strictPost, hostile[2],
		strictGet, strictPost, hostile[3],
		strictGet, strictPost, hostile[0],
		strictGet, strictPost, hostile[1],
		strictGet, strictPost, hostile[2],
		strictGet, strictPost, hostile[4],
	}
	cleanStrict = []kind{strictGet, strictPost}
	cleanOpen   = []kind{openGet, openPost}
)

// ---------------------------------------------------------------------------
// The driver.

// counts is what a load got, per kind.
type counts struct {
	ok, wrong, errs atomic.Int64
}

// load is a client of the server under test: *conns workers going round a
// mix of requests, one request at a time each, on a transport that keeps
// at most *conns connections.
type load struct {
	name     string
	mix      []kind
	tr       *http.Transport
	client   *http.Client
	per      []counts
	done     atomic.Int64 // answers as expected
	tooLarge atomic.Int64 // of which 413
	elapsed  time.Duration

	mu       sync.Mutex
	failures []string // the first few wrong answers and errors
}

func newLoad(name string, mix []kind) *load {
	tr := &http.Transport{
		MaxIdleConns:        *conns,
		MaxIdleConnsPerHost: *conns,
		MaxConnsPerHost:     *conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &load{name: name, mix: mix, tr: tr, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, per: make([]counts, len(mix))}
}

func (l *load) fail(s string) {
	l.mu.Lock()
	if len(l.failures) < 10 {
		l.failures = append(l.failures, s)
	}
	l.mu.Unlock()
}

func (l *load) total() (ok, hostile, wrong, errs int64) {
	for i := range l.per {
		ok += l.per[i].ok.Load()
		wrong += l.per[i].wrong.Load()
		errs += l.per[i].errs.Load()
		if l.mix[i].hostile {
			hostile += l.per[i].ok.Load()
		}
	}
	return ok, hostile, wrong, errs
}

func (l *load) rate() float64 {
	ok, _, _, _ := l.total()
	return float64(ok) / l.elapsed.Seconds()
}

// sample is one per-second reading of the server.
type sample struct {
	sec        int
	load       string
	done       int64 // answers within that second
	tooLarge   int64 // 413 answers within that second
	rss        int64 // octets
	sockets    int
	goroutines int // -1 when it cannot be read (another process)
}

// target is the server under load.
type target interface {
	base() string
	// read returns the server's RSS, its open sockets and its goroutine
	// count (-1 when unknown).
	read() (rss int64, sockets int, goroutines int, err error)
}

// run drives tg with l's workers for d, and samples tg every second,
// appending to samples.
func (l *load) run(tb testing.TB, tg target, d time.Duration, samples *[]sample) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range *conns {
		wg.Go(func() {
			for i := w; ctx.Err() == nil; i++ {
				k := &l.mix[i%len(l.mix)]
				c := &l.per[i%len(l.mix)]
				resp, err := l.client.Do(k.build(tg.base()))
				if err != nil {
					c.errs.Add(1)
					l.fail(fmt.Sprintf("%s: %v", k.name, err))
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					c.errs.Add(1)
					l.fail(fmt.Sprintf("%s: reading the answer: %v", k.name, err))
				case resp.StatusCode != k.status || k.reason != "" && !bytes.Contains(body, []byte(`"reason":"`+k.reason+`"`)):
					c.wrong.Add(1)
					l.fail(fmt.Sprintf("%s: %d %.200q, want %d %s", k.name, resp.StatusCode, body, k.status, k.reason))
				default:
					c.ok.Add(1)
					l.done.Add(1)
					if k.status == http.StatusRequestEntityTooLarge {
						l.tooLarge.Add(1)
					}
				}
			}
		})
	}
	workersDone := make(chan struct{})
	go func() { wg.Wait(); close(workersDone) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastDone, lastTL := l.done.Load(), l.tooLarge.Load()
	for {
		select {
		case <-workersDone:
			l.elapsed += time.Since(start)
			return
		case <-tick.C:
			n, tl := l.done.Load(), l.tooLarge.Load()
			rss, socks, gor, err := tg.read()
			if err != nil {
				tb.Fatalf("sampling the server: %v", err)
			}
			*samples = append(*samples, sample{sec: len(*samples) + 1, load: l.name, done: n - lastDone, tooLarge: tl - lastTL,
				rss: rss, sockets: socks, goroutines: gor})
			lastDone, lastTL = n, tl
		}
	}
}

// report logs what the loads of a phase got and the server's samples, and
// fails tb on a wrong answer, an error, or a sampled value that is not
// stable.
func report(tb testing.TB, phase string, samples []sample, loads ...*load) {
	tb.Helper()
	connsKept := 0
	for _, l := range loads {
		ok, hostile, wrong, errs := l.total()
		tb.Logf("%s: %s: %d answers in %v: %.0f requests/s (%d of them rejections); %d wrong, %d errors",
			phase, l.name, ok, l.elapsed.Round(time.Millisecond), l.rate(), hostile, wrong, errs)
		if wrong != 0 || errs != 0 {
			tb.Errorf("%s: %s: %d wrong answers, %d transport errors; the first: %s", phase, l.name, wrong, errs, strings.Join(l.failures, "; "))
		}
		connsKept += *conns
	}
	tb.Logf("  %4s %-16s %8s %6s %9s %8s %10s", "sec", "load", "req/s", "413/s", "RSS MiB", "sockets", "goroutines")
	peakTL := int64(0)
	for _, s := range samples {
		g := "-"
		if s.goroutines >= 0 {
			g = strconv.Itoa(s.goroutines)
		}
		tb.Logf("  %4d %-16s %8d %6d %9.1f %8d %10s", s.sec, s.load, s.done, s.tooLarge, float64(s.rss)/(1<<20), s.sockets, g)
		peakTL = max(peakTL, s.tooLarge)
	}
	if len(samples) < 3 {
		tb.Logf("%s: too short (%d samples) to judge stability", phase, len(samples))
		return
	}
	ref := 9 // the 10th second
	if len(samples) < 20 {
		ref = len(samples) / 2
	}
	stable := func(what string, v func(sample) float64, slack float64) {
		r := v(samples[ref])
		limit := stableFactor*r + slack
		peak, at := r, samples[ref].sec
		for _, s := range samples[ref:] {
			if v(s) > peak {
				peak, at = v(s), s.sec
			}
		}
		tb.Logf("  %s: %.0f at second %d, at most %.0f from then on (second %d); bound %.1f x %.0f + %.0f = %.0f",
			what, r, samples[ref].sec, peak, at, stableFactor, r, slack, limit)
		if peak > limit {
			tb.Errorf("%s: %s not stable: %.0f at second %d, over %.0f", phase, what, peak, at, limit)
		}
	}
	// A connection closed after a 413 lingers for net/http's half-second
	// RST-avoidance delay: how many do at a given second follows the rate
	// of 413s, which follows the throughput, which varies with whatever
	// else the machine does. The slack takes in those that linger at the
	// phase's peak rate of 413s (half a second's worth; a socket and a
	// server goroutine each), and one socket per connection the clients
	// keep (two goroutines in process: the client's and the server's).
	lingering := int(peakTL / 2)
	stable("RSS", func(s sample) float64 { return float64(s.rss) }, rssSlack)
	stable("open sockets", func(s sample) float64 { return float64(s.sockets) }, float64(connsKept+lingering))
	if samples[0].goroutines >= 0 {
		stable("goroutines", func(s sample) float64 { return float64(s.goroutines) }, float64(2*connsKept+lingering))
	}
}

// mixedPhase runs the mix against /strict for *duration.
func mixedPhase(tb testing.TB, prefix string, tg target) *load {
	tb.Helper()
	l := newLoad("/strict mixed", mixed)
	defer l.tr.CloseIdleConnections()
	var samples []sample
	l.run(tb, tg, *duration, &samples)
	report(tb, prefix+"mixed phase", samples, l)
	return l
}

// comparePhase runs the clean requests against /strict and /open, *duration
// each, in alternating slices of 5 s (or less), so that whatever else the
// machine does meanwhile weighs on both alike, and logs their requests/s.
func comparePhase(tb testing.TB, prefix string, tg target) {
	tb.Helper()
	strict, open := newLoad("/strict clean", cleanStrict), newLoad("/open clean", cleanOpen)
	defer strict.tr.CloseIdleConnections()
	defer open.tr.CloseIdleConnections()
	slice := min(5*time.Second, *duration)
	var samples []sample
	for left := *duration; left > 0; left -= slice {
		d := min(slice, left)
		strict.run(tb, tg, d, &samples)
		open.run(tb, tg, d, &samples)
	}
	report(tb, prefix+"comparison phase", samples, strict, open)
	tb.Logf("%sclean GET and 1 KiB JSON POST, %d connections: /strict (utf8guard) %.0f req/s, /open (none) %.0f req/s: /strict / /open = %.3f",
		prefix, *conns, strict.rate(), open.rate(), strict.rate()/open.rate())
}

// procRead reads the RSS of process pid ("self" for this one) and counts
// its open sockets.
func procRead(pid string) (rss int64, sockets int, err error) {
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("VmRSS %q: %v", v, err)
			}
			rss = kb << 10
		}
	}
	dir := "/proc/" + pid + "/fd"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && strings.HasPrefix(link, "socket:") {
			sockets++
		}
	}
	return rss, sockets, nil
}

// lineCounter counts the lines written to it.
type lineCounter struct{ n atomic.Int64 }

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte{'\n'})))
	return len(p), nil
}
