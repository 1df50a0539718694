package main

// The end-to-end test of the demo: it builds the binary, starts it on a free
// loopback port from an empty working directory, and checks the contract of
// the demo (its package doc and the README) over raw TCP, so that what is sent is exactly
// the octets written here (curl --path-as-is and more: raw non-ASCII octets in
// the request line), then stops it with SIGINT and checks its log lines.
//
// This file builds, starts and stops the demo (and checks its -echo flag);
// client_test.go writes the requests and reads the answers, contract_test.go
// holds the contract, and log_test.go checks the log lines.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	secretMarker = "never be served" // in examples/server/secret.txt
	mib          = 1 << 20
	decomposed   = "e\u0301" // e + COMBINING ACUTE ACCENT
	composed     = "\u00e9"  // é
)

// TestDemo is one test, not several, so the binary is built once; it is
// started once on each Echo major version (-echo), which must keep one
// contract. Its steps are subtests, and the log lines are checked after
// the server has shut down, when its stdout is complete.
func TestDemo(t *testing.T) {
	bin := buildDemo(t)
	for _, version := range []string{"v4", "v5"} {
		t.Run("echo="+version, func(t *testing.T) {
			d := startDemo(t, bin, "-echo", version)
			if want := "(Echo " + version + ";"; !strings.Contains(d.stderr.String(), want) {
				t.Errorf("the start-up line does not say %q:\n%s", want, d.stderr.String())
			}

			t.Run("accepted", d.testAccepted)
			t.Run("nfc", d.testNFC)
			t.Run("rejected", d.testRejected)
			t.Run("one line per request", d.testOneLine)
			t.Run("static", d.testStatic)
			t.Run("body limit", d.testBodyLimit)
			t.Run("identity", d.testIdentity)
			// The same contract over HTTP/2 with prior knowledge, on the
			// same port, as curl --http2-prior-knowledge sends it.
			t.Run("h2c", func(t *testing.T) {
				h2 := d.overH2C()
				t.Run("accepted", h2.testAccepted)
				t.Run("nfc", h2.testNFC)
				t.Run("rejected", h2.testRejected)
				t.Run("bodies", h2.testH2CBodies)
				h2.done(d)
			})

			d.shutdown(t)
			d.checkLog(t)
		})
	}
	t.Run("tls", func(t *testing.T) { testTLS(t, bin) })
	t.Run("echo=v6", func(t *testing.T) { testBadEcho(t, bin) })
	t.Run("reload", func(t *testing.T) { testReload(t, bin) })
}

// testBadEcho: an -echo the demo does not know stops it at start-up, with
// an error that names the flag, before it listens.
func testBadEcho(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-echo", "v6")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if _, ok := errors.AsType[*exec.ExitError](err); !ok || !strings.Contains(string(out), `-echo "v6"`) || startLine.Match(out) {
		t.Errorf("-echo v6: %v, output %q; want an exit status and an error naming -echo before listening", err, out)
	}
}

// buildDemo builds ./examples/server from the module root, once for all
// the tests that start it, and returns the binary's path. Beside it, it
// puts a policy.json that does not parse and a public/hello.txt that says
// the wrong thing: the demo must read neither (what it reads is embedded,
// or relative to the working directory).
//
// Without -long it skips the test instead: go build and a server in a
// process of its own are seconds of CPU that go test ./... should not
// spend after every change, and the race detector would not see into that
// process anyway. CI runs them:
//
//	go test ./examples/server -long
func buildDemo(t *testing.T) string {
	t.Helper()
	if !*long || testing.Short() {
		t.Skip("builds and starts the demo (go build): run with -long")
	}
	demoBin.once.Do(func() { demoBin.path, demoBin.err = build(t) })
	if demoBin.path == "" {
		t.Fatalf("building the demo: %v", demoBin.err)
	}
	return demoBin.path
}

// long says to build the demo and start it in a process of its own.
var long = flag.Bool("long", false, "build the demo and test it in a process of its own (go build)")

// demoBin is the demo that buildDemo built, in a directory of its own that
// TestMain removes.
var demoBin struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demoBin.dir != "" {
		os.RemoveAll(demoBin.dir)
	}
	os.Exit(code)
}

// build is buildDemo's go build, run once.
func build(t *testing.T) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("go env GOMOD = %q: not inside the module", gomod)
	}
	if demoBin.dir, err = os.MkdirTemp("", "demo"); err != nil {
		return "", err
	}
	bin := filepath.Join(demoBin.dir, "server")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./examples/server")
	build.Dir = filepath.Dir(gomod)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./examples/server: %v\n%s", err, out)
	}
	decoys(t, demoBin.dir, "beside the executable")
	return bin, nil
}

// decoys writes files that the demo would serve or read if it looked for
// its files in dir.
func decoys(t *testing.T, dir, where string) {
	t.Helper()
	files := map[string]string{
		"policy.json":       "{ not a policy file",
		"public/hello.txt":  "WRONG hello.txt " + where,
		"public/secret.txt": "decoy: this file must " + secretMarker,
		"secret.txt":        "decoy: this file must " + secretMarker,
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// demo is a running demo server.
type demo struct {
	addr   string
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd.Wait returns
	err    error         // cmd.Wait's result, once exited is closed
	stdout syncBuffer
	stderr syncBuffer

	mu   sync.Mutex
	sent []sent // every request that reached the demo's handlers

	h2c *http.Client // set: requests go over HTTP/2 with prior knowledge
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

var startLine = regexp.MustCompile(`listening on https?://(\S+)`)

// startDemo starts bin with args on a free loopback port, from a working
// directory of decoys, and waits for its start-up line. A port taken
// between picking and binding makes the demo exit; it is retried on
// another port.
func startDemo(t *testing.T, bin string, args ...string) *demo {
	t.Helper()
	wd := t.TempDir()
	decoys(t, wd, "in the working directory")
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		d := &demo{exited: make(chan struct{})}
		d.cmd = exec.Command(bin, append([]string{"-addr", port}, args...)...)
		d.cmd.Dir = wd
		d.cmd.Stdout = &d.stdout
		d.cmd.Stderr = &d.stderr
		if err := d.cmd.Start(); err != nil {
			t.Fatalf("starting the demo: %v", err)
		}
		go func() { d.err = d.cmd.Wait(); close(d.exited) }()
		t.Cleanup(func() {
			select {
			case <-d.exited:
			default:
				_ = d.cmd.Process.Kill()
				<-d.exited
			}
		})
		addr, ok := d.waitStart(10 * time.Second)
		select {
		case <-d.exited:
		default:
			if !ok { // not a port taken: the demo hangs
				t.Fatalf("no start-up line on stderr within 10 s; stderr:\n%s", d.stderr.String())
			}
		}
		if ok {
			if addr != port {
				t.Fatalf("start-up line names %s, want %s:\n%s", addr, port, d.stderr.String())
			}
			d.addr = addr
			return d
		}
		if attempt == 5 {
			t.Fatalf("the demo did not start on a free port (5 attempts); last stderr:\n%s", d.stderr.String())
		}
		t.Logf("attempt %d on %s failed: %s", attempt, port, strings.TrimSpace(d.stderr.String()))
	}
}

// waitStart waits for the start-up line on stderr and returns the address
// it names; false if the process exits first (port taken) or on timeout
// (the process then still runs; the caller's cleanup kills it).
func (d *demo) waitStart(timeout time.Duration) (string, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := startLine.FindStringSubmatch(d.stderr.String()); m != nil {
			return m[1], true
		}
		select {
		case <-d.exited:
			// Read stderr once more: the line may have come with the exit.
			if m := startLine.FindStringSubmatch(d.stderr.String()); m != nil {
				return m[1], false
			}
			return "", false
		case <-deadline.C:
			return "", false
		case <-tick.C:
		}
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// shutdown sends SIGINT and waits for a clean exit.
func (d *demo) shutdown(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	select {
	case <-d.exited:
	case <-time.After(5 * time.Second):
		_ = d.cmd.Process.Signal(syscall.SIGKILL)
		<-d.exited
		t.Fatalf("the demo did not exit within 5 s of SIGINT; stderr:\n%s", d.stderr.String())
	}
	if d.err != nil {
		t.Errorf("the demo exited with %v after SIGINT, want status 0; stderr:\n%s", d.err, d.stderr.String())
	}
	if _, err := net.DialTimeout("tcp", d.addr, time.Second); err == nil {
		t.Errorf("%s still accepts connections after the demo exited", d.addr)
	}
}
