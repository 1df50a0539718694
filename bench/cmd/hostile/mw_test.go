package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// mwSample is BenchmarkHostileMW's output for three cases at two sizes
// (without MB/s, so that the octets come from the size names):
//
//   - lin (/strict, bound 10), three rounds: ratio 4 at both sizes, linear,
//     2 B/op per octet at 1M of which 1 is handed (ok);
//   - over (/nfc, bound 20): ratio 25 at both sizes, linear, 3 B/op per
//     octet at 1M of which 1 is handed (misses its bound and the
//     allocation goal);
//   - quad (/precis, bound 20), no handed-B/op: ratio 1 at 16K and 64 at
//     1M, the exponent 2.
const mwSample = `command: bench/run.sh -only hostile -n 3
date: 2026-11-24
rounds: 3
goos: linux
goarch: amd64
pkg: github.com/utf8guard/utf8guard/bench
cpu: Test CPU
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=benign   100  1100 ns/op  1000 cpu-ns/op  16384 handed-B/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=worst    100  4100 ns/op  4000 cpu-ns/op  16384 handed-B/op  24 B/op  2 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=benign    10  64000 ns/op  64000 cpu-ns/op  1048576 handed-B/op  1048576 B/op  3 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=worst     10  256000 ns/op  256000 cpu-ns/op  1048576 handed-B/op  2097152 B/op  5 allocs/op
BenchmarkHostileMW/case=over/route=nfc/bound=20/size=16K/impl=benign     100  1000 ns/op  1000 cpu-ns/op  16384 handed-B/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=over/route=nfc/bound=20/size=16K/impl=worst      100  25000 ns/op  25000 cpu-ns/op  16384 handed-B/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=over/route=nfc/bound=20/size=1M/impl=benign      10  64000 ns/op  64000 cpu-ns/op  1048576 handed-B/op  1048576 B/op  1 allocs/op
BenchmarkHostileMW/case=over/route=nfc/bound=20/size=1M/impl=worst       10  1600000 ns/op  1600000 cpu-ns/op  1048576 handed-B/op  3145728 B/op  9 allocs/op
BenchmarkHostileMW/case=quad/route=precis/bound=20/size=16K/impl=benign  100  1000 ns/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=quad/route=precis/bound=20/size=16K/impl=worst   100  1000 ns/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=quad/route=precis/bound=20/size=1M/impl=benign   10  64000 ns/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=quad/route=precis/bound=20/size=1M/impl=worst    1  4096000 ns/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=benign   100  900 ns/op  900 cpu-ns/op  16384 handed-B/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=worst    100  5000 ns/op  5000 cpu-ns/op  16384 handed-B/op  24 B/op  2 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=benign    10  60000 ns/op  60000 cpu-ns/op  1048576 handed-B/op  1048576 B/op  3 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=worst     10  300000 ns/op  300000 cpu-ns/op  1048576 handed-B/op  2097152 B/op  5 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=benign   100  1200 ns/op  1100 cpu-ns/op  16384 handed-B/op  24 B/op  1 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=16K/impl=worst    100  3000 ns/op  3000 cpu-ns/op  16384 handed-B/op  24 B/op  2 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=benign    10  70000 ns/op  70000 cpu-ns/op  1048576 handed-B/op  1048576 B/op  3 allocs/op
BenchmarkHostileMW/case=lin/route=strict/bound=10/size=1M/impl=worst     10  250000 ns/op  250000 cpu-ns/op  1048576 handed-B/op  2097152 B/op  5 allocs/op
BenchmarkHostile/entry=X.Call/case=other/bound=20/size=16KiB/impl=worst  100  1000 ns/op  0 B/op  0 allocs/op
`

func TestMWSummary(t *testing.T) {
	out, err := benchout.Read(strings.NewReader(mwSample))
	if err != nil {
		t.Fatal(err)
	}
	cases := collect(out, "HostileMW", "route")
	nan := math.NaN()
	for i, tc := range []struct {
		name, route    string
		bound          float64
		benign, worst  [2]float64 // medians of cpu-ns/op at 16K and 1M
		ratio          [2]float64
		exponent       float64
		perOctet       [2]float64 // benign, worst at 1M
		beyondBenign   float64
		beyondHanded   float64
		verdict        []string // what the verdict holds; none: "ok"
		withinBoundAll bool
	}{
		{"lin", "strict", 10, [2]float64{1000, 64000}, [2]float64{4000, 256000}, [2]float64{4, 4}, 1,
			[2]float64{1, 2}, 1, 1, nil, true},
		{"over", "nfc", 20, [2]float64{1000, 64000}, [2]float64{25000, 1600000}, [2]float64{25, 25}, 1,
			[2]float64{1, 3}, 2, 2, []string{"**miss**", "ratio 25 > 20 at 16K", "2.00 B/op per octet beyond handed > 1.1 at 1M"}, false},
		{"quad", "precis", 20, [2]float64{1000, 64000}, [2]float64{1000, 4096000}, [2]float64{1, 64}, 2,
			[2]float64{24.0 / (1 << 20), 24.0 / (1 << 20)}, 0, nan, []string{"**miss**", "exponent 2.00 > 1.1", "ratio 64 > 20 at 1M"}, false},
	} {
		if i >= len(cases) {
			t.Fatalf("%d cases, want 3", len(cases))
		}
		c := cases[i]
		if c.name != tc.name || c.entry != tc.route || c.bound != tc.bound {
			t.Errorf("case %d: %s on %s, bound %g; want %s on %s, bound %g", i, c.name, c.entry, c.bound, tc.name, tc.route, tc.bound)
		}
		near := func(what string, got, want float64) {
			t.Helper()
			if math.IsNaN(want) != math.IsNaN(got) || math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %s %v, want %v", tc.name, what, got, want)
			}
		}
		for k, size := range []string{"16K", "1M"} {
			near("benign median at "+size, c.median(size, "benign", benchout.CPUNsPerOp), tc.benign[k])
			near("worst median at "+size, c.median(size, "worst", benchout.CPUNsPerOp), tc.worst[k])
			near("ratio at "+size, c.ratio(size), tc.ratio[k])
		}
		near("exponent", c.exponent("worst"), tc.exponent)
		near("benign B/op per octet", c.perOctet("1M", "benign", false), tc.perOctet[0])
		near("worst B/op per octet", c.perOctet("1M", "worst", false), tc.perOctet[1])
		near("beyond benign", c.beyondBenign("1M"), tc.beyondBenign)
		near("beyond handed", c.perOctet("1M", "worst", true), tc.beyondHanded)
		v := verdictOf(c.mwMisses())
		if len(tc.verdict) == 0 && v != "ok" {
			t.Errorf("%s: verdict %q, want ok", tc.name, v)
		}
		for _, want := range tc.verdict {
			if !strings.Contains(v, want) {
				t.Errorf("%s: verdict %q lacks %q", tc.name, v, want)
			}
		}
		if r, _ := c.maxRatio(); (r <= c.bound) != tc.withinBoundAll {
			t.Errorf("%s: highest ratio %v against bound %g", tc.name, r, c.bound)
		}
	}
	if len(cases) != 3 {
		t.Errorf("%d cases, want 3 (BenchmarkHostile's rows left out)", len(cases))
	}

	var b bytes.Buffer
	if failed := writeMW(&b, out, cases); failed != 2 {
		t.Errorf("%d cases miss, want 2", failed)
	}
	for _, want := range []string{
		"# BenchmarkHostileMW, 2026-11-24\n",
		"routes /strict (bound 10) and /nfc, /precis (bound 20)",
		"medians of 1 to 3 runs",
		"from `bench/run.sh -only hostile -n 3`",
		"| case | route | bound | worst/benign 16K | 1M | exponent worst 16K → 1M | allocs worst 16K → 1M |",
		"| lin | /strict | 10 | 4.0 | 4.0 | 1.00 | 2 → 5 | 1.00 | 2.00 | 1.00 | 1.00 | ok |\n",
		"| quad | /precis | 20 | 1.0 | 64.0 | 2.00 | 1 → 1 | 0.00 | 0.00 | 0.00 | – | **miss**",
		"\n1 of 3 cases within their bound at every size.\n",
		"\n2 of 3 cases with a time exponent of at most 1.1.\n",
		"\n1 of 2 cases allocating at most 1.1 octets per body octet beyond what the handler is handed at 1M.\n",
		"\n1 of 3 cases meet every goal.\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
