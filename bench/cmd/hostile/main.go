// Command hostile reads the output of BenchmarkHostile (bench/hostile_suite_test.go),
// of one or several interleaved rounds, and prints Markdown tables of what
// hostile input costs beside benign input of the same size, one table per
// entry point and a row per construction:
//
//   - the time per call of the benign and the worst input at each size
//     (the median of the rounds): the process's CPU time (cpu-ns/op) where
//     the benchmark reports it, as BenchmarkHostile does, so that waiting
//     for a core on a shared machine does not count; ns/op otherwise;
//   - the growth exponent from the smallest size to the largest (16 KiB to
//     1 MiB): the slope of log time against log size, 1 for a call whose
//     time grows linearly, 2 for a quadratic one (benign input often shows
//     1.1 or a little more: 16 KiB stays in the first-level cache, 1 MiB
//     does not, so the verdict holds only the worst input to it);
//   - the worst/benign ratio of the medians at each size;
//   - allocs/op at the smallest and the largest size, and B/op per input
//     octet at the largest;
//   - a verdict against the hostile-input goals: an exponent of at most 1.1
//     for the worst input, and a ratio of at most the row's bound (the bound=
//     component of its name: 20 for a call of a package; for a request
//     through the middleware, 10 on a strict route, 20 on one that
//     normalizes or enforces PRECIS) at every size.
//
// With -mw it summarizes BenchmarkHostileMW (bench/hostile_middleware_test.go)
// instead, requests through Echo and the middleware, in one table of a row
// per case (the hostile-mw.md of bench/run.sh): its route and bound, the
// worst/benign ratio at each size, the exponent of the worst input,
// allocs/op of the worst input at the smallest and the largest size, and
// at the largest size B/op per octet of the body (or query) for the benign
// and the worst input, the worst input's beyond the benign one's, and
// beyond the handed-B/op the benchmark reports (the octets its handler is
// handed: the goal allows at most 1.1 octets per body octet beyond them).
// Its verdict holds a case to its bound at every size, to the exponent,
// and, where handed-B/op is reported, to that allocation goal; the last
// lines count the cases that meet each goal.
//
// Usage:
//
//	hostile [-c] [-mw] [file...]
//
// With no file it reads the standard input. With -c it exits with status 1
// when a row misses a goal. bench/run.sh -only hostile runs the benchmarks
// and this command (without and with -mw); by hand:
//
//	go test -run '^$' -bench '^BenchmarkHostile$' -benchmem -cpu=1 -benchtime=200ms ./bench/ > out.txt
//	go run ./bench/cmd/hostile out.txt
//	go test -run '^$' -bench '^BenchmarkHostileMW$' -benchmem -cpu=1 -benchtime=100ms ./bench/ > mw.txt
//	go run ./bench/cmd/hostile -mw mw.txt
//
// The benchmark names carry the row as key=value components, the input
// last:
//
//	BenchmarkHostile/entry=NFC.IsNormal/case=q-acute/bound=20/size=64KiB/impl=worst
//	BenchmarkHostileMW/case=xml-deep/route=strict/bound=10/size=64K/impl=worst
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// maxExponent is the highest growth exponent the goals allow.
const maxExponent = 1.1

func main() {
	strict := flag.Bool("c", false, "exit with status 1 when a row misses a goal")
	mw := flag.Bool("mw", false, "summarize BenchmarkHostileMW (through the middleware) instead of BenchmarkHostile")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hostile [-c] [-mw] [file...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	out, err := benchout.ReadFiles(flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(2)
	}
	bench, group, summarize := "Hostile", "entry", write
	if *mw {
		bench, group, summarize = "HostileMW", "route", writeMW
	}
	cases := collect(out, bench, group)
	if len(cases) == 0 {
		fmt.Fprintf(os.Stderr, "hostile: no Benchmark%s results\n", bench)
		os.Exit(1)
	}
	if failed := summarize(os.Stdout, out, cases); failed > 0 && *strict {
		os.Exit(1)
	}
}

// A hcase is one row of the suite: one construction against one entry
// point (BenchmarkHostile) or on one route (BenchmarkHostileMW), at every
// size.
type hcase struct {
	entry, name string // entry holds the route for BenchmarkHostileMW
	bound       float64
	sizes       []string                                // in the order they appear
	runs        map[string]map[string][]benchout.Result // size -> impl -> runs
}

// collect groups the results of Benchmark<bench> by the value of their
// component group (entry or route) and their case.
func collect(out *benchout.Output, bench, group string) []*hcase {
	var cases []*hcase
	for _, r := range out.Rows {
		if r.Bench != bench {
			continue
		}
		entry, name, size := r.Param(group), r.Param("case"), r.Param("size")
		bound, err := strconv.ParseFloat(r.Param("bound"), 64)
		if entry == "" || name == "" || size == "" || err != nil {
			continue
		}
		i := slices.IndexFunc(cases, func(c *hcase) bool { return c.entry == entry && c.name == name })
		if i < 0 {
			cases = append(cases, &hcase{entry: entry, name: name, bound: bound, runs: map[string]map[string][]benchout.Result{}})
			i = len(cases) - 1
		}
		c := cases[i]
		if c.runs[size] == nil {
			c.sizes = append(c.sizes, size)
			c.runs[size] = map[string][]benchout.Result{}
		}
		for impl, rs := range r.Runs {
			c.runs[size][impl] = append(c.runs[size][impl], rs...)
		}
	}
	return cases
}

// median returns the median of f over the runs of impl at size, or 0.
func (c *hcase) median(size, impl string, f func(benchout.Result) float64) float64 {
	return benchout.Median(c.runs[size][impl], f)
}

// octets returns the input size of a result, from its throughput, or from
// the size's name if the benchmark did not set it.
func (c *hcase) octets(size, impl string) float64 {
	ns, mbs := c.median(size, impl, benchout.NsPerOp), c.median(size, impl, benchout.MBPerS)
	if ns > 0 && mbs > 0 {
		return mbs * ns / 1e3
	}
	return sizeOctets(size)
}

// sizeOctets reads "16KiB", "1MiB", "512B", and BenchmarkHostileMW's
// "16K", "1M".
func sizeOctets(name string) float64 {
	for _, u := range []struct {
		suffix string
		mul    float64
	}{{"MiB", 1 << 20}, {"KiB", 1 << 10}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if v, ok := strings.CutSuffix(name, u.suffix); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f * u.mul
			}
		}
	}
	return math.NaN()
}

// exponent returns the slope of log(time) against log(octets) between the
// smallest and the largest size that impl has, or NaN.
func (c *hcase) exponent(impl string) float64 {
	var have []string
	for _, s := range c.sizes {
		if c.median(s, impl, benchout.CPUNsPerOp) > 0 {
			have = append(have, s)
		}
	}
	if len(have) < 2 {
		return math.NaN()
	}
	lo, hi := have[0], have[len(have)-1]
	for _, s := range have {
		if c.octets(s, impl) < c.octets(lo, impl) {
			lo = s
		}
		if c.octets(s, impl) > c.octets(hi, impl) {
			hi = s
		}
	}
	t0, t1 := c.median(lo, impl, benchout.CPUNsPerOp), c.median(hi, impl, benchout.CPUNsPerOp)
	n0, n1 := c.octets(lo, impl), c.octets(hi, impl)
	if n1 <= n0 {
		return math.NaN()
	}
	return math.Log(t1/t0) / math.Log(n1/n0)
}

// ratio returns worst/benign of the medians at size, or NaN.
func (c *hcase) ratio(size string) float64 {
	b, w := c.median(size, "benign", benchout.CPUNsPerOp), c.median(size, "worst", benchout.CPUNsPerOp)
	if b <= 0 || w <= 0 {
		return math.NaN()
	}
	return w / b
}

// verdict returns "ok" or the goals c misses.
func (c *hcase) verdict() string { return verdictOf(c.misses()) }

// misses returns the time goals c misses: its exponent, then its ratio.
func (c *hcase) misses() []string {
	var miss []string
	if e := c.exponent("worst"); e > maxExponent {
		miss = append(miss, fmt.Sprintf("exponent %.2f > %.1f", e, maxExponent))
	}
	if r, at := c.maxRatio(); r > c.bound {
		miss = append(miss, fmt.Sprintf("ratio %.3g > %g at %s", r, c.bound, at))
	}
	return miss
}

// maxRatio returns the highest worst/benign ratio over the sizes and the
// size it is at (0 and "" if there is none).
func (c *hcase) maxRatio() (r float64, at string) {
	for _, s := range c.sizes {
		if x := c.ratio(s); x > r {
			r, at = x, s
		}
	}
	return r, at
}

func verdictOf(miss []string) string {
	if len(miss) == 0 {
		return "ok"
	}
	return "**miss**: " + strings.Join(miss, "; ")
}

// write prints the tables and returns the number of rows that miss a goal.
func write(w io.Writer, out *benchout.Output, cases []*hcase) (failed int) {
	fmt.Fprintf(w, "Machine: %s/%s, cpu: %s", out.Config["goos"], out.Config["goarch"], orDash(out.Config["cpu"]))
	for _, k := range []string{"nproc", "goversion", "date", "rounds"} {
		if v := out.Config[k]; v != "" {
			fmt.Fprintf(w, ", %s: %s", k, v)
		}
	}
	fmt.Fprintln(w)
	lo, hi := benchout.RunCounts(out.Rows)
	fmt.Fprintf(w, "\nMedians of %s of the time per call (CPU time where reported); the exponent is that of the time from the smallest size to the largest; ratio is worst/benign; B/op per octet of input at the largest size.\n", runsText(lo, hi))

	// The summary first: one line per row.
	fmt.Fprintln(w, "\n## Summary")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| entry | case | exponent benign | exponent worst | max ratio | bound | allocs/op worst | B/op per octet worst | verdict |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|---|")
	for _, c := range cases {
		maxRatio, _ := c.maxRatio()
		if maxRatio == 0 {
			maxRatio = math.NaN()
		}
		last := c.sizes[len(c.sizes)-1]
		v := c.verdict()
		if v != "ok" {
			failed++
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %g | %s | %s | %s |\n", c.entry, c.name,
			fmtExp(c.exponent("benign")), fmtExp(c.exponent("worst")), fmtRatio(maxRatio), c.bound,
			fmtAllocs(c, "worst"), fmtPerOctet(c.median(last, "worst", benchout.BPerOp), c.octets(last, "worst")), v)
	}
	fmt.Fprintf(w, "\n%d of %d rows meet the goals.\n", len(cases)-failed, len(cases))

	// Then one table per entry point, with every size.
	var entries []string
	for _, c := range cases {
		if !slices.Contains(entries, c.entry) {
			entries = append(entries, c.entry)
		}
	}
	for _, e := range entries {
		var sizes []string
		for _, c := range cases {
			if c.entry == e {
				for _, s := range c.sizes {
					if !slices.Contains(sizes, s) {
						sizes = append(sizes, s)
					}
				}
			}
		}
		fmt.Fprintf(w, "\n## %s\n\n", e)
		fmt.Fprint(w, "| case | input |")
		for _, s := range sizes {
			fmt.Fprintf(w, " %s |", s)
		}
		fmt.Fprint(w, " exponent |")
		for _, s := range sizes {
			fmt.Fprintf(w, " ratio %s |", s)
		}
		fmt.Fprintln(w, " allocs/op | B/op per octet | verdict |")
		fmt.Fprint(w, "|---|---|")
		for range 2 * len(sizes) {
			fmt.Fprint(w, "--:|")
		}
		fmt.Fprintln(w, "--:|--:|--:|---|")
		for _, c := range cases {
			if c.entry != e {
				continue
			}
			last := c.sizes[len(c.sizes)-1]
			for _, impl := range []string{"benign", "worst"} {
				fmt.Fprintf(w, "| %s | %s |", c.name, impl)
				for _, s := range sizes {
					fmt.Fprintf(w, " %s |", fmtNs(c.median(s, impl, benchout.CPUNsPerOp)))
				}
				fmt.Fprintf(w, " %s |", fmtExp(c.exponent(impl)))
				for _, s := range sizes {
					if impl == "worst" {
						fmt.Fprintf(w, " %s |", fmtRatio(c.ratio(s)))
					} else {
						fmt.Fprint(w, " |")
					}
				}
				v := ""
				if impl == "worst" {
					v = c.verdict()
				}
				fmt.Fprintf(w, " %s | %s | %s |\n", fmtAllocs(c, impl),
					fmtPerOctet(c.median(last, impl, benchout.BPerOp), c.octets(last, impl)), v)
			}
		}
	}
	return failed
}

func runsText(lo, hi int) string {
	switch {
	case lo == hi && lo == 1:
		return "1 run"
	case lo == hi:
		return fmt.Sprintf("%d runs", lo)
	}
	return fmt.Sprintf("%d to %d runs", lo, hi)
}

// fmtAllocs returns allocs/op at the smallest and the largest size.
func fmtAllocs(c *hcase, impl string) string {
	first, last := c.sizes[0], c.sizes[len(c.sizes)-1]
	a0, a1 := c.median(first, impl, benchout.AllocsPerOp), c.median(last, impl, benchout.AllocsPerOp)
	if first == last {
		return fmt.Sprintf("%.0f", a1)
	}
	return fmt.Sprintf("%.0f → %.0f", a0, a1)
}

func fmtPerOctet(b, n float64) string {
	if n <= 0 || math.IsNaN(n) {
		return "–"
	}
	return fmt.Sprintf("%.2f", b/n)
}

func fmtExp(e float64) string {
	if math.IsNaN(e) {
		return "–"
	}
	return fmt.Sprintf("%.2f", e)
}

func fmtRatio(r float64) string {
	if math.IsNaN(r) {
		return "–"
	}
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// fmtNs formats a duration in nanoseconds with three significant digits.
func fmtNs(ns float64) string {
	if ns <= 0 {
		return "–"
	}
	units := []struct {
		name string
		div  float64
	}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}, {"ns", 1}}
	for _, u := range units {
		if v := ns / u.div; v >= 1 || u.div == 1 {
			switch {
			case v >= 100:
				return fmt.Sprintf("%.0f %s", v, u.name)
			case v >= 10:
				return fmt.Sprintf("%.1f %s", v, u.name)
			}
			return fmt.Sprintf("%.2f %s", v, u.name)
		}
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
