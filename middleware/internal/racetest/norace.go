//go:build !race

// Package racetest tells tests whether the race detector is on: allocation
// counts differ under it, and some tests of Echo's own middleware skip.
package racetest

// Enabled reports whether the race detector is on.
const Enabled = false
