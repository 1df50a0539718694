package normalize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/utf8guard/utf8guard/sanitize"
)

// isError reports whether err is a *sanitize.Error with that reason and
// offset, that unwraps to the reason's sentinel.
func isError(err error, r sanitize.Reason, offset int) bool {
	var e *sanitize.Error
	return errors.As(err, &e) && e.Reason == r && e.Offset == offset && errors.Is(err, r.Sentinel())
}

// TestForms checks the cases the issue names, and a few more, by class.
func TestForms(t *testing.T) {
	for _, tc := range []struct {
		class     string
		in        string
		nfc, nfkc string
	}{
		// Hangul: conjoining jamo compose to syllables, algorithmically.
		{"hangul", "\u1100\u1161", "\uac00", "\uac00"},
		{"hangul", "\u1100\u1161\u11a8", "\uac01", "\uac01"},
		{"hangul", "\uac00\u11a8", "\uac01", "\uac01"},
		{"hangul", "\uac00", "\uac00", "\uac00"},
		{"hangul", "\u3131", "\u3131", "\u1100"}, // compatibility jamo: NFKC only
		// Canonical reordering: the dot below (ccc 220) sorts before the
		// circumflex (ccc 230), whichever order they come in.
		{"reorder", "a\u0323\u0302", "\u1ead", "\u1ead"},
		{"reorder", "a\u0302\u0323", "\u1ead", "\u1ead"},
		{"reorder", "\u00e2\u0323", "\u1ead", "\u1ead"},
		{"reorder", "x\u0302\u0323", "x\u0323\u0302", "x\u0323\u0302"},
		// Singletons: characters whose canonical decomposition is one
		// other character never come back.
		{"singleton", "\u212b", "\u00c5", "\u00c5"}, // ANGSTROM SIGN
		{"singleton", "\u2126", "\u03a9", "\u03a9"}, // OHM SIGN
		{"singleton", "\u212a", "K", "K"},           // KELVIN SIGN
		// Compatibility characters: NFC keeps them, NFKC folds them.
		{"compat", "\ufb01", "\ufb01", "fi"},
		{"compat", "x\u00b2", "x\u00b2", "x2"},
		{"compat", "\uff21\uff22", "\uff21\uff22", "AB"},
		{"compat", "\u1d2e\u1d35\u1d33", "\u1d2e\u1d35\u1d33", "BIG"},
		{"compat", "\u00a0", "\u00a0", " "},
		// Combining sequences.
		{"combining", "cafe\u0301", "caf\u00e9", "caf\u00e9"},
		{"combining", "caf\u00e9", "caf\u00e9", "caf\u00e9"},
		{"combining", "e\u0301\u0301", "\u00e9\u0301", "\u00e9\u0301"},
		{"combining", "\u0301e", "\u0301e", "\u0301e"}, // a leading mark stays
		{"combining", "\u0ba4\u0bbe", "\u0ba4\u0bbe", "\u0ba4\u0bbe"},
		{"combining", "\u0bc6\u0bbe", "\u0bca", "\u0bca"},
		// Plain text of every kind is left alone.
		{"plain", "", "", ""},
		{"plain", "hello, world", "hello, world", "hello, world"},
		{"plain", "Ελληνικά и русский", "Ελληνικά и русский", "Ελληνικά и русский"},
		{"plain", "中文 日本語 한국어", "中文 日本語 한국어", "中文 日本語 한국어"},
		{"plain", "\U0001f600\U0001f44d\U0001f3fd", "\U0001f600\U0001f44d\U0001f3fd", "\U0001f600\U0001f44d\U0001f3fd"},
	} {
		if got := NFC.String(tc.in); got != tc.nfc {
			t.Errorf("%s: NFC.String(%+q) = %+q, want %+q", tc.class, tc.in, got, tc.nfc)
		}
		if got := NFKC.String(tc.in); got != tc.nfkc {
			t.Errorf("%s: NFKC.String(%+q) = %+q, want %+q", tc.class, tc.in, got, tc.nfkc)
		}
		if msg := checkNormalized(NFC, tc.in, tc.nfc); msg != "" {
			t.Errorf("%s: NFC, %+q: %s", tc.class, tc.in, msg)
		}
		if msg := checkNormalized(NFKC, tc.in, tc.nfkc); msg != "" {
			t.Errorf("%s: NFKC, %+q: %s", tc.class, tc.in, msg)
		}
	}
}

// TestCheckOffsets checks where Check and FirstNonNormal point.
func TestCheckOffsets(t *testing.T) {
	for _, tc := range []struct {
		f      Form
		in     string
		reason sanitize.Reason // 0: normal
		offset int
	}{
		{NFC, "cafe\u0301", sanitize.NotNormalized, 3},           // the e that becomes é
		{NFC, "caf\u00e9 cafe\u0301", sanitize.NotNormalized, 9}, // after a normal é
		{NFC, "x\u0302\u0323", sanitize.NotNormalized, 1},        // the first mark, which moves
		{NFC, "a\u0302\u0323", sanitize.NotNormalized, 0},
		{NFC, "\u1100\u1161", sanitize.NotNormalized, 0},
		{NFC, "ab\u212b", sanitize.NotNormalized, 2},
		{NFC, "\ufb01", 0, 0},
		{NFKC, "of\ufb01ce", sanitize.NotNormalized, 2},
		{NFKC, "x\u00b2", sanitize.NotNormalized, 1},
		{NFC, strings.Repeat("a", 100) + "\u0301", sanitize.NotNormalized, 99},
		{NFC, "x" + strings.Repeat("\u0301", 40), sanitize.NotNormalized, 1 + 30*2}, // U+034F goes in after 30 marks
		// Ill-formed octets: Check reports what sanitize.Validate reports.
		{NFC, "ab\xc0\xaf", sanitize.Overlong, 2},
		{NFC, "ab\xed\xa0\x80", sanitize.Surrogate, 2},
		{NFC, "\xff", sanitize.InvalidByte, 0},
		{NFC, "abc\xe2\x82", sanitize.Truncated, 3},
		{NFC, "\x80", sanitize.UnexpectedContinuation, 0},
		{NFKC, "e\u0301\xff", sanitize.NotNormalized, 0}, // the first problem wins
		{NFKC, "\xffe\u0301", sanitize.InvalidByte, 0},
		{NFC, "\u00e9\xff", sanitize.InvalidByte, 2},
	} {
		err := tc.f.CheckString(tc.in)
		n := tc.f.FirstNonNormalString(tc.in)
		if tc.reason == 0 {
			if err != nil || n != -1 {
				t.Errorf("%s, %+q: Check = %v, FirstNonNormal = %d; want nil, -1", tc.f.Name(), tc.in, err, n)
			}
			continue
		}
		if !isError(err, tc.reason, tc.offset) || tc.f.Check([]byte(tc.in)).Error() != err.Error() {
			t.Errorf("%s.CheckString(%+q) = %v, want %s at %d", tc.f.Name(), tc.in, err, tc.reason, tc.offset)
		}
		if n != tc.offset {
			t.Errorf("%s.FirstNonNormalString(%+q) = %d, want %d", tc.f.Name(), tc.in, n, tc.offset)
		}
		if tc.f.IsNormalString(tc.in) {
			t.Errorf("%s.IsNormalString(%+q) = true", tc.f.Name(), tc.in)
		}
		if !errors.Is(err, tc.reason.Sentinel()) {
			t.Errorf("%s.CheckString(%+q) = %v, not %v for errors.Is", tc.f.Name(), tc.in, err, tc.reason.Sentinel())
		}
	}
}

// TestIllFormed checks that ill-formed octets are copied as they are and
// act as a boundary, and that nothing panics near them.
func TestIllFormed(t *testing.T) {
	for _, tc := range []struct{ in, nfc string }{
		{"e\xff\u0301", "e\xff\u0301"}, // the mark does not reach across
		{"\xffe\u0301", "\xff\u00e9"},  // the text after is normalized
		{"cafe\u0301\xc0\xaf\u212b", "caf\u00e9\xc0\xaf\u00c5"},
		{"\xe2\x84", "\xe2\x84"},
		{"\u0301\x80\u0301", "\u0301\x80\u0301"},
	} {
		if got := NFC.String(tc.in); got != tc.nfc {
			t.Errorf("NFC.String(%+q) = %+q, want %+q", tc.in, got, tc.nfc)
		}
		if got := NFC.Bytes([]byte(tc.in)); string(got) != tc.nfc {
			t.Errorf("NFC.Bytes(%+q) = %+q, want %+q", tc.in, got, tc.nfc)
		}
		if NFC.IsNormalString(tc.in) || NFKC.IsNormalString(tc.in) {
			t.Errorf("IsNormalString(%+q) = true", tc.in)
		}
	}
}

// TestIdentity checks that normal text comes back as it is: the same
// backing array, no copy.
func TestIdentity(t *testing.T) {
	for _, s := range []string{"hello", "caf\u00e9", "\ufb01", "中文", "\u0ba4\u0bbe", "x\u0323\u0302"} {
		p := []byte(s)
		if got := NFC.Bytes(p); &got[0] != &p[0] || len(got) != len(p) || cap(got) != cap(p) {
			t.Errorf("NFC.Bytes(%+q) is not its input", s)
		}
		if got := NFC.String(s); unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("NFC.String(%+q) is not its input", s)
		}
	}
	p := []byte("\ufb01")
	if got := NFKC.Bytes(p); &got[0] == &p[0] {
		t.Error("NFKC.Bytes changed its input in place")
	} else if string(p) != "\ufb01" {
		t.Error("NFKC.Bytes wrote to its input")
	}
}

// TestAllocs pins the zero-allocation promise on normal text, including
// text that needs norm's slow path (Tamil vowel signs, Hebrew points,
// combining marks that do not compose).
func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	inputs := []string{
		"",
		strings.Repeat("plain ASCII text ", 100),
		strings.Repeat("Le café était déjà froid; Straße, łódź, Việt Nam. ", 20),
		strings.Repeat("Ελληνικά και русский язык. ", 20),
		strings.Repeat("中文日本語のテキスト、한국어 텍스트. ", 20),
		strings.Repeat("\u0ba4\u0bae\u0bbf\u0bb4\u0bcd \u0b95\u0bbe ", 20),
		strings.Repeat("\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd ", 20),
		strings.Repeat("x\u0323\u0302 ", 20),
		strings.Repeat("\U0001f600\U0001f44d\U0001f3fd ", 20),
		// Long enough for several stretches of validation.
		strings.Repeat("Le café était déjà froid; вчера вечером; 中文日本語. ", 3000),
	}
	for _, f := range []Form{NFC, NFKC} {
		for _, s := range inputs {
			if !formInfos[f].norm.IsNormalString(s) {
				t.Fatalf("%+q is not normal", s)
			}
			p := []byte(s)
			// AllocsPerRun gives the integer mean: fewer runs of the
			// long text (for time) are no weaker a test of zero.
			runs := 100
			if len(s) > 1<<16 {
				runs = 10
			}
			for name, fn := range map[string]func(){
				"Bytes":                func() { _ = f.Bytes(p) },
				"String":               func() { _ = f.String(s) },
				"IsNormal":             func() { _ = f.IsNormal(p) },
				"IsNormalString":       func() { _ = f.IsNormalString(s) },
				"Check":                func() { _ = f.Check(p) },
				"CheckString":          func() { _ = f.CheckString(s) },
				"FirstNonNormal":       func() { _ = f.FirstNonNormal(p) },
				"FirstNonNormalString": func() { _ = f.FirstNonNormalString(s) },
			} {
				if n := testing.AllocsPerRun(runs, fn); n != 0 {
					t.Errorf("%s.%s(%.20q...) allocates %v times", f.Name(), name, s, n)
				}
			}
		}
	}
	buf := make([]byte, 0, 1<<12)
	s := strings.Repeat("x\u0301 cafe\u0301 ", 20) // not normal: the Iter path
	if n := testing.AllocsPerRun(100, func() { buf = NFC.AppendString(buf[:0], s) }); n != 0 {
		t.Errorf("NFC.AppendString into a large enough buffer allocates %v times", n)
	}
}

// TestAppend checks that Append normalizes src alone, whatever dst holds,
// and its aliasing contract.
func TestAppend(t *testing.T) {
	dst := []byte("e")
	if got := NFC.Append(dst, []byte("\u0301")); string(got) != "e\u0301" {
		t.Errorf("NFC.Append(\"e\", U+0301) = %+q: it combined across the junction", got)
	}
	if got := NFC.AppendString([]byte("x="), "cafe\u0301"); string(got) != "x=caf\u00e9" {
		t.Errorf("NFC.AppendString = %+q", got)
	}
	// src part of dst[:len(dst)], with and without room to grow in place.
	for _, c := range []int{0, 64} {
		buf := make([]byte, 0, 16+c)
		buf = append(buf, "cafe\u0301|"...)
		got := NFC.Append(buf, buf[:6])
		if string(got) != "cafe\u0301|caf\u00e9" {
			t.Errorf("Append of its own prefix (cap %d) = %+q", cap(buf), got)
		}
	}
	if got := None.Append([]byte("a"), []byte("e\u0301")); string(got) != "ae\u0301" {
		t.Errorf("None.Append = %+q", got)
	}
}

// TestStretches checks long texts to rewrite, where regions are merged into
// stretches and long stretches go to norm in bulk, against the reference.
func TestStretches(t *testing.T) {
	dense := strings.Repeat("cafe\u0301 de\u0301ja\u0300 ", 40)
	for _, s := range []string{
		dense,
		dense + "\xff" + dense,
		strings.Repeat("x", 1000) + dense + strings.Repeat("y", 1000) + dense[:300],
		strings.Repeat("e\u0301"+strings.Repeat("z", mergeGap-1), 20),
		strings.Repeat("e\u0301"+strings.Repeat("z", mergeGap), 20),
		strings.Repeat("\u1100\u1161\u11a8\ufb01", 200) + "\xc0\xaf" + strings.Repeat("\u2126", 200),
	} {
		for _, f := range []Form{NFC, NFKC} {
			want := string(pieces(f.info().norm, []byte(s)))
			if got := f.String(s); got != want {
				t.Errorf("%s.String(%.40q...) differs from the reference", f.Name(), s)
			}
			if got := f.Bytes([]byte(s)); string(got) != want {
				t.Errorf("%s.Bytes(%.40q...) differs from the reference", f.Name(), s)
			}
			if got := f.AppendString([]byte("\u0301"), s); string(got) != "\u0301"+want {
				t.Errorf("%s.AppendString(%.40q...) differs from the reference", f.Name(), s)
			}
		}
	}
}

func TestNone(t *testing.T) {
	for _, s := range []string{"", "e\u0301", "\xff"} {
		p := []byte(s)
		if !None.IsNormal(p) || !None.IsNormalString(s) || None.Check(p) != nil || None.CheckString(s) != nil ||
			None.FirstNonNormal(p) != -1 || None.FirstNonNormalString(s) != -1 || None.String(s) != s || string(None.Bytes(p)) != s {
			t.Errorf("None does something to %+q", s)
		}
	}
}

func TestParseForm(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Form
	}{{"none", None}, {"nfc", NFC}, {"NFC", NFC}, {"nfkc", NFKC}, {"NfKc", NFKC}} {
		if got, err := ParseForm(tc.name); got != tc.f || err != nil {
			t.Errorf("ParseForm(%q) = %v, %v", tc.name, got, err)
		}
	}
	for _, name := range []string{"", "nfd", "nfkd", "NFC ", "c"} {
		if f, err := ParseForm(name); err == nil {
			t.Errorf("ParseForm(%q) = %v, want an error", name, f)
		}
	}
	for _, f := range []Form{None, NFC, NFKC} {
		b, err := json.Marshal(struct{ F Form }{f})
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ F Form }
		if err := json.Unmarshal(b, &v); err != nil || v.F != f {
			t.Errorf("JSON round trip of %s: %s, %v, %v", f.Name(), b, v.F, err)
		}
	}
	if _, err := Form(3).MarshalText(); err == nil || Form(3).Name() != "Form(3)" {
		t.Errorf("Form(3): MarshalText error %v, Name %q", err, Form(3).Name())
	}
	defer func() {
		if recover() == nil {
			t.Error("Form(3).IsNormal did not panic")
		}
	}()
	Form(3).IsNormal(nil)
}

// TestConcurrent uses the pooled iterators from many goroutines (run it
// with -race).
func TestConcurrent(t *testing.T) {
	inputs := []string{"cafe\u0301", "\u0ba4\u0bbe", "\ufb01x\u0302\u0323", strings.Repeat("a\u0308 ", 200)}
	done := make(chan bool)
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- true }()
			for i := 0; i < 200; i++ {
				for _, f := range []Form{NFC, NFKC} {
					s := inputs[(g+i)%len(inputs)]
					if got, want := f.String(s), f.info().norm.String(s); got != want {
						t.Errorf("%s.String(%+q) = %+q, want %+q", f.Name(), s, got, want)
						return
					}
					f.FirstNonNormalString(s)
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
}
