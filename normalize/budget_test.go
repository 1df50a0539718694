package normalize

import (
	"runtime"
	"strings"
	"testing"
)

// The work budget of one call, in octets looked at by the scanner and the
// normalizer (testHookWork) and in allocations: linear in the input, with
// a constant term, whatever the input.
const (
	budgetPerOctet = 12  // passes over an octet: scan, merge, quick check, normalize, for IsNormal then Bytes
	budgetConst    = 512 // the mergeGap look-ahead and the first regions
	// A rewrite allocates its result, which can be 11 times as long as its
	// input (U+FDFA in NFKC), with the slack of one extrapolation.
	allocPerOctet = 26
	allocConst    = 8 << 10
	maxMallocs    = 4
)

// budgetSeeds are the hostile constructions and the worst found since.
var budgetSeeds = []string{
	strings.Repeat("q\u0301", 200),
	strings.Repeat("e\u0301", 200),
	"a" + strings.Repeat("\u0301", 400),
	strings.Repeat("q\u0323\u0302", 100),
	strings.Repeat("q\u0302\u0323", 100),
	"q" + strings.Repeat(strings.Repeat("\u0301", 30)+"\u034f", 10),
	strings.Repeat("\u1100\u1161", 100),
	strings.Repeat("\uac00\u11a8 ", 100),
	strings.Repeat("\ufdfa", 100),
	strings.Repeat("\uff9e", 100),
	strings.Repeat("\u00e9\u0323", 100),
	strings.Repeat("cafe\u0301 ", 50) + "\xff" + strings.Repeat("a\u0308", 50),
	strings.Repeat("\u0f73\u0f75", 60),
	// Stretches that each expand, far apart: the buffer must grow with
	// the whole output, not stretch by stretch.
	strings.Repeat("\ufdfa"+strings.Repeat("x", 64), 40),
}

// FuzzNormalizeBudget fails when one call of IsNormal, Bytes or Append, for
// NFC or NFKC, looks at more than budgetPerOctet times the octets of its
// input plus budgetConst, or allocates more than maxMallocs times or more
// than allocPerOctet octets per octet plus allocConst. The counts are
// deterministic: octets counted by a test hook, and the runtime's count of
// allocations, not time.
func FuzzNormalizeBudget(f *testing.F) {
	for _, s := range budgetSeeds {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		work := 0
		testHookWork = func(n int) { work += n }
		defer func() { testHookWork = nil }()
		for _, fm := range []Form{NFC, NFKC} {
			for _, call := range []struct {
				name string
				f    func()
			}{
				{"IsNormal", func() { fm.IsNormal(p) }},
				{"Bytes", func() { fm.Bytes(p) }},
				{"Append", func() { fm.Append(nil, p) }},
			} {
				work = 0
				theComposer() // built once, outside the count
				call.f()
				if len(p) > 0 && p[0] < 0x80 && work == 0 {
					t.Fatalf("%s.%s(%+q): the hook counted nothing", fm.Name(), call.name, p)
				}
				if limit := budgetPerOctet*len(p) + budgetConst; work > limit {
					t.Errorf("%s.%s(%+q): %d octets of work, budget %d", fm.Name(), call.name, p, work, limit)
				}
				if raceEnabled {
					continue
				}
				m, b := allocCounts(call.f)
				if m > maxMallocs {
					t.Errorf("%s.%s(%+q): %d allocations", fm.Name(), call.name, p, m)
				}
				if limit := uint64(allocPerOctet*len(p) + allocConst); b > limit {
					t.Errorf("%s.%s(%+q): %d octets allocated, budget %d", fm.Name(), call.name, p, b, limit)
				}
			}
		}
	})
}

// allocCounts returns the allocations and the octets allocated by f: the
// least of three runs, since the runtime counts those of every goroutine
// (the fuzzing engine's too), which can only add.
func allocCounts(f func()) (mallocs, octets uint64) {
	for k := range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		m, b := after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
		if k == 0 || m < mallocs {
			mallocs = m
		}
		if k == 0 || b < octets {
			octets = b
		}
	}
	return mallocs, octets
}
