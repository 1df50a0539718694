package benchout

import (
	"os"
	"slices"
	"testing"
)

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line                 string
		bench, params, impl  string
		ns, mbs, bop, allocs float64
		ok                   bool
	}{
		{"BenchmarkValidate/class=ascii/size=64B/impl=stdlib         \t 7063947\t        17.52 ns/op\t3653.77 MB/s\t       0 B/op\t       0 allocs/op",
			"Validate", "class=ascii/size=64B", "stdlib", 17.52, 3653.77, 0, 0, true},
		{"BenchmarkValidateString/class=cjk/size=1KiB/impl=sanitize-2 \t 100\t 614.4 ns/op\t1666.59 MB/s\t 8 B/op\t 1 allocs/op",
			"ValidateString", "class=cjk/size=1KiB", "sanitize", 614.4, 1666.59, 8, 1, true},
		{"BenchmarkMiddleware/req=get/impl=none-16 \t 1000\t 40.5 ns/op\t 0 B/op\t 0 allocs/op",
			"Middleware", "req=get", "none", 40.5, 0, 0, 0, true},
		{"BenchmarkOther/size=1KiB-8 \t 100\t 614.4 ns/op", "", "", "", 0, 0, 0, 0, false}, // no impl
		{"BenchmarkValidate/class=ascii/size=64B/impl=stdlib", "", "", "", 0, 0, 0, 0, false},
		{"BenchmarkValidate/impl=x \t abc\t 1 ns/op \t 1 MB/s", "", "", "", 0, 0, 0, 0, false},
		{"goos: linux", "", "", "", 0, 0, 0, 0, false},
		{"PASS", "", "", "", 0, 0, 0, 0, false},
	} {
		r, ok := ParseLine(tc.line)
		if ok != tc.ok {
			t.Errorf("ParseLine(%q): ok = %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if ok && (r.Bench != tc.bench || r.Params != tc.params || r.Impl != tc.impl ||
			r.NsPerOp != tc.ns || r.MBPerS != tc.mbs || r.BPerOp != tc.bop || r.AllocsPerOp != tc.allocs) {
			t.Errorf("ParseLine(%q) = %+v", tc.line, r)
		}
	}
}

// TestParseLineMetrics: the metrics of b.ReportMetric beside the usual
// ones, by unit.
func TestParseLineMetrics(t *testing.T) {
	r, ok := ParseLine("BenchmarkHostileMW/case=x/size=1M/impl=worst \t 9\t 11104763 ns/op\t 94.43 MB/s\t 11112000 cpu-ns/op\t 899621 handed-B/op\t 901144 B/op\t 2 allocs/op")
	if !ok || r.CPUNsPerOp != 11112000 || r.BPerOp != 901144 || len(r.Metrics) != 1 || r.Metrics["handed-B/op"] != 899621 {
		t.Errorf("ParseLine: %+v, %v", r, ok)
	}
	if r, _ := ParseLine("BenchmarkValidate/impl=x \t 1\t 1 ns/op"); r.Metrics != nil {
		t.Errorf("Metrics %v, want nil", r.Metrics)
	}
}

func TestRead(t *testing.T) {
	f, err := os.Open("testdata/two-rounds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Config["cpu"]; got != "AMD EPYC 9R14" {
		t.Errorf("cpu %q", got)
	}
	if got := out.Config["date"]; got != "2026-01-02" {
		t.Errorf("date %q", got)
	}
	if want := []string{"github.com/utf8guard/utf8guard/bench/peers", "github.com/utf8guard/utf8guard/bench"}; !slices.Equal(out.Pkgs, want) {
		t.Errorf("pkgs %q", out.Pkgs)
	}
	if out.Skipped != 1 {
		t.Errorf("skipped %d lines, want 1", out.Skipped)
	}
	if len(out.Rows) != 4 {
		t.Fatalf("%d rows, want 4", len(out.Rows))
	}
	r := out.Rows[0]
	if r.Bench != "Validate" || r.Param("class") != "ascii" || r.Param("size") != "16B" || r.Param("impl") != "" {
		t.Errorf("first row %+v", r)
	}
	if want := []string{"stdlib", "segmentio", "sonic", "utf8guard"}; !slices.Equal(r.Impls, want) {
		t.Errorf("impls %q", r.Impls)
	}
	if n := len(r.Runs["utf8guard"]); n != 2 {
		t.Errorf("%d runs", n)
	}
	if got := Median(r.Runs["utf8guard"], NsPerOp); got != 4.5 {
		t.Errorf("median ns/op %v, want 4.5", got)
	}
	if got := out.Rows[3].Pkg; got != "github.com/utf8guard/utf8guard/bench" {
		t.Errorf("middleware row in %q", got)
	}
}

func TestMedian(t *testing.T) {
	rs := func(v ...float64) []Result {
		var r []Result
		for _, x := range v {
			r = append(r, Result{NsPerOp: x})
		}
		return r
	}
	for _, tc := range []struct {
		in   []Result
		want float64
	}{{nil, 0}, {rs(3), 3}, {rs(5, 1, 3), 3}, {rs(4, 1, 3, 2), 2.5}} {
		if got := Median(tc.in, NsPerOp); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestRunCounts(t *testing.T) {
	rows := []*Row{
		{Runs: map[string][]Result{"a": make([]Result, 2), "b": make([]Result, 3)}},
		{Runs: map[string][]Result{"a": make([]Result, 5)}},
	}
	if lo, hi := RunCounts(rows); lo != 2 || hi != 5 {
		t.Errorf("RunCounts = %d, %d, want 2, 5", lo, hi)
	}
	if lo, hi := RunCounts(nil); lo != 0 || hi != 0 {
		t.Errorf("RunCounts(nil) = %d, %d, want 0, 0", lo, hi)
	}
}
