//go:build load

package load

import (
	"bytes"
	"flag"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/server/app"
	"github.com/utf8guard/utf8guard/rules"
)

var (
	duration = flag.Duration("duration", 30*time.Second, "how long each phase of the load test runs")
	conns    = flag.Int("conns", 64, "concurrent keep-alive connections")
)

// Stability: a sampled value is stable when, from the reference second on
// (the 10th, or the middle one of a phase shorter than 20 s), it never goes
// over 1.2 times its value at the reference second plus a slack: 16 MiB of
// RSS (a GC cycle's worth of 2 MiB bodies); for sockets and goroutines, the
// connections the clients keep (one socket each, two goroutines in
// process: client and server) and the connections closed after a 413 that
// linger for half a second (see report). A leak grows without bound: one
// socket or goroutine per rejection would be thousands within the 20
// seconds checked.
const (
	stableFactor = 1.2
	rssSlack     = 16 << 20 // octets
)

// ---------------------------------------------------------------------------
// TestLoad: the demo server, built and run as its own process.

// demo is the demo server's process.
type demo struct {
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
	stdout lineCounter // the rejection log: one line per rejection
	stderr bytes.Buffer
	mu     sync.Mutex // guards stderr
}

func (d *demo) base() string { return "http://" + d.addr }

func (d *demo) read() (int64, int, int, error) {
	rss, socks, err := procRead(strconv.Itoa(d.cmd.Process.Pid))
	return rss, socks, -1, err
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var listening = regexp.MustCompile(`listening on http://(\S+)`)

// startDemo builds ./examples/server and starts it on a free loopback port.
func startDemo(tb testing.TB) *demo {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		tb.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(tb.TempDir(), "server")
	build := exec.Command("go", "build", "-o", bin, "./examples/server")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./examples/server: %v\n%s", err, out)
	}
	d := &demo{exited: make(chan struct{})}
	d.cmd = exec.Command(bin, "-addr", "127.0.0.1:0")
	d.cmd.Dir = tb.TempDir()
	d.cmd.Stdout = &d.stdout
	d.cmd.Stderr = lockedWriter{&d.mu, &d.stderr}
	if err := d.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { _ = d.cmd.Wait(); close(d.exited) }()
	tb.Cleanup(func() {
		select {
		case <-d.exited:
		default:
			_ = d.cmd.Process.Kill()
			<-d.exited
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		m := listening.FindStringSubmatch(d.stderr.String())
		d.mu.Unlock()
		if m != nil {
			d.addr = m[1]
			return d
		}
		select {
		case <-d.exited:
			tb.Fatalf("the demo exited: %s", d.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no start-up line from the demo within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop interrupts the demo and waits for it to exit.
func (d *demo) stop(tb testing.TB) {
	tb.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-d.exited:
	case <-time.After(15 * time.Second):
		tb.Fatalf("the demo did not exit within 15 s of SIGINT")
	}
}

// TestLoad drives the demo server: a mix of clean and hostile requests
// against /strict, then clean requests against /strict and /open. Every
// answer is as expected, there are no transport errors, the server's RSS
// and open sockets are stable, and its log holds exactly one line per
// rejection.
func TestLoad(t *testing.T) {
	d := startDemo(t)
	m := mixedPhase(t, "", d)
	comparePhase(t, "", d)
	d.stop(t)
	if _, hostile, _, _ := m.total(); d.stdout.n.Load() != hostile {
		t.Errorf("the demo logged %d lines; want one per rejection, %d", d.stdout.n.Load(), hostile)
	}
}

// ---------------------------------------------------------------------------
// TestLoadInProcess: the same Echo set-up in the test process.

// inProcess is the demo's Echo set-up served in the test process: the
// policy file of examples/server, utf8guard after RequestID, and a handler
// that answers what it sees, as the demo's does.
type inProcess struct {
	addr string
	srv  *http.Server
	logs lineCounter
}

func (p *inProcess) base() string { return "http://" + p.addr }

func (p *inProcess) read() (int64, int, int, error) {
	rss, socks, err := procRead("self")
	return rss, socks, runtime.NumGoroutine(), err
}

func startInProcess(tb testing.TB) *inProcess {
	tb.Helper()
	table, err := rules.LoadFile(filepath.Join("..", "..", "examples", "server", "policy.json"))
	if err != nil {
		tb.Fatal(err)
	}
	p := &inProcess{}
	logger := zerolog.New(&p.logs).With().Timestamp().Logger()
	e, err := app.New(table, &logger, fstest.MapFS{"hello.txt": {Data: []byte("hello")}})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.srv = &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	go func() { _ = p.srv.Serve(ln) }()
	tb.Cleanup(func() { _ = p.srv.Close() })
	return p
}

// TestLoadInProcess is TestLoad against the demo's Echo set-up in the test
// process, client included, so that goroutines can be counted: they are
// stable under load, and back to where they were once the server and the
// clients are closed.
func TestLoadInProcess(t *testing.T) {
	before := runtime.NumGoroutine()
	p := startInProcess(t)
	m := mixedPhase(t, "in process: ", p)
	comparePhase(t, "in process: ", p)
	_ = p.srv.Close()
	if _, hostile, _, _ := m.total(); p.logs.n.Load() != hostile {
		t.Errorf("logged %d lines; want one per rejection, %d", p.logs.n.Load(), hostile)
	}
	// Closed connections linger up to net/http's RST-avoidance delay.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines after the server and the clients closed, %d before:\n%s",
				runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}
