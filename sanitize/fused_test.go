//go:build amd64 && !purego

package sanitize

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// slotFlags reports whether tier 2 of the fused check flags the character
// c (its octets), as checkAVX512 computes it at c's last octet.
func slotFlags(t *fusedTable, c []byte) bool {
	var tables [][64]byte
	switch len(c) {
	case 1:
		return t.ascii[c[0]] != 0
	case 2:
		tables = t.slots2[:]
	case 3:
		tables = t.slots3[:]
	case 4:
		tables = t.slots4[:]
	}
	and := byte(0xFF)
	for i, o := range c {
		and &= tables[i][o&63]
	}
	return and != 0
}

// attends reports whether tier 1 flags the octet b, whatever octet follows
// it (its low bits land in the index of the high-nibble lookup).
func attends(t *fusedTable, b byte, bits byte) bool {
	for next := range 4 {
		if t.high[b>>4|byte(next)<<4]&t.low[b&63]&bits != 0 {
			return true
		}
	}
	return false
}

// TestFusedTables checks the fusedTable of each class, of the presets'
// sets, of every class and of random sets against ClassOf, for every code
// point: tier 1 flags the first octet of every character of the classes
// (and exactly the ASCII ones), tier 2 flags every such character, and
// nothing else for the sets that need no more slots than there are.
func TestFusedTables(t *testing.T) {
	if off := [...]uintptr{
		unsafe.Offsetof(fusedTable{}.high), unsafe.Offsetof(fusedTable{}.low),
		unsafe.Offsetof(fusedTable{}.slots2), unsafe.Offsetof(fusedTable{}.slots3),
		unsafe.Offsetof(fusedTable{}.slots4), unsafe.Sizeof(fusedTable{}),
	}; off != [...]uintptr{128, 192, 256, 384, 576, 832} {
		t.Fatalf("fusedTable's layout is %v, check_amd64.s expects 128, 192, 256, 384, 576, 832", off)
	}
	exact := map[Class]bool{
		NUL: true, C0: true, TabNewline: true, DEL: true, C1: true, Bidi: true,
		Noncharacter: true, PrivateUse: true,
		NUL | C0 | C1 | Bidi: true, NUL | C0 | TabNewline | C1 | Bidi: true,
	}
	sets := []Class{DefaultIgnorable, AllClasses &^ BOM}
	for c := range exact {
		sets = append(sets, c)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		sets = append(sets, Class(rng.IntN(int(AllClasses)+1))&^BOM)
	}
	var buf [utf8.UTFMax]byte
	for _, forbid := range sets {
		ft := newFusedTable(forbid)
		for i := range 64 {
			if ft.slots2[0][i] != 0 && i >= 0x20 || ft.slots3[0][i] != 0 && (i < 0x20 || i >= 0x30) ||
				ft.slots4[0][i] != 0 && (i < 0x30 || i >= 0x38) {
				t.Fatalf("%v: a lead table has an entry at %#x, outside the leads of its length", forbid, i)
			}
		}
		for b := range 256 {
			ascii := b < utf8.RuneSelf && ClassOf(rune(b))&forbid != 0
			if attends(ft, byte(b), 0x07) != ascii || b < utf8.RuneSelf && (ft.ascii[b] != 0) != ascii {
				t.Fatalf("%v: octet %#02x: tier 1's ASCII bits or the ASCII table say %v, want %v",
					forbid, b, attends(ft, byte(b), 0x07), ascii)
			}
		}
		extra := 0
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if 0xD800 <= r && r <= 0xDFFF {
				continue
			}
			n := utf8.EncodeRune(buf[:], r)
			in := ClassOf(r)&forbid != 0
			flagged := slotFlags(ft, buf[:n])
			if in && (!flagged || !attends(ft, buf[0], 0xFF)) {
				t.Fatalf("%v: U+%04X is in the classes, but tier 1 says %v and tier 2 %v",
					forbid, r, attends(ft, buf[0], 0xFF), flagged)
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

// TestFusedTablesCached checks that fusedFor makes a table once.
func TestFusedTablesCached(t *testing.T) {
	a, b := fusedFor(Bidi|C1), fusedFor(Bidi|C1)
	if a != b || *a != *newFusedTable(Bidi | C1) {
		t.Fatal("fusedFor made two tables, or one unlike newFusedTable's")
	}
	if n := testing.AllocsPerRun(100, func() { fusedFor(Bidi | C1) }); n != 0 {
		t.Fatalf("fusedFor allocates %v times once the table is made", n)
	}
}
