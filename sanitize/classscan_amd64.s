//go:build amd64 && !purego

#include "textflag.h"

DATA attnNibble<>+0(SB)/4, $0x0F0F0F0F
GLOBL attnNibble<>(SB), RODATA|NOPTR, $4

// func indexAttnAVX2(p *byte, n int, t *attnTable) int
TEXT ·indexAttnAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ t+16(FP), DX
	ANDQ $~31, CX
	XORQ AX, AX
	VBROADCASTI128 0(DX), Y13  // high-nibble entries
	VBROADCASTI128 16(DX), Y14 // low-nibble entries
	VPBROADCASTD   attnNibble<>(SB), Y15
	VPXOR          Y12, Y12, Y12

loop64:
	LEAQ 64(AX), BX
	CMPQ BX, CX
	JA   loop32
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y3
	VPSRLW  $4, Y0, Y1
	VPSRLW  $4, Y3, Y4
	VPAND   Y15, Y1, Y1
	VPAND   Y15, Y4, Y4
	VPAND   Y15, Y0, Y0
	VPAND   Y15, Y3, Y3
	VPSHUFB Y1, Y13, Y1
	VPSHUFB Y4, Y13, Y4
	VPSHUFB Y0, Y14, Y0
	VPSHUFB Y3, Y14, Y3
	VPAND   Y1, Y0, Y0
	VPAND   Y4, Y3, Y3
	VPOR    Y0, Y3, Y5
	VPTEST  Y5, Y5
	JNZ     found64
	MOVQ    BX, AX
	JMP     loop64

found64:
	VPCMPEQB  Y12, Y0, Y0 // FF where no attention
	VPMOVMSKB Y0, DX
	NOTL      DX
	TESTL     DX, DX
	JNZ       hit
	ADDQ      $32, AX
	VPCMPEQB  Y12, Y3, Y3
	VPMOVMSKB Y3, DX
	NOTL      DX

hit:
	BSFL DX, DX
	ADDQ DX, AX
	JMP  done

loop32:
	CMPQ      AX, CX
	JAE       done
	VMOVDQU   (SI)(AX*1), Y0
	VPSRLW    $4, Y0, Y1
	VPAND     Y15, Y1, Y1
	VPAND     Y15, Y0, Y0
	VPSHUFB   Y1, Y13, Y1
	VPSHUFB   Y0, Y14, Y0
	VPAND     Y1, Y0, Y0
	VPCMPEQB  Y12, Y0, Y0
	VPMOVMSKB Y0, DX
	NOTL      DX
	TESTL     DX, DX
	JNZ       hit
	ADDQ      $32, AX
	JMP       loop32

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
