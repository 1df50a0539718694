package sanitize

import (
	"flag"
	"testing"
)

// The sweeps run at one of four depths, each taking more of the same
// spaces than the one before, so that go test stays fast and CI still runs
// everything (as golang.org/x/text does with its own -long flag):
//
//   - -short: what the race detector and qemu can afford;
//   - the default, what a maintainer runs after every change (a few seconds
//     of CPU): every test, each on a sample with every class of input,
//     named in its comment;
//   - -sweep: the sweeps that prove each kernel against the portable code
//     and the references, which CI runs on each path (-tags purego,
//     GODEBUG=cpu.avx512f=off and the default): every sequence of 1 and 2
//     octets, every 3-octet sequence, sampleSeqs of 4, the E0-EF and F0-F4
//     sequences at the blocks' boundaries, each at every offset and under
//     every set of classes (about 15 s of CPU);
//   - -long: the exhaustive sweeps, which take minutes of CPU; each test
//     that has one says what -long adds.
//
// The flags come after the packages (go test passes on the flags it does
// not know from there), and only to packages that define them:
//
//	go test ./sanitize -sweep
//	go test -run 'Exhaustive|Differential|RepairEdges' ./sanitize -long
var (
	sweep = flag.Bool("sweep", false, "run the sweeps that CI runs on each CPU path (15 s of CPU)")
	long  = flag.Bool("long", false, "run the exhaustive sweeps (minutes of CPU); implies -sweep")
)

// longTests reports whether to run the exhaustive sweeps: with -long, and
// never with -short.
func longTests() bool { return *long && !testing.Short() }

// sweepTests reports whether to run the sweeps of -sweep: with -sweep or
// -long, and never with -short.
func sweepTests() bool { return (*sweep || *long) && !testing.Short() }
