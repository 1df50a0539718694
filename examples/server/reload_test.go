package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testReload: started with -policy FILE, the demo reads the file again on
// SIGHUP and swaps the rules of the running server; a file with a mistake,
// or whose route names none of the demo's, keeps the rules in force, and
// stderr says why.
func testReload(t *testing.T, bin string) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.json")
	open := string(defaultPolicy) // /open/* unchecked
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(open)
	d := startDemo(t, bin, "-policy", file)
	status := func() int {
		t.Helper()
		return d.rawRequest(t, req{target: "/open/x?q=%00"}.bytes(d.addr)).status
	}
	hup := func(want string) {
		t.Helper()
		before := strings.Count(d.stderr.String(), "utf8guard demo:")
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for strings.Count(d.stderr.String(), "utf8guard demo:") == before {
			if time.Now().After(deadline) {
				t.Fatalf("no answer to SIGHUP on stderr within 5 s:\n%s", d.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		lines := strings.Split(strings.TrimSpace(d.stderr.String()), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, want) {
			t.Errorf("after SIGHUP, stderr says %q, want %q", last, want)
		}
	}
	if got := status(); got != http.StatusOK {
		t.Fatalf("/open/ before the reload: %d, want 200 (unchecked)", got)
	}
	// /open/* dropped from the file: the default (strict) takes it.
	strict := strings.Replace(open, `    "/open/*":    {"preset": "unchecked"},`+"\n", "", 1)
	if strict == open {
		t.Fatalf("the test's policy edit does not apply to policy.json")
	}
	write(strict)
	hup("policy reloaded from " + file)
	if got := status(); got != http.StatusBadRequest {
		t.Errorf("/open/ after the reload: %d, want 400 (the default policy now)", got)
	}
	// A file with a mistake keeps the rules in force.
	write(`{"default": {"preset": "strict"`)
	hup(file + " not reloaded, the rules in force stay")
	// A route that names none of the demo's keeps them too.
	write(strings.Replace(open, `"/open/*"`, `"/opne/*"`, 1))
	hup(`did you mean "/open/*"`)
	if got := status(); got != http.StatusBadRequest {
		t.Errorf("/open/ after two refused reloads: %d, want 400 (the rules in force)", got)
	}
	d.shutdown(t)
}
