package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/replay"
)

// docArgs are the arguments of the run the doc comment shows, from the
// module's root.
var docArgs = []string{
	"-policy", "middleware/replay/testdata/stricter.json",
	"-against", "examples/server/policy.json",
	"-echo-routes", "middleware/replay/testdata/demo.routes",
	"middleware/replay/testdata/demo.har",
}

// docOutput returns the output the doc comment of main.go shows: the
// code block after the line that says the test checks it.
func docOutput(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("examples/replay/main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(src), "checks that it still does):\n//\n")
	if !ok {
		t.Fatal("main.go: no output block in the doc comment")
	}
	block, _, _ = strings.Cut(block, "\npackage main")
	var out strings.Builder
	for line := range strings.SplitSeq(block, "\n") {
		line = strings.TrimPrefix(line, "//")
		out.WriteString(strings.TrimPrefix(line, "\t") + "\n")
	}
	return out.String()
}

func TestDocShowsTheRealOutput(t *testing.T) {
	t.Chdir("../..")
	var stdout, stderr bytes.Buffer
	if code := run(docArgs, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := docOutput(t); stdout.String() != want {
		t.Errorf("the doc comment's output is not the command's:\n%s\nwant (the command's):\n%s", want, stdout.String())
	}
}

func TestJSON(t *testing.T) {
	t.Chdir("../..")
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"-json"}, docArgs...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep replay.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 11 || len(rep.NewlyRefused) != 5 || len(rep.NoLongerRefused) != 1 || rep.AgainstRefused != 4 {
		t.Errorf("report %+v", rep)
	}
}

func TestCommandLineMistakes(t *testing.T) {
	t.Chdir("../..")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"middleware/replay/testdata/demo.har"}, 2, "-policy is required"},
		{[]string{"-policy", "examples/server/policy.json"}, 2, "no recording"},
		{[]string{"-policy", "examples/server/policy.json", "-routes", "a", "-echo-routes", "b", "x.har"}, 2, "not both"},
		{[]string{"-policy", "examples/server/policy.json", "middleware/replay/testdata/demo.har"}, 1, "the policy names routes"},
		{[]string{"-policy", "examples/server/policy.json", "-routes", "middleware/replay/testdata/demo.routes", "middleware/replay/testdata/demo.har"}, 1, "Echo's syntax"},
		{[]string{"-policy", "nosuch.json", "x.har"}, 1, "nosuch.json"},
		{[]string{"-policy", "examples/server/policy.json", "-echo-routes", "middleware/replay/testdata/demo.routes", "nosuch.har"}, 1, "nosuch.har"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%q: exit %d, %q; want %d and %q", c.args, code, stderr.String(), c.code, c.msg)
		}
	}
}

// Without routes, every request gets the policy's default.
func TestWithoutRoutes(t *testing.T) {
	t.Chdir("../..")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-policy", "middleware/replay/testdata/strict-default.json", "middleware/replay/testdata/demo.har"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "refused (enforce): 7\n") {
		t.Errorf("output:\n%s", stdout.String())
	}
}
