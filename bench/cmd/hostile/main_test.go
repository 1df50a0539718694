package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// sample is the output of two rounds of two rows: linear with a ratio of
// 4, and quadratic with a ratio of 64 at 1 MiB.
const sample = `goos: linux
goarch: amd64
pkg: github.com/utf8guard/utf8guard/bench
cpu: Test CPU
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=16KiB/impl=benign  	100	 1000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=16KiB/impl=worst   	100	 4000 ns/op	4096.00 MB/s	 16384 B/op	 1 allocs/op
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=1MiB/impl=benign   	100	64000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=1MiB/impl=worst    	100	256000 ns/op	4096.00 MB/s	 1048576 B/op	 1 allocs/op
BenchmarkHostile/entry=X.Call/case=quad/bound=20/size=16KiB/impl=benign 	100	 1000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=quad/bound=20/size=16KiB/impl=worst  	100	 1000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=quad/bound=20/size=1MiB/impl=benign  	100	64000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=quad/bound=20/size=1MiB/impl=worst   	 10	4096000 ns/op	256.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=16KiB/impl=benign  	100	 1000 ns/op	16384.00 MB/s	 0 B/op	 0 allocs/op
BenchmarkHostile/entry=X.Call/case=lin/bound=20/size=16KiB/impl=worst   	100	 4000 ns/op	4096.00 MB/s	 16384 B/op	 1 allocs/op
`

func TestSummary(t *testing.T) {
	out, err := benchout.Read(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	cases := collect(out, "Hostile", "entry")
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	lin, quad := cases[0], cases[1]
	if e := lin.exponent("worst"); math.Abs(e-1) > 0.01 {
		t.Errorf("linear exponent %v", e)
	}
	if e := quad.exponent("worst"); math.Abs(e-2) > 0.01 {
		t.Errorf("quadratic exponent %v", e)
	}
	if r := lin.ratio("1MiB"); math.Abs(r-4) > 0.01 {
		t.Errorf("ratio %v, want 4", r)
	}
	if v := lin.verdict(); v != "ok" {
		t.Errorf("linear verdict %q", v)
	}
	if v := quad.verdict(); !strings.Contains(v, "exponent 2.00") || !strings.Contains(v, "ratio 64") {
		t.Errorf("quadratic verdict %q", v)
	}
	var b bytes.Buffer
	if failed := write(&b, out, cases); failed != 1 {
		t.Errorf("%d rows miss, want 1", failed)
	}
	for _, want := range []string{"## X.Call", "| lin | worst |", "1 of 2 rows meet the goals", "1.00"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
