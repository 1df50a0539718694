//go:build amd64 && !purego

package sanitize

import (
	"iter"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// tier1 returns tier 1's slot bits for the octet b, whatever octet follows
// it (whose low bits land in the index of the high-nibble lookup), or
// fails the test if they depend on it.
func tier1(t testing.TB, ft *fusedTable, b byte) byte {
	v := ft.high[b>>4] & ft.low[b&63]
	for next := range 4 {
		if ft.high[b>>4|byte(next)<<4]&ft.low[b&63] != v {
			t.Fatalf("tier 1's bits for %#02x depend on the octet after it", b)
		}
	}
	return v
}

// slotFlags reports whether tier 2 flags the character c (its octets), as
// checkAVX512 computes it at c's first octet: the octets after the
// character do not matter (TestFusedTables checks that).
func slotFlags(t testing.TB, ft *fusedTable, c []byte) bool {
	v := tier1(t, ft, c[0])
	for i := 1; i < len(c); i++ {
		v &= ft.next[i-1][c[i]&63]
	}
	return v != 0
}

// TestFusedTables checks the fusedTable of each class, of the presets'
// sets, of every class and of random sets against ClassOf, for every code
// point: tier 1 gives the first octet of every character of the classes a
// slot bit (and exactly the ASCII ones bit 7), tier 2 flags every such
// character whatever follows it, and nothing else for the sets that need
// no more slots than there are.
//
// With -sweep, for every code point and 20 random sets (1 s of CPU). The
// default run takes 4 random sets, and of the code points of four octets
// only fusedRunes's sample (each of their octets takes every value, and
// every class's first and last are there); its count of the characters
// flagged in no class of a set is of those alone. With -short, only the
// presets' sets and one of each class, no random set.
func TestFusedTables(t *testing.T) {
	t.Parallel()
	if off := [...]uintptr{
		unsafe.Offsetof(fusedTable{}.high), unsafe.Offsetof(fusedTable{}.low),
		unsafe.Offsetof(fusedTable{}.next), unsafe.Offsetof(fusedTable{}.has4),
		unsafe.Offsetof(fusedTable{}.asciiFloor), unsafe.Offsetof(fusedTable{}.asciiLift),
		unsafe.Offsetof(fusedTable{}.after), unsafe.Offsetof(fusedTable{}.attnCont),
	}; off != [...]uintptr{128, 192, 256, 448, 456, 488, 504, 520} {
		t.Fatalf("fusedTable's layout is %v, check_amd64.s and check_avx2_amd64.s expect 128, 192, 256, 448, 456, 488, 504, 520", off)
	}
	exact := map[Class]bool{
		NUL: true, C0: true, TabNewline: true, DEL: true, C1: true, Noncharacter: true,
		BidiControl: true, BidiMark: true, Bidi: true,
		// The strict preset's sets: values, names, query values.
		NUL | C0 | C1 | BidiControl: true, NUL | C0 | TabNewline | C1 | Bidi: true,
		NUL | C0 | TabNewline | C1 | BidiControl: true, NUL | C0 | C1 | Bidi: true,
	}
	sets := []Class{DefaultIgnorable, AllClasses &^ BOM}
	for c := range exact {
		sets = append(sets, c)
	}
	randoms := 4
	switch {
	case sweepTests():
		randoms = 20
	case testing.Short():
		randoms = 0
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range randoms {
		sets = append(sets, Class(rng.IntN(int(AllClasses)+1))&^BOM)
	}
	var buf [utf8.UTFMax]byte
	for _, forbid := range sets {
		ft := newFusedTable(forbid)
		// The bits of a length (and the ASCII bit) pass every position
		// after the length's last octet.
		_, masks := slotBits(forbid)
		if (ft.has4 != 0) != (masks[4] != 0) {
			t.Fatalf("%v: has4 is %d, but the 4-octet slot bits are %#02x", forbid, ft.has4, masks[4])
		}
		for k := 1; k <= utf8.UTFMax; k++ {
			keep := byte(asciiSlot)
			if k > 1 {
				keep = masks[k]
			}
			for pos := k - 1; pos < len(ft.next); pos++ {
				for i, e := range ft.next[pos] {
					if e&keep != keep {
						t.Fatalf("%v: next[%d][%#x] = %#02x drops bits %#02x of %d-octet characters", forbid, pos, i, e, keep, k)
					}
				}
			}
		}
		for b := range 256 {
			ascii := b < utf8.RuneSelf && ClassOf(rune(b))&forbid != 0
			if v := tier1(t, ft, byte(b)); (v&asciiSlot != 0) != ascii || b < utf8.RuneSelf && (ft.ascii[b] != 0) != ascii {
				t.Fatalf("%v: octet %#02x: tier 1 gives %#02x, the ASCII table %d; in a class: %v", forbid, b, v, ft.ascii[b&127], ascii)
			}
		}
		extra := 0
		for r := range fusedRunes() {
			n := utf8.EncodeRune(buf[:], r)
			in := ClassOf(r)&forbid != 0
			flagged := slotFlags(t, ft, buf[:n])
			if in && !flagged {
				t.Fatalf("%v: U+%04X is in the classes, but tier 2 does not flag it", forbid, r)
			}
			if flagged && !in {
				if exact[forbid] {
					t.Fatalf("%v: tier 2 flags U+%04X, in no class of the set", forbid, r)
				}
				extra++
			}
		}
		if extra > 0 {
			t.Logf("%v: tier 2 also flags %d characters in no class of the set", forbid, extra)
		}
	}
}

// fusedRunes yields the scalar values that TestFusedTables checks: with
// -sweep, every one; otherwise every one of up to three octets, and of four
// octets those at either end of a row of 64 (the range of the last
// octet), every 61st (so that the last octet takes every value), and the
// first and the last of each range of classRanges and their neighbours.
// That is about 115,000 of 1.1 million, and a few come twice.
func fusedRunes() iter.Seq[rune] {
	all := sweepTests()
	return func(yield func(rune) bool) {
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if 0xD800 <= r && r <= 0xDFFF || !all && r > 0xFFFF && r&63 != 0 && r&63 != 63 && r%61 != 0 {
				continue
			}
			if !yield(r) {
				return
			}
		}
		if all {
			return
		}
		for _, ranges := range classRanges {
			for _, rg := range ranges {
				for _, r := range []rune{rg[0] - 1, rg[0], rg[1], rg[1] + 1} {
					if r > 0xFFFF && r <= utf8.MaxRune && !yield(r) {
						return
					}
				}
			}
		}
	}
}

// TestFusedTablesCached checks that fusedFor makes a table once.
func TestFusedTablesCached(t *testing.T) {
	a, b := fusedFor(Bidi|C1), fusedFor(Bidi|C1)
	if a != b || *a != *newFusedTable(Bidi | C1) {
		t.Fatal("fusedFor made two tables, or one unlike newFusedTable's")
	}
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if n := testing.AllocsPerRun(100, func() { fusedFor(Bidi | C1) }); n != 0 {
		t.Fatalf("fusedFor allocates %v times once the table is made", n)
	}
}

// TestAfterTable checks checkAVX2's filter on the two octets after a lead
// (fusedTable's after): for every code point of every class, the entry at
// the afterIndex of the two octets after its first one (every entry, for
// ASCII) keeps its first octet's attention bit, so no character of a class is let past the
// tiers; and under the bidi controls, the text that starts as they do
// (E2 80, E2 9D) and goes on otherwise, U+200D, the punctuation of
// U+2010-201F and U+2764 (HEAVY BLACK HEART), is let past them.
func TestAfterTable(t *testing.T) {
	var buf [utf8.UTFMax]byte
	follow := []byte{0x00, 0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC3, 0xE2, 0xF0} // whatever follows a 2-octet character
	for k := range numClasses {
		c := Class(1) << k
		if c == BOM {
			continue // checkFused looks at offset 0 itself
		}
		ft := newFusedTable(c)
		for _, rg := range classRanges[k] {
			for r := rg[0]; r <= rg[1]; r++ {
				if r < 0x80 { // whatever follows
					for i, v := range ft.after {
						if v&attnBit[r>>4] == 0 {
							t.Fatalf("%v: U+%04X: after drops it at %d", c, r, i)
						}
					}
					continue
				}
				n := utf8.EncodeRune(buf[:], r)
				thirds := buf[2:3]
				if n == 2 {
					thirds = follow
				}
				for _, b := range thirds {
					if ft.after[afterIndex(buf[1], b)]&attnBit[buf[0]>>4] == 0 {
						t.Fatalf("%v: U+%04X (% X) followed by %#02x: after drops its first octet", c, r, buf[:n], b)
					}
				}
			}
		}
	}
	ft := newFusedTable(NUL | C0 | C1 | BidiControl)
	for _, r := range []rune{0x200D, 0x2010, 0x2014, 0x201C, 0x201F, 0x2764} {
		n := utf8.EncodeRune(buf[:], r)
		if ft.after[afterIndex(buf[1], buf[2])]&attnBit[buf[0]>>4] != 0 {
			t.Errorf("U+%04X (% X): after sends it to the tiers under the bidi controls", r, buf[:n])
		}
	}
}
