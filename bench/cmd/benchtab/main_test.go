package main

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

func TestWrite(t *testing.T) {
	out, err := benchout.ReadFiles("../../internal/benchout/testdata/two-rounds.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	write(&b, out)
	got := b.String()
	t.Log("\n" + got)
	for _, want := range []string{
		"Machine: linux/amd64, cpu: AMD EPYC 9R14, goversion: go1.26.8, date: 2026-01-02\n",
		"## Validation: BenchmarkValidate (bench/peers)\n",
		"| class | size | stdlib | segmentio | sonic | utf8guard | utf8guard/stdlib | utf8guard/peer | fastest peer |\n",
		"| ascii | 16B | 1.60 | 2.00 | 1.00 | 3.60 | 2.22 (2.00–2.50) | 1.78 (1.60–2.00) | segmentio |\n",
		"| cjk | 1KiB | 1.00 | 10.0 | 20.0 | 40.0 | 40.00 (40.00–40.00) | 2.00 (2.00–2.00) | sonic |\n",
		"No implementation allocates",
		"## Normalization: BenchmarkNFCIsNormal (bench)\n",
		"| class | size | norm | normalize | normalize/norm |\n",
		"| latin-nfd | 1KiB | 1.00 | 3.00 | 2.67 (2.00–4.00) |\n",
		"Median allocs/op above 0: class=latin-nfd/size=1KiB norm: 1.\n",
		"## Middleware: BenchmarkMiddleware (bench)\n",
		"| get | 45 | 110 | +65 (+60…+70) | 0 | 16 | +16 | 0 | 1 | +1 |\n",
		"Not tabulated: 1 result lines without an impl= component.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the output", want)
		}
	}
	if i, j := strings.Index(got, "## Validation"), strings.Index(got, "## Middleware"); i < 0 || j < i {
		t.Error("the tables are not in the order validation, normalization, middleware")
	}
}
