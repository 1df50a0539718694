//go:build amd64 && !purego

package sanitize

// repairCountAVX2 is repairCountAVX512 for CPUs with AVX2 and not
// AVX-512 (the same contract: blocks of blockStep octets, windows of 64,
// reads from kernelBefore octets before p to kernelAfter after the start
// of the last block, the same masks combined in general registers). A
// window is two halves of 32 octets; VPMOVMSKB makes the masks of 64.
// AVX2 has no 64-entry lookup (VPERMB) for the range of continuations
// that a lead admits: admitTables, three 16-entry lookups (VPSHUFB) by
// the nibbles of the lead and the high nibble of the octet after it, give
// the mask second.
//
//go:noescape
func repairCountAVX2(p *byte, blocks int) (done, count, valid int)

// repairWriteAVX2 is repairWriteAVX512 for CPUs with AVX2 and not AVX-512
// (the same contract, and the same 64 octets of room past what it writes).
// AVX2 has no byte compression (VPCOMPRESSB): a block with both valid and
// ill-formed octets is written four octets at a time, each group with one
// VPSHUFB whose control, from repairGroups, keeps the valid octets and
// puts U+FFFD at each start of a maximal subpart. A block with no valid
// octet is U+FFFD repeated, and one with all of them valid is copied, as
// in repairWriteAVX512.
//
//go:noescape
func repairWriteAVX2(p *byte, blocks int, out *byte, room int) (done, written int, run bool)

// The kinds of pair (lead, next octet) in admitTables, one bit each.
// admitLead is a lead C0-FF followed by a continuation; each other bit is
// a pair of those that Table 3-7 refuses, as nibbleTables has them: the
// pair is a lead and a continuation it admits exactly when admitLead is
// its only bit.
const (
	admitLead    = 1 << 0 // C0-FF, then 80-BF
	admitOver2   = 1 << 1 // C0 or C1, then 80-BF
	admitOver3   = 1 << 2 // E0, then 80-9F
	admitSurr    = 1 << 3 // ED, then A0-BF
	admitOver4   = 1 << 4 // F0 or F5-FF, then 80-8F
	admitTooLate = 1 << 5 // F4-FF, then 90-BF
)

// admitTables are the three lookup tables of repairCountAVX2 and
// repairWriteAVX2: the kinds of pair that the lead's high nibble, the
// lead's low nibble and the next octet's high nibble allow. The octet after
// a lead (C2-F4) is one that it admits (octetMasks.second) exactly when
// the three entries have admitLead and no other bit in common
// (TestAdmitTables checks every pair). The assembly broadcasts each row to
// both 128-bit lanes.
//
//lint:ignore U1000 used from assembly (repair_avx2_amd64.s)
var admitTables = [3][16]byte{
	{ // lead >> 4
		0xC: admitLead | admitOver2,
		0xD: admitLead,
		0xE: admitLead | admitOver3 | admitSurr,
		0xF: admitLead | admitOver4 | admitTooLate,
	},
	{ // lead & 0x0F
		0x0: admitLead | admitOver2 | admitOver3 | admitOver4,
		0x1: admitLead | admitOver2,
		0x2: admitLead,
		0x3: admitLead,
		0x4: admitLead | admitTooLate,
		0x5: admitLead | admitTooLate | admitOver4,
		0x6: admitLead | admitTooLate | admitOver4,
		0x7: admitLead | admitTooLate | admitOver4,
		0x8: admitLead | admitTooLate | admitOver4,
		0x9: admitLead | admitTooLate | admitOver4,
		0xA: admitLead | admitTooLate | admitOver4,
		0xB: admitLead | admitTooLate | admitOver4,
		0xC: admitLead | admitTooLate | admitOver4,
		0xD: admitLead | admitTooLate | admitOver4 | admitSurr,
		0xE: admitLead | admitTooLate | admitOver4,
		0xF: admitLead | admitTooLate | admitOver4,
	},
	{ // next >> 4
		0x8: admitLead | admitOver2 | admitOver3 | admitOver4,
		0x9: admitLead | admitOver2 | admitOver3 | admitTooLate,
		0xA: admitLead | admitOver2 | admitSurr | admitTooLate,
		0xB: admitLead | admitOver2 | admitSurr | admitTooLate,
	},
}

// repairGroups are the VPSHUFB controls with which repairWriteAVX2 writes
// four octets of a block, indexed by v | s<<4 for their masks of valid
// octets (v) and of starts of maximal subparts (s), bit k for octet k.
// The source register holds the four octets in its octets 0-3 and U+FFFD
// (EF BF BD) in octets 12-14: in order, a valid octet is kept (its index),
// a start becomes 12, 13, 14, and the rest of a maximal subpart vanishes.
// Octet 15 of a control is the length of what it writes (at most 12);
// VPSHUFB also writes the octets after that length, which the next group
// overwrites.
//
//lint:ignore U1000 used from assembly (repair_avx2_amd64.s)
var repairGroups = func() (t [256][16]byte) {
	for x := range t {
		v, s := x&15, x>>4
		n := 0
		for k := range 4 {
			switch {
			case v>>k&1 != 0:
				t[x][n] = byte(k)
				n++
			case s>>k&1 != 0:
				t[x][n], t[x][n+1], t[x][n+2] = 12, 13, 14
				n += 3
			}
		}
		t[x][15] = byte(n)
	}
	return t
}()
