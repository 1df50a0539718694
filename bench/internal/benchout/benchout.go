// Package benchout reads the output of go test -bench for the tools of
// bench/cmd: the result lines of benchmarks whose names carry their
// parameters as key=value components, the implementation under test as
// impl=NAME, such as
//
//	BenchmarkValidate/class=ascii/size=64B/impl=stdlib-2  7063947  17.52 ns/op  3653.77 MB/s  0 B/op  0 allocs/op
//
// and the configuration lines (goos, goarch, pkg, cpu) before them. The
// output of several runs (rounds) may be concatenated: the runs of one
// benchmark are kept in the order they appear, so that runs made close
// together in time can be compared pairwise.
package benchout

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// A Result is one result line.
type Result struct {
	Pkg    string // the package, from the last pkg: line before it
	Bench  string // the benchmark's name without "Benchmark": "Validate"
	Params string // the other components but impl, "class=ascii/size=64B"
	Impl   string // the value of the impl= component

	NsPerOp     float64
	CPUNsPerOp  float64 // the process's CPU time per op (cpu-ns/op), 0 if not reported
	MBPerS      float64 // 0 if the benchmark did not call SetBytes
	BPerOp      float64
	AllocsPerOp float64
	// Metrics holds the other metrics the benchmark reported
	// (b.ReportMetric), by unit, such as "handed-B/op"; nil if none.
	Metrics map[string]float64
}

// A Row is one benchmark (package, name and parameters) with the runs of
// each of its implementations.
type Row struct {
	Pkg, Bench, Params string
	// Impls are the implementations in the order they first appear.
	Impls []string
	// Runs are the results of each implementation in the order they
	// appear.
	Runs map[string][]Result
}

// Param returns the value of the parameter key, such as "class", or "".
func (r *Row) Param(key string) string {
	for kv := range strings.SplitSeq(r.Params, "/") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Output is what Read found in benchmark output.
type Output struct {
	// Config holds the first value of each configuration line: "goos",
	// "goarch", "cpu".
	Config map[string]string
	// Pkgs are the packages in the order they first appear.
	Pkgs []string
	// Rows are the benchmarks in the order they first appear.
	Rows []*Row
	// Skipped counts the result lines without an impl= component.
	Skipped int
}

// ReadFiles reads the benchmark output in the named files, one after the
// other, or in the standard input if there are none.
func ReadFiles(names ...string) (*Output, error) {
	if len(names) == 0 {
		return Read(os.Stdin)
	}
	var rs []io.Reader
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		rs = append(rs, f)
	}
	return Read(io.MultiReader(rs...))
}

// Read reads benchmark output.
func Read(r io.Reader) (*Output, error) {
	out := &Output{Config: map[string]string{}}
	byKey := map[[3]string]*Row{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(k, " \t") && !strings.HasPrefix(k, "Benchmark") {
			v = strings.TrimSpace(v)
			if k == "pkg" {
				pkg = v
				if !slices.Contains(out.Pkgs, v) {
					out.Pkgs = append(out.Pkgs, v)
				}
			}
			if _, seen := out.Config[k]; !seen {
				out.Config[k] = v
			}
			continue
		}
		res, ok := ParseLine(line)
		if !ok {
			if strings.HasPrefix(line, "Benchmark") && len(strings.Fields(line)) >= 4 {
				out.Skipped++
			}
			continue
		}
		res.Pkg = pkg
		k := [3]string{pkg, res.Bench, res.Params}
		row := byKey[k]
		if row == nil {
			row = &Row{Pkg: pkg, Bench: res.Bench, Params: res.Params, Runs: map[string][]Result{}}
			byKey[k] = row
			out.Rows = append(out.Rows, row)
		}
		if _, seen := row.Runs[res.Impl]; !seen {
			row.Impls = append(row.Impls, res.Impl)
		}
		row.Runs[res.Impl] = append(row.Runs[res.Impl], res)
	}
	return out, sc.Err()
}

// ParseLine parses one result line. It reports false for other lines and
// for results whose name has no impl= component or that have no ns/op.
// Pkg is left empty.
func ParseLine(line string) (Result, bool) {
	var r Result
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return r, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return r, false
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
		if v, ok := strings.CutPrefix(p, "impl="); ok {
			r.Impl = v
		} else {
			rest = append(rest, p)
		}
	}
	if r.Impl == "" {
		return r, false
	}
	r.Bench, r.Params = parts[0], strings.Join(rest, "/")
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return r, false
		}
		switch f[i+1] {
		case "ns/op":
			r.NsPerOp = v
		case "cpu-ns/op":
			r.CPUNsPerOp = v
		case "MB/s":
			r.MBPerS = v
		case "B/op":
			r.BPerOp = v
		case "allocs/op":
			r.AllocsPerOp = v
		default:
			if r.Metrics == nil {
				r.Metrics = map[string]float64{}
			}
			r.Metrics[f[i+1]] = v
		}
	}
	return r, r.NsPerOp > 0
}

// RunCounts returns the fewest and the most runs that an implementation has
// in rows (0, 0 for none).
func RunCounts(rows []*Row) (lo, hi int) {
	lo = -1
	for _, r := range rows {
		for _, rs := range r.Runs {
			if lo < 0 || len(rs) < lo {
				lo = len(rs)
			}
			hi = max(hi, len(rs))
		}
	}
	return max(lo, 0), hi
}

// Median returns the median of f over rs, or 0 if rs is empty.
func Median(rs []Result, f func(Result) float64) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// NsPerOp, MBPerS, BPerOp and AllocsPerOp select a metric, for Median.
func NsPerOp(r Result) float64 { return r.NsPerOp }

// CPUNsPerOp selects the process's CPU time per operation, or ns/op when
// the benchmark did not report it: on a shared machine, a time that
// waiting for a core does not inflate.
func CPUNsPerOp(r Result) float64 {
	if r.CPUNsPerOp > 0 {
		return r.CPUNsPerOp
	}
	return r.NsPerOp
}

// MBPerS selects the throughput in 10⁶ octets per second.
func MBPerS(r Result) float64 { return r.MBPerS }

// BPerOp selects the octets allocated per operation.
func BPerOp(r Result) float64 { return r.BPerOp }

// AllocsPerOp selects the allocations per operation.
func AllocsPerOp(r Result) float64 { return r.AllocsPerOp }
