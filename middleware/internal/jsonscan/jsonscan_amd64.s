//go:build amd64 && !purego

#include "textflag.h"

// func structureAVX512(p *byte, n int) (brackets int, backslash bool)
//
// 64 octets at a time: '\' sets a bit of K7, kept over the loop; '[' and
// '{' (0x5B and 0x7B, one bit apart: an octet ORed with 0x20 is 0x7B for
// both, and for no other) are counted with POPCNT. The last, partial
// block is loaded under a mask, with zeros for the octets past n, which
// match none of the three.
TEXT ·structureAVX512(SB), NOSPLIT, $0-25
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	XORQ AX, AX
	KXORQ K7, K7, K7
	MOVL $0x5C, BX
	VPBROADCASTB BX, Z1 // '\'
	MOVL $0x7B, BX
	VPBROADCASTB BX, Z2 // '{'
	MOVL $0x20, BX
	VPBROADCASTB BX, Z3

	CMPQ CX, $64
	JB   tail

loop:
	VMOVDQU64 (SI), Z0
	VPCMPEQB  Z1, Z0, K1
	KORQ      K1, K7, K7
	VPORQ     Z3, Z0, Z0
	VPCMPEQB  Z2, Z0, K2
	KMOVQ     K2, BX
	POPCNTQ   BX, BX
	ADDQ      BX, AX
	ADDQ      $64, SI
	SUBQ      $64, CX
	CMPQ      CX, $64
	JAE       loop

tail:
	TESTQ CX, CX
	JZ    done
	MOVQ  $1, BX
	SHLQ  CX, BX
	DECQ  BX
	KMOVQ BX, K3
	VMOVDQU8.Z (SI), K3, Z0
	VPCMPEQB   Z1, Z0, K1
	KORQ       K1, K7, K7
	VPORQ      Z3, Z0, Z0
	VPCMPEQB   Z2, Z0, K2
	KANDQ      K3, K2, K2 // only octets before n (the zeros past it are 0x20 now: no match)
	KMOVQ      K2, BX
	POPCNTQ    BX, BX
	ADDQ       BX, AX

done:
	MOVQ     AX, brackets+16(FP)
	KORTESTQ K7, K7
	SETNE    backslash+24(FP)
	VZEROUPPER
	RET
