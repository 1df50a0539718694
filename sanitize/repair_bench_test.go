package sanitize

import (
	"strings"
	"testing"
)

// hostileRepairUnits are the constructions of bench/'s ToValid rows.
var hostileRepairUnits = []struct{ name, unit string }{
	{"ff", "\xff"}, {"a-ff", "a\xff"}, {"trunc2", "\xe2\x82"}, {"trunc3", "\xf0\x9f\x98"},
	{"overlong", "\xc0\xaf"}, {"surrogate", "\xed\xa0\x80"}, {"sparse", "Latin-1 caf\xe9 "},
}

// BenchmarkToValidParts times the two passes of ToValid apart, on 16 KiB
// of each construction: the count, the writing into a buffer of the right
// size, and the whole call with its allocation.
func BenchmarkToValidParts(b *testing.B) {
	for _, c := range hostileRepairUnits {
		p := []byte(strings.Repeat(c.unit, (16<<10)/len(c.unit)))
		need := repairLenBlocks(p, 0)
		out := make([]byte, need)
		b.Run(c.name+"/count", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				need = repairLenBlocks(p, 0)
			}
		})
		b.Run(c.name+"/write", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				repairIntoBlocks(out, 0, p, 0)
			}
		})
		b.Run(c.name+"/ToValid", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				out = ToValid(p)
			}
		})
	}
}
