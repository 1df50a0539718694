//go:build amd64 && !purego

package sanitize

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// repairKernel is the repair kernel pair of this CPU, chosen once from
// its features (x/sys/cpu obeys GODEBUG=cpu.avx512f=off, with which the
// tests run the AVX2 pair): avx512Kernel for repairCountAVX512 and
// repairWriteAVX512, which need AVX-512 with the byte permutes of VBMI
// (VPERMB) and the byte compression of VBMI2 (VPCOMPRESSB); avx2Kernel for
// repairCountAVX2 and repairWriteAVX2, which need AVX2; both need BMI2
// (PDEP) and POPCNT. noKernel: ToValid goes one character at a time.
var repairKernel = func() int {
	x := &cpu.X86
	switch {
	case x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VBMI && x.HasAVX512VBMI2 && x.HasBMI2 && x.HasPOPCNT:
		return avx512Kernel
	case x.HasAVX2 && x.HasBMI2 && x.HasPOPCNT:
		return avx2Kernel
	}
	return noKernel
}()

// repairCount runs the counting kernel of kernel (avx512Kernel:
// repairCountAVX512; avx2Kernel: repairCountAVX2), which the tests choose.
func repairCount(kernel int, p *byte, blocks int) (done, count, valid int) {
	if kernel == avx512Kernel {
		return repairCountAVX512(p, blocks)
	}
	return repairCountAVX2(p, blocks)
}

// repairWrite runs the writing kernel of kernel, as repairCount does.
func repairWrite(kernel int, p *byte, blocks int, out *byte, room int) (done, written int, run bool) {
	if kernel == avx512Kernel {
		return repairWriteAVX512(p, blocks, out, room)
	}
	return repairWriteAVX2(p, blocks, out, room)
}

// repairCountAVX512 returns how many of the blocks of blockStep octets at
// p it counted, their length repaired, and how many of their octets are
// valid (kept as they are; the rest become U+FFFD or vanish), reading from kernelBefore octets
// before p to kernelAfter after the start of the last block. It is
// countSpan (in repair_model_test.go) for each block. It stops early after
// validRun blocks in a row whose octets are all valid, for skipValid.
//
//go:noescape
func repairCountAVX512(p *byte, blocks int) (done, count, valid int)

// repairWriteAVX512 writes the blocks of blockStep octets at p repaired
// to out, as writeSpan does, block after block while the next block and 64
// octets more fit in the room octets at out (it stores 64 octets at a
// time, past the end of what it writes), and returns the blocks it wrote
// and their length. It stops early, with run true, after validRun blocks
// in a row whose octets are all valid, as repairCountAVX512 does.
//
//go:noescape
func repairWriteAVX512(p *byte, blocks int, out *byte, room int) (done, written int, run bool)

// validRun is how many blocks in a row with no error make the kernels
// hand over to skipValid (the assembly reads it from go_asm.h). A call of
// the validator that finds an error soon costs 15-40 ns, about as much as
// 1-3 blocks (BenchmarkToValidRuns): with 8, input that alternates runs of
// 9 blocks and errors, so that each hand-over finds little to skip, costs
// at most about 1.4 times what the kernels alone cost, while a long valid
// run goes at the validator's speed after its first 448 octets. With 4,
// the worst alternation cost 1.85 times as much, for 3% less time on a
// 16 KiB early-error input.
//
//lint:ignore U1000 used from assembly (repair_amd64.s)
const validRun = 8

// skipValid returns the end of the well-formed run through p[i-1], given
// that the kernels found the octets of the validRun blocks before i all
// valid: validPrefix (SIMD) runs from the first octet of the character
// that p[i-1] belongs to, a character boundary, to the next error or
// len(p). The octets up to i are well-formed, so the end is at i or after.
func skipValid[T string | []byte](p T, i int) int {
	r := charStart(p, i)
	k := validPrefix(p[r:])
	if testHookValidPrefix != nil {
		testHookValidPrefix(k)
	}
	if r+k < i {
		panic("sanitize: repair kernel and validator disagree")
	}
	return r + k
}

// dataAt returns a pointer to p[a], a < len(p).
func dataAt[T string | []byte](p T, a int) *byte {
	return (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(asString(p))), a))
}

// useBlocks reports whether ToValid repairs the rest of an input, n octets
// from its first error, by blocks with the kernels rather than one
// character at a time: with them, if n is long enough that a call costs
// less than the characters (BenchmarkToValidShort).
func useBlocks(n int) bool { return repairKernel != noKernel && n >= blocksFromLen }

// blocksFromLen is the shortest rest that useBlocks gives the kernels.
const blocksFromLen = 64

// A kernel block reads from kernelBefore octets before where it starts to
// kernelAfter after it.
const (
	kernelBefore = windowFirst + 1
	kernelAfter  = windowLen - windowFirst
)

// blocksFrom returns how many kernel blocks fit in p[a:] of length n-a,
// given a >= kernelBefore.
func blocksFrom(n, a int) int {
	if n-a < kernelAfter {
		return 0
	}
	return (n-a-kernelAfter)/blockStep + 1
}

// The ends of an input, the octets before kernelBefore and those after
// the last block, go through the kernels too, copied into an edge: a
// buffer of two blocks with the octets of p around them, and 0 (ASCII,
// which belongs to no sequence, as the ends of p do) where p has none.
const (
	edgeMax = 2 * blockStep                          // the octets an edge decides
	edgeLen = kernelBefore + blockStep + kernelAfter // the octets it holds
)

// edge copies p[a-kernelBefore:b+3] (as much of it as p has) into e, for
// b-a <= edgeMax, and returns the blocks that decide p[a:b], from
// e[kernelBefore], and the octets of padding they decide after b. Unless
// b = len(p), b-a must be a whole number of blocks.
func edge[T string | []byte](e *[edgeLen]byte, p T, a, b int) (blocks, pad int) {
	// e[l] is p[at+l]. A copy rather than a loop of octets: ToValid
	// fills four edges per call, a cost that counts on short inputs.
	*e = [edgeLen]byte{}
	at := a - kernelBefore
	if from, to := max(at, 0), min(len(p), b+3); from < to {
		copy(e[from-at:], p[from:to])
	}
	blocks = (b - a + blockStep - 1) / blockStep
	return blocks, blocks*blockStep - (b - a)
}

// countEdge returns the length of p[a:b] repaired and how many of its
// octets are valid (see edge).
func countEdge[T string | []byte](p T, a, b int) (m, valid int) {
	var e [edgeLen]byte
	blocks, pad := edge(&e, p, a, b)
	// The padding is ASCII: one valid octet each. An edge is shorter
	// than validRun blocks: the kernel counts all of it.
	_, m, valid = repairCount(repairKernel, &e[kernelBefore], blocks)
	return m - pad, valid - pad
}

// writeEdge writes p[a:b] repaired to out[o:] (see edge) and returns the
// end of what it wrote.
func writeEdge[T string | []byte](out []byte, o int, p T, a, b int) int {
	var e [edgeLen]byte
	var w [3*edgeMax + 64]byte
	blocks, pad := edge(&e, p, a, b)
	done, n, _ := repairWrite(repairKernel, &e[kernelBefore], blocks, &w[0], len(w))
	if done != blocks {
		panic("sanitize: repair kernel stopped short of an edge")
	}
	// The padding is ASCII, written last.
	return o + copy(out[o:o+n-pad], w[:n-pad])
}

// repairLenBlocks is repairLen with the kernels; it also returns how many
// octets of p[i:] are valid, kept as they are, and how far from i none is
// (see fillEnd): repair has bytes.Repeat write the result up to there.
func repairLenBlocks[T string | []byte](p T, i int) (m, valid int, fill fillEnd) {
	n := len(p)
	fill = fillEnd{in: i}
	clean := true // no valid octet yet
	chunk := fillChunk
	if i < kernelBefore {
		b := min(i+blockStep, n)
		m, valid = countEdge(p, i, b)
		i = b
		if clean = valid == 0; clean {
			fill = fillEnd{in: i, out: m}
		}
	}
	for {
		k := blocksFrom(n, i)
		if k == 0 {
			break
		}
		if clean {
			// Until the first valid octet, fillChunk blocks at a
			// time, then twice as many each time: a call for every
			// few blocks would cost as much as they do, and this
			// finds where the valid octet is to within half of
			// what comes before it.
			k = min(k, chunk)
			chunk *= 2
		}
		done, c, v := repairCount(repairKernel, dataAt(p, i), k)
		m += c
		valid += v
		i += done * blockStep
		if clean = clean && v == 0; clean {
			fill = fillEnd{in: i, out: m}
		}
		if done == k {
			continue
		}
		// A run of valid blocks: skip the rest of it.
		e := skipValid(p, i)
		m += e - i
		valid += e - i
		i = e
	}
	if i < n {
		c, v := countEdge(p, i, n)
		m += c
		valid += v
		if clean && v == 0 {
			fill = fillEnd{in: n, out: m}
		}
	}
	return m, valid, fill
}

// repairIntoBlocks is repairInto with the kernels, into out[o:], which must
// hold exactly the rest of the result (repairLenBlocks); it returns the end
// of what it wrote. It takes the same turns as repairLenBlocks, but for
// the end of out. The kernel writes no octet past the end of out: it
// stops at the last block that fits with 64 octets to spare (its stores
// are 64 octets long), and the blocks after it go through writeEdge, whose
// slice indexing is checked: a count that disagrees with the writing
// panics.
func repairIntoBlocks[T string | []byte](out []byte, o int, p T, i int) int {
	n := len(p)
	if i < kernelBefore {
		b := min(i+blockStep, n)
		o = writeEdge(out, o, p, i, b)
		i = b
	}
	for {
		k := blocksFrom(n, i)
		if k == 0 || o >= len(out) {
			break
		}
		done, w, run := repairWrite(repairKernel, dataAt(p, i), k, &out[o], len(out)-o)
		o += w
		i += done * blockStep
		if done == k || !run {
			// All of them, or no room for the next: what is left is
			// at most 64 octets of output more than a block's.
			break
		}
		e := skipValid(p, i)
		o += copy(out[o:o+(e-i)], p[i:e])
		i = e
	}
	for i < n {
		b := min(i+edgeMax, n)
		if b < n {
			b = i + blockStep
		}
		o = writeEdge(out, o, p, i, b)
		i = b
	}
	return o
}
