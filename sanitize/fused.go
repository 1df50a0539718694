//go:build amd64 && !purego

package sanitize

import (
	"maps"
	"math/bits"
	"slices"
	"sync/atomic"
	"unicode/utf8"
)

// The fused check (checkAVX512, check_amd64.s) validates and looks for the
// characters of a set of classes in one pass. A run of ASCII is looked up
// in the ASCII table of the classes. Every other block of 64 octets gets
// two tiers of tests.
//
// Tier 1 gives each octet a byte of "slot" bits from two table lookups,
// high[octet>>4] & low[octet&63]: bit 7 for an ASCII character of a class,
// and for a lead octet, the slots of its length that it is in. A slot is a
// product of sets of octets, one set per position of a character; the
// characters of the classes are a union of slots, seven at most, shared
// among the lengths as they need them (slotBits). Text with none of those
// lead octets costs little more than validation.
//
// Tier 2 runs only on a block where tier 1 found something. It looks at
// the one, two and three octets after each lead octet, in the tables next,
// indexed by the low six bits that determine a continuation octet: an
// octet keeps the slots whose set at that position holds the octet that
// follows it. A character that keeps a slot is flagged. The test is exact
// for the sets of classes of the presets and for each class alone but
// PrivateUse and DefaultIgnorable: a set that needs more than seven slots
// has slots merged, which flags some other characters too. checkFused
// decodes every flagged character before it reports it.

// asciiSlot is the slot bit of ASCII characters; the other seven are for
// the slots of the longer characters.
const asciiSlot = 0x80

// A fusedTable holds what checkAVX512 looks up for one set of classes
// (BOM excepted: checkFused looks at offset 0 itself). The assembly knows
// its layout.
type fusedTable struct {
	ascii [128]byte   // nonzero for the ASCII octets in a class
	high  [64]byte    // tier 1, by high nibble (four times: VPERMB indexes with six bits)
	low   [64]byte    // tier 1, by low six bits
	next  [3][64]byte // tier 2, by the low six bits of the 1st, 2nd and 3rd octet after
	has4  uint64      // whether a slot is for 4-octet characters (else next[2] keeps every bit)

	// For checkAVX2 only:
	asciiFloor [32]byte // ASCII octets all above this (signed), after asciiLift, are in no class
	asciiLift  [16]byte // 0x20 for the octets 00-0F in no class (TAB, LF, CR), which it lifts above the floor
	after      [16]byte // attention bits that the two octets after a lead allow, by afterIndex
	attnCont   [32]byte // the attnTable with bit 7 set for 80-BF, for blocks without octets E0-FF
}

// fusedTables caches the fusedTable of each set of classes, made on first
// use.
var fusedTables [AllClasses + 1]atomic.Pointer[fusedTable]

// fusedFor returns the fusedTable of forbid, which holds no BOM.
func fusedFor(forbid Class) *fusedTable {
	if t := fusedTables[forbid].Load(); t != nil {
		return t
	}
	t := newFusedTable(forbid)
	if fusedTables[forbid].CompareAndSwap(nil, t) {
		return t
	}
	return fusedTables[forbid].Load()
}

// newFusedTable makes the fusedTable of forbid.
func newFusedTable(forbid Class) *fusedTable {
	t := new(fusedTable)
	for b := range t.ascii {
		if ClassOf(rune(b))&forbid != 0 {
			t.ascii[b] = 1
			t.low[b&63] |= asciiSlot // 00-1F, and 7F at 3F
		}
	}
	slots, masks := slotBits(forbid)
	for i := range t.high {
		switch i & 15 {
		case 0x0, 0x1, 0x7:
			t.high[i] = asciiSlot
		case 0xC, 0xD:
			t.high[i] = masks[2]
		case 0xE:
			t.high[i] = masks[3]
		case 0xF:
			t.high[i] = masks[4]
		}
	}
	// Tier 2 keeps the ASCII bit, and the bits of a length at the
	// positions past its end.
	for pos := range t.next {
		for i := range t.next[pos] {
			t.next[pos][i] = asciiSlot
			for k := 2; k <= pos+1; k++ {
				t.next[pos][i] |= masks[k]
			}
		}
	}
	if masks[4] != 0 {
		t.has4 = 1
	}
	floor := byte(0xFF) // no ASCII character in a class: only non-ASCII octets are below
	for b := range t.ascii {
		switch {
		case t.ascii[b] == 0:
		case b > 0x1F:
			floor = 0x7F // DEL: no ASCII octet is above, the lookup always runs
		case floor == 0xFF:
			floor = 0x1F
		}
	}
	for i := range t.asciiFloor {
		t.asciiFloor[i] = floor
	}
	for b := range t.asciiLift {
		if t.ascii[b] == 0 {
			t.asciiLift[b] = 0x20
		}
	}
	t.attnCont = tableFor(forbid)
	for i := range 16 {
		t.attnCont[16+i] |= 0x80
		if i>>2 == 2 {
			t.attnCont[i] |= 0x80 // 8-B
		}
	}
	for k := range numClasses {
		if forbid&(1<<k) != 0 {
			for i := range t.after {
				t.after[i] |= classAfter[k][i]
			}
		}
	}
	bit := byte(1)
	for k := 2; k <= utf8.UTFMax; k++ {
		for _, sl := range slots[k] {
			for m := sl[0]; m != 0; m &= m - 1 {
				t.low[bits.TrailingZeros64(m)] |= bit
			}
			for pos := 1; pos < k; pos++ {
				for m := sl[pos]; m != 0; m &= m - 1 {
					t.next[pos-1][bits.TrailingZeros64(m)] |= bit
				}
			}
			bit <<= 1
		}
	}
	return t
}

// afterIndex is the index in fusedTable's after of the two octets that
// follow a lead octet: (4*(b1>>4) + b2>>4) & 15 tells the high nibbles
// 8-B of two continuation octets apart (checkAVX2 computes it with a
// shift and an add).
func afterIndex(b1, b2 byte) int {
	return (4*int(b1>>4) + int(b2>>4)) & 15
}

// classAfter[k] holds, for class 1<<k, the attnBit of the first octet of
// each of its characters of three or four octets at the afterIndex of its
// second and third octets, and everywhere the attnBit of the ASCII octets
// and of the first octets of its 2-octet characters (whose third octet is
// any): checkAVX2 looks at the two octets after an attention octet before
// it runs the tiers. The octets of a character above U+007F change with
// its code point by 16 at least (the high nibble of the last octet), so
// one code point in 16 stands for those around it.
var classAfter = func() (t [numClasses][16]byte) {
	var buf [utf8.UTFMax]byte
	for k, ranges := range classRanges {
		all := byte(1<<0 | 1<<1 | 1<<2) // attnBit of 0x, 1x and 7x
		for _, rg := range ranges {
			for r := max(rg[0], 0x80); r <= rg[1]; r = (r | 15) + 1 {
				n := utf8.EncodeRune(buf[:], r)
				if n == 2 {
					all |= attnBit[buf[0]>>4]
				} else {
					t[k][afterIndex(buf[1], buf[2])] |= attnBit[buf[0]>>4]
				}
			}
		}
		for i := range t[k] {
			t[k][i] |= all
		}
	}
	return t
}()

// slotBits returns the slots of the 2-, 3- and 4-octet characters of the
// classes in forbid, maxSlots at most in all, and the mask of the bits
// that each length has: bit 0 up for the 2-octet slots, then the 3-octet
// ones, then the 4-octet ones. If the lengths need more, each length that
// has characters gets one bit, and each other bit goes where it saves the
// most sequences that would be flagged but are in no class.
func slotBits(forbid Class) (slots [utf8.UTFMax + 1][]slot, masks [utf8.UTFMax + 1]byte) {
	var merged [utf8.UTFMax + 1][maxSlots + 1][]slot
	var count [utf8.UTFMax + 1]int
	left := maxSlots
	for k := 2; k <= utf8.UTFMax; k++ {
		merged[k] = classSlots(forbid, k)
		if merged[k][1] != nil {
			count[k] = 1
			left--
		}
	}
	for ; left > 0; left-- {
		best, gain := 0, 0.0
		for k := 2; k <= utf8.UTFMax; k++ {
			if c := count[k]; c > 0 && c < maxSlots && merged[k][c+1] != nil {
				if g := covered(merged[k][c], k) - covered(merged[k][c+1], k); best == 0 || g > gain {
					best, gain = k, g
				}
			}
		}
		if best == 0 {
			break
		}
		count[best]++
	}
	first := 0
	for k := 2; k <= utf8.UTFMax; k++ {
		slots[k] = merged[k][count[k]]
		masks[k] = byte(1<<count[k]-1) << first
		first += count[k]
	}
	return slots, masks
}

// maxSlots is the number of slot bits: all but asciiSlot.
const maxSlots = 7

// covered is the number of well-formed sequences that slots cover, those
// in two slots counted twice: for the slots of one set of classes and one
// length, the lower the fewer sequences flagged that are in no class.
func covered(slots []slot, k int) float64 {
	z := 0.0
	for i := range slots {
		z += slots[i].size(k)
	}
	return z
}

// A slot is a product of sets of octets, one per position of a character,
// each set as bits of the octets' low six bits.
type slot [utf8.UTFMax]uint64

// size is the number of well-formed k-octet sequences in s: octet
// sequences count only with a second octet that their lead octet allows
// (RFC 3629 section 4), so that merging in sequences that are not UTF-8
// costs nothing.
func (s *slot) size(k int) float64 {
	rest := 1.0
	for i := 2; i < k; i++ {
		rest *= float64(bits.OnesCount64(s[i]))
	}
	z := 0.0
	for m := s[0]; m != 0; m &= m - 1 {
		lead := 0xC0 | bits.TrailingZeros64(m)
		lo, hi := 0x80, 0xBF
		switch {
		case lead < 0xC2 || lead > 0xF4:
			continue
		case lead == 0xE0:
			lo = 0xA0
		case lead == 0xED:
			hi = 0x9F
		case lead == 0xF0:
			lo = 0x90
		case lead == 0xF4:
			hi = 0x8F
		}
		allowed := ^uint64(0) >> (63 - (hi & 63)) &^ (1<<(lo&63) - 1)
		z += float64(bits.OnesCount64(s[1]&allowed)) * rest
	}
	return z
}

// classSlots returns slots whose union holds every k-octet character of
// the classes in forbid, for each number of slots up to maxSlots that
// merges can reach: merged[c] has c slots (merged[0], and the numbers above
// what the characters need, are nil). It starts from one slot per run of
// characters that differ only in their last octet, merges slots that
// differ in one position only (which adds no sequence), and then, one at a
// time, the two whose merge adds the fewest sequences.
func classSlots(forbid Class, k int) (merged [maxSlots + 1][]slot) {
	lo, hi := rune(0x80), rune(0x7FF)
	switch k {
	case 3:
		lo, hi = 0x800, 0xFFFF
	case 4:
		lo, hi = 0x10000, utf8.MaxRune
	}
	// The characters, 64 code points (one last-octet set) at a time.
	keyed := map[rune]uint64{}
	for c, ranges := range classRanges {
		if forbid&(1<<c) == 0 || Class(1<<c) == BOM {
			continue
		}
		for _, rg := range ranges {
			for r, end := max(rg[0], lo), min(rg[1], hi); r <= end; {
				top := min(end, r|63)
				keyed[r>>6] |= ^uint64(0) >> (63 - top&63) &^ (1<<(r&63) - 1)
				r = top + 1
			}
		}
	}
	keys := slices.Sorted(maps.Keys(keyed)) // the same slots every time
	var buf [utf8.UTFMax]byte
	slots := make([]slot, 0, len(keys))
	for _, key := range keys {
		last := keyed[key]
		utf8.EncodeRune(buf[:], key<<6|rune(bits.TrailingZeros64(last)))
		var s slot
		for i := range k - 1 {
			s[i] = 1 << (buf[i] & 63)
		}
		s[k-1] = last
		slots = append(slots, s)
	}
	// Merges that add nothing, until there are none.
	for merged := true; merged; {
		merged = false
		for pos := range k {
			byRest := map[slot]int{}
			out := slots[:0]
			for _, s := range slots {
				rest := s
				rest[pos] = 0
				if j, ok := byRest[rest]; ok {
					out[j][pos] |= s[pos]
					merged = true
					continue
				}
				byRest[rest] = len(out)
				out = append(out, s)
			}
			slots = out
		}
	}
	// Then the cheapest merges, one at a time.
	for {
		if len(slots) <= maxSlots {
			merged[len(slots)] = slices.Clone(slots)
		}
		if len(slots) <= 1 {
			return merged
		}
		bi, bj, best := 0, 0, -1.0
		for i := range slots {
			for j := i + 1; j < len(slots); j++ {
				var u, x slot
				for pos := range k {
					u[pos] = slots[i][pos] | slots[j][pos]
					x[pos] = slots[i][pos] & slots[j][pos]
				}
				added := u.size(k) - slots[i].size(k) - slots[j].size(k) + x.size(k)
				if best < 0 || added < best {
					bi, bj, best = i, j, added
				}
			}
		}
		for pos := range k {
			slots[bi][pos] |= slots[bj][pos]
		}
		slots = append(slots[:bj], slots[bj+1:]...)
	}
}
