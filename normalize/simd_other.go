//go:build !amd64 || purego

package normalize

// simdValidation reports whether sanitize.ValidPrefix runs a SIMD kernel
// here: not on this architecture, or with the purego build tag.
var simdValidation = false
