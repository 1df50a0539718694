// Command benchtab reads the output of utf8guard's benchmarks, of one or
// several interleaved rounds, and prints Markdown tables of the medians:
//
//   - validation (BenchmarkValidate, BenchmarkValidateString): per class
//     and size, the throughput in GB/s of each implementation, and the
//     speedups utf8guard/stdlib and utf8guard/best SIMD peer (the fastest
//     implementation that is neither the baseline nor ours, in that row);
//   - normalization (BenchmarkNFC...): per class and size, the throughput
//     of golang.org/x/text/unicode/norm (impl=norm) and of ours
//     (impl=normalize), and normalize/norm;
//   - the middleware (BenchmarkMiddleware): per request, ns/op, B/op and
//     allocs/op without the middleware (impl=none) and with it
//     (impl=utf8guard), and the difference, its cost per request.
//
// Usage:
//
//	benchtab [file...]
//
// With no file it reads the standard input. bench/run.sh runs the
// benchmarks and this command; by hand:
//
//	(cd bench/peers && go test -run '^$' -bench Validate -benchmem -cpu=1 -count=1 .) > out.txt
//	go run ./bench/cmd/benchtab out.txt
//
// A speedup is the ratio of the medians of ns/op (above 1: ours is
// faster); the range after it is that of the ratios of the runs taken
// pairwise in the order they appear, so that runs of the same round are
// compared. GB/s are 10⁹ octets per second (go test's MB/s / 1000).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// A kind is a family of benchmarks and how to tabulate it.
type kind struct {
	title string
	match func(bench string) bool
	base  string   // the baseline implementation
	ours  []string // our implementation's names: the first present counts
	// overhead selects the per-request table (ns/op and allocations, and
	// their difference) instead of the throughput table.
	overhead bool
}

var kinds = []kind{
	{
		title: "Validation",
		match: func(b string) bool { return strings.HasPrefix(b, "Validate") },
		base:  "stdlib",
		ours:  []string{"utf8guard", "sanitize"},
	},
	{
		title: "Normalization",
		match: func(b string) bool { return strings.HasPrefix(b, "NFC") || strings.HasPrefix(b, "NFD") },
		base:  "norm",
		ours:  []string{"normalize", "utf8guard"},
	},
	{
		title: "Character classes",
		match: func(b string) bool { return b == "Check" },
		base:  "validate",
		ours:  []string{"check"},
	},
	{
		title:    "Middleware",
		match:    func(b string) bool { return b == "Middleware" },
		base:     "none",
		ours:     []string{"utf8guard"},
		overhead: true,
	},
}

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchtab [file...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	out, err := benchout.ReadFiles(flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(2)
	}
	if len(out.Rows) == 0 {
		fmt.Fprintln(os.Stderr, "benchtab: no benchmark results with an impl= component")
		os.Exit(1)
	}
	write(os.Stdout, out)
}

// A table is the rows of one benchmark of one package.
type table struct {
	pkg, bench string
	rows       []*benchout.Row
}

func write(w io.Writer, out *benchout.Output) {
	fmt.Fprintf(w, "Machine: %s/%s, cpu: %s", out.Config["goos"], out.Config["goarch"], orDash(out.Config["cpu"]))
	// The configuration lines that bench/run.sh adds.
	for _, k := range []string{"nproc", "goversion", "date", "rounds"} {
		if v := out.Config[k]; v != "" {
			fmt.Fprintf(w, ", %s: %s", k, v)
		}
	}
	fmt.Fprintln(w)
	var tables []*table
	for _, r := range out.Rows {
		i := slices.IndexFunc(tables, func(t *table) bool { return t.pkg == r.Pkg && t.bench == r.Bench })
		if i < 0 {
			tables = append(tables, &table{pkg: r.Pkg, bench: r.Bench})
			i = len(tables) - 1
		}
		tables[i].rows = append(tables[i].rows, r)
	}
	for _, k := range kinds {
		for _, t := range tables {
			if !k.match(t.bench) {
				continue
			}
			fmt.Fprintf(w, "\n## %s: Benchmark%s (%s)\n\n", k.title, t.bench, shortPkg(t.pkg))
			if k.overhead {
				overheadTable(w, k, t)
			} else {
				throughputTable(w, k, t)
			}
		}
	}
	var other []string
	for _, t := range tables {
		if !slices.ContainsFunc(kinds, func(k kind) bool { return k.match(t.bench) }) {
			other = append(other, "Benchmark"+t.bench)
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(w, "\nNot tabulated: %s.\n", strings.Join(other, ", "))
	}
	if out.Skipped > 0 {
		fmt.Fprintf(w, "\nNot tabulated: %d result lines without an impl= component.\n", out.Skipped)
	}
}

// oursIn returns the first of the names of ours that impls holds, or "".
func (k kind) oursIn(impls []string) string {
	for _, o := range k.ours {
		if slices.Contains(impls, o) {
			return o
		}
	}
	return ""
}

// throughputTable prints the medians of the throughput per class and size,
// ours/base and ours/best peer.
func throughputTable(w io.Writer, k kind, t *table) {
	// The columns: every implementation, the baseline first and ours last.
	var impls []string
	for _, r := range t.rows {
		for _, im := range r.Impls {
			if !slices.Contains(impls, im) {
				impls = append(impls, im)
			}
		}
	}
	ours := k.oursIn(impls)
	var peers []string
	for _, im := range impls {
		if im != k.base && im != ours {
			peers = append(peers, im)
		}
	}
	cols := slices.Concat(keep(k.base, impls), peers, keep(ours, impls))
	keys := paramKeys(t.rows)

	runs := runCounts(t.rows)
	fmt.Fprintf(w, "GB/s, median of %s per implementation.", runs)
	if ours != "" && slices.Contains(impls, k.base) {
		fmt.Fprintf(w, " %s/%s is the speedup of %s over %s", ours, k.base, ours, k.base)
		if len(peers) > 0 {
			fmt.Fprintf(w, ", %s/peer that over the fastest of %s in that row", ours, strings.Join(peers, ", "))
		}
		fmt.Fprint(w, " (ratio of the median ns/op; above 1: ours is faster; in brackets the range of the per-round ratios).")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)

	head := slices.Clone(keys)
	align := make([]string, len(keys))
	for i := range align {
		align[i] = "---"
	}
	for _, c := range cols {
		head = append(head, c)
		align = append(align, "---:")
	}
	hasBase := ours != "" && slices.Contains(impls, k.base)
	if hasBase {
		head = append(head, ours+"/"+k.base)
		align = append(align, "---:")
	}
	if hasBase && len(peers) > 0 {
		head = append(head, ours+"/peer", "fastest peer")
		align = append(align, "---:", "---")
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))

	var allocs []string
	for _, r := range t.rows {
		cells := paramValues(r, keys)
		for _, c := range cols {
			cells = append(cells, gbps(r.Runs[c]))
			if a := benchout.Median(r.Runs[c], benchout.AllocsPerOp); a > 0 {
				allocs = append(allocs, fmt.Sprintf("%s %s: %.0f", r.Params, c, a))
			}
		}
		if hasBase {
			cells = append(cells, speedup(r.Runs[k.base], r.Runs[ours]))
		}
		if hasBase && len(peers) > 0 {
			best := ""
			for _, p := range peers {
				if len(r.Runs[p]) == 0 {
					continue
				}
				if best == "" || benchout.Median(r.Runs[p], benchout.NsPerOp) < benchout.Median(r.Runs[best], benchout.NsPerOp) {
					best = p
				}
			}
			if best == "" {
				cells = append(cells, "–", "–")
			} else {
				cells = append(cells, speedup(r.Runs[best], r.Runs[ours]), best)
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	if len(allocs) == 0 {
		fmt.Fprintln(w, "No implementation allocates (median allocs/op 0 everywhere).")
	} else {
		fmt.Fprintf(w, "Median allocs/op above 0: %s.\n", strings.Join(allocs, "; "))
	}
}

// overheadTable prints per request the medians of ns/op, B/op and
// allocs/op of the baseline and ours, and their differences.
func overheadTable(w io.Writer, k kind, t *table) {
	keys := paramKeys(t.rows)
	fmt.Fprintf(w, "Median of %s per implementation; Δ is %s minus %s: the cost per request (in brackets the range of the per-round differences of ns/op).\n\n",
		runCounts(t.rows), strings.Join(k.ours, "|"), k.base)
	head := slices.Clone(keys)
	align := make([]string, len(keys))
	for i := range align {
		align[i] = "---"
	}
	ours := k.ours[0]
	head = append(head,
		k.base+" ns/op", ours+" ns/op", "Δ ns/op",
		k.base+" B/op", ours+" B/op", "Δ B/op",
		k.base+" allocs/op", ours+" allocs/op", "Δ allocs/op")
	for range 9 {
		align = append(align, "---:")
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(head, " | "), strings.Join(align, " | "))
	for _, r := range t.rows {
		o := k.oursIn(r.Impls)
		b, n := r.Runs[k.base], r.Runs[o]
		cells := paramValues(r, keys)
		if len(b) == 0 || len(n) == 0 {
			cells = append(cells, "–", "–", "–", "–", "–", "–", "–", "–", "–")
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			continue
		}
		mb, mn := benchout.Median(b, benchout.NsPerOp), benchout.Median(n, benchout.NsPerOp)
		delta := fmt.Sprintf("%+.0f", mn-mb)
		if m := min(len(b), len(n)); m > 1 {
			lo, hi := pairwise(b, n, func(x, y benchout.Result) float64 { return y.NsPerOp - x.NsPerOp })
			delta += fmt.Sprintf(" (%+.0f…%+.0f)", lo, hi)
		}
		bb, nb := benchout.Median(b, benchout.BPerOp), benchout.Median(n, benchout.BPerOp)
		ba, na := benchout.Median(b, benchout.AllocsPerOp), benchout.Median(n, benchout.AllocsPerOp)
		cells = append(cells,
			fmt.Sprintf("%.0f", mb), fmt.Sprintf("%.0f", mn), delta,
			fmt.Sprintf("%.0f", bb), fmt.Sprintf("%.0f", nb), fmt.Sprintf("%+.0f", nb-bb),
			fmt.Sprintf("%.0f", ba), fmt.Sprintf("%.0f", na), fmt.Sprintf("%+.0f", na-ba))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// speedup returns the ratio of the medians of ns/op of base over ours,
// with the range of the pairwise ratios of the runs.
func speedup(base, ours []benchout.Result) string {
	if len(base) == 0 || len(ours) == 0 {
		return "–"
	}
	s := fmt.Sprintf("%.2f", benchout.Median(base, benchout.NsPerOp)/benchout.Median(ours, benchout.NsPerOp))
	if min(len(base), len(ours)) > 1 {
		lo, hi := pairwise(base, ours, func(b, o benchout.Result) float64 { return b.NsPerOp / o.NsPerOp })
		s += fmt.Sprintf(" (%.2f–%.2f)", lo, hi)
	}
	return s
}

// pairwise returns the least and greatest f(a[i], b[i]).
func pairwise(a, b []benchout.Result, f func(a, b benchout.Result) float64) (lo, hi float64) {
	for i := range min(len(a), len(b)) {
		v := f(a[i], b[i])
		if i == 0 || v < lo {
			lo = v
		}
		if i == 0 || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// gbps formats the median throughput of rs in GB/s with three significant
// digits or so.
func gbps(rs []benchout.Result) string {
	if len(rs) == 0 {
		return "–"
	}
	v := benchout.Median(rs, benchout.MBPerS) / 1000
	switch {
	case v == 0:
		return "–"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// paramKeys returns the parameter keys of the rows, in order.
func paramKeys(rows []*benchout.Row) []string {
	var keys []string
	for _, r := range rows {
		for kv := range strings.SplitSeq(r.Params, "/") {
			k, _, _ := strings.Cut(kv, "=")
			if k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func paramValues(r *benchout.Row, keys []string) []string {
	v := make([]string, len(keys))
	for i, k := range keys {
		v[i] = orDash(r.Param(k))
	}
	return v
}

// runCounts describes how many runs the rows have: "5 runs", "4–5 runs".
func runCounts(rows []*benchout.Row) string {
	lo, hi := benchout.RunCounts(rows)
	switch {
	case hi == 1:
		return "1 run"
	case lo == hi:
		return fmt.Sprintf("%d runs", hi)
	}
	return fmt.Sprintf("%d–%d runs", lo, hi)
}

func keep(s string, in []string) []string {
	if s != "" && slices.Contains(in, s) {
		return []string{s}
	}
	return nil
}

func shortPkg(p string) string {
	if s, ok := strings.CutPrefix(p, "github.com/utf8guard/utf8guard/"); ok {
		return s
	}
	return orDash(p)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
