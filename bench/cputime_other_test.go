//go:build !unix

package bench

import "time"

// processCPU returns 0 where the process's CPU time is not at hand: the
// benchmarks then report no cpu-ns/op.
func processCPU() time.Duration { return 0 }
