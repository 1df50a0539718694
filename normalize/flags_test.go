package normalize

import (
	"flag"
	"testing"
)

// long turns on the exhaustive sweeps of the scanner and of the property
// it rests on, which take half a minute of CPU; each test that has one says
// what -long adds. Without it, the same tests check the same properties on
// samples with every class of input (the boundaries of the safe ranges, the
// ends of each table row and class of octet, and a stride), so that go test
// stays fast, as golang.org/x/text does with its own -long flag. CI runs
// them (the flag comes after the packages: go test passes on the flags it
// does not know from there):
//
//	go test -run 'SafeSpan|BoundaryBeforeSafe' ./normalize -long
var long = flag.Bool("long", false, "run the exhaustive sweeps (half a minute of CPU)")

// longTests reports whether to run the exhaustive sweeps: with -long, and
// never with -short.
func longTests() bool { return *long && !testing.Short() }
