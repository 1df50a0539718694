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
