//go:build amd64 && !purego

#include "textflag.h"

// The repair kernels repairCountAVX512 and repairWriteAVX512
// (repair_amd64.go; repair_block.go documents the algorithm). A block
// loads the 64 octets from 4 before its first into Z0 (and from 5 before
// into Z1), compares them with constants into the five masks of
// octetMasks, and combines those in general registers as subpartMasks
// does, into the masks of the valid octets (R8) and of the starts of
// maximal subparts (R13) among the 56 it decides.

// outMask is windowOut: window positions 4 to 59.
DATA outMask<>+0(SB)/8, $0x0ffffffffffffff0
GLOBL outMask<>(SB), RODATA|NOPTR, $8

// fffd3 is U+FFFD (EF BF BD) 21 times, and one more octet.
DATA fffd3<>+0(SB)/8, $0xbfefbdbfefbdbfef
DATA fffd3<>+8(SB)/8, $0xefbdbfefbdbfefbd
DATA fffd3<>+16(SB)/8, $0xbdbfefbdbfefbdbf
DATA fffd3<>+24(SB)/8, $0xbfefbdbfefbdbfef
DATA fffd3<>+32(SB)/8, $0xefbdbfefbdbfefbd
DATA fffd3<>+40(SB)/8, $0xbdbfefbdbfefbdbf
DATA fffd3<>+48(SB)/8, $0xbfefbdbfefbdbfef
DATA fffd3<>+56(SB)/8, $0xefbdbfefbdbfefbd
GLOBL fffd3<>(SB), RODATA|NOPTR, $64

// triples is the VPERMB index that spreads 21 octets of a window, from
// position 4, into 63: position 3j+t holds octet 4+j (t = 0, 1, 2); the
// last position is never kept. The kernel adds 21 and 42 for the next two
// groups of 21 octets.
DATA triples<>+0(SB)/8, $0x0606050505040404
DATA triples<>+8(SB)/8, $0x0908080807070706
DATA triples<>+16(SB)/8, $0x0b0b0b0a0a0a0909
DATA triples<>+24(SB)/8, $0x0e0e0d0d0d0c0c0c
DATA triples<>+32(SB)/8, $0x111010100f0f0f0e
DATA triples<>+40(SB)/8, $0x1313131212121111
DATA triples<>+48(SB)/8, $0x1616151515141414
DATA triples<>+56(SB)/8, $0x0018181817171716
GLOBL triples<>(SB), RODATA|NOPTR, $64

// lowHigh is, for each lead C0-FF at offset b-C0, the lowest (first 64
// octets) and the highest (last 64) continuation it admits right after
// it (Table 3-7); VPERMB looks it up from the low six bits of an octet.
DATA lowHigh<>+0(SB)/8, $0x8080808080808080
DATA lowHigh<>+8(SB)/8, $0x8080808080808080
DATA lowHigh<>+16(SB)/8, $0x8080808080808080
DATA lowHigh<>+24(SB)/8, $0x8080808080808080
DATA lowHigh<>+32(SB)/8, $0x80808080808080a0
DATA lowHigh<>+40(SB)/8, $0x8080808080808080
DATA lowHigh<>+48(SB)/8, $0x8080808080808090
DATA lowHigh<>+56(SB)/8, $0x8080808080808080
DATA lowHigh<>+64(SB)/8, $0xbfbfbfbfbfbfbfbf
DATA lowHigh<>+72(SB)/8, $0xbfbfbfbfbfbfbfbf
DATA lowHigh<>+80(SB)/8, $0xbfbfbfbfbfbfbfbf
DATA lowHigh<>+88(SB)/8, $0xbfbfbfbfbfbfbfbf
DATA lowHigh<>+96(SB)/8, $0xbfbfbfbfbfbfbfbf
DATA lowHigh<>+104(SB)/8, $0xbfbf9fbfbfbfbfbf
DATA lowHigh<>+112(SB)/8, $0xbfbfbf8fbfbfbfbf
DATA lowHigh<>+120(SB)/8, $0xbfbfbfbfbfbfbfbf
GLOBL lowHigh<>(SB), RODATA|NOPTR, $128

// CONSTS loads the constants of MASKS: Z16-Z20 C0, C2, F5, E0 and F0 in
// every octet, Z21 and Z22 lowHigh.
#define CONSTS \
	MOVL         $0xC0, BX;              \
	VPBROADCASTB BX, Z16;                \
	MOVL         $0xC2, BX;              \
	VPBROADCASTB BX, Z17;                \
	MOVL         $0xF5, BX;              \
	VPBROADCASTB BX, Z18;                \
	MOVL         $0xE0, BX;              \
	VPBROADCASTB BX, Z19;                \
	MOVL         $0xF0, BX;              \
	VPBROADCASTB BX, Z20;                \
	VMOVDQU64    lowHigh<>+0(SB), Z21;   \
	VMOVDQU64    lowHigh<>+64(SB), Z22

// MASKS loads the window of the block at SI into Z0, and the window one
// octet earlier into Z1, and sets R8 to the valid octets and R13 to the
// starts of maximal subparts (subpartMasks), both within outMask. It uses
// BX, DX, R9-R12, Z1-Z3 and K1-K6.
//
// VPCMPUB $p, b, a, k1, k2 sets k2 to k1 and (a p b): p is 1 for <, 2
// for <=, 5 for >=. VPERMB t, i, d sets octet l of d to octet i[l]&63 of
// t. ANDNQ m, v, d sets d to m and not v.
#define MASKS \
	VMOVDQU64 -4(SI), Z0;                    \
	VMOVDQU64 -5(SI), Z1;                    \
	VPMOVB2M  Z0, K1; /* ge80 */ \
	VPCMPUB   $1, Z16, Z0, K1, K2; /* cont: ge80 and < C0 */ \
	VPCMPUB   $1, Z18, Z0, K3;               \
	VPCMPUB   $5, Z19, Z0, K3, K4; /* ge3: E0-F4 */ \
	VPCMPUB   $5, Z20, Z0, K3, K5; /* lead4: F0-F4 */ \
	VPCMPUB   $5, Z17, Z1, K6;               \
	VPCMPUB   $1, Z18, Z1, K6, K6; /* a lead before */ \
	VPERMB    Z21, Z1, Z2;                   \
	VPERMB    Z22, Z1, Z3;                   \
	VPCMPUB   $5, Z2, Z0, K6, K6;            \
	VPCMPUB   $2, Z3, Z0, K6, K6; /* second: admitted by it */ \
	KMOVQ     K1, R8;                        \
	KMOVQ     K2, R9;                        \
	KMOVQ     K4, R11;                       \
	KMOVQ     K5, R12;                       \
	KMOVQ     K6, R13;                       \
	MOVQ      R11, DX; /* DX = end2 := second &^ (ge3<<1) */ \
	SHLQ      $1, DX;                        \
	ANDNQ     R13, DX, DX;                   \
	MOVQ      R13, BX; /* BX = third := second<<1 & cont & ge3<<2 */ \
	SHLQ      $1, BX;                        \
	ANDQ      R9, BX;                        \
	SHLQ      $2, R11;                       \
	ANDQ      R11, BX;                       \
	SHLQ      $2, R12; /* R12 = lead4<<2 */ \
	ANDNQ     BX, R12, R10; /* R10 = end3 := third &^ lead4<<2 */ \
	ORQ       BX, R13; /* R13 = second | third */ \
	ANDQ      R12, BX; /* BX = end4 := (third & lead4<<2)<<1 & cont */ \
	SHLQ      $1, BX;                        \
	ANDQ      R9, BX;                        \
	ORQ       BX, R13; /* R13 = owned := second | third | end4 */ \
	MOVQ      BX, R11; /* R10 = end34 := end3 | end4>>1 */ \
	SHRQ      $1, R11;                       \
	ORQ       R11, R10;                      \
	NOTQ      R8; /* R8 = valid := ^ge80 | end2 | end2>>1 */ \
	ORQ       DX, R8; /*   | end34 | end34>>1 | end34>>2 | end4 */ \
	SHRQ      $1, DX;                        \
	ORQ       DX, R8;                        \
	ORQ       BX, R8;                        \
	ORQ       R10, R8;                       \
	SHRQ      $1, R10;                       \
	ORQ       R10, R8;                       \
	SHRQ      $1, R10;                       \
	ORQ       R10, R8;                       \
	ORQ       R8, R13; /* R13 = start := ^(valid | owned) & outMask */ \
	ANDNQ     outMask<>(SB), R13, R13;       \
	ANDQ      outMask<>(SB), R8                /* R8 = valid & outMask */

// func repairCountAVX512(p *byte, blocks int) (done, count int)
//
// Registers: SI the block, CX the blocks left, AX the count. A block with
// an error costs one more compare and branch; the all-valid ones keep in
// R14 the value of CX at the last of them (scratch in ABI0: the ABI
// wrapper restores g), and in done the value at the first of the run.
TEXT ·repairCountAVX512(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	XORQ AX, AX
	XORQ R14, R14
	CONSTS

count:
	MASKS
	POPCNTQ R8, R8
	ADDQ    R8, AX
	POPCNTQ R13, R13
	LEAQ    (R13)(R13*2), R13
	ADDQ    R13, AX
	CMPQ    R8, $56
	JEQ     countValid

countNext:
	ADDQ $56, SI
	DECQ CX
	JNZ  count

countEnd:
	VZEROUPPER
	MOVQ blocks+8(FP), BX
	SUBQ CX, BX
	MOVQ BX, done+16(FP)
	MOVQ AX, count+24(FP)
	RET

countValid:
	// All 56 valid: stop after the validRun-th in a row.
	LEAQ 1(CX), DX
	CMPQ R14, DX
	JEQ  countRun
	MOVQ CX, done+16(FP) // the first of a run

countRun:
	MOVQ CX, R14
	MOVQ done+16(FP), DX
	SUBQ CX, DX
	CMPQ DX, $7 // validRun-1
	JLT  countNext
	DECQ CX
	JMP  countEnd

// GROUP writes the octets of window positions 4+21g to 24+21g repaired
// (to 59 for g = 2), at AX, and advances AX: each octet is spread to three
// positions (Z1, VPERMB with idx, triples plus 21g), the three of a start
// become U+FFFD (VPBLENDMB), and the octets kept (the first of a valid
// octet, the three of a start) are packed (VPCOMPRESSB) and stored, all
// 64 octets of Z2 (the block checked that they fit). R12 holds
// 0x1249249249249249 (every third bit of 63).
#define GROUP(g, idx) \
	MOVQ        R8, BX;          \
	SHRQ        $(4+21*g), BX;   \
	PDEPQ       R12, BX, BX;     \
	MOVQ        R13, DX;         \
	SHRQ        $(4+21*g), DX;   \
	PDEPQ       R12, DX, DX;     \
	IMUL3Q      $7, DX, DX;      \
	ORQ         DX, BX;          \
	KMOVQ       DX, K1;          \
	KMOVQ       BX, K2;          \
	VPERMB      Z0, idx, Z1;     \
	VPBLENDMB   Z26, Z1, K1, Z1; \
	VPCOMPRESSB Z1, K2, Z2;      \
	VMOVDQU64   Z2, (AX);        \
	POPCNTQ     BX, BX;          \
	ADDQ        BX, AX

// func repairWriteAVX512(p *byte, blocks int, out *byte, room int) (done, written int, run bool)
//
// Registers: SI the block, CX the blocks left, AX where the next octet
// goes, DI the last place a block may end: out+room-64, for the 64 octets
// that GROUP stores, R14 and done as in repairCountAVX512. Z25, Z27 and
// Z28 are triples plus 0, 21 and 42, the indexes of the three groups; Z26
// is fffd3.
TEXT ·repairWriteAVX512(SB), NOSPLIT, $0-49
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), AX
	MOVQ room+24(FP), DI
	LEAQ -64(AX)(DI*1), DI
	XORQ R14, R14
	MOVB $0, run+48(FP)
	CONSTS
	VMOVDQU64    fffd3<>(SB), Z26
	VMOVDQU64    triples<>(SB), Z25
	MOVL         $21, BX
	VPBROADCASTB BX, Z30
	VPADDB       Z30, Z25, Z27
	VPADDB       Z30, Z27, Z28

write:
	MASKS
	// The end of the block; stop if it is past DI.
	POPCNTQ R8, BX
	POPCNTQ R13, DX
	LEAQ    (DX)(DX*2), DX
	ADDQ    DX, BX
	ADDQ    AX, BX
	CMPQ    BX, DI
	JGT     stop
	MOVQ    $0x1249249249249249, R12
	GROUP(0, Z25)
	GROUP(1, Z27)
	GROUP(2, Z28)
	CMPQ    R8, outMask<>(SB)
	JEQ     writeValid

writeNext:
	ADDQ $56, SI
	DECQ CX
	JNZ  write

stop:
	VZEROUPPER
	MOVQ blocks+8(FP), BX
	SUBQ CX, BX
	MOVQ BX, done+32(FP)
	SUBQ out+16(FP), AX
	MOVQ AX, written+40(FP)
	RET

writeValid:
	// All 56 valid: stop after the validRun-th in a row.
	LEAQ 1(CX), DX
	CMPQ R14, DX
	JEQ  writeRun
	MOVQ CX, done+32(FP) // the first of a run

writeRun:
	MOVQ CX, R14
	MOVQ done+32(FP), DX
	SUBQ CX, DX
	CMPQ DX, $7 // validRun-1
	JLT  writeNext
	MOVB $1, run+48(FP)
	DECQ CX
	JMP  stop
