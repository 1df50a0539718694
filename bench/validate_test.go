package bench

import (
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/bench/internal/corpus"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Sinks keep the results alive so that the calls cannot be optimized away.
var (
	sinkBool bool
	sinkErr  error
)

// TestInputs checks that the benchmark inputs are what sanitize and
// unicode/utf8 both take for valid UTF-8 (internal/corpus checks their
// sizes and octets).
func TestInputs(t *testing.T) {
	in := inputs()
	if len(in) == 0 {
		t.Fatal("no inputs")
	}
	for _, in := range in {
		if !utf8.Valid(in.p) || sanitize.Validate(in.p) != nil || sanitize.ValidateString(in.s) != nil {
			t.Errorf("%s/%s: not valid UTF-8", in.class, in.size)
		}
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
	for _, c := range corpus.Classes() {
		b.Run("class="+c.Name, func(b *testing.B) {
			for _, in := range all {
				if in.class != c.Name {
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
