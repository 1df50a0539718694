//go:build !amd64 || purego

package jsonscan

// kernels are the SIMD passes of Structure: none here.
var kernels []kernel
