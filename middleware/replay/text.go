package replay

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText writes the report as aligned text, for people: a summary,
// then one table per list of groups (refused, flagged, and with Against
// the two differences), each row followed by its example.
func (rep *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	files := "files"
	if len(rep.Files) == 1 {
		files = "file"
	}
	fmt.Fprintf(bw, "policy %s: %d requests replayed from %d %s, %d unreadable\n",
		rep.Policy, rep.Requests, len(rep.Files), files, rep.Unreadable)
	for _, e := range rep.Errors {
		fmt.Fprintf(bw, "  %s\n", e)
	}
	if n := rep.Unreadable - len(rep.Errors); n > 0 {
		fmt.Fprintf(bw, "  (%d more)\n", n)
	}
	writeGroups(bw, "refused (enforce)", rep.Refused)
	writeGroups(bw, "flagged (monitor)", rep.Flagged)
	if rep.Against != "" {
		fmt.Fprintf(bw, "\nagainst %s: %d refused there, %d here\n", rep.Against, rep.AgainstRefused, total(rep.Refused))
		writeGroups(bw, "refused by "+rep.Policy+", not by "+rep.Against, rep.NewlyRefused)
		writeGroups(bw, "refused by "+rep.Against+", not by "+rep.Policy, rep.NoLongerRefused)
	}
	return bw.Flush()
}

// total is the number of requests in gs.
func total(gs []Group) int {
	n := 0
	for _, g := range gs {
		n += g.Count
	}
	return n
}

// writeGroups writes one table of groups under its title.
func writeGroups(w io.Writer, title string, gs []Group) {
	fmt.Fprintf(w, "\n%s: %d\n", title, total(gs))
	if len(gs) == 0 {
		return
	}
	rows := [][]string{{"count", "route", "location", "reason", "class"}}
	for _, g := range gs {
		class := g.Class
		if class == "" {
			class = "-"
		}
		route := g.Route
		if route == "" {
			route = `""`
		}
		rows = append(rows, []string{strconv.Itoa(g.Count), route, g.Location, g.Reason, class})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(row []string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range row {
			if i == 0 {
				b.WriteString(strings.Repeat(" ", width[0]-len(c)) + c) // counts align right
			} else {
				b.WriteString("  " + c)
				if i < len(row)-1 {
					b.WriteString(strings.Repeat(" ", width[i]-len(c)))
				}
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(rows[0])
	indent := strings.Repeat(" ", 2+width[0]+2)
	for i, g := range gs {
		line(rows[i+1])
		ex := g.Example
		fmt.Fprintf(w, "%se.g. %s %s -> %d, field \"%s\", offset %d, sample \"%s\"\n", indent, ex.Method, ex.URL, ex.Status, ex.Field, ex.Offset, ex.Sample)
		fmt.Fprintf(w, "%s     (%s)\n", indent, ex.Source)
	}
}
