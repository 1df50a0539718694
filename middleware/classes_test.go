package middleware

import (
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// TestClassCandidates: every code point in a class (and U+FEFF, the BOM)
// has a UTF-8 form whose first two octets classCandidates flags, checked
// against sanitize.ClassOf, the reference, over all of Unicode.
func TestClassCandidates(t *testing.T) {
	t.Parallel()
	var b [4]byte
	for r := rune(0x80); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if sanitize.ClassOf(r) == 0 && r != 0xFEFF {
			continue
		}
		utf8.EncodeRune(b[:], r)
		if classCandidates[b[0]]>>(b[1]&63)&1 == 0 {
			t.Errorf("U+%04X (%v) starts % X, which classCandidates does not flag", r, sanitize.ClassOf(r), b[:2])
		}
	}
}

// TestCheckClassesAgrees: checkClasses and checkUTF8Text give what
// sanitize.CheckClasses and sanitize.Check give, for every class set, on
// text holding each classed character (and neighbours of it) at several
// offsets, among characters of every length.
func TestCheckClassesAgrees(t *testing.T) {
	t.Parallel()
	// One character of each class, the edges of each range, and its
	// unclassed neighbours.
	probes := []rune{0, 1, 8, 9, 10, 13, 0x1F, 0x20, 0x7E, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xAC, 0xAD, 0xAE,
		0x34E, 0x34F, 0x350, 0x61B, 0x61C, 0x61D, 0x115F, 0x1160, 0x17B4, 0x180B, 0x180F, 0x200A, 0x200B,
		0x200E, 0x200F, 0x2010, 0x2029, 0x202A, 0x202E, 0x202F, 0x205F, 0x2060, 0x2066, 0x2069, 0x206F, 0x2070,
		0x3163, 0x3164, 0xDFFF + 1, 0xE000, 0xF8FF, 0xF900, 0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0, 0xFE00, 0xFE0F,
		0xFEFF, 0xFFA0, 0xFFEF, 0xFFF0, 0xFFF8, 0xFFF9, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1BCA0, 0x1D173,
		0x1F600, 0x1FFFE, 0x1FFFF, 0x2FFFE, 0xE0000, 0xE0001, 0xE0FFF, 0xE1000, 0xEFFFE, 0xF0000, 0xFFFFD,
		0xFFFFE, 0x100000, 0x10FFFD, 0x10FFFE, 0x10FFFF, 'é', 'ж', '中', '😀'}
	fillers := []string{"", "a", "abcdefghijklmno", "é", "中文", "😀x", "жжжжжжжжж"}
	sets := []sanitize.Class{
		sanitize.NUL, sanitize.C0 | sanitize.NUL, sanitize.C1, sanitize.Bidi, sanitize.BOM,
		sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi,                                      // Strict bodies
		sanitize.NUL | sanitize.C0 | sanitize.TabNewline | sanitize.C1 | sanitize.Bidi | sanitize.BOM, // Strict URLs
		sanitize.Noncharacter, sanitize.PrivateUse, sanitize.DefaultIgnorable, sanitize.DEL | sanitize.BOM,
		sanitize.AllClasses,
	}
	n := 0
	for _, set := range sets {
		for _, r := range probes {
			for _, pre := range fillers {
				for _, post := range fillers {
					p := []byte(pre + string(r) + post)
					n++
					if got, want := checkClasses(p, set), sanitize.CheckClasses(p, set); !sameErr(got, want) {
						t.Fatalf("checkClasses(%q, %v) = %v, want %v", p, set, got, want)
					}
					bad := append(append([]byte(nil), p...), 0xC0, 0xAE)
					if got, want := checkUTF8Text(bad, set), sanitize.Check(bad, set); !sameErr(got, want) {
						t.Fatalf("checkUTF8Text(%q, %v) = %v, want %v", bad, set, got, want)
					}
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d cases", n)
	}
}

func sameErr(a, b error) bool {
	var ea, eb *sanitize.Error
	if errors.As(a, &ea) != errors.As(b, &eb) {
		return false
	}
	if ea == nil {
		return a == nil && b == nil
	}
	return *ea == *eb
}

// TestCheckClassesAllocs: the class check of a clean body allocates
// nothing.
func TestCheckClassesAllocs(t *testing.T) {
	p := mixedText(4096)
	forbid := sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi
	if n := testing.AllocsPerRun(100, func() {
		if err := checkUTF8Text(p, forbid); err != nil {
			panic(fmt.Sprint(err))
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
