//go:build unix

package bench

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time the process has used, user and system,
// every thread included (the collector's too).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs loop, b.N iterations of it, and reports the process's CPU
// time per iteration as cpu-ns/op beside ns/op: on a machine shared with
// other work, a figure that waiting for a core does not inflate.
func reportCPU(b *testing.B, loop func()) {
	start := processCPU()
	loop()
	if n := b.N; n > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
	}
}
