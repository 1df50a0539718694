package main

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/bench/internal/benchout"
)

func TestChart(t *testing.T) {
	out, err := benchout.ReadFiles("../../internal/benchout/testdata/two-rounds.txt")
	if err != nil {
		t.Fatal(err)
	}
	c, err := build(out, "Validate", []string{"64KiB", "1KiB"}, true)
	if err != nil {
		t.Fatal(err)
	}
	// The testdata has no 64 KiB inputs: panels for 1 KiB and ascii.
	if len(c.panels) != 2 || c.panels[0].title != "Inputs of 1 KiB, by class of text" || len(c.panels[0].groups) != 1 {
		t.Errorf("panels %+v", c.panels)
	}
	if got := strings.Join(c.impls, ","); got != "stdlib,segmentio,sonic,utf8guard" {
		t.Errorf("impls %s", got)
	}
	if g := c.panels[1].groups[0]; g.label != "16 B" || g.values[3] != 3.6 {
		t.Errorf("ascii group %+v", g)
	}
	c.note = "go1.26.8 <test>"
	svg := c.svg()

	// Well-formed XML, with the texts a reader needs.
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	var texts []string
	rects := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"UTF-8 validation throughput", "stdlib", "segmentio", "sonic", "utf8guard",
		"GB/s (log scale)", "input class", "input size", "cjk", "16 B",
		"cpu: AMD EPYC 9R14 · go1.26.8 <test> · 2026-01-02", "median of 2 runs",
		"40.0", "3.60", "100", "50",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no text %q in the SVG", want)
		}
	}
	// The background, 4 legend swatches, 4 bars in each of 2 groups.
	if rects != 1+4+8 {
		t.Errorf("%d rects, want 13", rects)
	}
	if _, err := build(out, "Nothing", []string{"1KiB"}, true); err == nil {
		t.Error("no error for a benchmark that is not there")
	}
}

func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{0.1: "0.100", 0.5: "0.500", 1: "1.00", 2.14: "2.14", 20: "20.0", 57.74: "57.7", 164.2: "164", 1000: "1000"} {
		if got := number(v); got != want {
			t.Errorf("number(%v) = %q, want %q", v, got, want)
		}
	}
}
