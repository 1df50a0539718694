package sanitize

import (
	"strings"
	"testing"
	"unicode"
)

// TestClassOf pins the boundaries of every class.
func TestClassOf(t *testing.T) {
	t.Parallel()
	const DI = DefaultIgnorable
	for _, tc := range []struct {
		r    rune
		want Class
	}{
		// ASCII.
		{0x00, NUL},
		{0x01, C0},
		{0x08, C0},
		{0x09, TabNewline},
		{0x0A, TabNewline},
		{0x0B, C0},
		{0x0C, C0},
		{0x0D, TabNewline},
		{0x0E, C0},
		{0x1F, C0},
		{0x20, 0},
		{'A', 0},
		{0x7E, 0},
		{0x7F, DEL},
		// C1.
		{0x80, C1},
		{0x85, C1},
		{0x9F, C1},
		{0xA0, 0},
		{0xAC, 0},
		{0xAD, DI}, // SOFT HYPHEN
		{0xAE, 0},
		{'é', 0},
		{0x034F, DI},
		// Bidi marks (U+061C, U+200E, U+200F) and controls (U+202A..U+202E,
		// U+2066..U+2069), all also default-ignorable.
		{0x061B, 0},
		{0x061C, BidiMark | DI},
		{0x061D, 0},
		{0x200A, 0},
		{0x200B, DI},
		{0x200D, DI},
		{0x200E, BidiMark | DI},
		{0x200F, BidiMark | DI},
		{0x2010, 0},
		{0x2029, 0},
		{0x202A, BidiControl | DI},
		{0x202E, BidiControl | DI},
		{0x202F, 0},
		{0x205F, 0},
		{0x2060, DI},
		{0x2065, DI},
		{0x2066, BidiControl | DI},
		{0x2069, BidiControl | DI},
		{0x206A, DI},
		{0x206F, DI},
		{0x2070, 0},
		// Surrogates are not scalar values.
		{0xD7FF, 0},
		{0xD800, 0},
		{0xDFFF, 0},
		// Private use.
		{0xE000, PrivateUse},
		{0xF8FF, PrivateUse},
		{0xF900, 0},
		{0xEFFFD, 0},
		{0xF0000, PrivateUse},
		{0xFFFFD, PrivateUse},
		{0x100000, PrivateUse},
		{0x10FFFD, PrivateUse},
		// Noncharacters.
		{0xFDCF, 0},
		{0xFDD0, Noncharacter},
		{0xFDEF, Noncharacter},
		{0xFDF0, 0},
		{0xFFFD, 0},
		{0xFFFE, Noncharacter},
		{0xFFFF, Noncharacter},
		{0x1FFFE, Noncharacter},
		{0x1FFFF, Noncharacter},
		{0x10000, 0},
		{0xEFFFE, Noncharacter},
		{0xFFFFE, Noncharacter}, // in plane 15 but not private use
		{0xFFFFF, Noncharacter},
		{0x10FFFE, Noncharacter},
		{0x10FFFF, Noncharacter},
		// Default-ignorable.
		{0x115F, DI},
		{0x1160, DI},
		{0x1161, 0},
		{0x17B4, DI},
		{0x17B5, DI},
		{0x180B, DI},
		{0x180E, DI},
		{0x180F, DI},
		{0x1810, 0},
		{0x3164, DI},
		{0xFE00, DI},
		{0xFE0F, DI},
		{0xFEFF, DI}, // BOM depends on the offset: not ClassOf's business
		{0xFFA0, DI},
		{0xFFF0, DI},
		{0xFFF8, DI},
		{0xFFF9, 0}, // interlinear annotation: visible
		{0x1BCA0, DI},
		{0x1BCA3, DI},
		{0x1D173, DI},
		{0x1D17A, DI},
		{0xE0000, DI},
		{0xE0001, DI},
		{0xE0041, DI},
		{0xE0100, DI},
		{0xE0FFF, DI},
		{0xE1000, 0},
		// Not scalar values.
		{0x110000, 0},
		{0x7FFFFFFF, 0},
		{-1, 0},
		{-0x80000000, 0},
	} {
		if got := ClassOf(tc.r); got != tc.want {
			t.Errorf("ClassOf(U+%04X) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// TestBidiSplit checks, over every code point, that BidiControl holds
// exactly the embeddings, overrides and isolates, BidiMark exactly the
// three marks, and that Bidi and ParseClass("bidi") are the two together:
// a policy that named "bidi" before the split refuses what it refused.
func TestBidiSplit(t *testing.T) {
	t.Parallel()
	if Bidi != BidiControl|BidiMark || BidiControl&BidiMark != 0 {
		t.Fatalf("Bidi = %v, BidiControl = %v, BidiMark = %v", Bidi, BidiControl, BidiMark)
	}
	if c, err := ParseClass("bidi"); err != nil || c != Bidi {
		t.Fatalf(`ParseClass("bidi") = %v, %v; want %v`, c, err, Bidi)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		control := 0x202A <= r && r <= 0x202E || 0x2066 <= r && r <= 0x2069
		mark := r == 0x061C || r == 0x200E || r == 0x200F
		c := ClassOf(r)
		if c&BidiControl != 0 != control || c&BidiMark != 0 != mark {
			t.Fatalf("ClassOf(U+%04X) = %v; a bidi control: %v, a bidi mark: %v", r, c, control, mark)
		}
		if (control || mark) && c&DefaultIgnorable == 0 {
			t.Fatalf("ClassOf(U+%04X) = %v, which lacks default_ignorable", r, c)
		}
	}
}

// TestClassOfBOM checks that no rune is in class BOM: BOM is a position.
func TestClassOfNeverBOM(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if c := ClassOf(r); c&BOM != 0 || c&^AllClasses != 0 {
			t.Fatalf("ClassOf(U+%04X) = %v", r, c)
		}
	}
}

// TestDefaultIgnorableDerived derives Default_Ignorable_Code_Point from Go's
// unicode tables the way DerivedCoreProperties.txt does,
//
//	Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
//	- White_Space - FFF9..FFFB (interlinear annotation format characters)
//	- 13430..1343F (Egyptian hieroglyph format characters)
//	- Prepended_Concatenation_Mark,
//
// and compares it with ClassOf over every code point.
func TestDefaultIgnorableDerived(t *testing.T) {
	t.Parallel()
	if unicode.Version != "15.0.0" {
		t.Skipf("the table of class.go is Unicode 15.0.0; Go's unicode tables are %s", unicode.Version)
	}
	failures := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		derived := unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
			unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)
		derived = derived && !unicode.Is(unicode.White_Space, r) &&
			!(0xFFF9 <= r && r <= 0xFFFB) && !(0x13430 <= r && r <= 0x1343F) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
		if got := ClassOf(r)&DefaultIgnorable != 0; got != derived {
			t.Errorf("U+%04X: ClassOf has DefaultIgnorable = %v, derived from package unicode: %v", r, got, derived)
			if failures++; failures >= 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

func TestClassNames(t *testing.T) {
	t.Parallel()
	names := map[Class]string{
		NUL: "nul", C0: "c0", TabNewline: "tab_newline", DEL: "del", C1: "c1",
		BidiControl: "bidi_control", BidiMark: "bidi_mark", Noncharacter: "noncharacter", PrivateUse: "private_use",
		BOM: "bom", DefaultIgnorable: "default_ignorable",
	}
	var all Class
	for c, name := range names {
		all |= c
		if got := c.String(); got != name {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, name)
		}
		if got, err := ParseClass(name); err != nil || got != c {
			t.Errorf("ParseClass(%q) = %v, %v; want %v", name, got, err, c)
		}
	}
	if all != AllClasses {
		t.Errorf("AllClasses = %#x, want %#x", AllClasses, all)
	}
	for _, tc := range []struct {
		c    Class
		want string
	}{
		{0, "none"},
		{NUL | C0, "nul|c0"},
		{BidiControl | DefaultIgnorable | NUL, "nul|bidi_control|default_ignorable"},
		{Bidi, "bidi_control|bidi_mark"},
		{AllClasses, "nul|c0|tab_newline|del|c1|bidi_control|bidi_mark|noncharacter|private_use|bom|default_ignorable"},
		{1 << 12, "Class(4096)"},
		{C1 | 1<<15, "c1|Class(32768)"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("Class(%#x).String() = %q, want %q", int(tc.c), got, tc.want)
		}
	}
	for _, bad := range []string{"", "none", "NUL", "nul|c0", "bidi ", "bidi_control|bidi_mark", "Class(1)"} {
		if c, err := ParseClass(bad); err == nil {
			t.Errorf("ParseClass(%q) = %v, nil; want an error", bad, c)
		}
	}
}

type checkCase struct {
	name   string
	in     string
	forbid Class
	want   Error // zero: nil
}

func forbidden(off int, c Class) Error { return Error{Reason: ForbiddenChar, Offset: off, Class: c} }

var checkCases = []checkCase{
	{"nothing forbidden", "a\x00\u202E\uFEFF", 0, Error{}},
	{"clean text", "hello, wörld €", AllClasses, Error{}},
	{"NUL", "a\x00b", NUL, forbidden(1, NUL)},
	{"NUL not forbidden", "a\x00b", C0 | DEL | C1, Error{}},
	{"C0 keeps TAB LF CR", "a\tb\nc\r\n", C0, Error{}},
	{"C0", "a\tb\x1B[0m", C0, forbidden(3, C0)},
	{"TabNewline", "ab\r\n", TabNewline, forbidden(2, TabNewline)},
	{"C0|TabNewline", "ab\tc\x01", C0 | TabNewline, forbidden(2, TabNewline)},
	{"DEL", "abc\x7F", DEL, forbidden(3, DEL)},
	{"C1", "ab\u0085", C1, forbidden(2, C1)},
	{"C1 is not ASCII", "ab\u0085", NUL | C0 | DEL, Error{}},
	{"Bidi RLO", "abc\u202Edef", Bidi, forbidden(3, BidiControl)},
	{"BidiControl RLO", "abc\u202Edef", BidiControl, forbidden(3, BidiControl)},
	{"BidiMark passes RLO", "abc\u202Edef", BidiMark, Error{}},
	{"Bidi reported with DefaultIgnorable", "abc\u202Edef", Bidi | DefaultIgnorable, forbidden(3, BidiControl|DefaultIgnorable)},
	{"Bidi ALM", "é\u061C", Bidi, forbidden(2, BidiMark)},
	{"BidiMark ALM", "é\u061C", BidiMark, forbidden(2, BidiMark)},
	{"BidiControl passes ALM", "é\u061C", BidiControl, Error{}},
	{"BidiControl passes LRM and RLM", "a\u200Eב\u200F", BidiControl, Error{}},
	{"BidiMark RLM", "ב-10:00\u200F", BidiMark | C0, forbidden(8, BidiMark)},
	{"Bidi LRI", "x\u2066", Bidi, forbidden(1, BidiControl)},
	{"BidiControl PDI", "x\u2069", BidiControl, forbidden(1, BidiControl)},
	{"Noncharacter FDD0", "€\uFDD0", Noncharacter, forbidden(3, Noncharacter)},
	{"Noncharacter 10FFFF", "a\U0010FFFF", Noncharacter, forbidden(1, Noncharacter)},
	{"PrivateUse", "a\uE000", PrivateUse, forbidden(1, PrivateUse)},
	{"PrivateUse plane 16", "a\U00100000", PrivateUse, forbidden(1, PrivateUse)},
	{"DefaultIgnorable ZWSP", "pay\u200Bpal", DefaultIgnorable, forbidden(3, DefaultIgnorable)},
	{"DefaultIgnorable tag", "x\U000E0041", DefaultIgnorable, forbidden(1, DefaultIgnorable)},
	{"BOM at 0", "\uFEFFabc", BOM, forbidden(0, BOM)},
	{"BOM at 0 with DefaultIgnorable", "\uFEFFabc", BOM | DefaultIgnorable, forbidden(0, BOM|DefaultIgnorable)},
	{"U+FEFF at 0 as DefaultIgnorable", "\uFEFFabc", DefaultIgnorable, forbidden(0, DefaultIgnorable)},
	{"BOM at 0 not forbidden", "\uFEFFabc", AllClasses &^ (BOM | DefaultIgnorable), Error{}},
	{"U+FEFF elsewhere is not a BOM", "a\uFEFF", BOM, Error{}},
	{"U+FEFF after a BOM", "\uFEFF\uFEFF", BOM, forbidden(0, BOM)},
	{"U+FEFF elsewhere is DefaultIgnorable", "a\uFEFF", BOM | DefaultIgnorable, forbidden(1, DefaultIgnorable)},
	{"first of several", "a\u202E\x00", NUL | Bidi, forbidden(1, BidiControl)},
	{"mark passed over for a control", "a\u200F\u202E", BidiControl, forbidden(4, BidiControl)},
	{"after long ASCII", strings.Repeat("a", 37) + "\x00", NUL, forbidden(37, NUL)},
	{"after long multibyte", strings.Repeat("日本", 10) + "\u200F", Bidi, forbidden(60, BidiMark)},
	{"unknown class bits refuse nothing", "a\x00\u202E", 1 << 14, Error{}},
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []struct {
				fn  string
				err error
			}{
				{"Check", Check([]byte(tc.in), tc.forbid)},
				{"CheckString", CheckString(tc.in, tc.forbid)},
				{"CheckClasses", CheckClasses([]byte(tc.in), tc.forbid)},
				{"CheckClassesString", CheckClassesString(tc.in, tc.forbid)},
			} {
				got, ok := asError(v.err)
				if !ok || got != tc.want {
					t.Errorf("%s(%+q, %v) = %v (%+v), want %+v", v.fn, tc.in, tc.forbid, v.err, got, tc.want)
				}
			}
			if got := refCheck([]byte(tc.in), tc.forbid); got != tc.want {
				t.Errorf("reference: refCheck(%+q, %v) = %+v, want %+v", tc.in, tc.forbid, got, tc.want)
			}
		})
	}
}

// TestCheckIllFormed: Check validates; CheckClasses passes ill-formed octets
// over; of a malformation and a forbidden character, Check reports the one
// that comes first.
func TestCheckIllFormed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		in          string
		forbid      Class
		check       Error
		checkClasss Error
	}{
		{"overlong, nothing forbidden", hx("C0 AE"), 0, Error{Reason: Overlong}, Error{}},
		{"overlong, NUL forbidden", hx("C0 80"), NUL, Error{Reason: Overlong}, Error{}},
		{"malformation first", "a" + hx("ED A0 80") + "\x00", NUL, Error{Reason: Surrogate, Offset: 1}, forbidden(4, NUL)},
		{"forbidden first", "a\x00" + hx("ED A0 80"), NUL, forbidden(1, NUL), forbidden(1, NUL)},
		{"bidi first", "\u202E" + hx("FF"), Bidi, forbidden(0, BidiControl), forbidden(0, BidiControl)},
		{"truncated lead hides nothing", hx("E2 80") + "\u202E", Bidi, Error{Reason: Truncated}, forbidden(2, BidiControl)},
		{"broken BOM", hx("EF BB") + "a", BOM | DefaultIgnorable, Error{Reason: Truncated}, Error{}},
		{"U+FFFD is in no class", "\uFFFD" + hx("80"), AllClasses, Error{Reason: UnexpectedContinuation, Offset: 3}, Error{}},
		{"forbidden after long ASCII, then malformation", strings.Repeat("b", 30) + "\x7F" + hx("80"), DEL,
			forbidden(30, DEL), forbidden(30, DEL)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []struct {
				fn   string
				err  error
				want Error
			}{
				{"Check", Check([]byte(tc.in), tc.forbid), tc.check},
				{"CheckString", CheckString(tc.in, tc.forbid), tc.check},
				{"CheckClasses", CheckClasses([]byte(tc.in), tc.forbid), tc.checkClasss},
				{"CheckClassesString", CheckClassesString(tc.in, tc.forbid), tc.checkClasss},
			} {
				got, ok := asError(v.err)
				if !ok || got != v.want {
					t.Errorf("%s(% X, %v) = %v, want %+v", v.fn, tc.in, tc.forbid, v.err, v.want)
				}
			}
			if got := refCheck([]byte(tc.in), tc.forbid); got != tc.check {
				t.Errorf("reference: refCheck(% X, %v) = %+v, want %+v", tc.in, tc.forbid, got, tc.check)
			}
			if got := refCheckClasses([]byte(tc.in), tc.forbid); got != tc.checkClasss {
				t.Errorf("reference: refCheckClasses(% X, %v) = %+v, want %+v", tc.in, tc.forbid, got, tc.checkClasss)
			}
		})
	}
}

// TestCheckSWAR puts one character at every offset 0..40 of an otherwise
// printable ASCII string (all of 0x20..0x7E, so every octet value the
// eight-at-a-time scan must pass over occurs at every lane), and checks
// Check with the character's class forbidden and with every other class
// forbidden.
func TestCheckSWAR(t *testing.T) {
	t.Parallel()
	const n = 48
	printable := make([]byte, n)
	special := []struct {
		s string
		c Class
	}{
		{"\x00", NUL}, {"\x01", C0}, {"\x08", C0}, {"\x0B", C0}, {"\x1B", C0}, {"\x1F", C0},
		{"\t", TabNewline}, {"\n", TabNewline}, {"\r", TabNewline}, {"\x7F", DEL},
		{"\u0080", C1}, {"\u009F", C1}, {"\u202E", BidiControl | DefaultIgnorable}, {"\u200F", BidiMark | DefaultIgnorable},
		{"\uFDD0", Noncharacter}, {"\uE000", PrivateUse}, {"\u200B", DefaultIgnorable},
		{"é", 0}, {"€", 0}, {"😀", 0},
	}
	for shift := range 0x5F {
		for k := range printable {
			printable[k] = byte(0x20 + (k+shift)%0x5F)
		}
		for _, sp := range special {
			for pos := 0; pos <= 40; pos++ {
				in := string(printable[:pos]) + sp.s + string(printable[pos:])
				for _, forbid := range []Class{sp.c, AllClasses &^ sp.c, AllClasses} {
					want := Error{}
					if sp.c&forbid != 0 {
						want = forbidden(pos, sp.c&forbid)
					}
					got, _ := asError(CheckString(in, forbid))
					if got != want {
						t.Fatalf("CheckString(%+q, %v) = %+v, want %+v", in, forbid, got, want)
					}
					got, _ = asError(CheckClasses([]byte(in), forbid))
					if got != want {
						t.Fatalf("CheckClasses(%+q, %v) = %+v, want %+v", in, forbid, got, want)
					}
				}
			}
		}
	}
}

// TestCheckEveryRune puts every scalar value, one at a time, after a
// 9-octet ASCII prefix and checks CheckString with all classes forbidden
// against ClassOf.
func TestCheckEveryRune(t *testing.T) {
	t.Parallel()
	buf := []byte("abcdefghi____")
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		p := append(buf[:9], string(r)...)
		want := Error{}
		if c := ClassOf(r); c != 0 {
			want = forbidden(9, c)
		}
		if got, _ := asError(Check(p, AllClasses)); got != want {
			t.Fatalf("Check(%+q, AllClasses) = %+v, want %+v", p, got, want)
		}
	}
}

// TestCheckAllocs is not parallel: AllocsPerRun refuses to run in a
// parallel test.
func TestCheckAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	for _, s := range []string{"", "hello", strings.Repeat("aé€😀 \t\n", 100), strings.Repeat("x", 4096)} {
		p := []byte(s)
		forbid := AllClasses &^ TabNewline
		if n := testing.AllocsPerRun(100, func() {
			if Check(p, forbid) != nil || CheckString(s, forbid) != nil ||
				CheckClasses(p, forbid) != nil || CheckClassesString(s, forbid) != nil {
				t.Fatal("unexpected error")
			}
		}); n != 0 {
			t.Errorf("Check(%d octets, %v) allocates %v times, want 0", len(s), forbid, n)
		}
	}
}
