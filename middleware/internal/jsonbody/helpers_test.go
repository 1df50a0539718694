package jsonbody

import (
	"flag"
	"fmt"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// describe is a rejection in a line, for test failures.
func describe(rj *finding.Rejection) string {
	if rj == nil {
		return "accepted"
	}
	return fmt.Sprintf("%v at %d class %v field %q", rj.Reason, rj.Offset, rj.Class, rj.Field)
}

// canonForms are the normalization forms a route can canonicalize to.
var canonForms = []normalize.Form{normalize.NFC, normalize.NFKC}

// canonPolicy is the strict preset with normalization n and the edits.
func canonPolicy(n normalize.Form, edits ...func(p *rules.Policy)) rules.Policy {
	p := rules.Strict()
	p.Normalization = n
	for _, e := range edits {
		e(&p)
	}
	return p
}

// The randomized sweeps run at one of three depths: under -short a tenth
// of their bodies (the race detector, arm64 under an emulator), by
// default a quarter (what a maintainer runs after every change), and with
// -sweep all of them, which CI runs:
//
//	go test ./middleware/internal/jsonbody -sweep
var fullSweep = flag.Bool("sweep", false, "run the randomized sweeps whole (CI does)")

// sweep is n, the size of a randomized sweep, at the depth the flags ask
// for.
func sweep(n int) int {
	switch {
	case testing.Short():
		return max(n/10, 1)
	case !*fullSweep:
		return max(n/4, 1)
	}
	return n
}
