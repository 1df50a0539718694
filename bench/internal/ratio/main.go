// Command ratio reads the output of the bench package's benchmarks and
// prints, for every input, the throughput of each implementation and the
// ratio sanitize/stdlib (above 1 means sanitize is faster).
//
// Usage:
//
//	go test -run '^$' -bench Validate -benchmem -cpu=1 -count=10 ./bench/ > out.txt
//	go run ./bench/internal/ratio [-base stdlib] [-new sanitize] [-check] out.txt...
//
// Benchmarks are paired by their name without the impl=... component; the
// ratio is that of the medians of ns/op, and the range next to it is the
// spread of the ratios of the runs taken pairwise in the order they appear
// (so that runs made close together in time are compared). With -check,
// ratio exits with status 1 if a median ratio is below 1 or the new
// implementation allocates.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

func main() {
	base := flag.String("base", "stdlib", "impl `name` of the baseline")
	ours := flag.String("new", "sanitize", "impl `name` to compare with the baseline")
	check := flag.Bool("check", false, "exit 1 if a median ratio is below 1 or the new implementation allocates")
	flag.Parse()

	var rs []io.Reader
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fatal(err)
		}
		defer f.Close()
		rs = append(rs, f)
	}
	if len(rs) == 0 {
		rs = append(rs, os.Stdin)
	}
	out, err := benchout.Read(io.MultiReader(rs...))
	if err != nil {
		fatal(err)
	}

	if write(os.Stdout, out, *base, *ours) && *check {
		fmt.Fprintln(os.Stderr, "ratio: a ratio is below 1 or "+*ours+" allocates")
		os.Exit(1)
	}
}

// write prints the table of base against ours, and reports whether a
// median ratio is below 1 or ours allocates (marked "!" in the table).
func write(out io.Writer, bo *benchout.Output, base, ours string) (bad bool) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	// One column per key=value parameter, named by the keys of the first row.
	var keys []string
	if len(bo.Rows) > 0 {
		for _, kv := range strings.Split(bo.Rows[0].Params, "/") {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
	}
	fmt.Fprintf(w, "benchmark\t%s\t%s MB/s\t%s MB/s\tratio\trange\t%s allocs/op\truns\t\n",
		strings.Join(keys, "\t"), base, ours, ours)
	for _, rw := range bo.Rows {
		b, n := rw.Runs[base], rw.Runs[ours]
		if len(b) == 0 || len(n) == 0 {
			continue
		}
		ratio := benchout.Median(b, benchout.NsPerOp) / benchout.Median(n, benchout.NsPerOp)
		var pair []float64
		for i := range min(len(b), len(n)) {
			pair = append(pair, b[i].NsPerOp/n[i].NsPerOp)
		}
		var allocs float64
		for _, r := range n {
			allocs = max(allocs, r.AllocsPerOp)
		}
		mark := ""
		if ratio < 1 || allocs > 0 {
			mark, bad = " !", true
		}
		var cols []string
		for _, k := range keys {
			cols = append(cols, rw.Param(k))
		}
		fmt.Fprintf(w, "%s\t%s\t%.0f\t%.0f\t%.2f%s\t%.2f-%.2f\t%.0f\t%d\t\n",
			rw.Bench, strings.Join(cols, "\t"), benchout.Median(b, benchout.MBPerS), benchout.Median(n, benchout.MBPerS),
			ratio, mark, slices.Min(pair), slices.Max(pair), allocs, len(pair))
	}
	w.Flush()
	return bad
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "ratio:", err)
	os.Exit(2)
}
