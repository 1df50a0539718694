//go:build !race

package sanitize

// raceEnabled reports whether the race detector is on (race_test.go).
const raceEnabled = false
