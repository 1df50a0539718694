package sanitize

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// inRanges reports whether r is in one of ranges.
func inRanges(r rune, ranges [][2]rune) bool {
	for _, rg := range ranges {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	return false
}

// TestClassRanges checks classRanges against ClassOf for every code point,
// and that the first octet of every character of every class has a high
// nibble that attnBit gives a bit.
func TestClassRanges(t *testing.T) {
	var buf [utf8.UTFMax]byte
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		want := ClassOf(r)
		if r == 0xFEFF {
			want |= BOM
		}
		for k := range numClasses {
			if got := inRanges(r, classRanges[k]); got != (want&(1<<k) != 0) {
				t.Fatalf("U+%04X: in the ranges of %v: %v; ClassOf says %v", r, Class(1<<k), got, want)
			}
		}
		if want != 0 {
			utf8.EncodeRune(buf[:], r)
			if attnBit[buf[0]>>4] == 0 {
				t.Fatalf("U+%04X (%v): first octet %02X has no attention bit", r, want, buf[0])
			}
		}
	}
}

// TestAttnTables checks, for every set of classes, that the table flags
// exactly the octets that start a character of the set (BOM aside), and
// that classPairs has the first two octets of every such character.
func TestAttnTables(t *testing.T) {
	var first [numClasses][256]bool
	var buf [utf8.UTFMax]byte
	for k, ranges := range classRanges {
		for _, rg := range ranges {
			for r := rg[0]; r <= rg[1]; r++ {
				n := utf8.EncodeRune(buf[:], r)
				first[k][buf[0]] = true
				if n > 1 && classPairs[buf[0]-0xC0]>>(buf[1]&63)&1 == 0 {
					t.Fatalf("U+%04X: classPairs misses % X", r, buf[:2])
				}
			}
		}
	}
	for forbid := range AllClasses + 1 {
		tbl := tableFor(forbid)
		for b := range 256 {
			want := false
			for k := range numClasses {
				if forbid&(1<<k) != 0 && Class(1<<k) != BOM && first[k][b] {
					want = true
				}
			}
			if got := tbl[b>>4]&tbl[16+b&15] != 0; got != want {
				t.Fatalf("%v: octet %02X needs attention: %v, want %v", forbid, b, got, want)
			}
		}
	}
}

// flaggedOctets returns the offsets of the octets of p that need attention
// under t, found as checkClasses finds them: attnBlocks where the SIMD
// kernel runs, attnMask for the rest. It repeats checkClasses's loop on
// purpose: an iterator that both could share (a generic type with a next
// method, not inlined) made checkClasses three times slower per octet that
// needs attention, on emoji text 4.3 to 1.3 GB/s.
func flaggedOctets(p []byte, t *attnTable) []int {
	var out []int
	n := len(p)
	for base := 0; base < n; {
		w := min(n-base, 64)
		var mask uint64
		if n-base >= attnSIMDFrom {
			var off int
			off, mask = attnBlocks(p[base:], t)
			if off%64 != 0 || off > n-base {
				panic("attnBlocks: bad offset")
			}
			base += off
			if mask == 0 {
				continue
			}
			w = 64
		} else {
			mask = attnMask(p[base:base+w], t)
		}
		for ; mask != 0; mask &= mask - 1 {
			out = append(out, base+bits.TrailingZeros64(mask))
		}
		base += w
	}
	return out
}

// plainFlagged is flaggedOctets octet by octet.
func plainFlagged(p []byte, t *attnTable) []int {
	var out []int
	for i, b := range p {
		if t[b>>4]&t[16+b&15] != 0 {
			out = append(out, i)
		}
	}
	return out
}

// TestAttnBlocks checks the SIMD kernel (where there is one) and attnMask
// against a plain loop: one or two flagged octets at every offset of
// inputs of every length up to 300, at every alignment of 0-63, and random
// inputs under random tables.
//
// With -sweep, at every alignment and on 20,000 random inputs (0.4 s of
// CPU). The default run (and -short) takes the alignments 0, 9, 18, ...
// 63 and a fifth of the random inputs.
func TestAttnBlocks(t *testing.T) {
	t.Parallel()
	alignStep, randoms := 9, 4000
	if sweepTests() {
		alignStep, randoms = 1, 20000
	}
	tbl := &attnTables[AllClasses]
	flagged := []byte{0x00, 0x01, 0x1F, 0x7F, 0xC2, 0xD8, 0xE2, 0xEF, 0xF0, 0xF4}
	var buf [400]byte
	for align := 0; align < 64; align += alignStep {
		for n := 0; n <= 300; n += 1 + n/64 {
			p := buf[align : align+n]
			for i := range p {
				p[i] = 'a'
			}
			if got := flaggedOctets(p, tbl); len(got) != 0 {
				t.Fatalf("align %d, %d octets of ASCII: %v", align, n, got)
			}
			for at := 0; at < n; at++ {
				p[at] = flagged[(at+n)%len(flagged)]
				second := (at*7 + 13) % n
				p[second] = flagged[at%len(flagged)]
				if got, want := flaggedOctets(p, tbl), plainFlagged(p, tbl); !slices.Equal(got, want) {
					t.Fatalf("align %d, n %d, at %d and %d: got %v, want %v", align, n, at, second, got, want)
				}
				p[at], p[second] = 'a', 'a'
			}
		}
	}
	base := []byte(strings.Repeat("The quick brown fox; Привет, 你好! \u200d😀 ", 20))
	rng := rand.New(rand.NewPCG(1, 2))
	for range randoms {
		n := rng.IntN(len(base))
		off := rng.IntN(len(base) - n + 1)
		p := append([]byte(nil), base[off:off+n]...)
		for range rng.IntN(4) {
			if n > 0 {
				p[rng.IntN(n)] = byte(rng.IntN(256))
			}
		}
		tb := &attnTables[rng.IntN(int(AllClasses)+1)]
		if got, want := flaggedOctets(p, tb), plainFlagged(p, tb); !slices.Equal(got, want) {
			t.Fatalf("% X: got %v, want %v", p, got, want)
		}
	}
}

// TestCheckLong compares Check and CheckClasses with the references on
// long inputs, where the SIMD kernels and attnMask run: text of
// every script and of the classes themselves, with octets replaced at
// random (ill-formed sequences included), under random sets of classes;
// and each fused kernel, run directly, with them.
//
// With -sweep, 20,000 inputs under any set of classes (0.6 s of CPU, most
// of it to build the fused kernels' tables of about 2,000 sets). The
// default run (and -short) takes 3,000 inputs, under the sets of
// checkSets and 46 random ones.
func TestCheckLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	inputs, forbidden := 20000, func() Class { return Class(rng.IntN(int(AllClasses) + 1)) }
	if !sweepTests() {
		sets := slices.Clip(checkSets)
		for len(sets) < 64 {
			sets = append(sets, forbidden())
		}
		inputs, forbidden = 3000, func() Class { return sets[rng.IntN(len(sets))] }
	}
	pieces := []string{
		"The quick brown fox. ", "Привет, мир! ", "你好世界，", "こんにちは、", "😀 ", "é", "\t\n",
		"\u0085", "\u00ad", "\u061c", "\u200b", "\u202e", "\u3164", "\ue000", "\ufdd0", "\ufeff",
		"\U000e0041", "\U0010fffe", "\x00", "\x1b", "\x7f", "\U0001d173", "\u034f", "\u1160",
		"\u200d", "\u200e", "👩\u200d💻",
	}
	mut := []byte("\x00\x01\t\x7f\x80\xbf\xc0\xc2\xcd\xd8\xe1\xe2\xe3\xed\xee\xef\xf0\xf3\xf4\xf8\xffa ")
	for range inputs {
		var b []byte
		for n := rng.IntN(600); len(b) < n; {
			pc := pieces[rng.IntN(len(pieces))]
			if rng.IntN(4) != 0 {
				pc = pieces[rng.IntN(4)] // mostly plain text
			}
			b = append(b, pc...)
		}
		for range rng.IntN(3) {
			if len(b) > 0 {
				b[rng.IntN(len(b))] = mut[rng.IntN(len(mut))]
			}
		}
		forbid := forbidden()
		if got, _ := asError(Check(b, forbid)); got != refCheck(b, forbid) {
			t.Fatalf("Check(% X, %v) = %+v, reference says %+v", b, forbid, got, refCheck(b, forbid))
		}
		if got, _ := asError(CheckClassesString(string(b), forbid)); got != refCheckClasses(b, forbid) {
			t.Fatalf("CheckClasses(% X, %v) = %+v, reference says %+v", b, forbid, got, refCheckClasses(b, forbid))
		}
		if msg := fusedKernelsAgree(b, forbid); msg != "" {
			t.Fatal(msg)
		}
	}
}

// TestInThirds checks the third-octet filter for every 3-octet character
// and every class: a character of the class always passes it, and one of
// no class in forbid never does.
func TestInThirds(t *testing.T) {
	var buf [utf8.UTFMax]byte
	for r := rune(0x800); r <= 0xFFFF; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		utf8.EncodeRune(buf[:], r)
		for k := range numClasses {
			c := Class(1 << k)
			if c&(asciiClasses|C1|BOM) != 0 {
				continue // no 3-octet character; BOM is handled at offset 0
			}
			want := ClassOf(r)&c != 0
			if got := inThirds(buf[0], buf[1], buf[2], c); got != want {
				t.Fatalf("U+%04X, %v: inThirds = %v, want %v", r, c, got, want)
			}
		}
	}
}
