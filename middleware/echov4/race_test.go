//go:build race

package echov4

const raceEnabled = true
