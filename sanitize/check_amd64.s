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
//	DX   the fusedTable     R8   carry: the block at AX may end a character
//	                             whose lead octet needed attention
//	Z24  ascii[0:64]        Z23  ascii[64:128]
//	Z22  high               Z21  low
//	Z20  slots2[0]          Z19  slots2[1]
//	Z18  slots3[0]          Z17  slots3[1]          Z16  slots3[2]
//	Z15  slots4[0]          Z14  slots4[1]          Z13  slots4[2]
//	Z12  slots4[3]          Z11  0xC0               Z10  0x07
//	Z0-Z9 scratch, K1-K7 masks

// ATTN sets k to tier 1's mask of the 64 octets in: the octets whose
// entries in high and low share a bit (t and u are scratch).
#define ATTN(in, t, u, k) \
	VPSRLW   $4, in, t;  \
	VPERMB   Z22, t, t;  \
	VPERMB   Z21, in, u; \
	VPTESTMB t, u, k

// CLASSES sets k to tier 2's mask of the 64 octets in, given the octets
// one, two and three places before them in p1, p2 and p3 (a, b, c and d
// are scratch). At each octet it tests the characters that would end
// there: 2 octets if p1 is a lead octet, 3 if p2 is, 4 if p3 is (the
// lead tables are zero but for leads of their length), and ASCII: tier 1's
// bits for ASCII octets (0x07) are exact.
#define CLASSES(in, p1, p2, p3, a, b, c, d, k) \
	VPCMPUB    $5, Z11, p1, K5;  \
	VPCMPUB    $5, Z11, p2, K6;  \
	VPCMPUB    $5, Z11, p3, K7;  \
	VPERMB.Z   Z20, p1, K5, a;   \
	VPERMB     Z19, in, b;       \
	VPANDD     b, a, a;          \
	VPERMB.Z   Z18, p2, K6, b;   \
	VPERMB     Z17, p1, c;       \
	VPERMB     Z16, in, d;       \
	VPTERNLOGD $0x80, d, c, b;   \
	VPORD      b, a, a;          \
	VPERMB.Z   Z15, p3, K7, b;   \
	VPERMB     Z14, p2, c;       \
	VPERMB     Z13, p1, d;       \
	VPTERNLOGD $0x80, d, c, b;   \
	VPERMB     Z12, in, c;       \
	VPTERNLOGD $0xF8, c, b, a;   \
	VPSRLW     $4, in, b;        \
	VPERMB     Z22, b, b;        \
	VPERMB     Z21, in, c;       \
	VPTERNLOGD $0x80, Z10, c, b; \
	VPORD      b, a, a;          \
	VPTESTMB   a, a, k

// CLASSESAT is CLASSES for the block at off(SI)(AX*1), loading the octets
// before it.
#define CLASSESAT(off, k) \
	VMOVDQU64 off(SI)(AX*1), Z2;   \
	VMOVDQU64 off-1(SI)(AX*1), Z3; \
	VMOVDQU64 off-2(SI)(AX*1), Z4; \
	VMOVDQU64 off-3(SI)(AX*1), Z5; \
	CLASSES(Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, k)

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
	VMOVDQU64       448(DX), Z17
	VMOVDQU64       512(DX), Z16
	VMOVDQU64       576(DX), Z15
	VMOVDQU64       640(DX), Z14
	VMOVDQU64       704(DX), Z13
	VMOVDQU64       768(DX), Z12
	MOVL            $0xC0, BX
	VPBROADCASTB    BX, Z11
	MOVL            $0x07, BX
	VPBROADCASTB    BX, Z10

	// A later start: the octets before it were checked, but a character
	// may run across it.
	MOVQ  $1, R8
	TESTQ AX, AX
	JNZ   loop128
	XORQ  R8, R8

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
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       multi
	VPERMI2B  Z23, Z24, Z0
	VPTESTMB  Z0, Z0, K1
	KORTESTQ  K1, K1
	JNZ       hit
	ADDQ      $64, AX
	JMP       prefix64

prefix_end:
	CMPQ      AX, CX
	JEQ       clean
	VMOVDQU64 -64(SI)(CX*1), Z0
	VPMOVB2M  Z0, K1
	KORTESTQ  K1, K1
	JNZ       multi
	VPERMI2B  Z23, Z24, Z0
	VPTESTMB  Z0, Z0, K1
	KORTESTQ  K1, K1
	JZ        clean
	LEAQ      -64(CX), AX
	JMP       hit

	// Not ASCII from the block at AX on.
multi:
	TESTQ AX, AX
	JNZ   loop128

	// The first block, as in validAVX512: the octets before p count as
	// zero. Tier 2 runs on it whatever tier 1 says.
	VMOVDQU64  (SI), Z0
	VMOVDQU64  ·byteIndex(SB), Z4
	VPTERNLOGD $0xFF, Z5, Z5, Z5
	VPADDB     Z5, Z4, Z1
	VPADDB     Z5, Z1, Z2
	VPADDB     Z5, Z2, Z3
	MOVQ       $-2, BX
	KMOVQ      BX, K2
	MOVQ       $-4, BX
	KMOVQ      BX, K3
	MOVQ       $-8, BX
	KMOVQ      BX, K4
	VPERMB.Z   Z0, Z1, K2, Z1
	VPERMB.Z   Z0, Z2, K3, Z2
	VPERMB.Z   Z0, Z3, K4, Z3
	CLASSES(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, K2)
	ATTN(Z0, Z5, Z6, K3)
	CHECK512(Z0, Z1, Z2, Z3, Z4)
	VPTESTMB   Z4, Z4, K1
	KORTESTQ   K1, K1
	JNZ        fail
	KMOVQ      K2, K1
	KORTESTQ   K1, K1
	JNZ        hit
	KMOVQ      K3, R8
	SHRQ       $61, R8
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
	XORQ      R8, R8
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

multi128:
	ATTN(Z0, Z2, Z3, K3)
	ATTN(Z1, Z2, Z3, K4)
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	CHECKAT512(64, Z1, Z6, Z7, Z8, Z9)
	VPORQ    Z5, Z9, Z5
	VPTESTMB Z5, Z5, K1
	KORTESTQ K1, K1
	JNZ      fail
	KORTESTQ K3, K4
	JNZ      classes128
	TESTQ    R8, R8
	JNZ      classes128
	ADDQ     $128, AX
	JMP      loop128

classes128:
	KMOVQ    K4, R8
	SHRQ     $61, R8
	CLASSESAT(0, K1)
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX
	CLASSESAT(0, K1)
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
	XORQ      R8, R8
	ADDQ      $64, AX
	JMP       last512

multi64:
	ATTN(Z0, Z2, Z3, K3)
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	VPTESTMB Z5, Z5, K1
	KORTESTQ K1, K1
	JNZ      fail
	KORTESTQ K3, K3
	JNZ      classes64
	TESTQ    R8, R8
	JNZ      classes64
	ADDQ     $64, AX
	JMP      last512

classes64:
	KMOVQ    K3, R8
	SHRQ     $61, R8
	CLASSESAT(0, K1)
	KORTESTQ K1, K1
	JNZ      hit
	ADDQ     $64, AX

	// The rest, fewer than 64 octets, in the block that ends at n, as in
	// validAVX512. Tier 1 runs on all of it, so the octets it shares with
	// the blocks before may be flagged again.
last512:
	CMPQ      AX, CX
	JEQ       end512
	LEAQ      -64(CX), AX
	VMOVDQU64 (SI)(AX*1), Z0
	ATTN(Z0, Z2, Z3, K3)
	CHECKAT512(0, Z0, Z2, Z3, Z4, Z5)
	VPSUBUSB  Z25, Z0, Z9
	VPORQ     Z9, Z5, Z5
	VPTESTMB  Z5, Z5, K1
	KORTESTQ  K1, K1
	JNZ       fail
	KORTESTQ  K3, K3
	JNZ       classes_last
	TESTQ     R8, R8
	JZ        clean

classes_last:
	CLASSESAT(0, K1)
	KORTESTQ K1, K1
	JNZ      hit
	JMP      clean

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
