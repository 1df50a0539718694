// TWOPAIRS sets r to a nonzero mask if the 64 octets at SI+AX are not
// well-formed, given that they and the three octets before them are all
// below E0, so that no character there has more than two octets, and
// given bit 7 of c0 and c1 set exactly where the octets (the first 32, the
// last 32) are continuations 80-BF. Then the octet before each must be a
// lead C0-DF exactly where the octet is a continuation, and no octet
// before one may be C0 or C1. Bit 7 of each test holds its answer: a lead
// C0-DF minus 0x40 (saturated) is 80 or more, and C0 or C1 plus 0x3E is
// FE or FF, which minus 0x7E have bit 7 set (twoOctet holds the
// constants). validAVX2 and checkAVX2 run it on such blocks instead of
// the nibble lookups, at about half their cost. Y2-Y5 are overwritten; c0
// and c1 are kept.
#define TWOPAIRS(c0, c1, r) \
	VMOVDQU   -1(SI)(AX*1), Y2;         \
	VMOVDQU   31(SI)(AX*1), Y3;         \
	VPSUBUSB  ·twoOctet+32(SB), Y2, Y4; \
	VPSUBUSB  ·twoOctet+32(SB), Y3, Y5; \
	VPXOR     c0, Y4, Y4;               \
	VPXOR     c1, Y5, Y5;               \
	VPADDB    ·twoOctet+64(SB), Y2, Y2; \
	VPADDB    ·twoOctet+64(SB), Y3, Y3; \
	VPMAXUB   Y3, Y2, Y2;               \
	VPSUBUSB  ·twoOctet+96(SB), Y2, Y2; \
	VPOR      Y4, Y5, Y5;               \
	VPOR      Y2, Y5, Y5;               \
	VPMOVMSKB Y5, r

// The AVX-512 validation macros, shared by validAVX512 (validate_amd64.s)
// and checkAVX512 (check_amd64.s). They expect the registers that
// validAVX512 sets up:
//
//	SI   p                  AX   offset of the block
//	Z31  nibbleTables[0]    Z30  nibbleTables[1]    Z29  nibbleTables[2]
//	     (each in all four 128-bit lanes)
//	Z28  0x60    Z27  0x70    Z26  0x80    Z25  incompleteMax

// CHECK512 is CHECK for 64 octets. VPERMB uses the low 6 bits of each
// index, the nibble and two bits that the repeated tables ignore, so no
// masking is needed.
#define CHECK512(in, p1, p2, p3, t) \
	VPSRLW $4, in, t; \
	CHECKHI512(t, p1, p2, p3, t)

// CHECKHI512 is CHECK512 given the octets' high nibbles in hi (the octets
// shifted right by 4 as 16-bit words), which may be t.
#define CHECKHI512(hi, p1, p2, p3, t) \
	VPSUBUSB   Z28, p2, p2;      \
	VPSUBUSB   Z27, p3, p3;      \
	VPMAXUB    p3, p2, p2;       \
	VPERMB     Z29, hi, p3;      \
	VPSRLW     $4, p1, t;        \
	VPERMB     Z31, t, t;        \
	VPERMB     Z30, p1, p1;      \
	VPTERNLOGD $0x80, p3, p1, t; \
	VPTERNLOGD $0x78, Z26, p2, t

// CHECKAT512 is CHECK512 for the octets in at off(SI)(AX*1).
#define CHECKAT512(off, in, p1, p2, p3, t) \
	VMOVDQU64 off-1(SI)(AX*1), p1; \
	VMOVDQU64 off-2(SI)(AX*1), p2; \
	VMOVDQU64 off-3(SI)(AX*1), p3; \
	CHECK512(in, p1, p2, p3, t)

// CHECKATHI512 is CHECKHI512 for the octets at off(SI)(AX*1).
#define CHECKATHI512(off, hi, p1, p2, p3, t) \
	VMOVDQU64 off-1(SI)(AX*1), p1; \
	VMOVDQU64 off-2(SI)(AX*1), p2; \
	VMOVDQU64 off-3(SI)(AX*1), p3; \
	CHECKHI512(hi, p1, p2, p3, t)

// CUTSHORT512 sets ZF unless the 64 octets before AX end inside a character.
#define CUTSHORT512 \
	VMOVDQU64 -64(SI)(AX*1), Z9; \
	VPSUBUSB  Z25, Z9, Z9;       \
	VPTESTMB  Z9, Z9, K1;        \
	KORTESTQ  K1, K1

// FIRST512 loads the first block of p into Z0 and the octets one, two and
// three places before each into Z1, Z2 and Z3, zero before p: VPERMB moves
// each octet 1, 2, 3 places up (indices 0-63 minus 1, 2, 3) and the masks
// K2-K4 zero the first 1, 2, 3. r is a scratch register; Z4 and Z5 are
// overwritten.
#define FIRST512(r) \
	VMOVDQU64  (SI), Z0;           \
	VMOVDQU64  ·byteIndex(SB), Z4; \
	VPTERNLOGD $0xFF, Z5, Z5, Z5;  \
	VPADDB     Z5, Z4, Z1;         \
	VPADDB     Z5, Z1, Z2;         \
	VPADDB     Z5, Z2, Z3;         \
	MOVQ       $-2, r;             \
	KMOVQ      r, K2;              \
	MOVQ       $-4, r;             \
	KMOVQ      r, K3;              \
	MOVQ       $-8, r;             \
	KMOVQ      r, K4;              \
	VPERMB.Z   Z0, Z1, K2, Z1;     \
	VPERMB.Z   Z0, Z2, K3, Z2;     \
	VPERMB.Z   Z0, Z3, K4, Z3
