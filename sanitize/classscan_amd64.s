//go:build amd64 && !purego

#include "textflag.h"

// The class-check kernels attnAVX2 and attnAVX512 (classscan_amd64.go).

DATA attnNibble<>+0(SB)/4, $0x0F0F0F0F
GLOBL attnNibble<>(SB), RODATA|NOPTR, $4

// ATTN2 sets t to the attention bits of the 32 octets in (overwritten):
// the entries of Y13 (high nibbles) and Y14 (low nibbles), ANDed.
#define ATTN2(in, t) \
	VPSRLW  $4, in, t;   \
	VPAND   Y15, t, t;   \
	VPAND   Y15, in, in; \
	VPSHUFB t, Y13, t;   \
	VPSHUFB in, Y14, in; \
	VPAND   in, t, t

// func attnAVX2(p *byte, n int, t *attnTable) (off int, mask uint64)
TEXT ·attnAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), DX
	ANDQ $~63, CX
	XORQ AX, AX
	VBROADCASTI128 0(DX), Y13
	VBROADCASTI128 16(DX), Y14
	VPBROADCASTD   attnNibble<>(SB), Y15
	VPXOR          Y12, Y12, Y12

loop:
	CMPQ    AX, CX
	JAE     none
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	ATTN2(Y0, Y2)
	ATTN2(Y1, Y3)
	VPOR    Y2, Y3, Y4
	VPTEST  Y4, Y4
	JNZ     found
	ADDQ    $64, AX
	JMP     loop

found:
	VPCMPEQB  Y12, Y2, Y2 // FF where no attention
	VPMOVMSKB Y2, DX
	NOTL      DX
	VPCMPEQB  Y12, Y3, Y3
	VPMOVMSKB Y3, BX
	NOTL      BX
	SHLQ      $32, BX
	ORQ       BX, DX
	MOVQ      AX, off+24(FP)
	MOVQ      DX, mask+32(FP)
	VZEROUPPER
	RET

none:
	MOVQ AX, off+24(FP)
	MOVQ $0, mask+32(FP)
	VZEROUPPER
	RET

// func attnAVX512(p *byte, n int, t *attnTable) (off int, mask uint64)
TEXT ·attnAVX512(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), DX
	ANDQ $~63, CX
	XORQ AX, AX
	VBROADCASTI32X4 0(DX), Z13
	VBROADCASTI32X4 16(DX), Z14
	VPBROADCASTD    attnNibble<>(SB), Z15

	// Two blocks at a time while there are two.
loop128:
	LEAQ      128(AX), BX
	CMPQ      BX, CX
	JA        loop64
	VMOVDQU64 (SI)(AX*1), Z0
	VMOVDQU64 64(SI)(AX*1), Z2
	VPSRLW    $4, Z0, Z1
	VPSRLW    $4, Z2, Z3
	VPANDD    Z15, Z1, Z1
	VPANDD    Z15, Z3, Z3
	VPANDD    Z15, Z0, Z0
	VPANDD    Z15, Z2, Z2
	VPSHUFB   Z1, Z13, Z1
	VPSHUFB   Z3, Z13, Z3
	VPSHUFB   Z0, Z14, Z0
	VPSHUFB   Z2, Z14, Z2
	VPTESTMB  Z0, Z1, K1
	VPTESTMB  Z2, Z3, K2
	KORTESTQ  K1, K2
	JNZ       found128
	MOVQ      BX, AX
	JMP       loop128

found128:
	KORTESTQ K1, K1
	JNZ      found
	ADDQ     $64, AX
	KMOVQ    K2, DX
	JMP      out

loop64:
	CMPQ      AX, CX
	JAE       none512
	VMOVDQU64 (SI)(AX*1), Z0
	VPSRLW    $4, Z0, Z1
	VPANDD    Z15, Z1, Z1
	VPANDD    Z15, Z0, Z0
	VPSHUFB   Z1, Z13, Z1
	VPSHUFB   Z0, Z14, Z0
	VPTESTMB  Z0, Z1, K1
	KORTESTQ  K1, K1
	JNZ       found
	ADDQ      $64, AX
	JMP       loop64

found:
	KMOVQ K1, DX

out:
	MOVQ AX, off+24(FP)
	MOVQ DX, mask+32(FP)
	VZEROUPPER
	RET

none512:
	MOVQ AX, off+24(FP)
	MOVQ $0, mask+32(FP)
	VZEROUPPER
	RET
