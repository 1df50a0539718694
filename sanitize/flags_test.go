package sanitize

import (
	"flag"
	"testing"
)

// long turns on the exhaustive sweeps, which take minutes of CPU; each test
// that has one says what -long adds. Without it, the same tests check the
// same properties on a sample with every class of input (sampleSeqs, and
// strides of lengths and offsets), so that go test stays fast, as
// golang.org/x/text does with its own -long flag. CI runs them (the flag
// comes after the packages: go test passes on the flags it does not know
// from there), and .ci/long every test with -long:
//
//	go test -run 'Exhaustive|Differential|RepairEdges' ./sanitize -long
var long = flag.Bool("long", false, "run the exhaustive sweeps (minutes of CPU)")

// longTests reports whether to run the exhaustive sweeps: with -long, and
// never with -short.
func longTests() bool { return *long && !testing.Short() }
