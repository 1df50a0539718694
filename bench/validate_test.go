package bench

import (
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// Sinks keep the results alive so that the calls cannot be optimized away.
var (
	sinkBool bool
	sinkErr  error
)

type input struct {
	class, size string
	p           []byte
	s           string
}

// inputs returns every benchmark input, in the order of classes.
func inputs() []input {
	var in []input
	for _, c := range classes {
		for _, n := range c.sizes {
			p := text(c.name, c.scripts, n)
			in = append(in, input{c.name, sizeName(n), p, string(p)})
		}
	}
	return in
}

// TestInputs checks that the benchmark inputs are valid, of the promised
// size, and made of the octets their class names.
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
	for _, in := range inputs() {
		if !utf8.Valid(in.p) || sanitize.Validate(in.p) != nil {
			t.Errorf("%s/%s: not valid UTF-8", in.class, in.size)
		}
		if sizeName(len(in.p)) != in.size {
			t.Errorf("%s/%s: %d octets", in.class, in.size, len(in.p))
		}
		var share [5]float64
		for _, r := range in.s {
			n := utf8.RuneLen(r)
			share[n] += float64(n) / float64(len(in.p))
		}
		for n, min := range want[in.class] {
			if share[n] < min {
				t.Errorf("%s/%s: %.2f of the octets in %d-octet sequences, want at least %.2f",
					in.class, in.size, share[n], n, min)
			}
		}
		t.Logf("%-8s %6s: octets in 1/2/3/4-octet sequences %.2f %.2f %.2f %.2f",
			in.class, in.size, share[1], share[2], share[3], share[4])
	}
	if a, b := text("mix", classes[5].scripts, 1024), text("mix", classes[5].scripts, 1024); string(a) != string(b) {
		t.Error("text is not deterministic")
	}
}

// BenchmarkValidate compares sanitize.Validate with utf8.Valid.
func BenchmarkValidate(b *testing.B) {
	bench(b, func(b *testing.B, in input) {
		for b.Loop() {
			sinkBool = utf8.Valid(in.p)
		}
	}, func(b *testing.B, in input) {
		for b.Loop() {
			sinkErr = sanitize.Validate(in.p)
		}
	})
}

// BenchmarkValidateString compares sanitize.ValidateString with
// utf8.ValidString.
func BenchmarkValidateString(b *testing.B) {
	bench(b, func(b *testing.B, in input) {
		for b.Loop() {
			sinkBool = utf8.ValidString(in.s)
		}
	}, func(b *testing.B, in input) {
		for b.Loop() {
			sinkErr = sanitize.ValidateString(in.s)
		}
	})
}

// bench runs stdlib and ours on every input, one right after the other.
func bench(b *testing.B, stdlib, ours func(*testing.B, input)) {
	all := inputs()
	for _, c := range classes {
		b.Run("class="+c.name, func(b *testing.B) {
			for _, in := range all {
				if in.class != c.name {
					continue
				}
				b.Run("size="+in.size, func(b *testing.B) {
					for _, impl := range []struct {
						name string
						f    func(*testing.B, input)
					}{{"stdlib", stdlib}, {"sanitize", ours}} {
						b.Run("impl="+impl.name, func(b *testing.B) {
							b.SetBytes(int64(len(in.p)))
							b.ReportAllocs()
							impl.f(b, in)
						})
					}
				})
			}
		})
	}
}
