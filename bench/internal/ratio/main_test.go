package main

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

// TestWrite checks the table and the verdict on two rounds of output:
// the ratio of the medians of ns/op, the range of the paired ratios, and
// bad when the new implementation is slower.
func TestWrite(t *testing.T) {
	out, err := benchout.ReadFiles("../benchout/testdata/two-rounds.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if bad := write(&b, out, "stdlib", "utf8guard"); bad {
		t.Errorf("utf8guard against stdlib: bad, want not:\n%s", b.String())
	}
	got := b.String()
	t.Log("\n" + got)
	for _, want := range []string{
		"class  size  stdlib MB/s  utf8guard MB/s  ratio",
		"Validate  ascii   16B  1600  3600   2.22  2.00-2.50  0  2",
		"Validate    cjk  1KiB  1000  40000  40.00  40.00-40.00  0  2",
	} {
		if !strings.Contains(strings.Join(strings.Fields(got), "  "), strings.Join(strings.Fields(want), "  ")) {
			t.Errorf("table lacks %q", want)
		}
	}
	b.Reset()
	if bad := write(&b, out, "sonic", "stdlib"); !bad {
		t.Errorf("stdlib against sonic (slower on cjk): not bad:\n%s", b.String())
	}
}
