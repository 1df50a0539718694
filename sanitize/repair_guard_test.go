//go:build linux && amd64 && !purego

package sanitize

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestRepairKernelsStayInBounds runs ToValid, and each kernel pair of
// repairKernels directly, on inputs that start right after a guard page
// and end right before one: the kernels read from kernelBefore octets
// before their first block to kernelAfter after the start of their last.
// The writing kernels write into a buffer that ends right before another
// guard page, with room for what they write and the 64 octets of their
// last store only.
func TestRepairKernelsStayInBounds(t *testing.T) {
	needRepairKernel(t)
	page, outPage := guardedPage(t), guardedPage(t)
	r := rand.New(rand.NewPCG(14, 16))
	for n := 1; n <= 400; n++ {
		for _, atEnd := range []bool{false, true} {
			p := page[:n]
			if atEnd {
				p = page[len(page)-n:]
			}
			for k := range p {
				p[k] = edgeOctets[r.IntN(len(edgeOctets))]
			}
			if want := refRepair(p); !bytes.Equal(ToValid(p), want) {
				t.Fatalf("ToValid(% X) = % X, reference says % X", p, ToValid(p), want)
			}
			blocks := blocksFrom(n, kernelBefore)
			if blocks == 0 {
				continue
			}
			room := 64
			for b := range blocks {
				room += countSpan(p, kernelBefore+b*blockStep, kernelBefore+(b+1)*blockStep)
			}
			out := outPage[len(outPage)-room:]
			for _, k := range repairKernels {
				if done, m, _ := repairCount(k.kernel, &p[kernelBefore], blocks); done != blocks || m != room-64 {
					t.Fatalf("%s: repairCount(% X) = %d blocks, %d octets; want %d, %d", k, p, done, m, blocks, room-64)
				}
				if done, m, _ := repairWrite(k.kernel, &p[kernelBefore], blocks, &out[0], room); done != blocks || m != room-64 {
					t.Fatalf("%s: repairWrite(% X) = %d blocks, %d octets; want %d, %d", k, p, done, m, blocks, room-64)
				}
			}
		}
	}
}
