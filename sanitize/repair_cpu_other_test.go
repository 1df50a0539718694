//go:build !unix

package sanitize

// processCPU returns 0: there is no getrusage.
func processCPU() int64 { return 0 }
