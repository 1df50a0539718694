package sanitize

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostilePieces are the fragments that TestHostileLong strings together:
// characters that start like refused ones (U+200D like U+200E, U+2014 like
// U+202A), refused ones, and ill-formed sequences of every kind, so that
// long inputs reach the SIMD paths of CheckClasses and ToValid with errors
// and flagged characters in every position of a block.
var hostilePieces = []string{
	"a", "bc", "\t", "\x00", "\x01", "\x7f", "é", "\u0085", "\u061b", "\u061c",
	"\u200d", "\u200e", "\u2014", "\u202a", "\u2060", "\u2066", "\ufeff", "\ufdd0",
	"\ue000", "日本", "\U0001F600", "\U000E0001", "\U0010FFFF",
	"\xff", "\x80", "\xc0\xaf", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98", "\xf4\x90\x80\x80",
}

// hostileString returns a pseudo-random string of about n octets made of
// pieces, with ill-formed ones only when bad.
func hostileString(r *rand.Rand, n int, bad bool) []byte {
	var b strings.Builder
	for b.Len() < n {
		p := hostilePieces[r.IntN(len(hostilePieces))]
		if !bad && !utf8.ValidString(p) {
			continue
		}
		// Long runs of one piece, as the hostile constructions have.
		for k := r.IntN(40); k >= 0; k-- {
			b.WriteString(p)
		}
	}
	return []byte(b.String())
}

// TestHostileLong checks CheckClasses, Check and ToValid, and each fused
// kernel run directly, against the reference on long inputs dense in
// flagged characters and errors.
//
// With -sweep, 3,000 inputs (0.15 s of CPU); by default the first 600 of
// them, with -short 300.
func TestHostileLong(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	sets := []Class{NUL | C0 | C1 | Bidi, NUL | C0 | TabNewline | C1 | Bidi | BOM, Bidi, DefaultIgnorable, AllClasses, PrivateUse | Noncharacter}
	iters := 600
	switch {
	case sweepTests():
		iters = 3000
	case testing.Short():
		iters = 300
	}
	for it := range iters {
		p := hostileString(r, 40+r.IntN(600), it%2 == 0)
		for _, c := range sets {
			if got, ok := asError(CheckClasses(p, c)); !ok || got != refCheckClasses(p, c) {
				t.Fatalf("CheckClasses(%+q, %v) = %+v, reference says %+v", p, c, got, refCheckClasses(p, c))
			}
			if got, ok := asError(CheckClassesString(string(p), c)); !ok || got != refCheckClasses(p, c) {
				t.Fatalf("CheckClassesString(%+q, %v) = %+v, reference says %+v", p, c, got, refCheckClasses(p, c))
			}
			if got, ok := asError(Check(p, c)); !ok || got != refCheck(p, c) {
				t.Fatalf("Check(%+q, %v) = %+v, reference says %+v", p, c, got, refCheck(p, c))
			}
			if msg := fusedKernelsAgree(p, c); msg != "" {
				t.Fatal(msg)
			}
		}
		want := refRepair(p)
		if got := ToValid(p); string(got) != string(want) {
			t.Fatalf("ToValid(%+q) = %+q, reference says %+q", p, got, want)
		}
		if got := ToValidString(string(p)); got != string(want) {
			t.Fatalf("ToValidString(%+q) = %+q, reference says %+q", p, got, want)
		}
		if got := AppendValid([]byte("x"), p); string(got) != "x"+string(want) {
			t.Fatalf("AppendValid(%+q) = %+q, reference says %+q", p, got, want)
		}
	}
}

// TestToValidAllocs checks what ToValid allocates: the result, once,
// whether the errors are sparse or dense.
func TestToValidAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	// The first collection of the process starts its mark workers, which
	// allocates: let it happen before the counts.
	runtime.GC()
	for _, unit := range []string{"\xff", "a\xff", "\xe2\x82", "\xed\xa0\x80", "Latin-1 caf\xe9 ", strings.Repeat("x", 1000) + "\xff"} {
		p := []byte(strings.Repeat(unit, (64<<10)/len(unit)))
		var out []byte
		allocs := testing.AllocsPerRun(5, func() { out = ToValid(p) })
		if allocs > 1 {
			t.Errorf("%+q: %v allocations", unit, allocs)
		}
		ps := string(p)
		var outs string
		if allocs := testing.AllocsPerRun(5, func() { outs = ToValidString(ps) }); allocs > 1 || outs != string(ToValid(p)) {
			t.Errorf("%+q: ToValidString: %v allocations, or not ToValid's result", unit, allocs)
		}
		// Beyond the result: the room for a character, and the
		// rounding up of the allocator's size classes.
		b := allocBytes(func() { out = ToValid(p) })
		if extra := b - uint64(len(out)); extra > uint64(len(out)/8+64) {
			t.Errorf("%+q: %d octets allocated for %d out of %d in", unit, b, len(out), len(p))
		}
	}
}

// allocBytes returns the octets f allocates, from the runtime's count.
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
