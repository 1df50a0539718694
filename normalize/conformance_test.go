package normalize

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

const conformanceFile = "../testdata/normalize/NormalizationTest.txt"

// A conformanceLine is one test case of NormalizationTest.txt: the columns
// source, NFC, NFD, NFKC and NFKD as UTF-8 (c[0] is c1 of the header).
type conformanceLine struct {
	part int
	line int
	c    [5]string
}

type conformanceData struct {
	version string // from the first line, "# NormalizationTest-15.0.0.txt"
	lines   []conformanceLine
}

var loadConformanceOnce = sync.OnceValues(func() (*conformanceData, error) {
	f, err := os.Open(conformanceFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := new(conformanceData)
	sc := bufio.NewScanner(f)
	part := -1
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			v, ok := strings.CutPrefix(line, "# NormalizationTest-")
			if v, ok2 := strings.CutSuffix(v, ".txt"); ok && ok2 {
				d.version = v
			}
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if p, ok := strings.CutPrefix(line, "@Part"); ok {
			if part, err = strconv.Atoi(strings.TrimSpace(p)); err != nil {
				return nil, err
			}
			continue
		}
		fields := strings.Split(line, ";")
		if len(fields) != 6 || fields[5] != "" {
			return nil, &os.PathError{Op: "parse line " + strconv.Itoa(n), Path: conformanceFile, Err: os.ErrInvalid}
		}
		cl := conformanceLine{part: part, line: n}
		for i := range cl.c {
			var b strings.Builder
			for _, h := range strings.Fields(fields[i]) {
				r, err := strconv.ParseUint(h, 16, 32)
				if err != nil {
					return nil, err
				}
				b.WriteRune(rune(r))
			}
			cl.c[i] = b.String()
		}
		d.lines = append(d.lines, cl)
	}
	return d, sc.Err()
})

// sampleLines returns the lines of d that a test takes: every one with
// -sweep; by default, every line of parts 0, 2 and 3 (the specific cases,
// canonical order and PRI #29 tests) and every 8th of part 1 (a character
// with a decomposition each), those whose line number is k modulo 8, so
// that tests that each take a different k take different lines.
func (d *conformanceData) sampleLines(k int) []conformanceLine {
	if sweepTests() {
		return d.lines
	}
	var lines []conformanceLine
	for _, cl := range d.lines {
		if cl.part != 1 || cl.line%8 == k {
			lines = append(lines, cl)
		}
	}
	return lines
}

func loadConformance(tb testing.TB) *conformanceData {
	tb.Helper()
	d, err := loadConformanceOnce()
	if err != nil {
		tb.Fatalf("reading the conformance data: %v", err)
	}
	return d
}

// TestConformance runs every line of the Unicode NormalizationTest.txt of
// UnicodeVersion through NFC and NFKC, checking the invariants of the
// file's header, and checks that every other code point is invariant.
// That is with -sweep (1.5 s of CPU). The default run (and -short) takes
// sampleLines(0), and every 17th of the other code points (a prime, so
// that the last octet takes every value).
func TestConformance(t *testing.T) {
	d := loadConformance(t)
	if d.version != UnicodeVersion {
		t.Fatalf("%s is for Unicode %q, the tables for %q", conformanceFile, d.version, UnicodeVersion)
	}
	if len(d.lines) < 19000 {
		t.Fatalf("%d test lines, want the whole file (over 19000)", len(d.lines))
	}
	for _, tc := range []struct {
		name string
		f    Form
		// want gives the column that is the normal form of each column.
		want [5]int
	}{
		// c2 == toNFC(c1) == toNFC(c2) == toNFC(c3); c4 == toNFC(c4) == toNFC(c5)
		{"NFC", NFC, [5]int{1, 1, 1, 3, 3}},
		// c4 == toNFKC(c1) == toNFKC(c2) == toNFKC(c3) == toNFKC(c4) == toNFKC(c5)
		{"NFKC", NFKC, [5]int{3, 3, 3, 3, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			failures := 0
			for _, cl := range d.sampleLines(0) {
				for col, x := range cl.c {
					want := cl.c[tc.want[col]]
					if msg := checkNormalized(tc.f, x, want); msg != "" {
						t.Errorf("line %d (part %d), to%s(c%d) = to%s(%+q): %s", cl.line, cl.part, tc.name, col+1, tc.name, x, msg)
						if failures++; failures > 20 {
							t.Fatal("too many failures")
						}
					}
				}
			}
		})
	}
	// Part 1: X == toNFC(X) == toNFKC(X) for every code point X that it
	// does not list (unassigned ones included: they have no decomposition
	// and combining class 0).
	t.Run("Part1", func(t *testing.T) {
		t.Parallel()
		listed := make(map[rune]bool)
		for _, cl := range d.lines {
			if cl.part == 1 {
				r, n := utf8.DecodeRuneInString(cl.c[0])
				if n != len(cl.c[0]) {
					t.Fatalf("line %d: part 1 source %+q is not one code point", cl.line, cl.c[0])
				}
				listed[r] = true
			}
		}
		if len(listed) < 10000 {
			t.Fatalf("%d code points listed in part 1", len(listed))
		}
		checked, stride := 0, rune(17)
		if sweepTests() {
			stride = 1
		}
		for r := rune(0); r <= utf8.MaxRune; r += stride {
			if listed[r] || !utf8.ValidRune(r) {
				continue
			}
			x := string(r)
			for _, f := range []Form{NFC, NFKC} {
				if msg := checkNormalized(f, x, x); msg != "" {
					t.Errorf("%U, %s: %s", r, f.Name(), msg)
				}
			}
			checked++
		}
		t.Logf("%d code points listed in part 1, %d others invariant", len(listed), checked)
	})
}

// checkNormalized checks every method of f on the well-formed text x, whose
// normal form is want, and returns what is wrong or "".
func checkNormalized(f Form, x, want string) string {
	normal := x == want
	if got := f.String(x); got != want {
		return "String = " + strconv.QuoteToASCII(got) + ", want " + strconv.QuoteToASCII(want)
	}
	p := []byte(x)
	if got := f.Bytes(p); string(got) != want {
		return "Bytes = " + strconv.QuoteToASCII(string(got))
	} else if normal && len(p) > 0 && &got[0] != &p[0] {
		return "Bytes copied normal text"
	}
	if got := f.AppendString([]byte("e"), x); string(got) != "e"+want {
		return "AppendString after \"e\" = " + strconv.QuoteToASCII(string(got))
	}
	if got := f.Append(nil, p); string(got) != want {
		return "Append = " + strconv.QuoteToASCII(string(got))
	}
	if got := f.IsNormalString(x); got != normal {
		return "IsNormalString = " + strconv.FormatBool(got)
	}
	if got := f.IsNormal(p); got != normal {
		return "IsNormal = " + strconv.FormatBool(got)
	}
	n := f.FirstNonNormalString(x)
	if m := f.FirstNonNormal(p); m != n {
		return "FirstNonNormal = " + strconv.Itoa(m) + ", FirstNonNormalString = " + strconv.Itoa(n)
	}
	if msg := checkOffset(x, want, n); msg != "" {
		return msg
	}
	err, errS := f.Check(p), f.CheckString(x)
	if normal {
		if err != nil || errS != nil {
			return "Check = " + errString(err) + ", CheckString = " + errString(errS) + " on normal text"
		}
		return ""
	}
	for _, e := range []error{err, errS} {
		if !isError(e, sanitize.NotNormalized, n) {
			return "Check or CheckString = " + errString(e) + ", want not_normalized at " + strconv.Itoa(n)
		}
	}
	return ""
}

// checkOffset checks that n is what FirstNonNormal must return for the
// well-formed text x whose normal form is want: -1 if they are equal,
// otherwise the start of the first character of x that want does not
// reproduce at the same place.
func checkOffset(x, want string, n int) string {
	if x == want {
		if n != -1 {
			return "FirstNonNormal = " + strconv.Itoa(n) + " on normal text"
		}
		return ""
	}
	if n < 0 || n >= len(x) || !utf8.RuneStart(x[n]) {
		return "FirstNonNormal = " + strconv.Itoa(n) + ": not a character of the text"
	}
	if !strings.HasPrefix(want, x[:n]) {
		return "FirstNonNormal = " + strconv.Itoa(n) + ": the text before it is not kept"
	}
	_, size := utf8.DecodeRuneInString(x[n:])
	if strings.HasPrefix(want[n:], x[n:n+size]) {
		return "FirstNonNormal = " + strconv.Itoa(n) + ": the character there is kept"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}

// TestConformanceData checks that the copy in testdata is the one its
// README describes.
func TestConformanceData(t *testing.T) {
	b, err := os.ReadFile(conformanceFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 2625136 || bytes.Count(b, []byte{'\n'}) != 19129 {
		t.Errorf("%s: %d octets, %d lines; the README says 2625136 and 19129", conformanceFile, len(b), bytes.Count(b, []byte{'\n'}))
	}
	if !bytes.HasPrefix(b, []byte("# NormalizationTest-15.0.0.txt\n# Date: 2022-04-02, 01:29:09 GMT\n# © 2022 Unicode®, Inc.\n")) {
		t.Errorf("%s: unexpected header", conformanceFile)
	}
}
