//go:build amd64 && !purego

#include "textflag.h"

// The repair kernels repairCountAVX512 and repairWriteAVX512
// (repair_amd64.go; repair_block.go documents the algorithm). A block
// loads the 64 octets from 4 before its first into Z0, compares them with
// constants into eleven masks (octetMasks), and combines the masks in
// general registers exactly as subpartMasks does, into the masks of the
// valid octets (R8) and of the starts of maximal subparts (R13) among the
// 56 it decides.

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

// CONSTS broadcasts the octets the masks compare with:
//
//	Z16 C0  Z17 C2  Z18 F5  Z19 E0  Z20 F0  Z21 A0  Z22 90  Z23 ED  Z24 F4
#define CONSTS \
	MOVL         $0xC0, BX; \
	VPBROADCASTB BX, Z16;   \
	MOVL         $0xC2, BX; \
	VPBROADCASTB BX, Z17;   \
	MOVL         $0xF5, BX; \
	VPBROADCASTB BX, Z18;   \
	MOVL         $0xE0, BX; \
	VPBROADCASTB BX, Z19;   \
	MOVL         $0xF0, BX; \
	VPBROADCASTB BX, Z20;   \
	MOVL         $0xA0, BX; \
	VPBROADCASTB BX, Z21;   \
	MOVL         $0x90, BX; \
	VPBROADCASTB BX, Z22;   \
	MOVL         $0xED, BX; \
	VPBROADCASTB BX, Z23;   \
	MOVL         $0xF4, BX; \
	VPBROADCASTB BX, Z24

// MASKS loads the window of the block at SI into Z0 and sets R8 to its
// valid octets and R13 to its starts of maximal subparts (subpartMasks),
// both within outMask. It uses BX, DX, DI, R9-R12 and K1-K7.
//
// VPCMPUB $p, b, a, k1, k2 sets k2 to k1 and (a p b): p is 1 for <, 5
// for >=.
#define MASKS \
	VMOVDQU64 -4(SI), Z0;              \
	VPMOVB2M  Z0, K1; /* ge80 */ \
	VPCMPUB   $1, Z16, Z0, K1, K2; /* cont: ge80 and < C0 */ \
	VPCMPUB   $5, Z17, Z0, K3;         \
	VPCMPUB   $1, Z18, Z0, K3, K3; /* lead: >= C2 and < F5 */ \
	VPCMPUB   $5, Z19, Z0, K3, K4; /* ge3: lead and >= E0 */ \
	VPCMPUB   $5, Z20, Z0, K3, K5; /* lead4: lead and >= F0 */ \
	VPCMPUB   $5, Z21, Z0, K6; /* geA0 */ \
	VPCMPUB   $5, Z22, Z0, K7; /* ge90 */ \
	KMOVQ     K1, R8;                  \
	KMOVQ     K2, R9;                  \
	KMOVQ     K3, R10;                 \
	KMOVQ     K4, R11;                 \
	KMOVQ     K5, R12;                 \
	KMOVQ     K6, R13;                 \
	KMOVQ     K7, DX;                  \
	VPCMPEQB  Z19, Z0, K1; /* isE0 */ \
	VPCMPEQB  Z23, Z0, K2; /* isED */ \
	VPCMPEQB  Z20, Z0, K3; /* isF0 */ \
	VPCMPEQB  Z24, Z0, K4; /* isF4 */ \
	KMOVQ     K1, BX; /* bad := isE0<<1 &^ geA0 */ \
	SHLQ      $1, BX;                  \
	ANDNQ     BX, R13, BX;             \
	KMOVQ     K2, DI; /* | isED<<1 & geA0 */ \
	SHLQ      $1, DI;                  \
	ANDQ      R13, DI;                 \
	ORQ       DI, BX;                  \
	KMOVQ     K3, DI; /* | isF0<<1 &^ ge90 */ \
	SHLQ      $1, DI;                  \
	ANDNQ     DI, DX, DI;              \
	ORQ       DI, BX;                  \
	KMOVQ     K4, DI; /* | isF4<<1 & ge90 */ \
	SHLQ      $1, DI;                  \
	ANDQ      DX, DI;                  \
	ORQ       DI, BX;                  \
	MOVQ      R10, R13; /* R13 = second := lead<<1 & cont &^ bad */ \
	SHLQ      $1, R13;                 \
	ANDQ      R9, R13;                 \
	ANDNQ     R13, BX, R13;            \
	ANDNQ     R10, R11, R10; /* R10 = lead2 := lead &^ ge3 */ \
	MOVQ      R10, DX; /* DX = end2 := second & lead2<<1 */ \
	SHLQ      $1, DX;                  \
	ANDQ      R13, DX;                 \
	MOVQ      R13, BX; /* BX = third := second<<1 & cont */ \
	SHLQ      $1, BX;                  \
	ANDQ      R9, BX;                  \
	MOVQ      R11, DI; /* DI = third & ge3<<2 */ \
	SHLQ      $2, DI;                  \
	ANDQ      BX, DI;                  \
	ANDNQ     R11, R12, R10; /* R10 = lead3 := ge3 &^ lead4 */ \
	SHLQ      $2, R10; /* R10 = end3 := third & lead3<<2 */ \
	ANDQ      BX, R10;                 \
	SHLQ      $2, R12; /* BX = third4 := third & lead4<<2 */ \
	ANDQ      R12, BX;                 \
	SHLQ      $1, BX; /* BX = end4 := third4<<1 & cont */ \
	ANDQ      R9, BX;                  \
	ORQ       DI, R13; /* R13 = owned := second | third&ge3<<2 | end4 */ \
	ORQ       BX, R13;                 \
	MOVQ      BX, DI; /* R10 = end34 := end3 | end4>>1 */ \
	SHRQ      $1, DI;                  \
	ORQ       DI, R10;                 \
	NOTQ      R8; /* R8 = valid := ^ge80 | end2 | end2>>1 */ \
	ORQ       DX, R8; /*   | end34 | end34>>1 | end34>>2 | end4 */ \
	SHRQ      $1, DX;                  \
	ORQ       DX, R8;                  \
	ORQ       BX, R8;                  \
	ORQ       R10, R8;                 \
	SHRQ      $1, R10;                 \
	ORQ       R10, R8;                 \
	SHRQ      $1, R10;                 \
	ORQ       R10, R8;                 \
	ORQ       R8, R13; /* R13 = start := ^(valid | owned) & outMask */ \
	ANDNQ     outMask<>(SB), R13, R13; \
	ANDQ      outMask<>(SB), R8          // R8 = valid & outMask

// func repairCountAVX512(p *byte, blocks int) int
//
// Registers: SI the block, CX the blocks left, AX the count.
TEXT ·repairCountAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	XORQ AX, AX
	CONSTS

count:
	MASKS
	POPCNTQ R8, R8
	ADDQ    R8, AX
	POPCNTQ R13, R13
	LEAQ    (R13)(R13*2), R13
	ADDQ    R13, AX
	ADDQ    $56, SI
	DECQ    CX
	JNZ     count

	VZEROUPPER
	MOVQ AX, ret+16(FP)
	RET

// GROUP writes the octets of window positions 4+21g to 24+21g repaired
// (to 59 for g = 2), at AX, and advances AX: each octet is spread to three
// positions (Z1, VPERMB with idx, triples plus 21g), the three of a start
// become U+FFFD (VPBLENDMB), and the octets kept (the first of a valid
// octet, the three of a start) are packed (VPCOMPRESSB) and stored under a
// mask of their count. R12 holds 0x1249249249249249 (every third bit of
// 63); R14 is not used (the g register of Go's ABI).
#define GROUP(g, idx) \
	MOVQ        R8, BX;          \
	SHRQ        $(4+21*g), BX;   \
	PDEPQ       R12, BX, BX; /* first of each valid octet's three */ \
	MOVQ        R13, DX;         \
	SHRQ        $(4+21*g), DX;   \
	PDEPQ       R12, DX, DX;     \
	IMUL3Q      $7, DX, DX; /* all three of each start */ \
	ORQ         DX, BX;          \
	KMOVQ       DX, K1;          \
	KMOVQ       BX, K2;          \
	VPERMB      Z0, idx, Z1;     \
	VPBLENDMB   Z26, Z1, K1, Z1; \
	VPCOMPRESSB Z1, K2, Z2;      \
	POPCNTQ     BX, BX;          \
	MOVQ        $-1, DX;         \
	BZHIQ       BX, DX, DX;      \
	KMOVQ       DX, K3;          \
	VMOVDQU8    Z2, K3, (AX);    \
	ADDQ        BX, AX

// func repairWriteAVX512(p *byte, blocks int, out *byte, room int) (done, written int)
//
// Registers: SI the block, CX the blocks left, AX where the next octet
// goes. Z25, Z27 and Z28 are triples plus 0, 21 and 42, the indexes of
// the three groups; Z26 is fffd3.
TEXT ·repairWriteAVX512(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), AX
	CONSTS
	VMOVDQU64    fffd3<>(SB), Z26
	VMOVDQU64    triples<>(SB), Z25
	MOVL         $21, BX
	VPBROADCASTB BX, Z30
	VPADDB       Z30, Z25, Z27
	VPADDB       Z30, Z27, Z28

write:
	MASKS
	// The block's length; stop if it does not fit.
	POPCNTQ R8, BX
	POPCNTQ R13, DX
	LEAQ    (DX)(DX*2), DX
	ADDQ    DX, BX
	MOVQ    out+16(FP), DX
	ADDQ    room+24(FP), DX
	SUBQ    AX, DX
	CMPQ    BX, DX
	JGT     stop
	MOVQ    $0x1249249249249249, R12
	GROUP(0, Z25)
	GROUP(1, Z27)
	GROUP(2, Z28)
	ADDQ    $56, SI
	DECQ    CX
	JNZ     write

stop:
	VZEROUPPER
	MOVQ blocks+8(FP), BX
	SUBQ CX, BX
	MOVQ BX, done+32(FP)
	SUBQ out+16(FP), AX
	MOVQ AX, written+40(FP)
	RET
