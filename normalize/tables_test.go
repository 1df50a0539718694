package normalize

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize/internal/ucd"
)

// safeInNorm is the definition of a safe character, asked of norm itself:
// Canonical_Combining_Class 0 (of the character and of the first character
// of its decomposition), nothing that combines with a character before it
// (a boundary before it), and in the form on its own (quick check not No).
// Together: quick check Yes and ccc 0. And not counted as a non-starter by
// the Stream-Safe Text Process, which norm does for a character whose
// compatibility decomposition starts with one (U+FF9E, the compatibility
// jamo that decompose to jamo T): 31 of them after a letter are not
// normal, whatever the form.
func safeInNorm(f norm.Form, r rune) bool {
	if !utf8.ValidRune(r) {
		return false
	}
	s := string(r)
	p := f.PropertiesString(s)
	return p.CCC() == 0 && p.LeadCCC() == 0 && p.BoundaryBefore() && f.IsNormalString(s) &&
		(len(norm.NFKD.PropertiesString(s).Decomposition()) == 0 || f.IsNormalString("a"+strings.Repeat(s, maxNonStarters+1)))
}

const ucdDir = "../testdata/ucd/" + tablesVersion

// TestTablesFromUCD checks that tables.go is what the generator writes from
// the copy of the Unicode Character Database in testdata, byte for byte: the
// committed tables are reproducible. After a change to the generator, or a
// new version of the data, run go generate and review the diff.
func TestTablesFromUCD(t *testing.T) {
	t.Parallel()
	src, err := ucd.Generate(ucdDir, tablesVersion)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, src) {
		t.Fatalf("tables.go is not what the generator writes from %s: run go generate ./normalize", ucdDir)
	}
	if _, err := ucd.Generate(ucdDir, "16.0.0"); err == nil {
		t.Errorf("the generator accepts the data of %s as Unicode 16.0.0", ucdDir)
	}
}

// TestTablesVersion checks that the tables are of the Unicode version of
// norm, so that the scanner uses them.
func TestTablesVersion(t *testing.T) {
	if tablesVersion != norm.Version {
		t.Errorf("the tables are of Unicode %s, norm of %s: add the data of %s to testdata/ucd and run go generate ./normalize",
			tablesVersion, norm.Version, norm.Version)
	}
}

// TestSafeTable checks the tables as the scanner reads them against norm,
// for every code point: the properties in the Unicode Character Database
// that the tables come from must be those that norm was built from.
//
// That is with -sweep (0.25 s of CPU). The default run (and -short) takes
// every code point of up to three octets, and of four octets those at
// either end of a row of 64 bits of the tables, every 61st, and those on
// either side of a change of isSafe: a wrong value of the tables is a
// change, or in a run of wrong values that ends at one, unless the
// tables miss a change where norm has one.
func TestSafeTable(t *testing.T) {
	all := sweepTests()
	for _, f := range []Form{NFC, NFKC} {
		fi := f.info()
		bad := 0
		for r := rune(0); r <= utf8.MaxRune; r++ {
			if 0xD800 <= r && r <= 0xDFFF {
				continue // never decoded
			}
			if !all && r > 0xFFFF && r&63 != 0 && r&63 != 63 && r%61 != 0 &&
				fi.isSafe(r-1) == fi.isSafe(r) && (r == utf8.MaxRune || fi.isSafe(r+1) == fi.isSafe(r)) {
				continue
			}
			if got, want := fi.isSafe(r), safeInNorm(fi.norm, r); got != want {
				t.Errorf("%s: isSafe(%U) = %v, norm says %v", f.Name(), r, got, want)
				if bad++; bad > 10 {
					t.FailNow()
				}
			}
		}
	}
}

// TestSafeBounds pins the simple facts behind the fast path: every code
// point below U+0300 is safe in NFC (text made only of them is NFC), and in
// NFKC all but the compatibility characters listed here are; and the
// scanner's skipBelow that follows.
func TestSafeBounds(t *testing.T) {
	for r := rune(0); r < 0x300; r++ {
		if !safeInNorm(norm.NFC, r) {
			t.Errorf("NFC: %U is not safe", r)
		}
	}
	if safeInNorm(norm.NFC, 0x300) {
		t.Error("NFC: U+0300 is safe")
	}
	want := []rune{
		0x00a0, 0x00a8, 0x00aa, 0x00af, 0x00b2, 0x00b3, 0x00b4, 0x00b5, 0x00b8, 0x00b9, 0x00ba,
		0x00bc, 0x00bd, 0x00be, 0x0132, 0x0133, 0x013f, 0x0140, 0x0149, 0x017f, 0x01c4, 0x01c5,
		0x01c6, 0x01c7, 0x01c8, 0x01c9, 0x01ca, 0x01cb, 0x01cc, 0x01f1, 0x01f2, 0x01f3, 0x02b0,
		0x02b1, 0x02b2, 0x02b3, 0x02b4, 0x02b5, 0x02b6, 0x02b7, 0x02b8, 0x02d8, 0x02d9, 0x02da,
		0x02db, 0x02dc, 0x02dd, 0x02e0, 0x02e1, 0x02e2, 0x02e3, 0x02e4,
	}
	var got []rune
	for r := rune(0); r < 0x300; r++ {
		if !safeInNorm(norm.NFKC, r) {
			got = append(got, r)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("NFKC: the code points below U+0300 that are not safe are %U, want %U", got, want)
	}
	// So the scanner skips, without looking at them one by one, the
	// characters whose first octet is below C2 in NFKC (ASCII), below CC
	// (U+0300) in NFC.
	if b := NFC.info().skipBelow; b != 0xCC {
		t.Errorf("NFC: skipBelow = %#x, want 0xcc", b)
	}
	if b := NFKC.info().skipBelow; b != 0xC2 {
		t.Errorf("NFKC: skipBelow = %#x, want 0xc2", b)
	}
}

// TestBoundaryBeforeSafe checks the property the scanner relies on, for
// every safe code point of the BMP, and every assigned one of planes 1 and 2
// (unassigned code points have no properties to test), after a set of left
// contexts chosen to combine, reorder or compose: f(x + c) == f(x) + c.
//
// With -sweep (0.45 s of CPU), each code point goes after one context, in
// turn; every 13th, and those on either side of a change of isSafe, after
// every context. The default run (and -short) takes only every 26th code
// point, and those on either side of a change of isSafe, after every
// context. With -long, every code point after every context (about 3 s of
// CPU more).
func TestBoundaryBeforeSafe(t *testing.T) {
	assigned := []*unicode.RangeTable{unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C}
	contexts := []string{
		"e", "e\u0301", "\u1100", "\uac00", "\u0f73", "\u0bc6", "\u0345",
		"a" + strings.Repeat("\u0301", 29),
	}
	for _, f := range []Form{NFC, NFKC} {
		fi := f.info()
		t.Run(f.Name(), func(t *testing.T) {
			t.Parallel()
			bad := 0
			stride := rune(26)
			if sweepTests() {
				stride = 13
			}
			// takes reports whether c goes after the k-th context.
			takes := func(c rune, k int) bool {
				return longTests() || c%stride == 0 || c > 0 && !fi.isSafe(c-1) || !fi.isSafe(c+1) ||
					sweepTests() && int(c)%len(contexts) == k
			}
			var in, got, want []byte
			for k, x := range contexts {
				fx := fi.norm.String(x)
				for c := rune(0); c < 0x30000; c++ {
					if !utf8.ValidRune(c) || !fi.isSafe(c) || !takes(c, k) {
						continue
					}
					if c > 0xFFFF && !unicode.In(c, assigned...) {
						continue
					}
					in = utf8.AppendRune(append(in[:0], x...), c)
					want = utf8.AppendRune(append(want[:0], fx...), c)
					if got = fi.norm.Append(got[:0], in...); !bytes.Equal(got, want) {
						t.Errorf("%s(%+q + %U) = %+q, want %+q", f.Name(), x, c, got, want)
						if bad++; bad > 10 {
							t.FailNow()
						}
					}
				}
			}
		})
	}
}
