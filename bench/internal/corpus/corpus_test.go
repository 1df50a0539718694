package corpus

import (
	"bytes"
	"slices"
	"testing"
	"unicode/utf8"
)

// TestInputs checks that the inputs are valid, of the promised size, and
// made of the octets their class names.
func TestInputs(t *testing.T) {
	// Least share of the octets in 1-, 2-, 3- and 4-octet sequences.
	want := map[string][5]float64{
		"ascii":    {1: 1},
		"latin":    {1: 0.7, 2: 0.1},
		"cyrillic": {2: 0.7},
		"cjk":      {3: 0.8},
		"emoji":    {4: 0.6, 3: 0.05},
		"mix":      {1: 0.2, 2: 0.1, 3: 0.1, 4: 0.005},
	}
	seen := map[string]bool{}
	for _, in := range Inputs() {
		seen[in.Class+"/"+in.Size] = true
		if !utf8.Valid(in.Bytes) {
			t.Errorf("%s/%s: not valid UTF-8", in.Class, in.Size)
		}
		if SizeName(len(in.Bytes)) != in.Size {
			t.Errorf("%s/%s: %d octets", in.Class, in.Size, len(in.Bytes))
		}
		var octets [5]int
		for _, r := range string(in.Bytes) {
			octets[utf8.RuneLen(r)] += utf8.RuneLen(r)
		}
		var share [5]float64
		for n := range share {
			share[n] = float64(octets[n]) / float64(len(in.Bytes))
		}
		for n, least := range want[in.Class] {
			if share[n] < least {
				t.Errorf("%s/%s: %.2f of the octets in %d-octet sequences, want at least %.2f",
					in.Class, in.Size, share[n], n, least)
			}
		}
		t.Logf("%-8s %6s: octets in 1/2/3/4-octet sequences %.2f %.2f %.2f %.2f",
			in.Class, in.Size, share[1], share[2], share[3], share[4])
	}
	// The sizes the speed issue names.
	for _, s := range []string{"16B", "20B", "24B", "26B", "28B", "32B", "48B", "64B", "256B", "1KiB", "4KiB", "64KiB", "1MiB"} {
		if !seen["ascii/"+s] {
			t.Errorf("no ascii input of %s", s)
		}
	}
	for _, c := range Classes() {
		if !seen[c.Name+"/1KiB"] || !seen[c.Name+"/64KiB"] {
			t.Errorf("%s: no input of 1KiB or 64KiB", c.Name)
		}
		if !slices.IsSorted(c.Sizes) {
			t.Errorf("%s: sizes not ascending: %v", c.Name, c.Sizes)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := Inputs(), Inputs()
	for i := range a {
		if !bytes.Equal(a[i].Bytes, b[i].Bytes) {
			t.Errorf("%s/%s differs between calls", a[i].Class, a[i].Size)
		}
	}
	if &a[0].Bytes[0] == &b[0].Bytes[0] {
		t.Error("Inputs returns shared slices")
	}
	if !bytes.Equal(Text("mix", 1024), Text("mix", 1024)) {
		t.Error("Text is not deterministic")
	}
	c := Classes()
	c[0].Sizes[0] = -1
	if Classes()[0].Sizes[0] == -1 {
		t.Error("Classes returns shared slices")
	}
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int]string{16: "16B", 1000: "1000B", 1024: "1KiB", 1536: "1536B", 65536: "64KiB", 1 << 20: "1MiB", 3 << 20: "3MiB"} {
		if got := SizeName(n); got != want {
			t.Errorf("SizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCases checks the labels of the cases against unicode/utf8 and that
// the sequences sit where the places say.
func TestCases(t *testing.T) {
	names := map[string]bool{}
	n := 0
	for _, c := range Cases() {
		if names[c.Name] {
			t.Errorf("%s: name used twice", c.Name)
		}
		names[c.Name] = true
		if got := utf8.Valid(c.Bytes); got != c.Valid {
			t.Errorf("%s (% X): utf8.Valid = %v, the case says %v", c.Name, c.Bytes, got, c.Valid)
		}
		if !c.Valid {
			n++
		}
	}
	if n < 40*9 {
		t.Errorf("only %d invalid cases", n)
	}
	for _, s := range Seqs() {
		for _, c := range Cases() {
			if c.Name == s.Name+"@cross64" {
				i := bytes.Index(c.Bytes[40:], s.Bytes) + 40
				if len(c.Bytes) != 150 || i > 63 || i+len(s.Bytes) < 64 && len(s.Bytes) > 1 {
					t.Errorf("%s: %d octets, the sequence at %d", c.Name, len(c.Bytes), i)
				}
			}
			if c.Name == s.Name+"@end64" && (len(c.Bytes) != 64 || !bytes.HasSuffix(c.Bytes, s.Bytes)) {
				t.Errorf("%s: %d octets, % X", c.Name, len(c.Bytes), c.Bytes)
			}
		}
	}
}
