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
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

type sample struct {
	nsPerOp, mbPerS, allocs float64
}

type row struct {
	bench, params string              // "Validate", "class=latin/size=1KiB"
	runs          map[string][]sample // by impl
}

func main() {
	base := flag.String("base", "stdlib", "impl `name` of the baseline")
	ours := flag.String("new", "sanitize", "impl `name` to compare with the baseline")
	check := flag.Bool("check", false, "exit 1 if a median ratio is below 1 or the new implementation allocates")
	flag.Parse()

	var rows []*row
	byKey := map[string]*row{}
	read := func(r io.Reader) error {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			bench, params, impl, s, ok := parse(sc.Text())
			if !ok {
				continue
			}
			k := bench + "/" + params
			rw := byKey[k]
			if rw == nil {
				rw = &row{bench: bench, params: params, runs: map[string][]sample{}}
				byKey[k] = rw
				rows = append(rows, rw)
			}
			rw.runs[impl] = append(rw.runs[impl], s)
		}
		return sc.Err()
	}
	if flag.NArg() == 0 {
		if err := read(os.Stdin); err != nil {
			fatal(err)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fatal(err)
		}
		err = read(f)
		f.Close()
		if err != nil {
			fatal(err)
		}
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	// One column per key=value parameter, named by the keys of the first row.
	var keys []string
	if len(rows) > 0 {
		for _, kv := range strings.Split(rows[0].params, "/") {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
	}
	fmt.Fprintf(w, "benchmark\t%s\t%s MB/s\t%s MB/s\tratio\trange\t%s allocs/op\truns\t\n",
		strings.Join(keys, "\t"), *base, *ours, *ours)
	bad := false
	for _, rw := range rows {
		b, n := rw.runs[*base], rw.runs[*ours]
		if len(b) == 0 || len(n) == 0 {
			continue
		}
		ratio := median(b, nsPerOp) / median(n, nsPerOp)
		var pair []float64
		for i := range min(len(b), len(n)) {
			pair = append(pair, b[i].nsPerOp/n[i].nsPerOp)
		}
		allocs := slices.Max(values(n, func(s sample) float64 { return s.allocs }))
		mark := ""
		if ratio < 1 || allocs > 0 {
			mark, bad = " !", true
		}
		var cols []string
		for _, kv := range strings.Split(rw.params, "/") {
			_, v, found := strings.Cut(kv, "=")
			if !found {
				v = kv
			}
			cols = append(cols, v)
		}
		for len(cols) < len(keys) {
			cols = append(cols, "")
		}
		fmt.Fprintf(w, "%s\t%s\t%.0f\t%.0f\t%.2f%s\t%.2f-%.2f\t%.0f\t%d\t\n",
			rw.bench, strings.Join(cols, "\t"), median(b, mbPerS), median(n, mbPerS), ratio, mark,
			slices.Min(pair), slices.Max(pair), allocs, len(pair))
	}
	w.Flush()
	if *check && bad {
		fmt.Fprintln(os.Stderr, "ratio: a ratio is below 1 or "+*ours+" allocates")
		os.Exit(1)
	}
}

// parse reads one benchmark result line such as
//
//	BenchmarkValidate/class=ascii/size=64B/impl=stdlib-2  7063947  17.52 ns/op  3653.77 MB/s  0 B/op  0 allocs/op
func parse(line string) (bench, params, impl string, s sample, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return
	}
	parts := strings.Split(strings.TrimPrefix(f[0], "Benchmark"), "/")
	// Drop the -GOMAXPROCS suffix of the last component.
	last := parts[len(parts)-1]
	if i := strings.LastIndexByte(last, '-'); i > 0 {
		if _, err := strconv.Atoi(last[i+1:]); err == nil {
			parts[len(parts)-1] = last[:i]
		}
	}
	var rest []string
	for _, p := range parts[1:] {
		if v, found := strings.CutPrefix(p, "impl="); found {
			impl = v
		} else {
			rest = append(rest, p)
		}
	}
	if impl == "" {
		return
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return
		}
		switch f[i+1] {
		case "ns/op":
			s.nsPerOp = v
		case "MB/s":
			s.mbPerS = v
		case "allocs/op":
			s.allocs = v
		}
	}
	return parts[0], strings.Join(rest, "/"), impl, s, s.nsPerOp > 0
}

func nsPerOp(s sample) float64 { return s.nsPerOp }
func mbPerS(s sample) float64  { return s.mbPerS }

func values(ss []sample, f func(sample) float64) []float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return v
}

func median(ss []sample, f func(sample) float64) float64 {
	v := values(ss, f)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "ratio:", err)
	os.Exit(2)
}
