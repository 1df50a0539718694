//go:build amd64 && !purego

package jsonscan

import "golang.org/x/sys/cpu"

// kernels are the SIMD passes of Structure this CPU runs.
var kernels = func() (ks []kernel) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW {
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
