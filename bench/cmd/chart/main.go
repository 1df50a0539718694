// Command chart reads the output of the validation benchmarks and writes an
// SVG bar chart of the median throughput of each validator: one panel of
// grouped bars per input size (by default 64 KiB and 1 KiB), a group per
// input class, and a panel of the ASCII inputs by size, on a logarithmic
// scale of GB/s (10⁹ octets per second), with the machine's CPU (the cpu:
// line of the output), the number of runs and the date in a caption.
// bench/run.sh writes the output's date as a configuration line, date:
// YYYY-MM-DD, which the caption shows unless -date is given.
//
// Usage:
//
//	chart [-o file.svg] [-bench Validate] [-sizes 64KiB,1KiB] [-ascii=true] [-date YYYY-MM-DD] [-note text] [file...]
//
// With no file it reads the standard input. bench/run.sh runs it on the
// output of bench/peers, which compares stdlib, segmentio, sonic and
// utf8guard; if the output holds the benchmark in several packages, the
// one with the most implementations is drawn.
package main

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

func main() {
	outFile := flag.String("o", "", "write the SVG to `file` instead of the standard output")
	bench := flag.String("bench", "Validate", "the benchmark `name`, without Benchmark")
	sizes := flag.String("sizes", "64KiB,1KiB", "comma-separated `sizes`, one panel of all classes each")
	ascii := flag.Bool("ascii", true, "add a panel of the ascii class at every size")
	date := flag.String("date", "", "the `date` in the caption (default: the output's date: line, or today)")
	note := flag.String("note", "", "`text` to add to the caption, such as the Go version")
	flag.Parse()

	out, err := benchout.ReadFiles(flag.Args()...)
	if err != nil {
		fatal(err)
	}
	c, err := build(out, *bench, strings.Split(*sizes, ","), *ascii)
	if err != nil {
		fatal(err)
	}
	c.date = cmp.Or(*date, c.date)
	c.note = *note
	svg := c.svg()
	if *outFile == "" {
		_, err = os.Stdout.Write(svg)
	} else {
		err = os.WriteFile(*outFile, svg, 0o644)
	}
	if err != nil {
		fatal(err)
	}
}

// build makes the chart of the benchmark's results: a panel of every
// class per size, and a panel of the ascii class by size.
func build(out *benchout.Output, bench string, sizes []string, ascii bool) (*chart, error) {
	rows := pick(out, bench)
	if len(rows) == 0 {
		return nil, fmt.Errorf("no results of Benchmark%s with an impl= component", bench)
	}
	c := &chart{
		title: "UTF-8 validation throughput",
		cpu:   out.Config["cpu"],
		date:  cmp.Or(out.Config["date"], time.Now().Format("2006-01-02")),
	}
	for _, r := range rows {
		for _, im := range r.Impls {
			if !slices.Contains(c.impls, im) {
				c.impls = append(c.impls, im)
			}
		}
	}
	c.runs = runs(rows)
	for _, s := range sizes {
		p := panel{title: "Inputs of " + spaced(s) + ", by class of text", xlabel: "input class"}
		for _, r := range rows {
			if r.Param("size") == s {
				p.groups = append(p.groups, group{r.Param("class"), values(r, c.impls)})
			}
		}
		if len(p.groups) > 0 {
			c.panels = append(c.panels, p)
		}
	}
	if ascii {
		p := panel{title: "ASCII text, by input size", xlabel: "input size"}
		for _, r := range rows {
			if r.Param("class") == "ascii" {
				p.groups = append(p.groups, group{spaced(r.Param("size")), values(r, c.impls)})
			}
		}
		if len(p.groups) > 0 {
			c.panels = append(c.panels, p)
		}
	}
	if len(c.panels) == 0 {
		return nil, fmt.Errorf("no results of sizes %s", strings.Join(sizes, ","))
	}
	return c, nil
}

// pick returns the rows of the benchmark in the package where it has the
// most implementations.
func pick(out *benchout.Output, bench string) []*benchout.Row {
	impls := map[string]map[string]bool{}
	for _, r := range out.Rows {
		if r.Bench != bench {
			continue
		}
		if impls[r.Pkg] == nil {
			impls[r.Pkg] = map[string]bool{}
		}
		for _, im := range r.Impls {
			impls[r.Pkg][im] = true
		}
	}
	best := ""
	for _, p := range out.Pkgs {
		if impls[p] != nil && (best == "" || len(impls[p]) > len(impls[best])) {
			best = p
		}
	}
	var rows []*benchout.Row
	for _, r := range out.Rows {
		if r.Bench == bench && r.Pkg == best {
			rows = append(rows, r)
		}
	}
	return rows
}

// values returns the median GB/s of each implementation, 0 where missing.
func values(r *benchout.Row, impls []string) []float64 {
	v := make([]float64, len(impls))
	for i, im := range impls {
		v[i] = benchout.Median(r.Runs[im], benchout.MBPerS) / 1000
	}
	return v
}

// runs describes the number of runs per bar: "5 runs", "4–5 runs".
func runs(rows []*benchout.Row) string {
	lo, hi := benchout.RunCounts(rows)
	switch {
	case hi == 1:
		return "1 run"
	case lo == hi:
		return fmt.Sprintf("median of %d runs", hi)
	}
	return fmt.Sprintf("median of %d–%d runs", lo, hi)
}

// spaced writes a size name with a space before its unit: "64 KiB".
func spaced(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i <= 0 {
		return s
	}
	return s[:i] + " " + s[i:]
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "chart:", err)
	os.Exit(2)
}

// A chart is a stack of panels of grouped bars sharing one legend and one
// logarithmic scale.
type chart struct {
	title, cpu, date, note, runs string
	impls                        []string // one bar per group each, in this order
	panels                       []panel
}

type panel struct {
	title, xlabel string
	groups        []group
}

type group struct {
	label  string
	values []float64 // GB/s per implementation; 0: no bar
}

// Okabe and Ito's palette, which readers with colour-blindness can tell
// apart; utf8guard and stdlib get fixed colours, the peers the others.
var (
	fixedColors = map[string]string{"stdlib": "#999999", "utf8guard": "#009E73", "sanitize": "#009E73"}
	otherColors = []string{"#0072B2", "#E69F00", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442"}
)

// Layout, in SVG user units (pixels).
const (
	width       = 1000.0
	marginLeft  = 72.0
	marginRight = 16.0
	plotHeight  = 230.0
	panelGap    = 86.0 // from the bottom of one plot to the top of the next
	topHeight   = 92.0 // title and legend
	fontFamily  = "DejaVu Sans, Helvetica, Arial, sans-serif"
)

func (c *chart) colors() []string {
	col := make([]string, len(c.impls))
	k := 0
	for i, im := range c.impls {
		if f, ok := fixedColors[im]; ok {
			col[i] = f
		} else {
			col[i] = otherColors[k%len(otherColors)]
			k++
		}
	}
	return col
}

// scale returns the decades of the logarithmic axis, lo and hi powers of
// ten that enclose every value.
func (c *chart) scale() (lo, hi float64) {
	vmin, vmax := math.Inf(1), 0.0
	for _, p := range c.panels {
		for _, g := range p.groups {
			for _, v := range g.values {
				if v > 0 {
					vmin, vmax = min(vmin, v), max(vmax, v)
				}
			}
		}
	}
	if vmax == 0 {
		return 0.1, 1
	}
	lo = math.Pow(10, math.Floor(math.Log10(vmin)))
	hi = math.Pow(10, math.Ceil(math.Log10(vmax)))
	if hi <= lo {
		hi = lo * 10
	}
	return lo, hi
}

func (c *chart) svg() []byte {
	var b bytes.Buffer
	height := topHeight + float64(len(c.panels))*(plotHeight+panelGap) + 24
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="%s">`+"\n",
		width, height, width, height, fontFamily)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(c.title))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="30" font-size="20" font-weight="bold" text-anchor="middle">%s</text>`+"\n",
		width/2, esc(c.title))
	fmt.Fprintf(&b, `<text x="%.0f" y="50" font-size="12" fill="#444444" text-anchor="middle">%s</text>`+"\n",
		width/2, esc("GB/s (10⁹ octets per second, "+c.runs+"), logarithmic scale; higher is better"))

	// The legend, centred under the title.
	colors := c.colors()
	const swatch, gap = 14.0, 26.0
	legendW := 0.0
	for _, im := range c.impls {
		legendW += swatch + 6 + textWidth(im, 13) + gap
	}
	x := (width - legendW + gap) / 2
	for i, im := range c.impls {
		fmt.Fprintf(&b, `<rect x="%.1f" y="62" width="%.0f" height="%.0f" fill="%s"/>`, x, swatch, swatch, colors[i])
		fmt.Fprintf(&b, `<text x="%.1f" y="74" font-size="13">%s</text>`+"\n", x+swatch+6, esc(im))
		x += swatch + 6 + textWidth(im, 13) + gap
	}

	lo, hi := c.scale()
	for i, p := range c.panels {
		top := topHeight + float64(i)*(plotHeight+panelGap) + 26
		c.panel(&b, p, top, lo, hi, colors)
	}

	caption := "cpu: " + orDash(c.cpu)
	if c.note != "" {
		caption += " · " + c.note
	}
	caption += " · " + c.date
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="12" fill="#444444" text-anchor="middle">%s</text>`+"\n",
		width/2, height-12, esc(caption))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// panel draws one panel whose plot area starts at y = top.
func (c *chart) panel(b *bytes.Buffer, p panel, top, lo, hi float64, colors []string) {
	left, right, bottom := marginLeft, width-marginRight, top+plotHeight
	y := func(v float64) float64 {
		return bottom - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotHeight
	}
	fmt.Fprintf(b, "<g>\n")
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" font-size="15" font-weight="bold">%s</text>`+"\n", left, top-10, esc(p.title))

	// Grid and ticks at 1, 2 and 5 times each power of ten.
	for d := lo; d < hi*1.001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v > hi*1.001 {
				break
			}
			stroke, dash := "#dddddd", ` stroke-dasharray="3,3"`
			if m == 1 {
				stroke, dash = "#bbbbbb", ""
			}
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"%s/>`+"\n", left, y(v), right, y(v), stroke, dash)
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end" fill="#333333">%s</text>`+"\n",
				left-6, y(v)+4, strconv.FormatFloat(v, 'g', 4, 64))
		}
	}
	fmt.Fprintf(b, `<text transform="translate(%.0f,%.1f) rotate(-90)" font-size="12" text-anchor="middle">GB/s (log scale)</text>`+"\n",
		left-48, top+plotHeight/2)

	// The bars.
	n := float64(len(c.impls))
	gw := (right - left) / float64(len(p.groups))
	bw := gw * 0.84 / n
	for gi, g := range p.groups {
		x0 := left + float64(gi)*gw + gw*0.08
		for i, v := range g.values {
			if v <= 0 {
				continue
			}
			x := x0 + float64(i)*bw
			yt := y(max(v, lo))
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
				x+0.5, yt, bw-1, bottom-yt, colors[i], esc(fmt.Sprintf("%s, %s: %s GB/s", g.label, c.impls[i], number(v))))
			label := number(v)
			if textWidth(label, 10) <= bw+2 {
				fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#222222">%s</text>`+"\n",
					x+bw/2, yt-3, label)
			} else {
				fmt.Fprintf(b, `<text transform="translate(%.1f,%.1f) rotate(-90)" font-size="10" fill="#222222">%s</text>`+"\n",
					x+bw/2+3.5, yt-3, label)
			}
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle">%s</text>`+"\n",
			left+float64(gi)*gw+gw/2, bottom+17, esc(g.label))
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333333"/>`+"\n", left, bottom, right, bottom)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333333"/>`+"\n", left, top, left, bottom)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle" fill="#333333">%s</text>`+"\n",
		(left+right)/2, bottom+36, esc(p.xlabel))
	fmt.Fprintf(b, "</g>\n")
}

// number formats a throughput with three significant digits or so, as
// cmd/benchtab does.
func number(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// textWidth estimates the width of s at the font size.
func textWidth(s string, size float64) float64 {
	return float64(len([]rune(s))) * size * 0.6
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
