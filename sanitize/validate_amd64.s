//go:build amd64 && !purego

#include "textflag.h"
#include "validate_amd64.h"

// The SIMD kernels validAVX2 and validAVX512 (validate_amd64.go documents
// the algorithm and the contract).

DATA nibbleMask<>+0(SB)/4, $0x0F0F0F0F
GLOBL nibbleMask<>(SB), RODATA|NOPTR, $4
DATA thirdMin<>+0(SB)/4, $0x60606060 // 0xE0-0x80
GLOBL thirdMin<>(SB), RODATA|NOPTR, $4
DATA fourthMin<>+0(SB)/4, $0x70707070 // 0xF0-0x80
GLOBL fourthMin<>(SB), RODATA|NOPTR, $4
DATA highBits<>+0(SB)/4, $0x80808080
GLOBL highBits<>(SB), RODATA|NOPTR, $4

// func validSIMD(p *byte, n int) int
TEXT ·validSIMD(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	CMPQ CX, ·avx512From(SB)
	JGE  avx512
	JMP  ·validAVX2(SB)

avx512:
	JMP ·validAVX512(SB)

// validAVX2 registers:
//
//	SI   p                  CX   n                  AX   offset of the block
//	Y15  0x0F in each octet (the low nibble mask)
//	Y14  nibbleTables[0]    Y13  nibbleTables[1]    Y12  nibbleTables[2]
//	Y11  0x60: prev2 minus it, saturated, has its high bit set iff prev2 >= E0
//	Y10  0x70: the same for prev3 >= F0
//	Y9   0x80 in each octet
//	Y8   the last 32 octets of incompleteMax
//	Y0-Y7 scratch

// CHECK sets t to the errors of the 32 octets in, given the octets one, two
// and three places before them in p1, p2 and p3, which it overwrites: t is
// the kinds of bad pair (prev1, octet) that the three nibbles allow
// together, with its high bit flipped where the octet must be a third or
// fourth octet (prev2 >= E0 or prev3 >= F0), which must be twoConts there
// and nothing else.
#define CHECK(in, p1, p2, p3, t) \
	VPSRLW   $4, p1, t;   \
	VPAND    Y15, t, t;   \
	VPSHUFB  t, Y14, t;   \
	VPAND    Y15, p1, p1; \
	VPSHUFB  p1, Y13, p1; \
	VPAND    p1, t, t;    \
	VPSRLW   $4, in, p1;  \
	VPAND    Y15, p1, p1; \
	VPSHUFB  p1, Y12, p1; \
	VPAND    p1, t, t;    \
	VPSUBUSB Y11, p2, p2; \
	VPSUBUSB Y10, p3, p3; \
	VPOR     p3, p2, p2;  \
	VPAND    Y9, p2, p2;  \
	VPXOR    p2, t, t

// CHECKAT is CHECK for the octets in at off(SI)(AX*1), loading those before.
#define CHECKAT(off, in, p1, p2, p3, t) \
	VMOVDQU off-1(SI)(AX*1), p1; \
	VMOVDQU off-2(SI)(AX*1), p2; \
	VMOVDQU off-3(SI)(AX*1), p3; \
	CHECK(in, p1, p2, p3, t)

// CUTSHORT sets ZF unless the 32 octets before AX end inside a character.
#define CUTSHORT \
	VMOVDQU  -32(SI)(AX*1), Y7; \
	VPSUBUSB Y8, Y7, Y7;        \
	VPTEST   Y7, Y7

// func validAVX2(p *byte, n int) int
TEXT ·validAVX2(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX

	// A leading run of ASCII needs none of the constants: at most 64
	// octets at once, as the 32 at p and the 32 that end at n; more 128,
	// then 32 octets at a time, then the 32 that end at n.
	CMPQ      CX, $64
	JA        prefix128
	VMOVDQU   (SI), Y0
	VPOR      -32(SI)(CX*1), Y0, Y0
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       setup
	JMP       valid

prefix128:
	LEAQ      128(AX), DX
	CMPQ      DX, CX
	JA        prefix32
	VMOVDQU   (SI)(AX*1), Y0
	VPOR      32(SI)(AX*1), Y0, Y0
	VMOVDQU   64(SI)(AX*1), Y1
	VPOR      96(SI)(AX*1), Y1, Y1
	VPOR      Y0, Y1, Y0
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       prefix32
	ADDQ      $128, AX
	JMP       prefix128

prefix32:
	LEAQ      32(AX), DX
	CMPQ      DX, CX
	JA        prefix_end
	VMOVDQU   (SI)(AX*1), Y0
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       setup
	ADDQ      $32, AX
	JMP       prefix32

prefix_end:
	CMPQ      AX, CX
	JEQ       valid
	VMOVDQU   -32(SI)(CX*1), Y0
	VPMOVMSKB Y0, DX
	TESTL     DX, DX
	JNZ       setup

valid:
	MOVQ CX, ret+16(FP)
	VZEROUPPER
	RET

	// Not ASCII from the block at AX on.
setup:
	VPBROADCASTD   nibbleMask<>(SB), Y15
	VBROADCASTI128 ·nibbleTables+0(SB), Y14
	VBROADCASTI128 ·nibbleTables+16(SB), Y13
	VBROADCASTI128 ·nibbleTables+32(SB), Y12
	VPBROADCASTD   thirdMin<>(SB), Y11
	VPBROADCASTD   fourthMin<>(SB), Y10
	VPBROADCASTD   highBits<>(SB), Y9
	VMOVDQU        ·incompleteMax+32(SB), Y8
	TESTQ          AX, AX
	JNZ            loop64

	// The first block. The octets before p count as zero: the lane
	// shuffle puts zero under the low lane and the low lane under the high
	// one, and VPALIGNR takes prev1-prev3 from the concatenations.
	VMOVDQU    (SI), Y0
	VPERM2I128 $0x08, Y0, Y0, Y1
	VPALIGNR   $15, Y1, Y0, Y2
	VPALIGNR   $14, Y1, Y0, Y3
	VPALIGNR   $13, Y1, Y0, Y4
	CHECK(Y0, Y2, Y3, Y4, Y5)
	VPTEST     Y5, Y5
	JNZ        fail
	MOVQ       $32, AX

	// 64 octets at a time: two blocks, checked together. Their largest
	// octet chooses how: with one of E0-FF, the full check (multi64);
	// else if they are all ASCII, nothing; else TWOPAIRS, given the
	// continuations (below -64, signed), which costs half as much. Both
	// need the three octets before the block below E0, and ASCII also
	// needs the octet before it to be no lead: loop64 runs where the
	// block before was not full (its octets were below E0), loop64f
	// after a full block, where it looks at the three octets too.
loop64f:
	LEAQ      64(AX), DX
	CMPQ      DX, CX
	JA        tail32
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VPMAXUB   Y0, Y1, Y2
	VPSUBUSB  Y11, Y2, Y3
	VPMOVMSKB Y3, DX
	TESTL     DX, DX
	JNZ       multi64
	VPMAXUB   -3(SI)(AX*1), Y2, Y2
	VPSUBUSB  Y11, Y2, Y3
	VPMOVMSKB Y3, DX
	TESTL     DX, DX
	JNZ       multi64
	VPMOVMSKB Y2, DX
	TESTL     DX, DX
	JZ        ascii64
	JMP       two64

loop64:
	LEAQ      64(AX), DX
	CMPQ      DX, CX
	JA        tail32
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VPMAXUB   Y0, Y1, Y2
	VPSUBUSB  Y11, Y2, Y3
	VPMOVMSKB Y3, DX
	TESTL     DX, DX
	JNZ       multi64
	VPMOVMSKB Y2, DX
	TESTL     DX, DX
	JNZ       two64
	MOVBLZX   -1(SI)(AX*1), DX
	CMPL      DX, $0xC0
	JB        ascii64

two64:
	VMOVDQU   ·twoOctet+0(SB), Y6
	VPCMPGTB  Y0, Y6, Y7
	VPCMPGTB  Y1, Y6, Y6
	TWOPAIRS(Y7, Y6, DX)
	TESTL     DX, DX
	JNZ       fail
	ADDQ      $64, AX
	JMP       loop64

ascii64:
	ADDQ $64, AX

	// A run of ASCII, 128 octets at a time. The loop above takes over at
	// the first 128 that are not all ASCII.
ascii128:
	LEAQ    128(AX), DX
	CMPQ    DX, CX
	JA      loop64
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	VPOR    Y0, Y1, Y0
	VPOR    Y2, Y3, Y2
	VPOR    Y0, Y2, Y0
	VPTEST  Y9, Y0
	JNZ     loop64
	ADDQ    $128, AX
	JMP     ascii128

multi64:
	CHECKAT(0, Y0, Y2, Y3, Y4, Y5)
	CHECKAT(32, Y1, Y0, Y6, Y7, Y3)
	VPOR    Y5, Y3, Y5
	VPTEST  Y5, Y5
	JNZ     fail
	ADDQ    $64, AX
	JMP     loop64f

	// One more block of 32 if there is room.
tail32:
	LEAQ    32(AX), DX
	CMPQ    DX, CX
	JA      last
	VMOVDQU (SI)(AX*1), Y0
	VPTEST  Y9, Y0
	JNZ     multi32
	CUTSHORT
	JNZ     fail
	ADDQ    $32, AX
	JMP     last

multi32:
	CHECKAT(0, Y0, Y2, Y3, Y4, Y5)
	VPTEST  Y5, Y5
	JNZ     fail
	ADDQ    $32, AX

	// The rest, fewer than 32 octets, in the block that ends at n (it
	// overlaps the blocks already checked, which pass again). It checks
	// every octet from AX on against the three before it, and that p does
	// not end inside a character.
last:
	CMPQ     AX, CX
	JEQ      end
	LEAQ     -32(CX), AX
	VMOVDQU  (SI)(AX*1), Y0
	CHECKAT(0, Y0, Y2, Y3, Y4, Y5)
	VPSUBUSB Y8, Y0, Y7
	VPOR     Y7, Y5, Y5
	VPTEST   Y5, Y5
	JNZ      fail
	MOVQ     CX, ret+16(FP)
	VZEROUPPER
	RET

	// The blocks end at n: p must not end inside a character.
end:
	CUTSHORT
	JNZ  fail_end
	MOVQ CX, ret+16(FP)
	VZEROUPPER
	RET

fail_end:
	LEAQ -4(CX), AX // the character cut short starts after

fail:
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET

// validAVX512 registers:
//
//	SI   p                  CX   n                  AX   offset of the block
//	Z31  nibbleTables[0]    Z30  nibbleTables[1]    Z29  nibbleTables[2]
//	     (each in all four 128-bit lanes)
//	Z28  0x60    Z27  0x70    Z26  0x80    Z25  incompleteMax
//	Z0-Z9 scratch, K1-K4 masks
//
// Its macros are in validate_amd64.h.

// func validAVX512(p *byte, n int) int
TEXT ·validAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX

	// A leading run of ASCII, as in validAVX2: 256, then 64 octets at a
	// time, then the 64 that end at n.
prefix256:
	LEAQ       256(AX), DX
	CMPQ       DX, CX
	JA         prefix64
	VMOVDQU64  (SI)(AX*1), Z0
	VMOVDQU64  64(SI)(AX*1), Z1
	VMOVDQU64  128(SI)(AX*1), Z2
	VPTERNLOGD $0xFE, Z2, Z1, Z0
	VPORQ      192(SI)(AX*1), Z0, Z0
	VPMOVB2M   Z0, K1
	KORTESTQ   K1, K1
	JNZ        prefix64
	ADDQ       $256, AX
	JMP        prefix256

prefix64:
	LEAQ      64(AX), DX
	CMPQ      DX, CX
	JA        prefix_end512
	VMOVDQU64 (SI)(AX*1), Z0
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       setup512
	ADDQ      $64, AX
	JMP       prefix64

prefix_end512:
	CMPQ      AX, CX
	JEQ       valid512
	VMOVDQU64 -64(SI)(CX*1), Z0
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       setup512

valid512:
	MOVQ CX, ret+16(FP)
	VZEROUPPER
	RET

	// Not ASCII from the block at AX on.
setup512:
	VBROADCASTI32X4 ·nibbleTables+0(SB), Z31
	VBROADCASTI32X4 ·nibbleTables+16(SB), Z30
	VBROADCASTI32X4 ·nibbleTables+32(SB), Z29
	VPBROADCASTD    thirdMin<>(SB), Z28
	VPBROADCASTD    fourthMin<>(SB), Z27
	VPBROADCASTD    highBits<>(SB), Z26
	VMOVDQU64       ·incompleteMax(SB), Z25
	TESTQ           AX, AX
	JNZ             loop128

	// The first block. The octets before p count as zero.
	FIRST512(DX)
	CHECK512(Z0, Z1, Z2, Z3, Z4)
	VPTESTMB   Z4, Z4, K1
	KORTESTQ   K1, K1
	JNZ        fail512
	MOVQ       $64, AX

	// 128 octets at a time: two blocks, skipped together if ASCII.
loop128:
	LEAQ      128(AX), DX
	CMPQ      DX, CX
	JA        tail64
	VMOVDQU64 (SI)(AX*1), Z0
	VMOVDQU64 64(SI)(AX*1), Z1
	VPORQ     Z0, Z1, Z2
	VPMOVB2M  Z2, K1
	KORTESTQ  K1, K1
	JNZ       multi128
	CUTSHORT512
	JNZ       fail512
	ADDQ      $128, AX

	// A run of ASCII, 256 octets at a time.
ascii256:
	LEAQ       256(AX), DX
	CMPQ       DX, CX
	JA         loop128
	VMOVDQU64  (SI)(AX*1), Z0
	VMOVDQU64  64(SI)(AX*1), Z1
	VMOVDQU64  128(SI)(AX*1), Z2
	VPTERNLOGD $0xFE, Z2, Z1, Z0
	VPORQ      192(SI)(AX*1), Z0, Z0
	VPMOVB2M   Z0, K1
	KORTESTQ   K1, K1
	JNZ        loop128
	ADDQ       $256, AX
	JMP        ascii256

multi128:
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	CHECKAT512(64, Z1, Z6, Z7, Z8, Z9)
	VPORQ     Z5, Z9, Z5
	VPTESTMB  Z5, Z5, K1
	KORTESTQ  K1, K1
	JNZ       fail512
	ADDQ      $128, AX
	JMP       loop128

	// One more block of 64 if there is room.
tail64:
	LEAQ      64(AX), DX
	CMPQ      DX, CX
	JA        last512
	VMOVDQU64 (SI)(AX*1), Z0
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       multi64
	CUTSHORT512
	JNZ       fail512
	ADDQ      $64, AX
	JMP       last512

multi64:
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	VPTESTMB  Z5, Z5, K1
	KORTESTQ  K1, K1
	JNZ       fail512
	ADDQ      $64, AX

	// The rest, fewer than 64 octets, in the block that ends at n, as in
	// validAVX2.
last512:
	CMPQ      AX, CX
	JEQ       end512
	LEAQ      -64(CX), AX
	VMOVDQU64 (SI)(AX*1), Z0
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	VPSUBUSB  Z25, Z0, Z9
	VPORQ     Z9, Z5, Z5
	VPTESTMB  Z5, Z5, K1
	KORTESTQ  K1, K1
	JNZ       fail512
	MOVQ      CX, ret+16(FP)
	VZEROUPPER
	RET

	// The blocks end at n: p must not end inside a character.
end512:
	CUTSHORT512
	JNZ  fail_end512
	MOVQ CX, ret+16(FP)
	VZEROUPPER
	RET

fail_end512:
	LEAQ -4(CX), AX // the character cut short starts after

fail512:
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET
