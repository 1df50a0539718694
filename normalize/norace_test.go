//go:build !race

package normalize

// raceEnabled reports whether the race detector is on (race_test.go).
const raceEnabled = false
