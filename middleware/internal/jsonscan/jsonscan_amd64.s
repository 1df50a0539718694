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
