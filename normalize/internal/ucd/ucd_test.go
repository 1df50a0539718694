package ucd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dir = "../../../testdata/ucd/15.0.0"

// TestLoad checks properties read from the copy of the UCD in testdata,
// among them code points that only the ranges of UnicodeData.txt name.
func TestLoad(t *testing.T) {
	d, err := Load(dir, "15.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r         rune
		nfc, nfkc bool
	}{
		{'a', true, true},
		{0x00A0, true, false},    // NO-BREAK SPACE: <noBreak> 0020
		{0x00E9, true, true},     // é
		{0x0300, false, false},   // COMBINING GRAVE ACCENT: ccc 230
		{0x0340, false, false},   // COMBINING GRAVE TONE MARK: NFC_QC N
		{0x0387, false, false},   // GREEK ANO TELEIA: singleton
		{0x0F73, false, false},   // TIBETAN VOWEL SIGN II: ccc 0, NFC_QC N
		{0x1161, false, false},   // HANGUL JUNGSEONG A: NFC_QC M
		{0x3400, true, true},     // CJK Ideograph Extension A, First
		{0x4E2D, true, true},     // 中, in the range of CJK Ideographs
		{0x9FFF, true, true},     // CJK Ideograph, Last
		{0xAC01, true, true},     // a Hangul syllable, in a range
		{0xD800, false, false},   // a surrogate, in a range
		{0xDFFF, false, false},   // a surrogate, in a range
		{0xE000, true, true},     // private use, in a range
		{0xFB01, true, false},    // ﬁ
		{0x1D15E, false, false},  // MUSICAL SYMBOL HALF NOTE: composition exclusion
		{0x20000, true, true},    // CJK Ideograph Extension B, First
		{0x2F800, false, false},  // CJK COMPATIBILITY IDEOGRAPH-2F800: singleton
		{0x10FFFF, true, true},   // a noncharacter
		{0x110000, false, false}, // not a code point
		{-1, false, false},
	} {
		if got := d.Safe(false, tc.r); got != tc.nfc {
			t.Errorf("NFC: Safe(%U) = %v, want %v", tc.r, got, tc.nfc)
		}
		if got := d.Safe(true, tc.r); got != tc.nfkc {
			t.Errorf("NFKC: Safe(%U) = %v, want %v", tc.r, got, tc.nfkc)
		}
	}
}

// TestVersion checks that Load refuses files of another version than the
// one it is asked for.
func TestVersion(t *testing.T) {
	for _, v := range []string{"16.0.0", "15.1.0", "15.0", ""} {
		if _, err := Load(dir, v); err == nil || !strings.Contains(err.Error(), "not "+v) {
			t.Errorf("Load(%q): %v, want an error about the version", v, err)
		}
	}
}

// Small files of the format of the UCD.
const (
	unicodeData = `0041;LATIN CAPITAL LETTER A;Lu;0;L;;;;;N;;;;0061;
0300;COMBINING GRAVE ACCENT;Mn;230;NSM;;;;;N;NON-SPACING GRAVE;;;;
4E00;<CJK Ideograph, First>;Lo;0;L;;;;;N;;;;;
9FFF;<CJK Ideograph, Last>;Lo;0;L;;;;;N;;;;;
A000;<Test Marks, First>;Mn;7;NSM;;;;;N;;;;;
A0FF;<Test Marks, Last>;Mn;7;NSM;;;;;N;;;;;
`
	derivedCCC = `# DerivedCombiningClass-9.9.9.txt
# @missing: 0000..10FFFF; Not_Reordered
0300          ; 230 # Mn       COMBINING GRAVE ACCENT
A000..A0FF    ; 7
`
	derivedNorm = `# DerivedNormalizationProps-9.9.9.txt
0041          ; NFKC_QC; N
4E01          ; NFC_QC; M
4E02..4E03    ; NFC_QC; N
0041          ; NFKC_CF; 0061
`
)

// writeUCD writes the three files, with the changes given, to a new
// directory and returns it.
func writeUCD(t *testing.T, change func(files map[string]string)) string {
	t.Helper()
	files := map[string]string{Files[0]: unicodeData, Files[1]: derivedCCC, Files[2]: derivedNorm}
	if change != nil {
		change(files)
	}
	d := t.TempDir()
	for name, text := range files {
		name = filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestSmall checks Load on small files: ranges, defaults and the
// quick-check values.
func TestSmall(t *testing.T) {
	d, err := Load(writeUCD(t, nil), "9.9.9")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r         rune
		nfc, nfkc bool
	}{
		{0x0041, true, false},
		{0x0042, true, true}, // not listed anywhere
		{0x0300, false, false},
		{0x4E00, true, true},
		{0x4E01, false, true},
		{0x4E03, false, true},
		{0x4E04, true, true},
		{0xA000, false, false}, // a range of ccc 7
		{0xA080, false, false},
		{0xA0FF, false, false},
		{0xA100, true, true},
	} {
		if got := d.Safe(false, tc.r); got != tc.nfc {
			t.Errorf("NFC: Safe(%U) = %v, want %v", tc.r, got, tc.nfc)
		}
		if got := d.Safe(true, tc.r); got != tc.nfkc {
			t.Errorf("NFKC: Safe(%U) = %v, want %v", tc.r, got, tc.nfkc)
		}
	}
	if _, err := d.Tables(); err != nil {
		t.Error(err)
	}
}

// TestBadFiles checks that Load refuses files that are malformed or that
// disagree with each other.
func TestBadFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(map[string]string)
		want   string
	}{
		{"ccc mismatch", func(f map[string]string) {
			f[Files[1]] = strings.Replace(f[Files[1]], "; 230", "; 220", 1)
		}, "is not of version 9.9.9"},
		{"range ccc mismatch", func(f map[string]string) {
			f[Files[1]] = strings.Replace(f[Files[1]], "A000..A0FF", "A000..A0FE", 1)
		}, "U+A0FF"},
		{"First without Last", func(f map[string]string) {
			f[Files[0]] = strings.Replace(f[Files[0]], "9FFF;<CJK Ideograph, Last>", "9FFF;<CJK Ideograph>", 1)
		}, "First without its Last"},
		{"Last without First", func(f map[string]string) {
			f[Files[0]] = strings.Replace(f[Files[0]], "4E00;<CJK Ideograph, First>", "4E00;<CJK Ideograph>", 1)
		}, "Last without its First"},
		{"out of order", func(f map[string]string) {
			f[Files[0]] = strings.Replace(f[Files[0]], "0300;", "0040;", 1)
		}, "out of order"},
		{"short line", func(f map[string]string) {
			f[Files[0]] += "A100;X;Lo;0\n"
		}, "want 15 fields"},
		{"bad ccc", func(f map[string]string) {
			f[Files[0]] = strings.Replace(f[Files[0]], ";230;", ";x;", 1)
		}, "bad combining class"},
		{"bad quick check", func(f map[string]string) {
			f[Files[2]] += "4E05 ; NFC_QC; Y\n"
		}, "want N or M"},
		{"listed twice", func(f map[string]string) {
			f[Files[2]] += "4E03 ; NFC_QC; M\n"
		}, "listed twice"},
		{"bad range", func(f map[string]string) {
			f[Files[2]] += "4E05..4E04 ; NFC_QC; M\n"
		}, "bad range"},
		{"beyond U+10FFFF", func(f map[string]string) {
			f[Files[2]] += "110000 ; NFC_QC; M\n"
		}, "bad code point"},
		{"no header", func(f map[string]string) {
			f[Files[2]] = strings.TrimPrefix(f[Files[2]], "# DerivedNormalizationProps-9.9.9.txt\n")
		}, "does not name the version"},
		{"other version", func(f map[string]string) {
			f[Files[2]] = strings.Replace(f[Files[2]], "9.9.9", "9.9.8", 1)
		}, "is of version 9.9.8, not 9.9.9"},
		{"missing file", func(f map[string]string) {
			delete(f, Files[2])
		}, "no such file"},
		{"empty UnicodeData.txt", func(f map[string]string) {
			f[Files[0]] = ""
		}, "empty file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeUCD(t, tc.change), "9.9.9")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
