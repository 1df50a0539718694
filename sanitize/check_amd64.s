//go:build amd64 && !purego

#include "textflag.h"
#include "validate_amd64.h"

// The fused check kernel checkAVX512 (fused.go documents the two tiers,
// check_amd64.go the contract). It is validAVX512 with the class checks
// added to each of its paths: a run of ASCII is looked up in the ASCII
// table of the classes, and a block with other octets gets tier 1, and
// tier 2 where tier 1 finds something.
//
// Registers, besides validAVX512's (validate_amd64.h):
//
//	DX   the fusedTable
//	Z24  ascii[0:64]        Z23  ascii[64:128]
//	Z22  high               Z21  low
//	Z20  next[0]            Z19  next[1]            Z18  next[2]
//	R9   has4: whether a slot is for 4-octet characters
//	Z10, Z11 tier 1's bits of the blocks at AX and AX+64
//	Z0-Z9 scratch, K1-K4 masks

// TIER1 sets v to tier 1's slot bits of the 64 octets in, whose high
// nibbles are in hi (t is scratch).
#define TIER1(in, hi, t, v) \
	VPERMB Z22, hi, t; \
	VPERMB Z21, in, v; \
	VPANDD t, v, v

// TIER2 sets k to tier 2's mask of the 64 octets whose tier 1 bits are in
// v, given the 64 octets one, two and three places after them in n1, n2
// and n3 (overwritten).
#define TIER2(v, n1, n2, n3, k) \
	VPERMB     Z20, n1, n1;       \
	VPERMB     Z19, n2, n2;       \
	VPERMB     Z18, n3, n3;       \
	VPTERNLOGD $0x80, n3, n2, n1; \
	VPTESTMB   v, n1, k

// TIER2AT is TIER2 for the block at off(SI)(AX*1), loading the octets
// after it: the caller knows that p has three octets after the block. If
// no slot is for 4-octet characters (R9 == 0), the third octet after
// keeps every bit, and it jumps to no4 without looking at it.
#define TIER2AT(off, v, k, no4) \
	VMOVDQU64  off+1(SI)(AX*1), Z6; \
	VMOVDQU64  off+2(SI)(AX*1), Z7; \
	VPERMB     Z20, Z6, Z6;         \
	VPERMB     Z19, Z7, Z7;         \
	TESTQ      R9, R9;              \
	JZ         no4;                 \
	VMOVDQU64  off+3(SI)(AX*1), Z8; \
	VPERMB     Z18, Z8, Z8;         \
	VPANDD     Z8, Z7, Z7;          \
no4:                                \
	VPTERNLOGD $0x80, v, Z7, Z6;    \
	VPTESTMB   Z6, Z6, k

// TIER2IN is TIER2 for the block in, taking the octets after each from in
// and zero past its end: exact for a block that ends at n, and otherwise
// blind to the characters that run past the block's end.
#define TIER2IN(in, v, k) \
	VMOVDQU64  ·byteIndex(SB), Z6;   \
	VPTERNLOGD $0xFF, Z9, Z9, Z9;    \
	VPSUBB     Z9, Z6, Z6;           \
	VPSUBB     Z9, Z6, Z7;           \
	VPSUBB     Z9, Z7, Z8;           \
	MOVQ       $0x7FFFFFFFFFFFFFFF, BX; \
	KMOVQ      BX, K2;               \
	SHRQ       $1, BX;               \
	KMOVQ      BX, K3;               \
	SHRQ       $1, BX;               \
	KMOVQ      BX, K4;               \
	VPERMB.Z   in, Z6, K2, Z6;       \
	VPERMB.Z   in, Z7, K3, Z7;       \
	VPERMB.Z   in, Z8, K4, Z8;       \
	TIER2(v, Z6, Z7, Z8, k)

// ASCII256 sets K1 unless the 256 octets in Z0-Z3 (overwritten) are ASCII
// and in no class.
#define ASCII256 \
	VPORQ      Z0, Z1, Z4;        \
	VPTERNLOGD $0xFE, Z3, Z2, Z4; \
	VPERMI2B   Z23, Z24, Z0;      \
	VPERMI2B   Z23, Z24, Z1;      \
	VPERMI2B   Z23, Z24, Z2;      \
	VPERMI2B   Z23, Z24, Z3;      \
	VPTERNLOGD $0xFE, Z3, Z2, Z1; \
	VPTERNLOGD $0xF8, Z26, Z4, Z0; \
	VPORQ      Z1, Z0, Z0;        \
	VPTESTMB   Z0, Z0, K1

// ASCII64 jumps to notascii unless the 64 octets in Z0 are ASCII. Then it
// sets K1 to those in a class, and ZF unless there are any (Z0 is
// overwritten).
#define ASCII64(notascii) \
	VPMOVB2M Z0, K1;       \
	KORTESTQ K1, K1;       \
	JNZ      notascii;     \
	VPERMI2B Z23, Z24, Z0; \
	VPTESTMB Z0, Z0, K1;   \
	KORTESTQ K1, K1

// LOAD256 loads the 256 octets at AX into Z0-Z3.
#define LOAD256 \
	VMOVDQU64 (SI)(AX*1), Z0;    \
	VMOVDQU64 64(SI)(AX*1), Z1;  \
	VMOVDQU64 128(SI)(AX*1), Z2; \
	VMOVDQU64 192(SI)(AX*1), Z3

// func checkAVX512(p *byte, n, start int, t *fusedTable) (off int, mask uint64)
TEXT ·checkAVX512(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ start+16(FP), AX
	MOVQ t+24(FP), DX

	VBROADCASTI32X4 ·nibbleTables+0(SB), Z31
	VBROADCASTI32X4 ·nibbleTables+16(SB), Z30
	VBROADCASTI32X4 ·nibbleTables+32(SB), Z29
	MOVL            $0x60, BX
	VPBROADCASTB    BX, Z28
	MOVL            $0x70, BX
	VPBROADCASTB    BX, Z27
	MOVL            $0x80, BX
	VPBROADCASTB    BX, Z26
	VMOVDQU64       ·incompleteMax(SB), Z25
	VMOVDQU64       0(DX), Z24
	VMOVDQU64       64(DX), Z23
	VMOVDQU64       128(DX), Z22
	VMOVDQU64       192(DX), Z21
	VMOVDQU64       256(DX), Z20
	VMOVDQU64       320(DX), Z19
	VMOVDQU64       384(DX), Z18
	MOVQ            448(DX), R9
	TESTQ           AX, AX
	JNZ             loop128

	// A leading run of ASCII: 256, then 64 octets at a time, then the 64
	// that end at n.
prefix256:
	LEAQ     256(AX), BX
	CMPQ     BX, CX
	JA       prefix64
	LOAD256
	ASCII256
	KORTESTQ K1, K1
	JNZ      prefix64
	ADDQ     $256, AX
	JMP      prefix256

prefix64:
	LEAQ      64(AX), BX
	CMPQ      BX, CX
	JA        prefix_end
	VMOVDQU64 (SI)(AX*1), Z0
	ASCII64(multi)
	JNZ       hit
	ADDQ      $64, AX
	JMP       prefix64

prefix_end:
	CMPQ      AX, CX
	JEQ       clean
	VMOVDQU64 -64(SI)(CX*1), Z0
	ASCII64(multi)
	JZ        clean
	LEAQ      -64(CX), AX
	JMP       hit

	// Not ASCII from the block at AX on.
multi:
	TESTQ AX, AX
	JNZ   loop128

	// The first block, as in validAVX512: the octets before p count as
	// zero. n >= 67: the three octets after it are in p.
	FIRST512(BX)
	VPSRLW     $4, Z0, Z4
	TIER1(Z0, Z4, Z5, Z10)
	CHECKHI512(Z4, Z1, Z2, Z3, Z4)
	VPTESTMB   Z4, Z4, K1
	KORTESTQ   K1, K1
	JNZ        fail
	TIER2AT(0, Z10, K1, first_no4)
	KORTESTQ   K1, K1
	JNZ        hit
	MOVQ       $64, AX

	// 128 octets at a time: two blocks. If they are ASCII, only the
	// ASCII table is looked at.
loop128:
	LEAQ      128(AX), BX
	CMPQ      BX, CX
	JA        tail64
	VMOVDQU64 (SI)(AX*1), Z0
	VMOVDQU64 64(SI)(AX*1), Z1
	VPORQ     Z0, Z1, Z2
	VPMOVB2M  Z2, K1
	KORTESTQ  K1, K1
	JNZ       multi128
	CUTSHORT512
	JNZ       fail
	VPERMI2B  Z23, Z24, Z0
	VPERMI2B  Z23, Z24, Z1
	VPTESTMB  Z0, Z0, K1
	VPTESTMB  Z1, Z1, K2
	KORTESTQ  K1, K2
	JNZ       hit128
	ADDQ      $128, AX

	// A run of ASCII, 256 octets at a time.
ascii256:
	LEAQ     256(AX), BX
	CMPQ     BX, CX
	JA       loop128
	LOAD256
	ASCII256
	KORTESTQ K1, K1
	JNZ      loop128
	ADDQ     $256, AX
	JMP      ascii256

hit128:
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX
	KMOVQ    K2, K1
	JMP      hit

	// Tier 1 and validation of both blocks, and one test for both.
multi128:
	VPSRLW     $4, Z0, Z5
	VPSRLW     $4, Z1, Z9
	TIER1(Z0, Z5, Z2, Z10)
	TIER1(Z1, Z9, Z2, Z11)
	CHECKATHI512(0, Z5, Z2, Z3, Z4, Z5)
	CHECKATHI512(64, Z9, Z6, Z7, Z8, Z9)
	VPORQ      Z5, Z9, Z5
	VMOVDQA64  Z5, Z9
	VPTERNLOGD $0xFE, Z11, Z10, Z9
	VPTESTMB   Z9, Z9, K1
	KORTESTQ   K1, K1
	JNZ        slow128
	ADDQ       $128, AX
	JMP        loop128

	// An error, or tier 1 found something in either block.
slow128:
	VPTESTMB Z5, Z5, K1
	KORTESTQ K1, K1
	JNZ      fail
	TIER2AT(0, Z10, K1, slow128a_no4)
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX
	LEAQ     67(AX), BX
	CMPQ     BX, CX
	JA       slow128_in
	TIER2AT(0, Z11, K1, slow128b_no4)
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX
	JMP      loop128

	// The block ends less than 3 octets before n: what runs past it is
	// looked at again in the last block (last512), which starts at or
	// before its last 3 octets.
slow128_in:
	TIER2IN(Z1, Z11, K1)
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX
	JMP      loop128

	// One more block of 64 if there is room.
tail64:
	LEAQ      64(AX), BX
	CMPQ      BX, CX
	JA        last512
	VMOVDQU64 (SI)(AX*1), Z0
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       multi64
	CUTSHORT512
	JNZ       fail
	VPERMI2B  Z23, Z24, Z0
	VPTESTMB  Z0, Z0, K1
	KORTESTQ  K1, K1
	JNZ       hit
	ADDQ      $64, AX
	JMP       last512

multi64:
	VPSRLW   $4, Z0, Z5
	TIER1(Z0, Z5, Z2, Z10)
	CHECKATHI512(0, Z5, Z2, Z3, Z4, Z5)
	VPTESTMB Z5, Z5, K1
	KORTESTQ K1, K1
	JNZ      fail
	VPTESTMB Z10, Z10, K1
	KORTESTQ K1, K1
	JZ       multi64_done
	LEAQ     67(AX), BX
	CMPQ     BX, CX
	JA       multi64_in
	TIER2AT(0, Z10, K1, multi64_no4)
	KORTESTQ K1, K1
	JNZ      hit
	JMP      multi64_done

multi64_in:
	TIER2IN(Z0, Z10, K1)
	KORTESTQ K1, K1
	JNZ      hit

multi64_done:
	ADDQ $64, AX

	// The rest, fewer than 64 octets, in the block that ends at n, as in
	// validAVX512. Tier 1 and tier 2 run on all of it, so the octets it
	// shares with the blocks before may be flagged again.
last512:
	CMPQ      AX, CX
	JEQ       end512
	LEAQ      -64(CX), AX
	VMOVDQU64 (SI)(AX*1), Z0
	VPSRLW    $4, Z0, Z5
	TIER1(Z0, Z5, Z2, Z10)
	CHECKATHI512(0, Z5, Z2, Z3, Z4, Z5)
	VPSUBUSB  Z25, Z0, Z9
	VPORQ     Z9, Z5, Z5
	VPTESTMB  Z5, Z5, K1
	KORTESTQ  K1, K1
	JNZ       fail
	VPTESTMB  Z10, Z10, K1
	KORTESTQ  K1, K1
	JZ        clean
	TIER2IN(Z0, Z10, K1)
	KORTESTQ  K1, K1
	JNZ       hit
	JMP       clean

	// The blocks end at n: p must not end inside a character.
end512:
	CUTSHORT512
	JNZ fail_end

clean:
	MOVQ CX, off+32(FP)
	MOVQ $0, mask+40(FP)
	VZEROUPPER
	RET

fail_end:
	LEAQ -4(CX), AX // the character cut short starts after

fail:
	MOVQ AX, off+32(FP)
	MOVQ $0, mask+40(FP)
	VZEROUPPER
	RET

	// The block at AX has the octets in K1 flagged.
hit:
	KMOVQ K1, BX
	MOVQ  AX, off+32(FP)
	MOVQ  BX, mask+40(FP)
	VZEROUPPER
	RET
