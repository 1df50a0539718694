package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startupPolicy is the demo's policy with a typo in one route, as an
// operator might write it: "/monitr/*" for the demo's "/monitor/*".
const startupPolicy = `{
  "default": {"preset": "strict"},
  "routes": {
    "/strict/*":  {"preset": "strict"},
    "/monitr/*":  {"preset": "strict", "mode": "monitor"},
    "/open/*":    {"preset": "unchecked"}
  }
}
`

// TestStartupUnknownRoute: a policy file whose route names none of the
// demo's routes stops it before it listens, on either Echo, with an error
// that names the route and the one it resembles.
func TestStartupUnknownRoute(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(file, []byte(startupPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v4", "v5"} {
		err := run("127.0.0.1:0", file, v, false)
		if err == nil || !strings.Contains(err.Error(), `"/monitr/*" (did you mean "/monitor/*"?) names no registered route`) {
			t.Errorf("-echo %s: run = %v; want the unknown route named", v, err)
		}
	}
	// The embedded policy names only routes the demo has.
	for name := range apps {
		table, err := loadPolicy("")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := apps[name](table, nil, os.DirFS(".")); err != nil {
			t.Errorf("-echo %s, the embedded policy: %v", name, err)
		}
	}
}

// TestStartupExitStatus: the command exits non-zero with the route in its
// message, before the start-up line.
func TestStartupExitStatus(t *testing.T) {
	bin := buildDemo(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(file, []byte(startupPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v4", "v5"} {
		cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-policy", file, "-echo", v)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		ee, ok := errors.AsType[*exec.ExitError](err)
		if !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), `server: utf8guard: the policy table's route "/monitr/*"`) || startLine.Match(out) {
			t.Errorf("-echo %s: %v, output %q; want exit status 1 and the route named, before listening", v, err, out)
		}
	}
}
