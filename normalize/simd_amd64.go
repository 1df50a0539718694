//go:build amd64 && !purego

package normalize

import "golang.org/x/sys/cpu"

// simdValidation reports whether sanitize.ValidPrefix runs a SIMD kernel
// here, which validates text many times faster than the scanner could check
// it character by character: on amd64 with AVX2 (x/sys/cpu obeys
// GODEBUG=cpu.avx2=off, as sanitize does), unless built with the purego
// tag. If sanitize gains kernels for other CPUs, this should follow.
var simdValidation = cpu.X86.HasAVX2
