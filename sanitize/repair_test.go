package sanitize

import (
	"bytes"
	"fmt"
	"iter"
	"strings"
	"testing"
	"unicode/utf8"
)

const fffd = "\uFFFD"

// repairCases are worked by hand from the Unicode Standard, section 3.9,
// "U+FFFD Substitution of Maximal Subparts".
var repairCases = []struct {
	name string
	in   string
	want string
}{
	{"empty", "", ""},
	{"ascii", "abc", "abc"},
	{"valid multibyte", "aé€😀", "aé€😀"},
	{"F0 80 80: F0 alone is a maximal subpart", hx("F0 80 80"), fffd + fffd + fffd},
	{"E2 82 41: one subpart then A", hx("E2 82 41"), fffd + "A"},
	{"C0 AE: C0 is never a lead", hx("C0 AE"), fffd + fffd},
	{"C0 80", hx("C0 80"), fffd + fffd},
	{"ED A0 80: ED admits 80-9F only", hx("ED A0 80"), fffd + fffd + fffd},
	{"F4 90 80 80: F4 admits 80-8F only", hx("F4 90 80 80"), fffd + fffd + fffd + fffd},
	{"E0 80 80: E0 admits A0-BF only", hx("E0 80 80"), fffd + fffd + fffd},
	// Unicode 5.2+, section 3.9, after D93b: <E1 80 E2 F0 91 92 F1 BF 41> is
	// <E1 80> <E2> <F0 91 92> <F1 BF> <41>: four U+FFFD, then A.
	{"Unicode E1 80 E2 F0 91 92 F1 BF 41", hx("E1 80 E2 F0 91 92 F1 BF 41"), fffd + fffd + fffd + fffd + "A"},
	// Table 3-8.
	{"Unicode Table 3-8", hx("61 F1 80 80 E1 80 C2 62 80 63 80 BF 64"),
		"a" + fffd + fffd + fffd + "b" + fffd + "c" + fffd + fffd + "d"},
	{"Unicode 41 C0 AF 41 F4 80 80 41", hx("41 C0 AF 41 F4 80 80 41"), "A" + fffd + fffd + "A" + fffd + "A"},
	{"truncated 2 at end", "ab" + hx("C3"), "ab" + fffd},
	{"truncated 3 at end", "ab" + hx("E2 82"), "ab" + fffd},
	{"truncated 4 at end", "ab" + hx("F0 9F 98"), "ab" + fffd},
	{"truncated then truncated", hx("F0 9F 98 F0 9F"), fffd + fffd},
	{"lone continuations", hx("80 BF 80"), fffd + fffd + fffd},
	{"FE FF", hx("FE FF"), fffd + fffd},
	{"F5 80 80 80", hx("F5 80 80 80"), fffd + fffd + fffd + fffd},
	{"5-octet form", hx("F8 88 80 80 80"), strings.Repeat(fffd, 5)},
	{"6-octet form", hx("FC 84 80 80 80 80"), strings.Repeat(fffd, 6)},
	{"CESU-8 pair", hx("ED A0 BD ED B8 80"), strings.Repeat(fffd, 6)},
	{"error after long ASCII", strings.Repeat("x", 40) + hx("FF") + strings.Repeat("y", 40),
		strings.Repeat("x", 40) + fffd + strings.Repeat("y", 40)},
	{"U+FFFD itself is kept", fffd + hx("FF"), fffd + fffd},
}

func TestToValid(t *testing.T) {
	t.Parallel()
	for _, tc := range repairCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(tc.in)
			if got := ToValid(in); string(got) != tc.want {
				t.Errorf("ToValid(% X) = % X, want % X", tc.in, got, tc.want)
			}
			if string(in) != tc.in {
				t.Errorf("ToValid modified its input: % X", in)
			}
			if got := ToValidString(tc.in); got != tc.want {
				t.Errorf("ToValidString(% X) = % X, want % X", tc.in, got, tc.want)
			}
			dst := []byte("dst:")
			if got := AppendValid(dst, in); string(got) != "dst:"+tc.want {
				t.Errorf("AppendValid(%q, % X) = % X, want % X", "dst:", tc.in, got, "dst:"+tc.want)
			}
			if got := refRepair(in); string(got) != tc.want {
				t.Errorf("reference: refRepair(% X) = % X, want % X", tc.in, got, tc.want)
			}
		})
	}
}

// TestToValidReturnsInput is not parallel: AllocsPerRun refuses to run in a
// parallel test.
func TestToValidReturnsInput(t *testing.T) {
	for _, s := range []string{"a", "aé€😀", strings.Repeat("abc€", 100), hx("EF BB BF F0 A3 8E B4")} {
		p := []byte(s)
		if got := ToValid(p); len(got) != len(p) || &got[0] != &p[0] {
			t.Errorf("ToValid(%q) returned a copy, want p itself", s)
		}
		if got := ToValidString(s); got != s || unsafeStringData(got) != unsafeStringData(s) {
			t.Errorf("ToValidString(%q) returned a copy, want s itself", s)
		}
		if raceEnabled {
			continue // the race detector allocates on its own
		}
		dst := make([]byte, 0, 2*len(s))
		if n := testing.AllocsPerRun(100, func() {
			_ = ToValid(p)
			_ = ToValidString(s)
			dst = AppendValid(dst[:0], p)
		}); n != 0 {
			t.Errorf("ToValid/ToValidString/AppendValid(%q) allocate %v times on valid input, want 0", s, n)
		}
	}
	if got := ToValid(nil); got != nil {
		t.Errorf("ToValid(nil) = %v, want nil", got)
	}
}

// TestToValidExhaustive repairs every sequence of 1 and 2 octets, and
// sampleSeqs of 3 octets (every one with -long, 2.5 s of CPU more), and
// compares with refRepair; the output is always valid.
//
// That is with -sweep (0.1 s of CPU). The default run (and -short) takes,
// of 3 octets, leadSeqs: sampleSeqs from C0, edgeSeqs below it.
func TestToValidExhaustive(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 2; n++ {
		t.Run(fmt.Sprintf("len%d", n), func(t *testing.T) {
			t.Parallel()
			repairAll(t, n, allSeqs(n, 0, 256))
		})
	}
	// In 8 parts, to keep the cores busy.
	for lo := 0; lo < 256; lo += 32 {
		t.Run(fmt.Sprintf("len3/%02X", lo), func(t *testing.T) {
			t.Parallel()
			seqs := leadSeqs(lo, lo+32)
			switch {
			case longTests():
				seqs = allSeqs(3, lo, lo+32)
			case sweepTests():
				seqs = sampleSeqs(3, lo, lo+32)
			}
			repairAll(t, 3, seqs)
		})
	}
}

// repairAll checks AppendValid on every n-octet sequence of seqs, given as
// big-endian values.
func repairAll(t *testing.T, n int, seqs iter.Seq[int]) {
	buf := make([]byte, n)
	dst := make([]byte, 0, 3*n)
	ref := make([]byte, 0, 3*n)
	failures := 0
	for v := range seqs {
		for k := range n {
			buf[k] = byte(v >> (8 * (n - 1 - k)))
		}
		dst = AppendValid(dst[:0], buf)
		ref = ref[:0]
		for i := 0; i < n; {
			if c := refChar(buf[i:]); c > 0 {
				ref = append(ref, buf[i:i+c]...)
				i += c
				continue
			}
			ref = append(ref, fffd...)
			i += refSubpart(buf[i:])
		}
		if !bytes.Equal(dst, ref) || !utf8.Valid(dst) {
			t.Errorf("AppendValid(% X) = % X, want % X", buf, dst, ref)
			if failures++; failures >= 20 {
				t.Fatal("too many failures")
			}
		}
	}
}
