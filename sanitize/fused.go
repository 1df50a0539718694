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
// characters of a set of classes in one pass. It finds them in two tiers.
//
// Tier 1, in every block of 64 octets that is not all ASCII, is the
// attention test of the class scan (attnTable): the octets that can start
// a character of a class. It costs two table lookups and is exact for
// ASCII, so text without such a lead octet costs little more than
// validation.
//
// Tier 2 runs only on a block where tier 1 found something (or whose first
// octets may end a character that started with such an octet). It flags
// the last octet of each 2-, 3- and 4-octet character that may be in a
// class: the character's octets must all fall in the sets of one "slot",
// a product of sets of octets, one set per position. A slot is a bit in
// the slot tables, indexed by the low six bits of an octet (which
// determine a continuation octet, and a lead octet once its length is
// known): the character is flagged when the entries of its octets share a
// bit. With at most eight slots per length the test is exact for the
// classes of the presets; a set of classes that needs more has slots
// merged, which flags some characters outside the classes, and checkFused
// decodes every flagged character before it reports it.

// maxSlots is the number of slots per length: the bits of an octet.
const maxSlots = 8

// A fusedTable holds what checkAVX512 looks up for one set of classes
// (BOM excepted: checkFused looks at offset 0 itself). The assembly knows
// the offsets of its fields.
type fusedTable struct {
	ascii [128]byte // nonzero for the ASCII octets in a class
	high  [64]byte  // attnHigh, four times: VPERMB indexes with six bits
	low   [64]byte  // the low half of the set's attnTable, four times
	// slots[k-2][i] are the slot tables of the k-octet characters: for
	// their octet i, by the octet's low six bits. A lead octet's entries
	// are at its own low six bits, which are distinct for C0-DF (2),
	// E0-EF (3) and F0-F7 (4); every other entry of a lead table is zero.
	slots2 [2][64]byte
	slots3 [3][64]byte
	slots4 [4][64]byte
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
		}
	}
	at := tableFor(forbid)
	for i := range 64 {
		t.high[i] = at[i&15]
		t.low[i] = at[16+i&15]
	}
	fill := func(dst [][64]byte, slots []slot) {
		for s, sl := range slots {
			for pos := range dst {
				for m := sl[pos]; m != 0; m &= m - 1 {
					dst[pos][bits.TrailingZeros64(m)] |= 1 << s
				}
			}
		}
	}
	fill(t.slots2[:], classSlots(forbid, 2))
	fill(t.slots3[:], classSlots(forbid, 3))
	fill(t.slots4[:], classSlots(forbid, 4))
	return t
}

// A slot is a product of sets of octets, one per position of a character,
// each set as bits of the octets' low six bits.
type slot [utf8.UTFMax]uint64

// size is the number of octet sequences of length k in s.
func (s *slot) size(k int) float64 {
	z := 1.0
	for i := range k {
		z *= float64(bits.OnesCount64(s[i]))
	}
	return z
}

// classSlots returns at most maxSlots slots whose union holds every k-octet
// character of the classes in forbid. It starts from one slot per run of
// characters that differ only in their last octet, merges slots that
// differ in one position only (which adds no sequence), and then, while
// there are too many, the two whose merge adds the fewest sequences.
func classSlots(forbid Class, k int) []slot {
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
	// Then the cheapest merges, while there are too many.
	for len(slots) > maxSlots {
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
	return slots
}
