//go:build amd64 && !purego

#include "go_asm.h"
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
// position 4, into 63: position 3j holds octet 4+j, positions 3j+1 and
// 3j+2 octets 0 and 1, which the kernel sets to BF and BD, the second
// and third octets of U+FFFD (window positions 0-3 are never output); the
// last position is never kept. The kernel adds 21 and 42 to the positions
// 3j for the next two groups of 21 octets.
DATA triples<>+0(SB)/8, $0x0006010005010004
DATA triples<>+8(SB)/8, $0x0901000801000701
DATA triples<>+16(SB)/8, $0x01000b01000a0100
DATA triples<>+24(SB)/8, $0x000e01000d01000c
DATA triples<>+32(SB)/8, $0x1101001001000f01
DATA triples<>+40(SB)/8, $0x0100130100120100
DATA triples<>+48(SB)/8, $0x0016010015010014
DATA triples<>+56(SB)/8, $0x1901001801001701
GLOBL triples<>(SB), RODATA|NOPTR, $64

// fffdLead is BF, BD, then EF: blended into a window, it puts the first
// octet of U+FFFD at each start of a maximal subpart and the two others
// at positions 0 and 1, where triples finds them.
DATA fffdLead<>+0(SB)/8, $0xefefefefefefbdbf
DATA fffdLead<>+8(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+16(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+24(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+32(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+40(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+48(SB)/8, $0xefefefefefefefef
DATA fffdLead<>+56(SB)/8, $0xefefefefefefefef
GLOBL fffdLead<>(SB), RODATA|NOPTR, $64

// shift4 is the VPERMB index that moves the octets of window positions
// 4 to 59 to positions 0 to 55: an all-valid block is its own output.
DATA shift4<>+0(SB)/8, $0x0b0a090807060504
DATA shift4<>+8(SB)/8, $0x131211100f0e0d0c
DATA shift4<>+16(SB)/8, $0x1b1a191817161514
DATA shift4<>+24(SB)/8, $0x232221201f1e1d1c
DATA shift4<>+32(SB)/8, $0x2b2a292827262524
DATA shift4<>+40(SB)/8, $0x333231302f2e2d2c
DATA shift4<>+48(SB)/8, $0x3b3a393837363534
DATA shift4<>+56(SB)/8, $0x030201003f3e3d3c
GLOBL shift4<>(SB), RODATA|NOPTR, $64

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

// CONSTS loads the constants of the masks: Z16-Z20 C0, C2, F5, E0 and F0 in
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

// The masks of a block come in steps. LEADS loads the window of the block
// at SI into Z0, and the window one octet earlier into Z1, and sets R8 to
// ge80 and K6 to the octets that follow a lead; SECOND, when there are
// any, narrows K6 to the mask second of subpartMasks (the continuations
// that the lead before each admits). If K6 has a bit set, SUBPARTS
// computes the rest of subpartMasks; if not, no continuation in the
// window belongs to a lead, so that every octet of 80-FF starts a maximal
// subpart of one octet and ASCII is all that is valid, and LONE sets the
// masks from ge80 alone, for a third of the cost: that is the case of
// the densest errors (FF, C0 AF, ED A0 80, "a" FF repeated) and of text
// in Latin-1 or another single-octet encoding read as UTF-8. Either way
// R8 ends as the valid octets and R13 as the starts of maximal subparts,
// both within outMask. They use BX, DX, R9-R12, Z1-Z3 and K1-K6.
//
// VPCMPUB $p, b, a, k1, k2 sets k2 to k1 and (a p b): p is 1 for <, 2
// for <=, 5 for >=. VPERMB t, i, d sets octet l of d to octet i[l]&63 of
// t. ANDNQ m, v, d sets d to m and not v.
#define LEADS \
	VMOVDQU64 -4(SI), Z0;                    \
	VMOVDQU64 -5(SI), Z1;                    \
	VPMOVB2M  Z0, K1; /* ge80 */ \
	KMOVQ     K1, R8;                        \
	VPCMPUB   $5, Z17, Z1, K6;               \
	VPCMPUB   $1, Z18, Z1, K6, K6 /* a lead before */

#define SECOND \
	VPERMB    Z21, Z1, Z2;                   \
	VPERMB    Z22, Z1, Z3;                   \
	VPCMPUB   $5, Z2, Z0, K6, K6;            \
	VPCMPUB   $2, Z3, Z0, K6, K6 /* second: admitted by it */

#define SUBPARTS \
	VPCMPUB   $1, Z16, Z0, K1, K2; /* cont: ge80 and < C0 */ \
	VPCMPUB   $1, Z18, Z0, K3;               \
	VPCMPUB   $5, Z19, Z0, K3, K4; /* ge3: E0-F4 */ \
	VPCMPUB   $5, Z20, Z0, K3, K5; /* lead4: F0-F4 */ \
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

#define LONE \
	MOVQ  R8, R13; /* R13 = start := ge80 & outMask */ \
	ANDQ  outMask<>(SB), R13;   \
	NOTQ  R8; /* R8 = valid := ^ge80 & outMask */ \
	ANDQ  outMask<>(SB), R8

// func repairCountAVX512(p *byte, blocks int) (done, count, valid int)
//
// Registers: SI the block, CX the blocks left, AX the count, DI the valid
// octets (those kept as they are: repair uses a count of 0 to fill the
// result with U+FFFD rather than write it block by block). A block with
// an error costs one more compare and branch; the all-valid ones keep in
// R14 the value of CX at the last of them (scratch in ABI0: the ABI
// wrapper restores g), and in done the value at the first of the run.
TEXT ·repairCountAVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	XORQ AX, AX
	XORQ DI, DI
	XORQ R14, R14
	CONSTS
	PCALIGN $32

count:
	LEADS
	KORTESTQ K6, K6
	JZ       countLone
	SECOND
	KORTESTQ K6, K6
	JNZ      countSubparts

countLone:
	LONE

countMasks:
	POPCNTQ R8, R8
	ADDQ    R8, AX
	ADDQ    R8, DI
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
	MOVQ DI, valid+32(FP)
	RET

countSubparts:
	SUBPARTS
	JMP countMasks

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
	CMPQ DX, $(const_validRun-1)
	JLT  countNext
	DECQ CX
	JMP  countEnd

// GROUP writes the octets of window positions 4+21g to 24+21g repaired
// (to 59 for g = 2), at AX, and advances AX: each octet is spread to three
// positions (Z1, VPERMB with idx, triples plus 21g), the first its own
// (EF at a start) and the two others BF and BD, and the octets kept (the
// first of a valid octet, the three of a start) are packed (VPCOMPRESSB)
// and stored, all 64 octets of Z2 (the block checked that they fit). R12
// holds 0x1249249249249249 (every third bit of 63).
#define GROUP(g, idx) \
	MOVQ        R8, BX;          \
	SHRQ        $(4+21*g), BX;   \
	PDEPQ       R12, BX, BX;     \
	MOVQ        R13, DX;         \
	SHRQ        $(4+21*g), DX;   \
	PDEPQ       R12, DX, DX;     \
	IMUL3Q      $7, DX, DX;      \
	ORQ         DX, BX;          \
	KMOVQ       BX, K2;          \
	VPERMB      Z0, idx, Z1;     \
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
// is fffd3; Z24 is fffdLead; Z29 is shift4.
//
// Two kinds of block skip the groups, which cost about twice what the
// masks do: one with no valid octet (each octet starts a maximal subpart or
// is a later octet of one: FF, C0 AF, ED A0 80, E2 82 or F0 9F 98
// repeated, the densest errors) is U+FFFD repeated, stored from Z26; one
// with every octet valid is its window moved down (Z29).
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
	VMOVDQU64    fffdLead<>(SB), Z24
	MOVL         $21, BX
	VPBROADCASTB BX, Z30
	MOVQ         $0x1249249249249249, R12
	KMOVQ        R12, K7
	VMOVDQU64    Z25, Z27
	VPADDB       Z30, Z27, K7, Z27
	VMOVDQU64    Z27, Z28
	VPADDB       Z30, Z28, K7, Z28
	VMOVDQU64    shift4<>(SB), Z29

write:
	LEADS
	KORTESTQ K6, K6
	JZ       writeLone
	SECOND
	KORTESTQ K6, K6
	JNZ      writeSubparts

writeLone:
	LONE

writeMasks:
	// The end of the block; stop if it is past DI.
	POPCNTQ R8, BX
	POPCNTQ R13, DX
	LEAQ    (DX)(DX*2), DX
	ADDQ    DX, BX
	ADDQ    AX, BX
	CMPQ    BX, DI
	JGT     stop
	TESTQ   R8, R8
	JZ      writeErrors
	CMPQ    R8, outMask<>(SB)
	JEQ     writeValid
	MOVQ    $0x1249249249249249, R12
	MOVQ    R13, DX
	ORQ     $3, DX
	KMOVQ   DX, K1
	VPBLENDMB Z24, Z0, K1, Z0
	GROUP(0, Z25)
	GROUP(1, Z27)
	GROUP(2, Z28)

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

writeSubparts:
	SUBPARTS
	JMP writeMasks

writeErrors:
	// No valid octet: the block is DX/3 U+FFFD in a row (DX <= 168),
	// stored 63 octets (21 U+FFFD) at a time from Z26. A store starts
	// only where some of DX is left, so that it ends at most 64 octets
	// after BX, the room checked above.
	VMOVDQU64 Z26, (AX)
	CMPQ      DX, $63
	JLE       writeErrorsEnd
	VMOVDQU64 Z26, 63(AX)
	CMPQ      DX, $126
	JLE       writeErrorsEnd
	VMOVDQU64 Z26, 126(AX)

writeErrorsEnd:
	MOVQ BX, AX
	JMP  writeNext

writeValid:
	// All 56 valid: the block is its own output, moved down by the 4
	// octets before it in the window; stop after the validRun-th in a
	// row.
	VPERMB    Z0, Z29, Z1
	VMOVDQU64 Z1, (AX)
	MOVQ      BX, AX
	LEAQ 1(CX), DX
	CMPQ R14, DX
	JEQ  writeRun
	MOVQ CX, done+32(FP) // the first of a run

writeRun:
	MOVQ CX, R14
	MOVQ done+32(FP), DX
	SUBQ CX, DX
	CMPQ DX, $(const_validRun-1)
	JLT  writeNext
	MOVB $1, run+48(FP)
	DECQ CX
	JMP  stop
