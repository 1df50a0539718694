package normalize

import (
	"flag"
	"fmt"
	"testing"
	"unicode/utf8"
)

// The sweeps run at one of four depths, each taking more of the same
// spaces than the one before, so that go test stays fast and CI still runs
// everything (as golang.org/x/text does with its own -long flag):
//
//   - -short: what the race detector can afford;
//   - the default, what a maintainer runs after every change (a couple of
//     seconds of CPU): every test, each on a sample with every class of
//     input (the boundaries of the safe ranges, the ends of each table row
//     and class of octet, and a stride), named in its comment;
//   - -sweep: the samples that CI runs on each path (-tags purego and the
//     default), several times larger: the whole conformance file and every
//     code point it does not list, strides of every code point through the
//     composer and the PRECIS profiles, every code point the scanner reads
//     by its octets (about 6 s of CPU);
//   - -long: the exhaustive sweeps, every code point through the scanner,
//     the composer and the PRECIS profiles, and the property the scanner
//     rests on (two minutes of CPU); each test that has one says what -long
//     adds.
//
// The flags come after the packages (go test passes on the flags it does
// not know from there), and only to packages that define them:
//
//	go test ./normalize -sweep
//	go test -run 'Differential|SafeSpan|BoundaryBeforeSafe' -skip 'TestComposerDifferentialRandom' ./normalize -long
var (
	sweep = flag.Bool("sweep", false, "run the sweeps that CI runs on each CPU path (6 s of CPU)")
	long  = flag.Bool("long", false, "run the exhaustive sweeps (two minutes of CPU); implies -sweep")
)

// longTests reports whether to run the exhaustive sweeps: with -long, and
// never with -short.
func longTests() bool { return *long && !testing.Short() }

// sweepTests reports whether to run the sweeps of -sweep: with -sweep or
// -long, and never with -short.
func sweepTests() bool { return (*sweep || *long) && !testing.Short() }

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
