package sanitize

import (
	"runtime"
	"strings"
	"testing"
)

// FuzzToValidBudget fails when one call of ToValid costs more than a
// budget linear in its input, in deterministic counts rather than time:
// the SIMD validator is called at most once per 16 octets of input per
// pass (ToValid counts the result, then writes it) and never re-reads
// what it has covered, and the call allocates at most once, the result,
// and at most a quarter more than it holds (the allocator's size classes;
// one validator call
// per error and growth by append cost 400-3000x the valid case and 12 MB
// per MiB).
func FuzzToValidBudget(f *testing.F) {
	for _, s := range []string{
		strings.Repeat("\xff", 300), strings.Repeat("a\xff", 200), strings.Repeat("\xe2\x82", 200),
		strings.Repeat("\xf0\x9f\x98", 100), strings.Repeat("\xc0\xaf", 150), strings.Repeat("\xed\xa0\x80", 100),
		strings.Repeat("Latin-1 caf\xe9 ", 30), strings.Repeat("x", 1000) + "\xff", strings.Repeat("\u00e9\xff", 100),
		strings.Repeat("0123456789abcdef\xff", 40),
	} {
		f.Add([]byte(s))
	}
	for _, tc := range repairCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		calls, covered := 0, 0
		testHookValidPrefix = func(k int) { calls++; covered += k }
		defer func() { testHookValidPrefix = nil }()
		q := ToValid(p)
		if limit := 2 * (len(p)/16 + 1); calls > limit {
			t.Errorf("ToValid(%+q): %d calls of the validator, budget %d", p, calls, limit)
		}
		if covered > 2*len(p) {
			t.Errorf("ToValid(%+q): the validator covered %d octets, budget %d", p, covered, 2*len(p))
		}
		if raceEnabled {
			return
		}
		testHookValidPrefix = nil
		m, b := allocCounts(func() { q = ToValid(p) })
		if m > 1 {
			t.Errorf("ToValid(%+q): %d allocations", p, m)
		}
		// The allocator rounds up to its size classes, by up to a
		// fifth of the request (4104 octets take 4864).
		if limit := uint64(len(q) + len(q)/4 + 64); b > limit {
			t.Errorf("ToValid(%+q): %d octets allocated for a result of %d, budget %d", p, b, len(q), limit)
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
