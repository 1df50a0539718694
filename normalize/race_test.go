//go:build race

package normalize

// raceEnabled reports whether the race detector is on: it allocates on its
// own, so the tests that count allocations skip then.
const raceEnabled = true
