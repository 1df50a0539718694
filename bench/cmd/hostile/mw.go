package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// maxBeyondHanded is the most a request may allocate beyond what the
// handler is handed, per octet of its body (the goal: at most 1.1 times
// the body).
const maxBeyondHanded = 1.1

// handedBPerOp selects the octets the handler was handed per request
// (BenchmarkHostileMW's handed-B/op), NaN where it was not reported.
func handedBPerOp(r benchout.Result) float64 {
	if v, ok := r.Metrics["handed-B/op"]; ok {
		return v
	}
	return math.NaN()
}

// perOctet returns impl's B/op at size per octet of its input, less
// what the handler was handed if handed is set; NaN where a figure lacks.
func (c *hcase) perOctet(size, impl string, handed bool) float64 {
	b, n := c.median(size, impl, benchout.BPerOp), c.octets(size, impl)
	if len(c.runs[size][impl]) == 0 || !(n > 0) {
		return math.NaN()
	}
	if handed {
		b -= c.median(size, impl, handedBPerOp)
	}
	return b / n
}

// beyondBenign returns what the worst input allocates at size beyond the
// benign one, per octet of input: the benign request on the same route is
// handed the same kind of body, so this is what the construction costs in
// memory.
func (c *hcase) beyondBenign(size string) float64 {
	w, b := c.median(size, "worst", benchout.BPerOp), c.median(size, "benign", benchout.BPerOp)
	n := c.octets(size, "worst")
	if len(c.runs[size]["worst"]) == 0 || len(c.runs[size]["benign"]) == 0 || !(n > 0) {
		return math.NaN()
	}
	return (w - b) / n
}

// mwMisses returns the goals a case of BenchmarkHostileMW misses: the
// time goals of misses, and where the benchmark reports handed-B/op, the
// allocation of the worst input beyond what the handler is handed, per
// body octet at the largest size.
func (c *hcase) mwMisses() []string {
	miss := c.misses()
	last := c.sizes[len(c.sizes)-1]
	if a := c.perOctet(last, "worst", true); a > maxBeyondHanded {
		miss = append(miss, fmt.Sprintf("%.2f B/op per octet beyond handed > %.1f at %s", a, maxBeyondHanded, last))
	}
	return miss
}

// writeMW prints the summary of BenchmarkHostileMW, one row per case, and
// returns the number of cases that miss a goal.
func writeMW(w io.Writer, out *benchout.Output, cases []*hcase) (failed int) {
	var sizes []string
	bounds := map[float64][]string{}
	for _, c := range cases {
		for _, s := range c.sizes {
			if !slices.Contains(sizes, s) {
				sizes = append(sizes, s)
			}
		}
		if r := "/" + c.entry; !slices.Contains(bounds[c.bound], r) {
			bounds[c.bound] = append(bounds[c.bound], r)
		}
	}
	first, last := sizes[0], sizes[len(sizes)-1]

	fmt.Fprintf(w, "# BenchmarkHostileMW, %s\n\n", orDash(out.Config["date"]))
	var routes []string
	for _, b := range slices.Sorted(maps.Keys(bounds)) {
		routes = append(routes, fmt.Sprintf("%s (bound %g)", strings.Join(bounds[b], ", "), b))
	}
	lo, hi := benchout.RunCounts(out.Rows)
	fmt.Fprintf(w, "Requests through Echo v4's ServeHTTP with the middleware, on routes %s; medians of %s of the process's CPU time per request (cpu-ns/op)", strings.Join(routes, " and "), runsText(lo, hi))
	if cmd := out.Config["command"]; cmd != "" {
		fmt.Fprintf(w, ", from `%s`", cmd)
	}
	fmt.Fprintf(w, ". The exponent is that of the worst input's time from %s to %s (goal ≤ %.1f). B/op per octet is at %s, per octet of the body (or query); beyond benign: the worst input's B/op less the benign one's; beyond handed: the worst input's B/op less handed-B/op, the octets its handler is handed (goal ≤ %.1f; the goal allows a request to allocate what its handler is handed and 1.1 octets per body octet more, so this is the figure held to it. It is negative where the handler reads the body from pooled memory lent to it, which no request allocates: such a request allocates less than it hands over). The verdict holds each case to its bound at every size, to the exponent, and to the allocation beyond handed where the run reports it.\n\n",
		first, last, maxExponent, last, maxBeyondHanded)

	fmt.Fprint(w, "| case | route | bound |")
	for i, s := range sizes {
		if i == 0 {
			fmt.Fprintf(w, " worst/benign %s |", s)
		} else {
			fmt.Fprintf(w, " %s |", s)
		}
	}
	fmt.Fprintf(w, " exponent worst %s → %s | allocs worst %s → %s | B/op per octet, benign %s | worst %s | beyond benign %s | beyond handed %s | verdict |\n",
		first, last, first, last, last, last, last, last)
	fmt.Fprint(w, "|---|---|--:|")
	for range sizes {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w, "--:|--:|--:|--:|--:|--:|---|")

	within, linear, lean, leanKnown := 0, 0, 0, 0
	for _, c := range cases {
		fmt.Fprintf(w, "| %s | /%s | %g |", c.name, c.entry, c.bound)
		for _, s := range sizes {
			fmt.Fprintf(w, " %s |", fmtRatio(c.ratio(s)))
		}
		cl := c.sizes[len(c.sizes)-1]
		beyond := c.perOctet(cl, "worst", true)
		fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |", fmtExp(c.exponent("worst")), fmtAllocs(c, "worst"),
			fmtSigned(c.perOctet(cl, "benign", false)), fmtSigned(c.perOctet(cl, "worst", false)),
			fmtSigned(c.beyondBenign(cl)), fmtSigned(beyond))
		v := verdictOf(c.mwMisses())
		if v != "ok" {
			failed++
		}
		fmt.Fprintf(w, " %s |\n", v)
		if r, _ := c.maxRatio(); r > 0 && r <= c.bound {
			within++
		}
		if e := c.exponent("worst"); !(e > maxExponent) { // as misses: no exponent, no miss
			linear++
		}
		if !math.IsNaN(beyond) {
			leanKnown++
			if beyond <= maxBeyondHanded {
				lean++
			}
		}
	}
	n := len(cases)
	fmt.Fprintf(w, "\n%d of %d cases within their bound at every size.\n", within, n)
	fmt.Fprintf(w, "%d of %d cases with a time exponent of at most %.1f.\n", linear, n, maxExponent)
	if leanKnown > 0 {
		fmt.Fprintf(w, "%d of %d cases allocating at most %.1f octets per body octet beyond what the handler is handed at %s.\n", lean, leanKnown, maxBeyondHanded, last)
	}
	fmt.Fprintf(w, "%d of %d cases meet every goal.\n", n-failed, n)

	fmt.Fprintf(w, "\nMachine: %s/%s, cpu: %s", out.Config["goos"], out.Config["goarch"], orDash(out.Config["cpu"]))
	for _, k := range []string{"nproc", "goversion", "date", "rounds"} {
		if v := out.Config[k]; v != "" {
			fmt.Fprintf(w, ", %s: %s", k, v)
		}
	}
	fmt.Fprintln(w)
	return failed
}

// fmtSigned formats an amount per octet with two decimals, "–" for none;
// an amount beyond another may be below zero.
func fmtSigned(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.Abs(v) < 0.005 {
		return "0.00"
	}
	return fmt.Sprintf("%.2f", v)
}
