//go:build !unix

package bench

import "testing"

// reportCPU runs loop; without getrusage it reports nothing more.
func reportCPU(_ *testing.B, loop func()) { loop() }
