package bench

import (
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// BenchmarkCheck measures what a policy's character classes cost on top of
// validation: sanitize.Validate (impl=validate) against sanitize.Check with
// the classes the strict preset refuses in bodies (impl=check: NUL, C0, C1
// and the bidi controls), on the inputs of 1 KiB and more (text with line breaks, which
// the strict preset allows in bodies):
//
//	BenchmarkCheck/class=latin/size=64KiB/impl=validate
//	BenchmarkCheck/class=latin/size=64KiB/impl=check
func BenchmarkCheck(b *testing.B) {
	strict := rules.Strict()
	impls := []struct {
		name string
		run  func(p []byte) error
	}{
		{"validate", sanitize.Validate},
		{"check", func(p []byte) error { return sanitize.Check(p, strict.JSON.Forbid) }},
	}
	for _, in := range inputs() {
		if len(in.p) < 1024 {
			continue
		}
		for _, impl := range impls {
			if err := impl.run(in.p); err != nil {
				b.Fatalf("%s/%s: %v", in.class, in.size, err)
			}
			b.Run("class="+in.class+"/size="+in.size+"/impl="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.p)))
				b.ReportAllocs()
				for b.Loop() {
					sinkErr = impl.run(in.p)
				}
			})
		}
	}
}
