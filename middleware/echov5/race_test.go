//go:build race

package echov5

const raceEnabled = true
