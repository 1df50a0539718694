package normalize

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize/internal/ucd"
)

// TestComposeTablesFromUCD checks that compose_tables.go is what the
// generator writes from the copy of the Unicode Character Database in
// testdata, byte for byte.
func TestComposeTablesFromUCD(t *testing.T) {
	t.Parallel()
	src, err := ucd.GenerateCompose(ucdDir, composeVersion)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("compose_tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatalf("compose_tables.go is not what the generator writes from %s: run go generate ./normalize", ucdDir)
	}
	if composeVersion != norm.Version {
		t.Errorf("the normalizer's data are of Unicode %s, norm of %s", composeVersion, norm.Version)
	}
}

// TestSegmentRoom checks the bounds that the segment buffer relies on: no
// decomposition longer than 18 characters, and at most 3 leading and
// trailing non-starters for any character.
func TestSegmentRoom(t *testing.T) {
	c := theComposer()
	for k := range c.decomp {
		canon, compat := c.canon(uint32(k)), c.compat(uint32(k))
		if len(canon) > 18 || len(compat) > 18 {
			t.Errorf("decomposition of %d characters: %U", max(len(canon), len(compat)), compat)
		}
	}
	// A second of a pair that composes has no decomposition (norm would
	// not count it as combining backward otherwise).
	for _, s := range c.pairs {
		if s.key != 0 {
			if b := rune(s.key & (1<<21 - 1)); c.entry(b)&eCompat != 0 {
				t.Errorf("U+%04X composes as a second but decomposes", b)
			}
		}
	}
}

// composeFixtures are characters that exercise the normalizer: starters that
// compose, decompose or both, marks of several classes, characters that
// decompose to non-starters, starters that combine backward, Hangul, and
// characters with long compatibility decompositions.
var composeFixtures = []rune{
	'a', 'e', 'q', 'A', 'u', 'i', 'f', ' ',
	0x00E9, 0x00FC, 0x01D8, 0x1E09, 0x1EA0, 0x212B, 0x2126, 0x00C5, 0x0344, 0x0F73, 0x0F75, 0x0F81,
	0x0300, 0x0301, 0x0302, 0x0308, 0x0323, 0x0327, 0x0328, 0x031B, 0x05B8, 0x05C1, 0x0653, 0x093C, 0x0F71, 0x0F72, 0x0F80,
	0x034F, 0x0B47, 0x0B3E, 0x0B57, 0x0BC6, 0x0BBE, 0x0CC6, 0x0CD5, 0x0DD9, 0x0DCF, 0x1025, 0x102E, 0x3099, 0x309A, 0x304B,
	0xFF76, 0xFF9E, 0xFF9F, 0x1100, 0x1161, 0x11A8, 0xAC00, 0xAC01, 0x3200, 0x320E, 0x1D15E, 0x1D165, 0x1D16E,
	0xFB01, 0xFDFA, 0x00B2, 0x1D2E, 0xFF21, 0x2474, 0x33FF, 0x0958, 0x2ADC, 0x0338, 0x226E, 0x1E0A, 0x0307,
	0x01C4, 0x1E17, 0x0113, 0x0304, 0x00E0, 0x01D5, 0x1FC1, 0x0385, 0x3131, 0x3133, 0x0CCB, 0x0DDA,
}

// TestComposerDifferential compares the normalizer with norm, through every
// method of Form (differential), on every code point alone and between
// fixtures, and on runs of non-starters around the Stream-Safe limit of
// 30. The code points are every one with -long, every 257th with -sweep
// (0.5 s of CPU), and every 1021st by default and with -short. The runs
// are of 28 to 33 non-starters with -sweep, after each fixture and of
// each mark; by default and with -short, of one of those lengths for each
// fixture and mark, the next length for the next, so that every fixture,
// every mark and every length still come up.
func TestComposerDifferential(t *testing.T) {
	stride := rune(1021)
	switch {
	case longTests():
		stride = 1
	case sweepTests():
		stride = 257
	}
	forms := []struct {
		f  Form
		nf norm.Form
	}{{NFC, norm.NFC}, {NFKC, norm.NFKC}}
	t.Run("runes", func(t *testing.T) {
		sweepRunes(t, 0x80, stride, func(t *testing.T) func(rune) {
			return func(r rune) {
				for _, fm := range forms {
					for _, s := range []string{string(r), "a" + string(r) + "\u0301", string(r) + "\u0323\u0302" + string(r)} {
						differential(t, fm.f, fm.nf, []byte(s))
					}
				}
			}
		})
	})
	// Runs of non-starters around the limit, after each fixture.
	marks := []string{"\u0301", "\u0323", "\u0344", "\u0f73", "\uff9e", "\u1161", "\u11a8", "\u0b3e", "\u0301\u0323", "\u3099", "\U0001D165"}
	turn := 0
	for _, st := range composeFixtures {
		for _, m := range marks {
			turn++
			for n := 28; n <= 33; n++ {
				if !sweepTests() && n != 28+turn%6 {
					continue
				}
				for _, fm := range forms {
					s := string(st) + strings.Repeat(m, n) + "x" + strings.Repeat(m, n)
					differential(t, fm.f, fm.nf, []byte(s))
				}
			}
		}
	}
}

// TestComposerDifferentialRandom compares the normalizer with norm on random strings
// of fixtures, dense in the cases where they interact: 1,000 of them by
// default and with -short, 5,000 with -sweep (0.4 s of CPU), 400,000 with
// -long.
func TestComposerDifferentialRandom(t *testing.T) {
	iters, parts := 1000, 1
	if sweepTests() {
		iters = 5000
	}
	if longTests() {
		// In parallel parts, each with a stream of its own; the first
		// begins with the strings of the shorter runs.
		iters, parts = 400000, 8
	}
	for k := range parts {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, 14+uint64(k)))
			for range iters / parts {
				var b []byte
				for n := r.IntN(48); n >= 0; n-- {
					x := composeFixtures[r.IntN(len(composeFixtures))]
					for k := r.IntN(4); k >= 0; k-- {
						b = utf8.AppendRune(b, x)
					}
				}
				differential(t, NFC, norm.NFC, b)
				differential(t, NFKC, norm.NFKC, b)
			}
		})
	}
}

// TestComposerPointerFree: the composer's tables are arrays without
// pointers (spans into them, not slices), so that the collector has a
// handful of objects to look at in them in every cycle, not thousands;
// and so is the table they are built from (mappings, spans of a string
// constant), which as a package variable the collector would otherwise
// scan as a root in every cycle of every program, whether or not the
// composer was ever built: 140 KB of strings, where a runtime.GC() of
// this package's test binary took 137 µs, and takes 109 µs without.
func TestComposerPointerFree(t *testing.T) {
	var hasPointers func(reflect.Type) bool
	hasPointers = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Array:
			return hasPointers(ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				if hasPointers(ty.Field(i).Type) {
					return true
				}
			}
			return false
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
			return true
		}
		return false
	}
	if hasPointers(reflect.TypeOf(mappings)) {
		t.Errorf("mappings (%T) holds pointers", mappings)
	}
	ty := reflect.TypeOf(composer{})
	for i := range ty.NumField() {
		f := ty.Field(i)
		elem := f.Type
		for elem.Kind() == reflect.Array {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		if hasPointers(elem) {
			t.Errorf("composer.%s (%v) holds pointers", f.Name, f.Type)
		}
	}
}
