//go:build amd64 && !purego

#include "textflag.h"
#include "validate_amd64.h"

// The fused check kernel checkAVX2 (check_avx2_amd64.go documents it): the
// steps of checkAVX512 (check_amd64.s), 64 octets at a time as two halves
// of 32, with VPSHUFB's 16-entry lookups where checkAVX512 has VPERMB's
// 64-entry ones:
//
//   - a run of ASCII has the octets 00-0F that are in no class (TAB, LF,
//     CR) lifted (LIFT) and its minimum compared with the floor of the
//     classes; only where an octet is at or below it is it looked up in
//     the attention table (attnTable: exact for ASCII octets), instead of
//     the ASCII table;
//   - a block with other octets gets validAVX2's check and, sharing its
//     high nibbles, the attention test, which is exact for first octets:
//     a block where no character of the classes starts needs no tier;
//   - where one may start, the two octets after each lead octet are
//     looked up (AFTER), and tiers 1 and 2 run on the half of 32 octets
//     where a character of the classes may still start, with the tables
//     of fusedTable looked up by six bits (LOOKUP64).
//
// Registers:
//
//	SI   p                  CX   n                  AX   offset of the block
//	DX   the fusedTable     R8   the attnTable      R9   has4
//	Y15  0x0F in each octet (the low nibble mask)
//	Y14  nibbleTables[0]    Y13  nibbleTables[1]    Y12  nibbleTables[2]
//	Y11  attention table, high nibbles              Y10  low nibbles
//	Y9   0x80 in each octet                         Y8   asciiLift
//	Y0-Y7 scratch; BX, R10, R11 scratch

DATA ck2Third<>+0(SB)/8, $0x6060606060606060 // 0xE0-0x80, as validAVX2's Y11
DATA ck2Third<>+8(SB)/8, $0x6060606060606060
DATA ck2Third<>+16(SB)/8, $0x6060606060606060
DATA ck2Third<>+24(SB)/8, $0x6060606060606060
GLOBL ck2Third<>(SB), RODATA|NOPTR, $32
DATA ck2Fourth<>+0(SB)/8, $0x7070707070707070 // 0xF0-0x80, as validAVX2's Y10
DATA ck2Fourth<>+8(SB)/8, $0x7070707070707070
DATA ck2Fourth<>+16(SB)/8, $0x7070707070707070
DATA ck2Fourth<>+24(SB)/8, $0x7070707070707070
GLOBL ck2Fourth<>(SB), RODATA|NOPTR, $32

DATA ck2Row0<>+0(SB)/8, $0x7070707070707070 // 0x80-0x10: octets 00-0F keep bit 7 clear
DATA ck2Row0<>+8(SB)/8, $0x7070707070707070
DATA ck2Row0<>+16(SB)/8, $0x7070707070707070
DATA ck2Row0<>+24(SB)/8, $0x7070707070707070
GLOBL ck2Row0<>(SB), RODATA|NOPTR, $32

// CCHECK is validAVX2's CHECK (t: the errors of the 32 octets in, given
// the octets one, two and three places before them in p1, p2 and p3, which
// it overwrites) that also sets a to the attention bits of the octets in:
// nonzero where a character of the classes may start. in is kept.
#define CCHECK(in, p1, p2, p3, t, a) \
	VPSUBUSB ck2Third<>(SB), p2, p2;  \
	VPSUBUSB ck2Fourth<>(SB), p3, p3; \
	VPOR     p3, p2, p2;              \
	VPAND    Y9, p2, p2;              \
	VPSRLW   $4, in, a;               \
	VPAND    Y15, a, a;               \
	VPSHUFB  a, Y12, t;               \
	VPSHUFB  a, Y11, a;               \
	VPAND    Y15, in, p3;             \
	VPSHUFB  p3, Y10, p3;             \
	VPAND    p3, a, a;                \
	VPSRLW   $4, p1, p3;              \
	VPAND    Y15, p3, p3;             \
	VPSHUFB  p3, Y14, p3;             \
	VPAND    p3, t, t;                \
	VPAND    Y15, p1, p1;             \
	VPSHUFB  p1, Y13, p1;             \
	VPAND    p1, t, t;                \
	VPXOR    p2, t, t

// CCHECKAT is CCHECK for the octets in at off(SI)(AX*1), loading those
// before.
#define CCHECKAT(off, in, p1, p2, p3, t, a) \
	VMOVDQU off-1(SI)(AX*1), p1; \
	VMOVDQU off-2(SI)(AX*1), p2; \
	VMOVDQU off-3(SI)(AX*1), p3; \
	CCHECK(in, p1, p2, p3, t, a)

// ASCIICLS sets in to the attention bits of the 32 ASCII octets in: for
// ASCII, nonzero exactly at the characters of the classes. VPSHUFB reads
// the low nibble of an ASCII octet as it is (bits 4-6 are ignored); the
// high nibbles need the mask (VPSRLW shifts 16-bit words). t is scratch.
#define ASCIICLS(in, t) \
	VPSRLW  $4, in, t;   \
	VPAND   Y15, t, t;   \
	VPSHUFB t, Y11, t;   \
	VPSHUFB in, Y10, in; \
	VPAND   t, in, in

// LIFT sets out to the octets in, the ASCII octets 00-0F that are in no
// class (TAB, LF, CR: asciiLift in Y8) lifted above the floor by setting
// bit 5: VPSHUFB indexes with in+0x70, saturated, which has bit 7 clear
// for those octets only (row: 0x70 in each octet). Other octets, non-ASCII
// ones too, are kept.
#define LIFT(in, row, out) \
	VPADDUSB row, in, out; \
	VPSHUFB  out, Y8, out; \
	VPOR     in, out, out

// AFTER keeps in a the attention bits of the 32 octets at off(SI)(AX*1)
// that the two octets after each allow: fusedTable's after (at 504(DX))
// looked up by afterIndex, 4*h1 + h2 for their high nibbles h1 and h2 (at
// most 75: bit 7 stays clear). A lead octet whose next two octets start
// no character of the classes needs no tier. The caller knows that p has
// the two octets after the 32. Y1-Y3 are overwritten.
#define AFTER(off, a) \
	VMOVDQU        off+1(SI)(AX*1), Y1; \
	VMOVDQU        off+2(SI)(AX*1), Y2; \
	VPSRLW         $4, Y1, Y1;          \
	VPSRLW         $4, Y2, Y2;          \
	VPAND          Y15, Y1, Y1;         \
	VPAND          Y15, Y2, Y2;         \
	VPSLLW         $2, Y1, Y1;          \
	VPADDB         Y2, Y1, Y1;          \
	VBROADCASTI128 504(DX), Y3;         \
	VPSHUFB        Y1, Y3, Y3;          \
	VPAND          Y3, a, a

// LOOKUP64 sets out to the entries of the 64-octet table at off(DX) for
// the low six bits of the octets in idx (overwritten): VPSHUFB looks the
// low nibble up in each quarter of the table, and bits 4 and 5, shifted up
// to bit 7, pick the quarter with VPBLENDVB. t, m4, m5 and x are scratch.
#define LOOKUP64(idx, off, t, m4, m5, x, out) \
	VPAND          Y15, idx, t;          \
	VPSLLW         $3, idx, m4;          \
	VPSLLW         $2, idx, m5;          \
	VBROADCASTI128 off+0(DX), out;       \
	VPSHUFB        t, out, out;          \
	VBROADCASTI128 off+16(DX), x;        \
	VPSHUFB        t, x, x;              \
	VPBLENDVB      m4, x, out, out;      \
	VBROADCASTI128 off+32(DX), x;        \
	VPSHUFB        t, x, x;              \
	VBROADCASTI128 off+48(DX), idx;      \
	VPSHUFB        t, idx, idx;          \
	VPBLENDVB      m4, idx, x, x;        \
	VPBLENDVB      m5, x, out, out

// TIER1 sets Y7 to tier 1's slot bits of the 32 octets in Y6:
// high[octet>>4] & low[octet&63]. Y0-Y5 are overwritten.
#define TIER1 \
	VPSRLW         $4, Y6, Y1;               \
	VPAND          Y15, Y1, Y1;              \
	VBROADCASTI128 128(DX), Y2;              \
	VPSHUFB        Y1, Y2, Y7;               \
	VMOVDQA        Y6, Y0;                   \
	LOOKUP64(Y0, 192, Y1, Y2, Y3, Y4, Y5);   \
	VPAND          Y5, Y7, Y7

// NEXT keeps in Y7 the slot bits that the octets in Y0 (overwritten), k
// places after those of Y7, allow: next[k-1] at off(DX).
#define NEXT(off) \
	LOOKUP64(Y0, off, Y1, Y2, Y3, Y4, Y5); \
	VPAND Y5, Y7, Y7

// FLAGGED sets r to the mask of the nonzero octets of Y7.
#define FLAGGED(r) \
	VPXOR     Y0, Y0, Y0; \
	VPCMPEQB  Y0, Y7, Y7; \
	VPMOVMSKB Y7, r;      \
	NOTL      r

// TIERAT sets r to the mask of the octets flagged by tier 2 among the 32
// at off(SI)(AX*1), loading the three octets after each: the caller knows
// that p has them. Without 4-octet slots (R9 == 0), next[2] keeps every
// bit, and it jumps to no4 without looking at it.
#define TIERAT(off, r, no4) \
	VMOVDQU off(SI)(AX*1), Y6;   \
	TIER1;                       \
	VMOVDQU off+1(SI)(AX*1), Y0; \
	NEXT(256);                   \
	VMOVDQU off+2(SI)(AX*1), Y0; \
	NEXT(320);                   \
	TESTQ   R9, R9;              \
	JZ      no4;                 \
	VMOVDQU off+3(SI)(AX*1), Y0; \
	NEXT(384);                   \
no4:                             \
	FLAGGED(r)

// TIERIN is TIERAT taking the octets after each from the 32 themselves
// and zero past their end: exact for octets that end at n, and otherwise
// blind to the characters that run past them. The lane shuffle puts the
// high lane under the low one and zero under the high one, and VPALIGNR
// takes the octets 1, 2, 3 places on from the concatenations.
#define TIERIN(off, r, no4) \
	VMOVDQU    off(SI)(AX*1), Y6;  \
	TIER1;                         \
	VPERM2I128 $0x81, Y6, Y6, Y0;  \
	VPALIGNR   $1, Y6, Y0, Y0;     \
	NEXT(256);                     \
	VPERM2I128 $0x81, Y6, Y6, Y0;  \
	VPALIGNR   $2, Y6, Y0, Y0;     \
	NEXT(320);                     \
	TESTQ      R9, R9;             \
	JZ         no4;                \
	VPERM2I128 $0x81, Y6, Y6, Y0;  \
	VPALIGNR   $3, Y6, Y0, Y0;     \
	NEXT(384);                     \
no4:                               \
	FLAGGED(r)

// NONZERO64 sets r to the mask of the nonzero octets of lo and hi (the
// octets 0-31 and 32-63 of a block; both overwritten). t is scratch.
#define NONZERO64(lo, hi, t, r) \
	VPXOR     t, t, t;    \
	VPCMPEQB  t, lo, lo;  \
	VPCMPEQB  t, hi, hi;  \
	VPMOVMSKB lo, r;      \
	VPMOVMSKB hi, R11;    \
	SHLQ      $32, R11;   \
	ORQ       R11, r;     \
	NOTQ      r

// func checkAVX2(p *byte, n, start int, t *fusedTable, a *attnTable) (off int, mask uint64)
TEXT ·checkAVX2(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ start+16(FP), AX
	MOVQ t+24(FP), DX
	MOVQ a+32(FP), R8

	VPCMPEQB       Y15, Y15, Y15
	VPSRLW         $12, Y15, Y15
	VPACKUSWB      Y15, Y15, Y15 // 0x0F in each octet
	VPCMPEQB       Y9, Y9, Y9
	VPSLLW         $7, Y9, Y9
	VPACKSSWB      Y9, Y9, Y9    // 0x80 in each octet
	VBROADCASTI128 ·nibbleTables+0(SB), Y14
	VBROADCASTI128 ·nibbleTables+16(SB), Y13
	VBROADCASTI128 ·nibbleTables+32(SB), Y12
	VBROADCASTI128 0(R8), Y11
	VBROADCASTI128 16(R8), Y10
	VBROADCASTI128 488(DX), Y8 // asciiLift
	MOVQ           448(DX), R9
	TESTQ          AX, AX
	JNZ            loop64f

	// Runs of ASCII: 256 octets at a time, then 128, while they are ASCII
	// and in no class: LIFT, and one test of the minimum against the
	// floor. The blocks take over at the first 128 that are not (the
	// octets before AX are ASCII, or loop64 has checked that no character
	// is cut short there).
ascii128:
	LEAQ    128(AX), BX
	CMPQ    BX, CX
	JA      blocks
	VMOVDQU (SI)(AX*1), Y0 // the first 128 octets have a non-ASCII one: no run
	VPOR    32(SI)(AX*1), Y0, Y0
	VPOR    64(SI)(AX*1), Y0, Y0
	VPOR    96(SI)(AX*1), Y0, Y0
	VPTEST  Y9, Y0
	JNZ     blocks
	VMOVDQU ck2Row0<>(SB), Y7

ascii256:
	LEAQ      256(AX), BX
	CMPQ      BX, CX
	JA        ascii128_loop
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VMOVDQU   64(SI)(AX*1), Y2
	VMOVDQU   96(SI)(AX*1), Y3
	LIFT(Y0, Y7, Y4)
	LIFT(Y1, Y7, Y5)
	VPMINSB   Y5, Y4, Y4
	LIFT(Y2, Y7, Y5)
	LIFT(Y3, Y7, Y6)
	VPMINSB   Y6, Y5, Y5
	VPMINSB   Y5, Y4, Y4
	VMOVDQU   128(SI)(AX*1), Y0
	VMOVDQU   160(SI)(AX*1), Y1
	VMOVDQU   192(SI)(AX*1), Y2
	VMOVDQU   224(SI)(AX*1), Y3
	LIFT(Y0, Y7, Y5)
	LIFT(Y1, Y7, Y6)
	VPMINSB   Y6, Y5, Y5
	VPMINSB   Y5, Y4, Y4
	LIFT(Y2, Y7, Y5)
	LIFT(Y3, Y7, Y6)
	VPMINSB   Y6, Y5, Y5
	VPMINSB   Y5, Y4, Y4
	VPCMPGTB  456(DX), Y4, Y5
	VPMOVMSKB Y5, BX
	CMPL      BX, $-1
	JNE       ascii128_loop
	ADDQ      $256, AX
	JMP       ascii256

	// 128 octets: the rest of a run, or the first half of the 256 that
	// were not clean.
ascii128_loop:
	LEAQ      128(AX), BX
	CMPQ      BX, CX
	JA        blocks
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VMOVDQU   64(SI)(AX*1), Y2
	VMOVDQU   96(SI)(AX*1), Y3
	LIFT(Y0, Y7, Y4)
	LIFT(Y1, Y7, Y5)
	VPMINSB   Y5, Y4, Y4
	LIFT(Y2, Y7, Y5)
	LIFT(Y3, Y7, Y6)
	VPMINSB   Y6, Y5, Y5
	VPMINSB   Y5, Y4, Y4
	VPCMPGTB  456(DX), Y4, Y5
	VPMOVMSKB Y5, BX
	CMPL      BX, $-1
	JNE       ascii128_look
	ADDQ      $128, AX
	JMP       ascii256

	// An octet at or below the floor: a non-ASCII one (the sign bits of
	// the minimum), or a control that the lookup tells.
ascii128_look:
	VPMOVMSKB Y4, BX
	TESTL     BX, BX
	JNZ       blocks
	ASCIICLS(Y0, Y4)
	ASCIICLS(Y1, Y5)
	ASCIICLS(Y2, Y6)
	ASCIICLS(Y3, Y7)
	VPOR      Y0, Y1, Y0
	VPOR      Y2, Y3, Y2
	VPOR      Y0, Y2, Y0
	VPTEST    Y0, Y0
	JNZ       blocks
	ADDQ      $128, AX
	JMP       ascii128

blocks:
	TESTQ AX, AX
	JNZ   loop64

	// The first block, as in validAVX2: the octets before p count as
	// zero. n >= 67: the three octets after it are in p.
	VMOVDQU    (SI), Y0
	VPERM2I128 $0x08, Y0, Y0, Y1
	VPALIGNR   $15, Y1, Y0, Y2
	VPALIGNR   $14, Y1, Y0, Y3
	VPALIGNR   $13, Y1, Y0, Y4
	CCHECK(Y0, Y2, Y3, Y4, Y5, Y6)
	VMOVDQU    32(SI), Y1
	CCHECKAT(32, Y1, Y2, Y3, Y4, Y7, Y0)
	VPOR       Y5, Y7, Y5
	VPTEST     Y5, Y5
	JNZ        fail
	VPOR       Y6, Y0, Y2
	VPTEST     Y2, Y2
	JNZ        tiers
	MOVQ       $64, AX

	// 64 octets at a time. As in validAVX2, their largest octet chooses
	// the check: with one of E0-FF, multi64; without, TWOPAIRS and the
	// attention test (two64); if all are ASCII, only their classes are
	// looked at, and a run of ASCII goes on 128 octets at a time. loop64
	// runs where the block before was not full (its octets were below
	// E0), loop64f after a full block, where it also looks at the three
	// octets before the block.
loop64f:
	LEAQ      64(AX), BX
	CMPQ      BX, CX
	JA        last
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VPMAXUB   Y0, Y1, Y2
	VPSUBUSB  ck2Third<>(SB), Y2, Y3
	VPMOVMSKB Y3, BX
	TESTL     BX, BX
	JNZ       multi64
	VPMAXUB   -3(SI)(AX*1), Y2, Y2
	VPSUBUSB  ck2Third<>(SB), Y2, Y3
	VPMOVMSKB Y3, BX
	TESTL     BX, BX
	JNZ       multi64
	VPMOVMSKB Y2, BX
	TESTL     BX, BX
	JNZ       two64
	JMP       ascii64

loop64:
	LEAQ      64(AX), BX
	CMPQ      BX, CX
	JA        last
	VMOVDQU   (SI)(AX*1), Y0
	VMOVDQU   32(SI)(AX*1), Y1
	VPMAXUB   Y0, Y1, Y2
	VPSUBUSB  ck2Third<>(SB), Y2, Y3
	VPMOVMSKB Y3, BX
	TESTL     BX, BX
	JNZ       multi64
	VPMOVMSKB Y2, BX
	TESTL     BX, BX
	JNZ       two64
	MOVBLZX   -1(SI)(AX*1), BX // a lead before the block: TWOPAIRS fails it
	CMPL      BX, $0xC0
	JAE       two64

ascii64:
	VMOVDQU   ck2Row0<>(SB), Y4
	LIFT(Y0, Y4, Y2)
	LIFT(Y1, Y4, Y3)
	VPMINSB   Y3, Y2, Y2
	VPCMPGTB  456(DX), Y2, Y2
	VPMOVMSKB Y2, BX
	CMPL      BX, $-1
	JEQ       ascii64_clean
	ASCIICLS(Y0, Y2)
	ASCIICLS(Y1, Y3)
	VPOR      Y0, Y1, Y2
	VPTEST    Y2, Y2
	JNZ       ascii_hit

ascii64_clean:
	ADDQ $64, AX
	JMP  ascii128

ascii_hit:
	NONZERO64(Y0, Y1, Y2, BX)
	JMP hit

	// No octet E0-FF: the attention bits of the halves, from both nibbles
	// of each octet, in the tables of attnCont, which also set bit 7 for
	// the continuations that TWOPAIRS wants; bit 7 off, into Y6 and Y0 as
	// tiers wants them.
two64:
	VBROADCASTI128 520(DX), Y2 // attnCont
	VBROADCASTI128 536(DX), Y3
	VPSRLW         $4, Y0, Y6
	VPAND          Y15, Y6, Y6
	VPSHUFB        Y6, Y2, Y6
	VPAND          Y15, Y0, Y4
	VPSHUFB        Y4, Y3, Y4
	VPAND          Y4, Y6, Y6
	VPSRLW         $4, Y1, Y7
	VPAND          Y15, Y7, Y7
	VPSHUFB        Y7, Y2, Y7
	VPAND          Y15, Y1, Y0
	VPSHUFB        Y0, Y3, Y0
	VPAND          Y7, Y0, Y0
	TWOPAIRS(Y6, Y0, BX)
	TESTL          BX, BX
	JNZ            fail
	VPOR           Y6, Y0, Y2
	VPTEST         ·twoOctet+128(SB), Y2
	JNZ            two64_tiers
	ADDQ           $64, AX
	JMP            loop64

two64_tiers:
	VPAND ·twoOctet+128(SB), Y6, Y6
	VPAND ·twoOctet+128(SB), Y0, Y0
	JMP   tiers

	// Validation and the attention test of both halves, and one test for
	// both.
multi64:
	CCHECKAT(0, Y0, Y2, Y3, Y4, Y5, Y6)
	CCHECKAT(32, Y1, Y2, Y3, Y4, Y7, Y0)
	VPOR   Y5, Y7, Y5
	VPTEST Y5, Y5
	JNZ    fail
	VPOR   Y6, Y0, Y2
	VPTEST Y2, Y2
	JNZ    tiers
	ADDQ   $64, AX
	JMP    loop64f

	// The block at AX is well-formed, and a character of the classes may
	// start in it: the attention bits of its halves are in Y6 and Y0.
	// Tiers 1 and 2 run on each half that has any. The octets after the
	// second half are loaded if p has three past the block; otherwise
	// (the last block, or one that ends less than 3 octets before n)
	// what runs past it is looked at again in the last block, which
	// starts at or before its last 3 octets, or is not there, at n.
tiers:
	AFTER(0, Y6)
	LEAQ      67(AX), R10
	CMPQ      R10, CX
	JA        tiers_masks
	AFTER(32, Y0)

tiers_masks:
	VPOR      Y6, Y0, Y2
	VPTEST    Y2, Y2
	JZ        tiers_none
	VPXOR     Y2, Y2, Y2
	VPCMPEQB  Y2, Y6, Y6
	VPMOVMSKB Y6, R10
	VPCMPEQB  Y2, Y0, Y0
	VPMOVMSKB Y0, R11
	SHLQ      $32, R11
	ORQ       R11, R10 // all ones where no character may start
	XORQ      BX, BX
	CMPL      R10, $-1
	JEQ       tiers_hi
	TIERAT(0, BX, tiers_lo_no4)

tiers_hi:
	SHRQ  $32, R10
	CMPL  R10, $-1
	JEQ   tiers_done
	LEAQ  67(AX), R10
	CMPQ  R10, CX
	JA    tiers_hi_in
	TIERAT(32, R10, tiers_hi_no4)
	SHLQ  $32, R10
	ORQ   R10, BX
	JMP   tiers_done

tiers_hi_in:
	TIERIN(32, R10, tiers_in_no4)
	SHLQ $32, R10
	ORQ  R10, BX

tiers_done:
	TESTQ BX, BX
	JNZ   hit

tiers_none:
	ADDQ  $64, AX
	JMP   loop64f

	// The rest, fewer than 64 octets, in the block that ends at n (it
	// overlaps the blocks before, whose octets may be flagged again). It
	// checks that p does not end inside a character.
last:
	CMPQ     AX, CX
	JEQ      end
	LEAQ     -64(CX), AX
	VMOVDQU  (SI)(AX*1), Y0
	VMOVDQU  32(SI)(AX*1), Y1
	CCHECKAT(0, Y0, Y2, Y3, Y4, Y5, Y6)
	VPSUBUSB ·incompleteMax+32(SB), Y1, Y2
	VPOR     Y2, Y5, Y5
	CCHECKAT(32, Y1, Y2, Y3, Y4, Y7, Y0)
	VPOR     Y5, Y7, Y5
	VPTEST   Y5, Y5
	JNZ      fail
	VPOR     Y6, Y0, Y2
	VPTEST   Y2, Y2
	JNZ      tiers
	JMP      clean

	// The blocks end at n: p must not end inside a character.
end:
	VMOVDQU  -32(SI)(AX*1), Y7
	VPSUBUSB ·incompleteMax+32(SB), Y7, Y7
	VPTEST   Y7, Y7
	JNZ      fail_end

clean:
	MOVQ CX, off+40(FP)
	MOVQ $0, mask+48(FP)
	VZEROUPPER
	RET

fail_end:
	LEAQ -4(CX), AX // the character cut short starts after

fail:
	MOVQ AX, off+40(FP)
	MOVQ $0, mask+48(FP)
	VZEROUPPER
	RET

	// The block at AX has the octets in BX flagged.
hit:
	MOVQ AX, off+40(FP)
	MOVQ BX, mask+48(FP)
	VZEROUPPER
	RET
