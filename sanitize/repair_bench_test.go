package sanitize

import (
	"bytes"
	"math/rand/v2"
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
// size, and the whole call with its allocation. Beside ns/op it reports
// cpu-ns/op, the process's CPU time per call, which waiting for a core on
// a shared machine does not inflate.
func BenchmarkToValidParts(b *testing.B) {
	for _, c := range hostileRepairUnits {
		p := []byte(strings.Repeat(c.unit, (16<<10)/len(c.unit)))
		need, _, _ := repairLenBlocks(p, 0)
		out := make([]byte, need)
		b.Run(c.name+"/count", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			start := processCPU()
			for b.Loop() {
				need, _, _ = repairLenBlocks(p, 0)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/write", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			start := processCPU()
			for b.Loop() {
				repairIntoBlocks(out, 0, p, 0)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
		b.Run(c.name+"/ToValid", func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			start := processCPU()
			for b.Loop() {
				out = ToValid(p)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// runsText is mixed-script text: Latin, Greek, Cyrillic, CJK, emoji.
const runsText = "The quick brown fox, ή γρήγορη αλεπού, быстрая лиса, 敏捷的狐狸 🦊 jumps. "

// runsInput returns n octets: runs of run octets of runsText (cut at any
// octet), each followed by the octet FF; run >= n gives one FF then n-1
// octets of text.
func runsInput(run, n int) []byte {
	text := strings.Repeat(runsText, min(run, n)/len(runsText)+1)
	if run >= n {
		return []byte("\xff" + text[:n-1])
	}
	var b []byte
	for len(b) < n {
		b = append(b, text[:run]...)
		b = append(b, 0xff)
	}
	return b[:n]
}

// BenchmarkToValidRuns times ToValid where valid runs follow errors: one
// error then all valid text (the kernels hand the run to the validator),
// runs of validRun (8) blocks or so between errors (the kernels hand over
// and take back as often as an attacker can make them; run=340 is the
// worst for a validRun of 4, run=564 for 8), and valid text alone for
// scale. Beside ns/op it reports cpu-ns/op, the process's CPU time per
// call.
func BenchmarkToValidRuns(b *testing.B) {
	for _, c := range []struct {
		name   string
		run, n int
	}{
		{"valid/n=16K", 0, 16 << 10}, {"valid/n=64K", 0, 64 << 10},
		{"early-error/n=16K", 16 << 10, 16 << 10}, {"early-error/n=64K", 64 << 10, 64 << 10},
		{"alternate/run=100", 100, 16 << 10}, {"alternate/run=224", 224, 16 << 10},
		{"alternate/run=230", 230, 16 << 10}, {"alternate/run=250", 250, 16 << 10},
		{"alternate/run=280", 280, 16 << 10}, {"alternate/run=340", 340, 16 << 10},
		{"alternate/run=400", 400, 16 << 10}, {"alternate/run=520", 520, 16 << 10},
		{"alternate/run=564", 564, 16 << 10}, {"alternate/run=620", 620, 16 << 10},
		{"alternate/run=1000", 1000, 16 << 10},
	} {
		p := runsInput(c.run, c.n)
		if c.run == 0 {
			p = runsInput(c.n+1, c.n+1)[1:]
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			var out []byte
			start := processCPU()
			for b.Loop() {
				out = ToValid(p)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
			_ = out
		})
	}
}

// BenchmarkToValidBlockMix times ToValid on 16 KiB of two constructions
// in pseudo-random chunks of 28 octets, half a block: on amd64 the
// kernels take one path for a window in which no lead admits the octet
// after it (FF, "a" FF) and another for the rest (E2 82), and a mix that
// the branch predictor cannot learn makes them pay a misprediction per
// block or so. It should cost about what the dearer construction alone
// costs (BenchmarkToValidParts); it reports cpu-ns/op.
func BenchmarkToValidBlockMix(b *testing.B) {
	for _, mix := range []struct{ name, a, b string }{
		{"ff+e282", "\xff", "\xe2\x82"}, {"a-ff+e282", "a\xff", "\xe2\x82"}, {"ff+a-ff", "\xff", "a\xff"},
	} {
		r := rand.New(rand.NewPCG(14, 18))
		var p []byte
		for len(p) < 16<<10 {
			u := mix.a
			if r.IntN(2) == 0 {
				u = mix.b
			}
			p = append(p, strings.Repeat(u, 28/len(u)+1)[:28]...)
		}
		p = p[:16<<10]
		b.Run(mix.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			var out []byte
			start := processCPU()
			for b.Loop() {
				out = ToValid(p)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
			_ = out
		})
	}
}

// BenchmarkToValidFill times ToValid on 16 KiB of FF with one "a" placed
// where it decides how much of the result repair fills with U+FFFD rather
// than writes block by block (replaceAll): nowhere (all filled), at the
// end (filled up to its block), a quarter in (filled, then three quarters
// written) and second (all written, as before the fill). It reports
// cpu-ns/op.
func BenchmarkToValidFill(b *testing.B) {
	const n = 16 << 10
	for _, c := range []struct {
		name string
		at   int
	}{{"none", -1}, {"end", n - 1}, {"quarter", n / 4}, {"second", 1}} {
		p := bytes.Repeat([]byte{0xff}, n)
		if c.at >= 0 {
			p[c.at] = 'a'
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			var out []byte
			start := processCPU()
			for b.Loop() {
				out = ToValid(p)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
			_ = out
		})
	}
}
