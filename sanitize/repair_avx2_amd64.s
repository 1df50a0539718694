//go:build amd64 && !purego

#include "go_asm.h"
#include "textflag.h"

// The repair kernels repairCountAVX2 and repairWriteAVX2
// (repair_avx2_amd64.go): the steps of repairCountAVX512 and
// repairWriteAVX512 (repair_amd64.s), with a window of 64 octets as two
// halves of 32. A block loads the halves from 4 before its first octet
// into Y0 and Y2 (and from 5 before into Y1 and Y3, for the octet before
// each), compares them with constants, makes the five masks of octetMasks
// with VPMOVMSKB, and combines those in general registers as subpartMasks
// does (and as repair_amd64.s does, instruction for instruction), into the
// masks of the valid octets (R8) and of the starts of maximal subparts
// (R13) among the 56 it decides.
//
// Registers of the masks, in both kernels:
//
//	Y15  0x0F in each octet (the low nibble mask)
//	Y14  admitTables[0]     Y13  admitTables[1]     Y12  admitTables[2]
//	Y11  admitLead in each octet
//	Y10  C0, Y9 DF, Y8 EF, Y7 F5 in each octet (signed comparisons)
//	Y0-Y3 the window, then scratch

// rp2OutMask is windowOut: window positions 4 to 59.
DATA rp2OutMask<>+0(SB)/8, $0x0ffffffffffffff0
GLOBL rp2OutMask<>(SB), RODATA|NOPTR, $8

// rp2FFFD is U+FFFD (EF BF BD) 21 times, and one more octet:
// repairWriteAVX2 stores it 32 octets at a time, the second half right
// after the first.
DATA rp2FFFD<>+0(SB)/8, $0xbfefbdbfefbdbfef
DATA rp2FFFD<>+8(SB)/8, $0xefbdbfefbdbfefbd
DATA rp2FFFD<>+16(SB)/8, $0xbdbfefbdbfefbdbf
DATA rp2FFFD<>+24(SB)/8, $0xbfefbdbfefbdbfef
DATA rp2FFFD<>+32(SB)/8, $0xefbdbfefbdbfefbd
DATA rp2FFFD<>+40(SB)/8, $0xbdbfefbdbfefbdbf
DATA rp2FFFD<>+48(SB)/8, $0xbfefbdbfefbdbfef
DATA rp2FFFD<>+56(SB)/8, $0xefbdbfefbdbfefbd
GLOBL rp2FFFD<>(SB), RODATA|NOPTR, $64

// rp2Source is the source register of a group of repairWriteAVX2 but for
// its first four octets: U+FFFD in octets 12-14 (repairGroups).
DATA rp2Source<>+0(SB)/8, $0
DATA rp2Source<>+8(SB)/8, $0x00bdbfef00000000
GLOBL rp2Source<>(SB), RODATA|NOPTR, $16

// rp2Bytes are the octets that CONSTS2 broadcasts: 0F, admitLead (01),
// C0, DF, EF and F5.
DATA rp2Bytes<>+0(SB)/8, $0x0000f5efdfc0010f
GLOBL rp2Bytes<>(SB), RODATA|NOPTR, $8

// CONSTS2 loads the constants of the masks (Y7-Y15), from memory: a
// legacy SSE MOVQ from a general register into an X register, among AVX2
// instructions, made a call of the kernels cost some 700 ns on the Xeon
// of bench/README.md (an SSE-AVX transition), against 10-30 ns a block.
#define CONSTS2 \
	VPBROADCASTB   rp2Bytes<>+0(SB), Y15;     \
	VBROADCASTI128 ·admitTables+0(SB), Y14;   \
	VBROADCASTI128 ·admitTables+16(SB), Y13;  \
	VBROADCASTI128 ·admitTables+32(SB), Y12;  \
	VPBROADCASTB   rp2Bytes<>+1(SB), Y11;     \
	VPBROADCASTB   rp2Bytes<>+2(SB), Y10;     \
	VPBROADCASTB   rp2Bytes<>+3(SB), Y9;      \
	VPBROADCASTB   rp2Bytes<>+4(SB), Y8;      \
	VPBROADCASTB   rp2Bytes<>+5(SB), Y7

// SECOND2 sets t to 0xFF at the octets of w (32 of a window) that are
// admitted by the octet before each, in p (the 32 octets one place
// earlier), a lead, and 0 elsewhere: the three lookups of admitTables
// share admitLead and no other bit. p is overwritten. VPSHUFB takes the
// low nibble of its index, or 0 where bit 7 is set: the nibbles need the
// mask (VPSRLW shifts 16-bit words).
#define SECOND2(w, p, t) \
	VPSRLW   $4, p, t;   \
	VPAND    Y15, t, t;  \
	VPSHUFB  t, Y14, t;  \
	VPAND    Y15, p, p;  \
	VPSHUFB  p, Y13, p;  \
	VPAND    p, t, t;    \
	VPSRLW   $4, w, p;   \
	VPAND    Y15, p, p;  \
	VPSHUFB  p, Y12, p;  \
	VPAND    p, t, t;    \
	VPCMPEQB Y11, t, t

// LEADS2 loads the window of the block at SI into Y0 (octets 0-31) and
// Y2 (32-63), and sets R8 to ge80 and R13 to second (octetMasks). It uses
// BX, Y1 and Y3.
#define LEADS2 \
	VMOVDQU   -4(SI), Y0;     \
	VMOVDQU   28(SI), Y2;     \
	VMOVDQU   -5(SI), Y1;     \
	SECOND2(Y0, Y1, Y3);      \
	VPMOVMSKB Y3, R13;        \
	VMOVDQU   27(SI), Y1;     \
	SECOND2(Y2, Y1, Y3);      \
	VPMOVMSKB Y3, BX;         \
	SHLQ      $32, BX;        \
	ORQ       BX, R13;        \
	VPMOVMSKB Y0, R8;         \
	VPMOVMSKB Y2, BX;         \
	SHLQ      $32, BX;        \
	ORQ       BX, R8

// HALFMASKS sets r9, r11 and r12 to the masks cont, ge3 and lead4 of the
// 32 octets w. VPCMPGTB b, a, d sets d to a > b, signed: C0 > w is 80-BF,
// w > DF and F5 > w is E0-F4, w > EF and F5 > w is F0-F4.
#define HALFMASKS(w, r9, r11, r12) \
	VPCMPGTB  w, Y10, Y1;  \
	VPMOVMSKB Y1, r9;      \
	VPCMPGTB  w, Y7, Y3;   \
	VPCMPGTB  Y9, w, Y1;   \
	VPAND     Y3, Y1, Y1;  \
	VPMOVMSKB Y1, r11;     \
	VPCMPGTB  Y8, w, Y1;   \
	VPAND     Y3, Y1, Y1;  \
	VPMOVMSKB Y1, r12

// SUBPARTS2 computes the rest of subpartMasks from the window in Y0 and
// Y2 and R8 (ge80) and R13 (second), as SUBPARTS of repair_amd64.s does,
// and LONE2 sets the masks from ge80 alone, as LONE does (no octet is
// admitted by a lead: second is 0). Either way R8 ends as the valid
// octets and R13 as the starts of maximal subparts, both within
// rp2OutMask. They use BX, DX, R9-R12, Y1 and Y3.
#define SUBPARTS2 \
	HALFMASKS(Y0, R9, R11, R12);                             \
	HALFMASKS(Y2, BX, DX, R10);                              \
	SHLQ      $32, BX;                                       \
	ORQ       BX, R9; /* cont */                             \
	SHLQ      $32, DX;                                       \
	ORQ       DX, R11; /* ge3 */                             \
	SHLQ      $32, R10;                                      \
	ORQ       R10, R12; /* lead4 */                          \
	MOVQ      R11, DX; /* DX = end2 := second &^ (ge3<<1) */ \
	SHLQ      $1, DX;                                        \
	ANDNQ     R13, DX, DX;                                   \
	MOVQ      R13, BX; /* BX = third := second<<1 & cont & ge3<<2 */ \
	SHLQ      $1, BX;                                        \
	ANDQ      R9, BX;                                        \
	SHLQ      $2, R11;                                       \
	ANDQ      R11, BX;                                       \
	SHLQ      $2, R12; /* R12 = lead4<<2 */                  \
	ANDNQ     BX, R12, R10; /* R10 = end3 := third &^ lead4<<2 */ \
	ORQ       BX, R13; /* R13 = second | third */            \
	ANDQ      R12, BX; /* BX = end4 := (third & lead4<<2)<<1 & cont */ \
	SHLQ      $1, BX;                                        \
	ANDQ      R9, BX;                                        \
	ORQ       BX, R13; /* R13 = owned := second | third | end4 */ \
	MOVQ      BX, R11; /* R10 = end34 := end3 | end4>>1 */   \
	SHRQ      $1, R11;                                       \
	ORQ       R11, R10;                                      \
	NOTQ      R8; /* R8 = valid := ^ge80 | end2 | end2>>1 */ \
	ORQ       DX, R8; /*   | end34 | end34>>1 | end34>>2 | end4 */ \
	SHRQ      $1, DX;                                        \
	ORQ       DX, R8;                                        \
	ORQ       BX, R8;                                        \
	ORQ       R10, R8;                                       \
	SHRQ      $1, R10;                                       \
	ORQ       R10, R8;                                       \
	SHRQ      $1, R10;                                       \
	ORQ       R10, R8;                                       \
	ORQ       R8, R13; /* R13 = start := ^(valid | owned) & outMask */ \
	ANDNQ     rp2OutMask<>(SB), R13, R13;                    \
	ANDQ      rp2OutMask<>(SB), R8 /* R8 = valid & outMask */

#define LONE2 \
	MOVQ  R8, R13; /* R13 = start := ge80 & outMask */ \
	ANDQ  rp2OutMask<>(SB), R13;   \
	NOTQ  R8; /* R8 = valid := ^ge80 & outMask */ \
	ANDQ  rp2OutMask<>(SB), R8

// func repairCountAVX2(p *byte, blocks int) (done, count, valid int)
//
// Registers: as repairCountAVX512's. SI the block, CX the blocks left, AX
// the count, DI the valid octets, R14 the value of CX at the last of a
// run of all-valid blocks and done the value at its first.
TEXT ·repairCountAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	XORQ AX, AX
	XORQ DI, DI
	XORQ R14, R14
	CONSTS2
	PCALIGN $32

count:
	LEADS2
	TESTQ R13, R13
	JNZ   countSubparts
	LONE2

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
	SUBPARTS2
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

// GROUP2 writes the four octets at off(SI) repaired, at AX, and advances
// AX: idx, the low octet of the register w (whose byte register is wb),
// is v | s<<4 for the group's masks, and repairGroups (at R9) holds the
// VPSHUFB control at 16*idx and the length at 16*idx+15. The source is
// the four octets and U+FFFD (rp2Source in X6); all 16 octets of the
// result are stored (the block checked that they fit). R12 is scratch.
#define GROUP2(off, w, wb) \
	MOVBLZX wb, R12;              \
	SHRQ    $8, w;                \
	SHLL    $4, R12;              \
	VMOVD   off(SI), X1;          \
	VPOR    X6, X1, X1;           \
	VPSHUFB (R9)(R12*1), X1, X1;  \
	VMOVDQU X1, (AX);             \
	MOVBLZX 15(R9)(R12*1), R12;   \
	ADDQ    R12, AX

// func repairWriteAVX2(p *byte, blocks int, out *byte, room int) (done, written int, run bool)
//
// Registers: as repairWriteAVX512's. SI the block, CX the blocks left, AX
// where the next octet goes, DI the last place a block may end:
// out+room-64, R14 and done as in repairCountAVX2. Y4 and Y5 are rp2FFFD,
// X6 rp2Source.
//
// A block with both valid and ill-formed octets takes 14 groups (GROUP2),
// each index made from R8 and R13 with PDEP: a byte v | s<<4 for each
// four octets. A block with no valid octet (the densest errors) is U+FFFD
// repeated, stored from Y4 and Y5; one with every octet valid is copied.
TEXT ·repairWriteAVX2(SB), NOSPLIT, $0-49
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), AX
	MOVQ room+24(FP), DI
	LEAQ -64(AX)(DI*1), DI
	XORQ R14, R14
	MOVB $0, run+48(FP)
	CONSTS2
	VMOVDQU rp2FFFD<>+0(SB), Y4
	VMOVDQU rp2FFFD<>+32(SB), Y5
	VMOVDQU rp2Source<>(SB), X6

write:
	LEADS2
	TESTQ R13, R13
	JNZ   writeSubparts
	LONE2

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
	CMPQ    R8, rp2OutMask<>(SB)
	JEQ     writeValid

	// The indexes: R11 for octets 0-31 of the block, BX for 32-55.
	MOVQ  R8, BX
	SHRQ  $4, BX
	MOVQ  R13, DX
	SHRQ  $4, DX
	MOVQ  $0x0f0f0f0f0f0f0f0f, R9
	PDEPQ R9, BX, R11
	NOTQ  R9
	PDEPQ R9, DX, R12
	ORQ   R12, R11
	SHRQ  $32, BX
	SHRQ  $32, DX
	PDEPQ R9, DX, DX
	NOTQ  R9
	PDEPQ R9, BX, BX
	ORQ   DX, BX
	LEAQ  ·repairGroups(SB), R9
	GROUP2(0, R11, R11B)
	GROUP2(4, R11, R11B)
	GROUP2(8, R11, R11B)
	GROUP2(12, R11, R11B)
	GROUP2(16, R11, R11B)
	GROUP2(20, R11, R11B)
	GROUP2(24, R11, R11B)
	GROUP2(28, R11, R11B)
	GROUP2(32, BX, BL)
	GROUP2(36, BX, BL)
	GROUP2(40, BX, BL)
	GROUP2(44, BX, BL)
	GROUP2(48, BX, BL)
	GROUP2(52, BX, BL)

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
	SUBPARTS2
	JMP writeMasks

writeErrors:
	// No valid octet: the block is DX/3 U+FFFD in a row (DX <= 168),
	// stored 63 octets (21 U+FFFD) at a time from Y4 and Y5. A store
	// starts only where some of DX is left, so that it ends at most 64
	// octets after BX, the room checked above.
	VMOVDQU Y4, (AX)
	VMOVDQU Y5, 32(AX)
	CMPQ    DX, $63
	JLE     writeErrorsEnd
	VMOVDQU Y4, 63(AX)
	VMOVDQU Y5, 95(AX)
	CMPQ    DX, $126
	JLE     writeErrorsEnd
	VMOVDQU Y4, 126(AX)
	VMOVDQU Y5, 158(AX)

writeErrorsEnd:
	MOVQ BX, AX
	JMP  writeNext

writeValid:
	// All 56 valid: the block is its own output, copied as two stores
	// of 32 that overlap; stop after the validRun-th in a row.
	VMOVDQU (SI), Y1
	VMOVDQU 24(SI), Y3
	VMOVDQU Y1, (AX)
	VMOVDQU Y3, 24(AX)
	MOVQ    BX, AX
	LEAQ    1(CX), DX
	CMPQ    R14, DX
	JEQ     writeRun
	MOVQ    CX, done+32(FP) // the first of a run

writeRun:
	MOVQ CX, R14
	MOVQ done+32(FP), DX
	SUBQ CX, DX
	CMPQ DX, $(const_validRun-1)
	JLT  writeNext
	MOVB $1, run+48(FP)
	DECQ CX
	JMP  stop
