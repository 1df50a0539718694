//go:build unix

package sanitize

import "syscall"

// processCPU returns the CPU time, user and system, that the process has
// used, in nanoseconds: on a machine shared with other work, a measure
// that waiting for a core does not inflate.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
