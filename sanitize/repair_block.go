package sanitize

// Repair by blocks: what each octet of ill-formed input becomes depends only
// on the three octets before it and the three after it, so that a SIMD
// kernel (repair_amd64.s) can decide it for 64 octets at once, with no
// state carried from one block to the next (repair_avx2_amd64.s has the
// same kernels for AVX2, a window as two halves of 32 octets).
//
// A lead octet (C2-F4) always starts a character or a maximal subpart, an
// ASCII octet is a character, and C0, C1 and F5-FF are maximal subparts of
// one octet. A continuation octet (80-BF) belongs to the nearest lead
// before it if only continuations lie between them, the lead admits the
// first of them (Table 3-7: E0 A0-BF, ED 80-9F, F0 90-BF, F4 80-8F,
// otherwise 80-BF), and the lead's sequence is long enough to hold it;
// otherwise it is a maximal subpart of one octet. Each octet is then one
// of three kinds:
//
//	valid  an ASCII octet, or one of a well-formed character: kept
//	start  the first octet of a maximal subpart: becomes U+FFFD
//	       (three octets)
//	rest   a later octet of a maximal subpart: dropped
//
// The kernels decide the kind of each octet of a window of 64 from bit
// masks over the window (bit l for octet l): subpartMasks, in
// repair_model_test.go, is the model they follow, tested against the
// reference on every sequence of up to three octets and a sample of four.
// The octets of a window that they decide are those at window positions 4
// to 59 (blockStep of them), which have the three octets they depend on
// inside the window on both sides: a kernel block loads the 64 octets from
// 4 before the first it decides (and from 5 before, for the octet before
// each), and the next block starts blockStep octets later.

const (
	windowLen   = 64                                // octets in a window
	windowFirst = 4                                 // window position of the first octet decided
	blockStep   = 56                                // octets decided per window
	windowOut   = (1<<blockStep - 1) << windowFirst // the positions decided
)

// A fillEnd, from repairLenBlocks(p, i), says that p[i:in] has no valid
// octet, so that it repairs to U+FFFD repeated, out octets of it; in is
// i, or the end of a block of the count, or len(p).
type fillEnd struct{ in, out int }

// fillChunk is how many blocks repairLenBlocks has the kernel count in
// its first call, when it looks for the first valid octet.
const fillChunk = 32
