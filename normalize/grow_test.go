package normalize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestGrowthCount pins the allocations of rewrites that expand (grow.go):
// one buffer for the result and at most two growths of it, whatever the
// text does; none beyond the result's buffer for a text whose normal form
// fits it. The first cases are those FuzzNormalizeBudget found:
// NFKC rewrites of U+FDFA between ill-formed octets, which took five to
// seven allocations while the buffer doubled below 1 KiB.
func TestGrowthCount(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	fdfaBad := strings.Repeat("\ufdfa\ufdfa\xba\ufdfa0\xef\ufdfa\u0301x\x81", 40)
	for _, tc := range []struct {
		name string
		in   string
		most int // allocations of Bytes and of Append(nil, ...)
	}{
		{"fdfa-between-ill-formed", fdfaBad, 3},
		{"fdfa-between-ill-formed-short", fdfaBad[:150], 3},
		{"fuzz-5-allocs", "xx\xba\x81\xba\uf07a\x81\ufdfaxx0\ufdfa\ufdfa\ufdfax\ufdfa\ufdfa\ufdfa\u0301\ufdfax\x81\ufdfa\u0301\ufdfax\xba\xef00\xba\ufdfax\xef0\u0301\xba\x81\ufdfa\u0301\ufdfa\ufdfa\x81", 3},
		{"fdfa-dense", strings.Repeat("\ufdfa", 3000), 2},
		{"fdfa-then-ascii", strings.Repeat("\ufdfa", 20) + strings.Repeat("x", 20000) + "e\u0301", 3},
		// The first growth guesses from a text that barely expands, the
		// rest expands eleven times: the second growth is the last.
		{"ascii-then-fdfa", "e\u0301" + strings.Repeat("\u00bd", 2000) + strings.Repeat("\ufdfa", 4000), 3},
		{"vulgar-fractions", strings.Repeat("\u00bd", 5000), 2},
		{"fdfa-sparse", strings.Repeat("\ufdfa"+strings.Repeat("x", 64), 200), 3},
		{"marks", "a" + strings.Repeat("\u0344", 3000), 3},
		{"nfc-expands", strings.Repeat("\u0958", 3000), 2},
		{"shrinks", strings.Repeat("e\u0301", 3000), 1},
	} {
		for _, f := range []Form{NFC, NFKC} {
			p := []byte(tc.in)
			want := string(pieces(f.info().norm, p))
			if got := f.Bytes(p); string(got) != want {
				t.Fatalf("%s.Bytes(%s) differs from the reference", f.Name(), tc.name)
			}
			if got := f.Append(nil, p); string(got) != want {
				t.Fatalf("%s.Append(%s) differs from the reference", f.Name(), tc.name)
			}
			for call, fn := range map[string]func(){
				"Bytes":  func() { f.Bytes(p) },
				"Append": func() { f.Append(nil, p) },
			} {
				if m, _ := allocCounts(fn); m > uint64(tc.most) {
					t.Errorf("%s.%s(%s): %d allocations, want at most %d", f.Name(), call, tc.name, m, tc.most)
				}
			}
			// Into a buffer with room for the result: no allocation.
			buf := make([]byte, 0, len(want))
			if m, _ := allocCounts(func() { buf = f.Append(buf[:0], p) }); m != 0 {
				t.Errorf("%s.Append(%s) into a buffer with room: %d allocations", f.Name(), tc.name, m)
			}
		}
	}
}

// TestExpansion checks the bound that the grower rests on: no character's
// normal form, alone, is longer than expand times the character (checked
// against norm), and no primary composite is longer than the two
// characters it replaces; and it pins the bounds, 3 for NFC and 11 for
// NFKC (U+FDFA).
func TestExpansion(t *testing.T) {
	c := theComposer()
	bound := [2]int{nfcExpansion, nfkcExpansion}
	if got := [2]int{c.expansion(false), c.expansion(true)}; got != bound {
		t.Errorf("expansion bounds %v from the tables, the grower assumes %v", got, bound)
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || r>>7 < rune(len(c.index)) && c.index[r>>7] == 0 && r%61 != 0 {
			continue // every character with an entry, and a sample of the others
		}
		s := string(r)
		for form, nf := range []norm.Form{norm.NFC, norm.NFKC} {
			if n := len(nf.String(s)); n > bound[form]*len(s) {
				t.Errorf("U+%04X: normal form of %d octets, bound %d", r, n, bound[form]*len(s))
			}
		}
	}
	for _, s := range c.pairs {
		if s.key == 0 {
			continue
		}
		a, b := rune(s.key>>21), rune(s.key&(1<<21-1))
		if utf8.RuneLen(s.to) > utf8.RuneLen(a)+utf8.RuneLen(b) {
			t.Errorf("U+%04X U+%04X composes to the longer U+%04X", a, b, s.to)
		}
	}
}

// expansion computes, from the composer's tables, the longest output per
// octet of input of the normalizer under the form of decomposition d (composer.decomp's canon or
// compat): the longest decomposition per octet of its character, counting
// the U+034F that the Stream-Safe Text Format may insert before a character
// that starts with a non-starter. Composition only shortens the text (a
// primary composite is never longer than the two characters it replaces:
// TestExpansion), and octets that are not well-formed are copied as they
// are.
func (c *composer) expansion(nfkc bool) int {
	most := 3 // a Hangul syllable: three octets, three jamo of three
	for hi, b := range c.index {
		if b == 0 {
			continue // no entries: characters that stay as they are
		}
		for lo, e := range c.blocks[b] {
			r := rune(hi)<<7 | rune(lo)
			size := utf8.RuneLen(r)
			if e == 0 || size < 0 {
				continue
			}
			out := size
			if e&eCompat != 0 && (nfkc || e&eCanon != 0) {
				d := c.canon(e >> eIdxShift)
				if nfkc {
					d = c.compat(e >> eIdxShift)
				}
				out = 0
				for _, x := range d {
					out += utf8.RuneLen(x)
				}
			}
			if e>>eLeadShift&3 != 0 {
				out += utf8.RuneLen(cgj)
			}
			most = max(most, (out+size-1)/size)
		}
	}
	return most
}
