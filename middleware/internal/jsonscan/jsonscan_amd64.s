//go:build amd64 && !purego

#include "textflag.h"

// BLOCK looks at the 64 octets in Z0: '\' sets bits of K6, '&' of K7,
// both kept over the loop; '[' and '{' (0x5B and 0x7B, one bit apart: an
// octet ORed with 0x20 is 0x7B for both, and for no other) are counted
// into AX, those of the mask in K3 only.
#define BLOCK \
	VPCMPEQB Z1, Z0, K1;  \
	KORQ     K1, K6, K6;  \
	VPCMPEQB Z4, Z0, K1;  \
	KORQ     K1, K7, K7;  \
	VPORQ    Z3, Z0, Z0;  \
	VPCMPEQB Z2, Z0, K3, K2; \
	KMOVQ    K2, BX;      \
	POPCNTQ  BX, BX;      \
	ADDQ     BX, AX

// func structureAVX512(p *byte, n int) (brackets, found int)
TEXT ·structureAVX512(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	KXORQ K6, K6, K6
	KXORQ K7, K7, K7
	MOVL $0x5C, BX
	VPBROADCASTB BX, Z1 // '\'
	MOVL $0x7B, BX
	VPBROADCASTB BX, Z2 // '{'
	MOVL $0x20, BX
	VPBROADCASTB BX, Z3
	MOVL $0x26, BX
	VPBROADCASTB BX, Z4 // '&'
	KXNORQ K3, K3, K3   // every octet of a whole block

	CMPQ CX, $64
	JB   tail

loop:
	VMOVDQU64 (SI), Z0
	BLOCK
	ADDQ      $64, SI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       loop

tail:
	// The last, partial block, loaded under a mask: zeros past n, which
	// match neither '\' nor '&'; the brackets are counted under the
	// mask (the zeros are 0x20 once ORed).
	TESTQ CX, CX
	JZ    done
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVQ BX, K3
	VMOVDQU8.Z (SI), K3, Z0
	BLOCK

done:
	MOVQ     AX, brackets+16(FP)
	XORQ     CX, CX
	KORTESTQ K6, K6
	SETNE    CL
	XORQ     DX, DX
	KORTESTQ K7, K7
	SETNE    DL
	LEAQ     (CX)(DX*2), CX
	MOVQ     CX, found+24(FP)
	VZEROUPPER
	RET

// MARK writes the four marks of the 64 octets in Z0 to (DI) and moves DI
// to the next Block.
#define MARK \
	VPCMPEQB Z1, Z0, K1; \
	KMOVQ    K1, 0(DI);  \
	VPCMPEQB Z2, Z0, K1; \
	KMOVQ    K1, 8(DI);  \
	VPCMPEQB Z3, Z0, K1; \
	KMOVQ    K1, 16(DI); \
	VPCMPEQB Z4, Z0, K1; \
	KMOVQ    K1, 24(DI); \
	ADDQ     $32, DI

// func marksAVX512(p *byte, n int, m *Block)
TEXT ·marksAVX512(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ m+16(FP), DI
	MOVL $0x22, BX
	VPBROADCASTB BX, Z1 // '"'
	MOVL $0x7B, BX
	VPBROADCASTB BX, Z2 // '{'
	MOVL $0x7D, BX
	VPBROADCASTB BX, Z3 // '}'
	MOVL $0x3A, BX
	VPBROADCASTB BX, Z4 // ':'
	CMPQ CX, $64
	JB   marktail

markloop:
	VMOVDQU64 (SI), Z0
	MARK
	ADDQ      $64, SI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       markloop

marktail:
	// Zeros past n: none of the four.
	TESTQ CX, CX
	JZ    markdone
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVQ BX, K3
	VMOVDQU8.Z (SI), K3, Z0
	MARK

markdone:
	VZEROUPPER
	RET

// HALF looks at the 32 octets in x, as BLOCK does: '\' is ORed into Y5,
// '&' into Y6 (kept over the loop; Y8 is scratch), and the '[' and '{' of
// x (overwritten) are counted into AX.
#define HALF(x) \
	VPCMPEQB  Y1, x, Y8; \
	VPOR      Y8, Y5, Y5; \
	VPCMPEQB  Y4, x, Y8; \
	VPOR      Y8, Y6, Y6; \
	VPOR      Y3, x, x;  \
	VPCMPEQB  Y2, x, x;  \
	VPMOVMSKB x, BX;     \
	POPCNTL   BX, BX;    \
	ADDQ      BX, AX

// avx2Octets are the octets structureAVX2 looks for, four of each.
DATA avx2Octets<>+0(SB)/4, $0x5C5C5C5C
DATA avx2Octets<>+4(SB)/4, $0x7B7B7B7B
DATA avx2Octets<>+8(SB)/4, $0x20202020
DATA avx2Octets<>+12(SB)/4, $0x26262626
GLOBL avx2Octets<>(SB), RODATA|NOPTR, $16

// func structureAVX2(p *byte, n int) (brackets, found int)
//
// The loop takes 64 octets a round, as two vectors of 32. (Counting the
// brackets in the octets of a vector, summed every 127 rounds, rather
// than a VPMOVMSKB and a POPCNT for every 32 octets, was a tenth faster:
// 3 ns at 1 KiB, not worth the second loop.) AVX2 has no masked loads: a
// text of 32 octets or more ends with the 32 octets that end at n, of
// which only those not yet looked at are counted; a shorter one goes an
// octet at a time, so that no octet outside p is read. Every vector
// instruction is VEX-encoded: a legacy SSE one (such as MOVQ from BX to
// X1) among them cost 400 ns a call on the AVX-512 Xeon of bench/.
TEXT ·structureAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	CMPQ CX, $32
	JB   octets
	VPBROADCASTD avx2Octets<>+0(SB), Y1  // '\'
	VPBROADCASTD avx2Octets<>+4(SB), Y2  // '{'
	VPBROADCASTD avx2Octets<>+8(SB), Y3
	VPBROADCASTD avx2Octets<>+12(SB), Y4 // '&'
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	CMPQ CX, $64
	JB   half

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y7
	HALF(Y0)
	HALF(Y7)
	ADDQ    $64, SI
	SUBQ    $64, CX
	CMPQ    CX, $64
	JAE     loop
	CMPQ    CX, $32
	JB      tail

half:
	VMOVDQU (SI), Y0
	HALF(Y0)
	ADDQ    $32, SI
	SUBQ    $32, CX

tail:
	// CX < 32 octets are left at SI, after at least 32 looked at: the 32
	// that end at n are loaded, '\' and '&' are looked for in all of them
	// (each is an octet of p), and only the brackets of the last CX are
	// counted: the mask is shifted right by 32-CX.
	TESTQ     CX, CX
	JZ        done
	VMOVDQU   -32(SI)(CX*1), Y0
	VPCMPEQB  Y1, Y0, Y8
	VPOR      Y8, Y5, Y5
	VPCMPEQB  Y4, Y0, Y8
	VPOR      Y8, Y6, Y6
	VPOR      Y3, Y0, Y0
	VPCMPEQB  Y2, Y0, Y0
	VPMOVMSKB Y0, BX
	NEGQ      CX
	ADDQ      $32, CX
	SHRL      CX, BX
	POPCNTL   BX, BX
	ADDQ      BX, AX

done:
	MOVQ  AX, brackets+16(FP)
	XORQ  CX, CX
	VPTEST Y5, Y5
	SETNE CL
	XORQ  DX, DX
	VPTEST Y6, Y6
	SETNE DL
	LEAQ  (CX)(DX*2), CX
	MOVQ  CX, found+24(FP)
	VZEROUPPER
	RET

	// Fewer than 32 octets (n > 0): an octet at a time, '\' into bit 0 of
	// DX, '&' into bit 1, and the brackets into AX.
octets:
	XORQ  DX, DX
	TESTQ CX, CX
	JZ    octetsdone

octet:
	MOVBLZX (SI), BX
	XORL    R8, R8
	CMPL    BX, $0x5C
	SETEQ   R8
	ORL     R8, DX
	CMPL    BX, $0x26
	SETEQ   R8
	SHLL    $1, R8
	ORL     R8, DX
	ORL     $0x20, BX
	XORL    R8, R8
	CMPL    BX, $0x7B
	SETEQ   R8
	ADDQ    R8, AX
	INCQ    SI
	DECQ    CX
	JNZ     octet

octetsdone:
	MOVQ    AX, brackets+16(FP)
	MOVQ    DX, found+24(FP)
	RET
