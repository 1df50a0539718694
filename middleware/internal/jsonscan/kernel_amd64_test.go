//go:build amd64 && !purego

package jsonscan

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// kernels are the SIMD passes of Structure this CPU runs: structureAVX2 on
// every CPU with AVX2, so that an AVX-512 machine tests both.
var kernels = func() (ks []kernel) {
	if hasAVX2 {
		ks = append(ks, kernel{"structureAVX2", kernelRun(structureAVX2)})
	}
	if hasAVX512 {
		ks = append(ks, kernel{"structureAVX512", kernelRun(structureAVX512)})
	}
	return ks
}()

// kernelRun returns the run of kernel f.
func kernelRun(f func(p *byte, n int) (brackets, found int)) func([]byte) (int, bool, bool) {
	return func(p []byte) (int, bool, bool) {
		if len(p) == 0 {
			return 0, false, false
		}
		brackets, found := f(&p[0], len(p))
		return brackets, found&1 != 0, found&2 != 0
	}
}

// TestKernelChoice: Structure takes the AVX-512 pass where the CPU has
// it, else the AVX2 pass, else the standard library's; and Marks is a SIMD
// pass only with AVX-512, its only kernel. It logs the choice and the
// kernels the other tests run directly.
func TestKernelChoice(t *testing.T) {
	avx512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	want, wantMin := "standard library", minLen
	switch {
	case avx512:
		want, wantMin = "structureAVX512", 64
	case cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT:
		want, wantMin = "structureAVX2", shortLen+1
	}
	if minLen != wantMin || HasMarks != avx512 {
		t.Fatalf("%s should run from %d octets, Marks be SIMD %v; minLen is %d, HasMarks %v",
			want, wantMin, avx512, minLen, HasMarks)
	}
	names := make([]string, len(kernels))
	for i, k := range kernels {
		names[i] = k.name
	}
	t.Logf("Structure: %s from %d octets; Marks SIMD: %v; kernels tested directly: %v", want, minLen, HasMarks, names)
}
