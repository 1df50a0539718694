//go:build !amd64 || purego

package sanitize

// fusedKernelsAgree has no fused kernel to run without one.
func fusedKernelsAgree(p []byte, forbid Class) string { return "" }
