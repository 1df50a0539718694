package normalize

import (
	"flag"
	"fmt"
	"testing"
	"unicode/utf8"
)

// long turns on the exhaustive sweeps: every code point through the
// scanner, the composer and the PRECIS profiles, and the property the
// scanner rests on; each test that has one says what -long adds. Without
// it, the same tests check the same properties on samples with every class
// of input (the boundaries of the safe ranges, the ends of each table row
// and class of octet, and a stride), so that go test stays fast, as
// golang.org/x/text does with its own -long flag. CI runs the sweeps (the
// flag comes after the packages: go test passes on the flags it does not
// know from there), and .ci/long every test with -long:
//
//	go test -run 'Differential|SafeSpan|BoundaryBeforeSafe' -skip 'TestComposerDifferentialRandom' ./normalize -long
var long = flag.Bool("long", false, "run the exhaustive sweeps (two minutes of CPU)")

// longTests reports whether to run the exhaustive sweeps: with -long, and
// never with -short.
func longTests() bool { return *long && !testing.Short() }

// runeParts is how many parallel subtests sweepRunes splits the code
// points into: enough that the few costly ones (the BMP and plane 1) do
// not leave one core alone at the end of a -long run.
const runeParts = 64

// sweepRunes calls check on every stride-th code point from first to
// U+10FFFF (surrogates left out), the same code points whatever the split,
// split into parallel subtests over ranges of code points, so that an
// exhaustive sweep (stride 1, with -long) takes every core. part is called
// once in each subtest, for the function that checks one code point there,
// which can keep state of its own (an Enforcer, buffers) from one code
// point to the next. A subtest stops at its first failure.
func sweepRunes(t *testing.T, first, stride rune, part func(t *testing.T) func(r rune)) {
	const span = (utf8.MaxRune + 1) / runeParts
	for lo := rune(0); lo <= utf8.MaxRune; lo += span {
		hi := lo + span - 1
		if hi < first {
			continue
		}
		t.Run(fmt.Sprintf("U+%04X", lo), func(t *testing.T) {
			t.Parallel()
			check := part(t)
			from := first
			if lo > first {
				from = first + (lo-first+stride-1)/stride*stride
			}
			for r := from; r <= hi; r += stride {
				if !utf8.ValidRune(r) {
					continue
				}
				check(r)
				if t.Failed() {
					return
				}
			}
		})
	}
}
