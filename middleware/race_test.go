//go:build race

package middleware

// raceEnabled reports whether the race detector is on: tests of Echo's own
// Timeout middleware skip then, since it writes to Echo's pooled context
// from its handler goroutine after Echo has reset the context for another
// request (a race in Echo, not here), and allocation counts differ.
const raceEnabled = true
