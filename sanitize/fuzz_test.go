package sanitize

import (
	"bytes"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzz targets. Their seeds are the test tables (f.Add) and the attack
// corpus below, kept as files in testdata/fuzz/<FuzzName>/ in Go's corpus
// format; regenerate those with
//
//	go test ./sanitize -run TestFuzzCorpus -args -writecorpus

// FuzzValidate: Validate agrees with utf8.Valid; on an error the offset is
// the first offset where p stops being a valid prefix, and the reason and
// offset are refValidate's.
func FuzzValidate(f *testing.F) {
	for _, tc := range validateCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range repairCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		err := Validate(p)
		got, ok := asError(err)
		if !ok {
			t.Fatalf("Validate(% X) = %T(%v), want nil or *Error", p, err, err)
		}
		if s, _ := asError(ValidateString(string(p))); s != got {
			t.Fatalf("ValidateString(% X) = %+v, Validate = %+v", p, s, got)
		}
		if c, _ := asError(Check(p, 0)); c != got {
			t.Fatalf("Check(% X, 0) = %+v, Validate = %+v", p, c, got)
		}
		if utf8.Valid(p) != (err == nil) {
			t.Fatalf("Validate(% X) = %v, utf8.Valid = %v", p, err, utf8.Valid(p))
		}
		if Valid(p) != (err == nil) || ValidString(string(p)) != (err == nil) {
			t.Fatalf("Validate(% X) = %v, Valid = %v, ValidString = %v", p, err, Valid(p), ValidString(string(p)))
		}
		wantReason, wantOff := refValidate(p)
		if err == nil {
			if wantReason != 0 || ValidPrefix(p) != len(p) || ValidPrefixString(string(p)) != len(p) {
				t.Fatalf("Validate(% X) = nil; reference says %v at %d; ValidPrefix = %d", p, wantReason, wantOff, ValidPrefix(p))
			}
			return
		}
		off := got.Offset
		if got.Reason != wantReason || off != wantOff || got.Class != 0 {
			t.Fatalf("Validate(% X) = %+v, reference says %v at %d", p, got, wantReason, wantOff)
		}
		if ValidPrefix(p) != off || ValidPrefixString(string(p)) != off {
			t.Fatalf("ValidPrefix(% X) = %d, ValidPrefixString = %d, Validate says %d", p, ValidPrefix(p), ValidPrefixString(string(p)), off)
		}
		// p[:off] is valid and no longer prefix is. A longer valid prefix
		// p[:k] would have p[:off] as a prefix (UTF-8 is a prefix code), so
		// p[off:k] would be one character: checking k <= off+4 is enough.
		if off < 0 || off >= len(p) || !utf8.Valid(p[:off]) {
			t.Fatalf("Validate(% X): offset %d does not end a valid prefix", p, off)
		}
		for k := off + 1; k <= min(len(p), off+utf8.UTFMax); k++ {
			if utf8.Valid(p[:k]) {
				t.Fatalf("Validate(% X): offset %d, but p[:%d] is valid", p, off, k)
			}
		}
	})
}

// FuzzToValid: the output is valid, is p itself when p is valid, and equals
// refRepair (maximal subparts).
func FuzzToValid(f *testing.F) {
	for _, tc := range repairCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range validateCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		orig := string(p)
		q := ToValid(p)
		if string(p) != orig {
			t.Fatalf("ToValid modified its input % X", orig)
		}
		if !utf8.Valid(q) {
			t.Fatalf("ToValid(% X) = % X, not valid", p, q)
		}
		if utf8.Valid(p) {
			if len(q) != len(p) || len(p) > 0 && &q[0] != &p[0] {
				t.Fatalf("ToValid(% X) of valid input is not p itself", p)
			}
		}
		if want := refRepair(p); string(q) != string(want) {
			t.Fatalf("ToValid(% X) = % X, reference says % X", p, q, want)
		}
		if s := ToValidString(orig); s != string(q) {
			t.Fatalf("ToValidString(% X) = % X, ToValid = % X", p, s, q)
		}
		if a := AppendValid([]byte("dst:"), p); string(a) != "dst:"+string(q) {
			t.Fatalf("AppendValid(\"dst:\", % X) = % X, want dst: + % X", p, a, q)
		}
	})
}

// FuzzUnescape: AppendUnescape never panics, equals refUnescape in every
// mode, agrees with url.PathUnescape and url.QueryUnescape, and gives back
// what AppendEscape encoded.
func FuzzUnescape(f *testing.F) {
	for _, tc := range unescapeCases {
		f.Add(tc.in)
	}
	for _, s := range roundTripInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, mode := range allModes {
			dst, err := AppendUnescape(nil, s, mode)
			got, ok := asError(err)
			if !ok {
				t.Fatalf("AppendUnescape(%q, %s) error %T(%v), want nil or *Error", s, mode.testName(), err, err)
			}
			want, wantErr, at := refUnescape(s, mode)
			if got != wantErr || string(dst) != want {
				t.Fatalf("AppendUnescape(%q, %s) = %q, %+v; reference says %q, %+v", s, mode.testName(), dst, got, want, wantErr)
			}
			if at >= 0 && EscapedOffset(s, got.Offset) != at {
				t.Fatalf("AppendUnescape(%q, %s) = %+v, EscapedOffset says %d; the escape is at %d", s, mode.testName(), got, EscapedOffset(s, got.Offset), at)
			}
			if u, uerr := Unescape(s, mode); u != want || uerr != nil && *uerr.(*Error) != got || uerr == nil && err != nil {
				t.Fatalf("Unescape(%q, %s) = %q, %v; AppendUnescape = %q, %v", s, mode.testName(), u, uerr, dst, err)
			}
			if mode&refuse != 0 {
				continue
			}
			urlUnescape, urlName := url.PathUnescape, "url.PathUnescape"
			if mode == query {
				urlUnescape, urlName = url.QueryUnescape, "url.QueryUnescape"
			}
			u, uerr := urlUnescape(s)
			switch {
			case uerr != nil:
				if got.Reason != BadEscape {
					t.Fatalf("%s(%q) = %v, but AppendUnescape(%s) = %q, %v", urlName, s, uerr, mode.testName(), dst, err)
				}
				if ee, ok := uerr.(url.EscapeError); !ok || !strings.HasPrefix(s[EscapedOffset(s, got.Offset):], string(ee)) {
					t.Fatalf("%s(%q) = %v, AppendUnescape reports offset %d (%d in s)", urlName, s, uerr, got.Offset, EscapedOffset(s, got.Offset))
				}
			case utf8.ValidString(u):
				if err != nil || string(dst) != u {
					t.Fatalf("%s(%q) = %q, AppendUnescape(%s) = %q, %v", urlName, s, u, mode.testName(), dst, err)
				}
			default:
				if got.Reason == 0 || got.Reason == BadEscape || got.Reason == DoubleEncoding || string(dst) != u {
					t.Fatalf("%s(%q) = %q (not UTF-8), AppendUnescape(%s) = %q, %v", urlName, s, u, mode.testName(), dst, err)
				}
			}
		}
		if e, q := Escape(s, query), url.QueryEscape(s); e != q {
			t.Fatalf("Escape(%q, query) = %q, url.QueryEscape = %q", s, e, q)
		}
		if !utf8.ValidString(s) {
			return
		}
		for _, mode := range allModes {
			enc := AppendEscape(nil, s, mode)
			if e := Escape(s, mode); e != string(enc) {
				t.Fatalf("Escape(%q, %s) = %q, AppendEscape = %q", s, mode.testName(), e, enc)
			}
			for i := 0; i < len(enc); i++ {
				c := enc[i]
				switch {
				case c == '%':
					if i+2 >= len(enc) || !strings.Contains("0123456789ABCDEF", string(enc[i+1:i+2])) || !strings.Contains("0123456789ABCDEF", string(enc[i+2:i+3])) {
						t.Fatalf("AppendEscape(%q, %s) = %q: bad escape at %d", s, mode.testName(), enc, i)
					}
					i += 2
				case c == '+' && mode&^refuse == query:
				case !keptByRFC3986(c, mode):
					t.Fatalf("AppendEscape(%q, %s) = %q: %q is not kept", s, mode.testName(), enc, c)
				}
			}
			dec, err := AppendUnescape(nil, string(enc), mode)
			wantErr := Error{}
			if mode&refuse != 0 && percentHexHex(s) >= 0 {
				wantErr = doubleEncoding(percentHexHex(s)) // s is the decoded value
			}
			if e, _ := asError(err); e != wantErr || wantErr == (Error{}) && string(dec) != s {
				t.Fatalf("AppendUnescape(AppendEscape(%q, %s) = %q) = %q, %v; want it back (%+v)", s, mode.testName(), enc, dec, err, wantErr)
			}
		}
	})
}

// refUnescape is what AppendUnescape must return, written unit by unit: a
// unit is a literal octet, a '+' (a space in a query) or a %XX escape. For
// BadEscape and DoubleEncoding, at is the offset in s of the offending
// escape (the Error's offset is into the decoded value); -1 otherwise.
func refUnescape(s string, mode EscapeMode) (dec string, err Error, at int) {
	inQuery := mode&^refuse == query
	unitAt := func(i int) (b byte, n int, ok bool) {
		switch {
		case s[i] == '%':
			if i+3 > len(s) {
				return 0, 0, false
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return 0, 0, false
			}
			return byte(v), 3, true
		case s[i] == '+' && inQuery:
			return ' ', 1, true
		}
		return s[i], 1, true
	}
	var out []byte
	for i := 0; i < len(s); {
		b, n, ok := unitAt(i)
		if !ok {
			return "", badEscape(len(out)), i
		}
		if mode&refuse != 0 && n == 3 && b == '%' {
			// An escaped '%' followed by two units that decode to hex
			// digits decodes to an escape.
			j, digits := i+3, 0
			for digits < 2 && j < len(s) {
				c, m, ok := unitAt(j)
				if !ok || !isHexDigit(c) {
					break
				}
				digits++
				j += m
			}
			if digits == 2 {
				return "", doubleEncoding(len(out)), i
			}
		}
		out = append(out, b)
		i += n
	}
	if r, off := refValidate(out); r != 0 {
		return string(out), Error{Reason: r, Offset: off}, -1
	}
	return string(out), Error{}, -1
}

// FuzzCheck: Check and CheckClasses agree with the rune-by-rune references
// refCheck and refCheckClasses.
func FuzzCheck(f *testing.F) {
	for _, tc := range checkCases {
		f.Add([]byte(tc.in), uint16(tc.forbid))
	}
	for _, tc := range validateCases {
		f.Add([]byte(tc.in), uint16(AllClasses))
	}
	f.Fuzz(func(t *testing.T, p []byte, forbid uint16) {
		c := Class(forbid)
		want := refCheck(p, c)
		for _, v := range []struct {
			fn  string
			err error
		}{{"Check", Check(p, c)}, {"CheckString", CheckString(string(p), c)}} {
			if got, ok := asError(v.err); !ok || got != want {
				t.Fatalf("%s(% X, %v) = %v, reference says %+v", v.fn, p, c, v.err, want)
			}
		}
		want = refCheckClasses(p, c)
		for _, v := range []struct {
			fn  string
			err error
		}{{"CheckClasses", CheckClasses(p, c)}, {"CheckClassesString", CheckClassesString(string(p), c)}} {
			if got, ok := asError(v.err); !ok || got != want {
				t.Fatalf("%s(% X, %v) = %v, reference says %+v", v.fn, p, c, v.err, want)
			}
		}
	})
}

// The attack corpus: named inputs written to testdata/fuzz as seeds.
var (
	octetCorpus = []struct{ name, in string }{
		{"rfc3629-s7-not-identical-to-alpha", hx("41 E2 89 A2 CE 91 2E")},
		{"rfc3629-s7-korean", hx("ED 95 9C EA B5 AD EC 96 B4")},
		{"rfc3629-s7-japanese", hx("E6 97 A5 E6 9C AC E8 AA 9E")},
		{"rfc3629-s7-bom-u233b4", hx("EF BB BF F0 A3 8E B4")},
		{"rfc3629-s10-dotdot-overlong", hx("2F C0 AE 2E 2F")},
		{"nul-smuggling-c080", "admin" + hx("C0 80") + ".php"},
		{"cesu8-pair", hx("ED A0 BD ED B8 80")},
		{"overlong-slash-2", hx("C0 AF")},
		{"overlong-slash-3", hx("E0 80 AF")},
		{"overlong-slash-4", hx("F0 80 80 AF")},
		{"overlong-slash-5", hx("F8 80 80 80 AF")},
		{"overlong-slash-6", hx("FC 80 80 80 80 AF")},
		{"maximal-overlongs", hx("C1 BF E0 9F BF F0 8F BF BF F8 87 BF BF BF FC 83 BF BF BF BF")},
		{"above-10ffff", hx("F4 90 80 80 F5 80 80 80 F8 84 90 80 80 FC 80 84 90 80 80")},
		{"boundaries", hx("7F C2 80 DF BF E0 A0 80 ED 9F BF EE 80 80 EF BF BF F0 90 80 80 F4 8F BF BF")},
		{"surrogates", hx("ED A0 80 ED AF BF ED B0 80 ED BF BF")},
		{"incomplete-5-6", hx("F8 88 80 80 FC 84 80 80 80 41")},
		{"truncated-everything", hx("C2 E0 A0 F0 90 80 F4 8F BF")},
		{"lone-continuations", hx("80 81 BF 41 80")},
		{"fe-ff", hx("FE FF FE FE FF FF")},
		{"unicode-table-3-8", hx("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64")},
		{"unicode-d93b", hx("E1 80 E2 F0 91 92 F1 BF 41")},
		{"ascii-run-then-error", strings.Repeat("GET /index.html ", 4) + hx("C0 AE")},
		{"mixed-scripts", "Привет, κόσμε, 日本語, 😀 and ASCII " + hx("ED A0 80")},
	}
	escapeCorpus = []struct{ name, in string }{
		{"dotdot-escaped", "/a/%2e%2e/%2e%2e/etc/passwd"},
		{"dotdot-double", "/a/%252e%252e/%252e%252e/etc/passwd"},
		{"dotdot-double-nested", "/a/%25%32%65%25%32%65/"},
		{"dotdot-overlong", "/a/%c0%ae%c0%ae/%c0%af"},
		{"dotdot-overlong-3", "/%e0%80%ae%e0%80%ae/"},
		{"iis-unicode", "/%u002e%u002e/%u2215"},
		{"backslash-double", "..%255c..%255c"},
		{"nul", "file.txt%00.jpg"},
		{"nul-overlong", "file.txt%c0%80.jpg"},
		{"surrogate", "q=%ed%a0%80"},
		{"query-plus", "a+b%2Bc%20d"},
		{"percent-at-end", "abc%"},
		{"percent-one-digit", "abc%4"},
		{"percent-percent", "%%41"},
		{"double-triple", "%25252e"},
		{"cafe-nfd", "cafe%CC%81"},
		{"bidi", "%E2%80%AEtxt.exe"},
	}
	checkCorpus = []struct {
		name   string
		in     string
		forbid Class
	}{
		{"trojan-source", "if access_level != \"user\u202E \u2066// Check if admin\u2069 \u2066\" {", Bidi},
		{"bom-then-text", "\uFEFFname=value", BOM},
		{"zero-width", "pay\u200Bpal\u200D.com", DefaultIgnorable},
		{"controls", "a\x00b\x01c\td\ne\rf\x7Fg\u0085h", NUL | C0 | DEL | C1},
		{"noncharacters", "\uFDD0\uFFFE\U0001FFFF\U0010FFFF", Noncharacter},
		{"private-use", "\uE000\U000F0000\U0010FFFD", PrivateUse},
		{"tags", "flag\U000E0067\U000E0062\U000E007F", DefaultIgnorable},
		{"everything", "\uFEFF\x00\x01\t\x7F\u0080\u202E\uFDD0\uE000\u200B", AllClasses},
		{"ill-formed-then-forbidden", hx("C0 AE") + "\x00", NUL},
		{"rtl-marks-in-values", "פגישה \u200fב-10:00\u200f اجتماع \u061c٣ \u200e", NUL | C0 | C1 | BidiControl},
		{"rtl-marks-in-names", "שם\u200f", NUL | C0 | TabNewline | C1 | Bidi},
	}
)

// fuzzCorpus returns the seed files of testdata/fuzz: the path below the
// package directory and the contents.
func fuzzCorpus() map[string]string {
	files := map[string]string{}
	add := func(fuzzName, name string, vals ...string) {
		files[filepath.Join("testdata", "fuzz", fuzzName, name)] = "go test fuzz v1\n" + strings.Join(vals, "\n") + "\n"
	}
	for _, c := range octetCorpus {
		add("FuzzValidate", c.name, fmt.Sprintf("[]byte(%q)", c.in))
		add("FuzzToValid", c.name, fmt.Sprintf("[]byte(%q)", c.in))
		add("FuzzCheck", c.name, fmt.Sprintf("[]byte(%q)", c.in), fmt.Sprintf("uint16(%d)", uint16(AllClasses)))
		add("FuzzUnescape", c.name, fmt.Sprintf("string(%q)", c.in))
	}
	for _, c := range escapeCorpus {
		add("FuzzUnescape", c.name, fmt.Sprintf("string(%q)", c.in))
	}
	for _, c := range checkCorpus {
		add("FuzzCheck", c.name, fmt.Sprintf("[]byte(%q)", c.in), fmt.Sprintf("uint16(%d)", uint16(c.forbid)))
	}
	return files
}

var writeCorpus = flag.Bool("writecorpus", false, "write the seed corpus of the fuzz targets to testdata/fuzz")

// TestFuzzCorpus checks that testdata/fuzz holds the seed corpus, or writes
// it with -writecorpus.
func TestFuzzCorpus(t *testing.T) {
	for name, want := range fuzzCorpus() {
		if *writeCorpus {
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(got, []byte(want)) {
			t.Errorf("%s is missing or stale (%v): run go test ./sanitize -run TestFuzzCorpus -args -writecorpus", name, err)
		}
	}
}
