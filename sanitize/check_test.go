package sanitize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// classProbes are characters of every class and every length, and
// characters next to them or sharing their first octets (U+200D starts as
// U+200E does; U+2022 and U+FEE0 are flagged by the merged slots of some
// sets of classes, and must be passed over).
var classProbes = []string{
	"\x00", "\x01", "\t", "\n", "\r", "\x1f", "\x7f", " ", "~",
	"\u0080", "\u009f", "\u00a0", "\u00ac", "\u00ad", "\u00ae", "\u034f", "\u0350",
	"\u061b", "\u061c", "\u061d", "\u115f", "\u1164", "\u17b4", "\u178b", "\u180b", "\u1834",
	"\u200b", "\u200d", "\u200e", "\u2010", "\u2022", "\u2026", "\u202a", "\u202e", "\u202f",
	"\u2060", "\u2066", "\u2069", "\u206f", "\u2070", "\u3164", "\u3160",
	"\ue000", "\uf8ff", "\uf900", "\ufdcf", "\ufdd0", "\ufdef", "\ufdf0", "\ufe00", "\ufe0f",
	"\ufeff", "\ufee0", "\uffa0", "\uffbf", "\ufff0", "\ufff8", "\ufff9", "\ufffd", "\ufffe", "\uffff",
	"\U0001bca0", "\U0001d173", "\U0001d17a", "\U0001d17b", "\U0001fffe", "\U0001f600",
	"\U000e0000", "\U000e0fff", "\U000e1000", "\U000f0000", "\U000ffffd", "\U000ffffe",
	"\U0010fffd", "\U0010ffff",
}

// checkSets are the sets of classes of the differential test: each class,
// the presets' and every class.
var checkSets = []Class{
	NUL, C0, TabNewline, DEL, C1, BidiControl, BidiMark, Noncharacter, PrivateUse, BOM, DefaultIgnorable,
	NUL | C0 | C1 | BidiControl,                    // the strict preset's values
	NUL | C0 | TabNewline | C1 | Bidi,              // the strict preset's names
	NUL | C0 | TabNewline | C1 | BidiControl | BOM, // the strict preset's query values
	NUL | C0 | TabNewline | C1 | Bidi | BOM,        // the strict preset's path and query keys
	Bidi | DefaultIgnorable, AllClasses &^ BOM, AllClasses,
}

// TestCheckDifferential compares Check with refCheck on texts of every fill
// long enough for the fused kernel (and shorter), with a probe character
// inserted at every character boundary, and sometimes a second probe or a
// malformation after it: the first violation must win, and flagged
// characters outside the classes must be passed over.
//
// With -sweep, each probe goes at a quarter of those offsets, a different
// quarter at each length (0.6 s of CPU; -long adds 3.5 s more, for every
// one). The default run (and -short) takes every other length (40, 96,
// 127, 129, 191, 193, 256, 300 and 520), and each probe at an eighth of
// the offsets, a different eighth at each length.
func TestCheckDifferential(t *testing.T) {
	lengths := []int{40, 95, 96, 100, 127, 128, 129, 160, 191, 192, 193, 255, 256, 257, 300, 389, 520, 1100}
	part := 8
	switch {
	case longTests():
		part = 1
	case sweepTests():
		part = 4
	}
	for fi, fill := range fills {
		// The fill without its characters of a class: the probes are
		// the only ones.
		var chars []string
		for _, c := range fill.chars {
			if r, _ := utf8.DecodeRuneInString(c); ClassOf(r) == 0 {
				chars = append(chars, c)
			}
		}
		t.Run(fill.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(fi), 7))
			failures := 0
			try := func(p []byte, forbid Class) {
				want := refCheck(p, forbid)
				if got, _ := asError(Check(p, forbid)); got != want {
					t.Errorf("Check(% X, %v) = %+v, reference says %+v", p, forbid, got, want)
					failures++
				}
				if got, _ := asError(CheckString(string(p), forbid)); got != want {
					t.Errorf("CheckString(% X, %v) = %+v, reference says %+v", p, forbid, got, want)
					failures++
				}
				if failures >= 10 {
					t.FailNow()
				}
			}
			for i, n := range lengths {
				if !sweepTests() && i%2 != 0 {
					continue
				}
				base := randomText(rng, chars, n)
				for _, forbid := range checkSets {
					try(base, forbid)
				}
				for pi, probe := range classProbes {
					for off := 0; off <= n; off++ {
						if off < n && !utf8.RuneStart(base[off]) {
							continue
						}
						// Every offset in the first and last 70 octets,
						// where the kernel starts and ends, every 7th
						// elsewhere.
						if off > 70 && off < n-70 && off%7 != pi%7 {
							continue
						}
						if (off+pi+n)%part != 0 {
							continue
						}
						p := append(append(append(make([]byte, 0, n+8), base[:off]...), probe...), base[off:]...)
						if rng.IntN(3) == 0 {
							// A second probe or a malformation later on.
							at := off + len(probe) + rng.IntN(len(p)-off-len(probe)+1)
							for at < len(p) && !utf8.RuneStart(p[at]) {
								at++
							}
							var second string
							if rng.IntN(2) == 0 {
								second = classProbes[rng.IntN(len(classProbes))]
							} else {
								second = injected[rng.IntN(len(injected))]
							}
							p = append(append(append([]byte(nil), p[:at]...), second...), p[at:]...)
						}
						try(p, checkSets[rng.IntN(len(checkSets))])
					}
				}
			}
		})
	}
}

// FuzzCheckLong is FuzzCheck for inputs long enough for the fused kernel:
// p between two runs of fill text, as in FuzzValidateLong.
func FuzzCheckLong(f *testing.F) {
	for i, probe := range classProbes {
		f.Add([]byte(probe), uint8(i*7), uint8(i*13), uint8(i), uint16(AllClasses))
		f.Add([]byte(probe), uint8(i*11), uint8(i*5), uint8(i), uint16(NUL|C0|C1|Bidi))
	}
	for i, bad := range injected {
		f.Add([]byte(bad), uint8(i*3), uint8(i*17), uint8(i), uint16(NUL|C0|C1|Bidi))
	}
	f.Fuzz(func(t *testing.T, p []byte, pre, post, fill uint8, forbid uint16) {
		c := fills[int(fill)%len(fills)].chars
		q := randomText(rand.New(rand.NewPCG(uint64(fill), 0)), c, int(pre)%100)
		q = append(q, p...)
		q = append(q, randomText(rand.New(rand.NewPCG(uint64(fill), 1)), c, 96+int(post))...)
		want := refCheck(q, Class(forbid))
		if got, ok := asError(Check(q, Class(forbid))); !ok || got != want {
			t.Fatalf("Check(% X, %v) = %+v, reference says %+v", q, Class(forbid), got, want)
		}
	})
}

// TestCheckShort compares Check and CheckString with refCheck on every
// input of up to two octets, every input of three and four octets over an
// alphabet of ASCII octets of each class and none, and lead and
// continuation octets, and random inputs of five to seven over it: the
// short ASCII path (shortASCIIClass) and the inputs it leaves to the
// general one; and, from 8 to 40 octets, where printable ASCII takes
// shortPrintable's path, every octet value at every position of a
// printable value of each length, and random values.
//
// With -sweep, each input under every set of classes of checkSets, 0 and
// DEL|TabNewline, every length from 8 to 40 and 20,000 inputs of each
// random part (2 s of CPU). The default run (and -short) takes the same
// inputs of up to four octets, but each under a quarter of the sets, a
// different quarter for the next input; of 8 to 40 octets, the lengths at
// the ends of shortPrintable's range only (8, 9, 31, 32, 33 and 40
// octets); and a fifth of each random part.
func TestCheckShort(t *testing.T) {
	t.Parallel()
	randoms := 4000
	sets := append(slices.Clip(checkSets), 0, DEL|TabNewline)
	// Each input is tried under the sets from turn on, every step-th.
	step, turn := 4, 0
	if sweepTests() {
		randoms, step = 20000, 1
	}
	try := func(p []byte) {
		for k := turn % step; k < len(sets); k += step {
			forbid := sets[k]
			want := refCheck(p, forbid)
			if got, _ := asError(Check(p, forbid)); got != want {
				t.Fatalf("Check(% X, %v) = %+v, reference says %+v", p, forbid, got, want)
			}
			if got, _ := asError(CheckString(string(p), forbid)); got != want {
				t.Fatalf("CheckString(% X, %v) = %+v, reference says %+v", p, forbid, got, want)
			}
		}
		turn++
	}
	try(nil)
	for a := range 256 {
		try([]byte{byte(a)})
		for b := range 256 {
			try([]byte{byte(a), byte(b)})
		}
	}
	alphabet := []byte{0x00, 0x01, '\t', '\n', '\r', 0x1f, ' ', 'a', '~', 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xef}
	for _, a := range alphabet {
		for _, b := range alphabet {
			for _, c := range alphabet {
				try([]byte{a, b, c})
				for _, d := range alphabet {
					try([]byte{a, b, c, d})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 7))
	for range randoms {
		p := make([]byte, 5+rng.IntN(3))
		for i := range p {
			p[i] = alphabet[rng.IntN(len(alphabet))]
		}
		try(p)
	}
	// 8 to 32 octets, where printable ASCII takes shortPrintable's
	// path: every octet value at every position of a printable value
	// of each length, and random values over the alphabet, mostly
	// printable.
	for n := 8; n <= 40; n++ {
		if !sweepTests() && !slices.Contains([]int{8, 9, 31, 32, 33, 40}, n) {
			continue
		}
		p := []byte(strings.Repeat("x", n))
		for at := range n {
			for v := range 256 {
				p[at] = byte(v)
				try(p)
			}
			p[at] = 'x'
		}
	}
	printable := []byte(" !09AZaz~")
	for range randoms {
		p := make([]byte, 8+rng.IntN(26))
		for i := range p {
			if rng.IntN(8) == 0 {
				p[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				p[i] = printable[rng.IntN(len(printable))]
			}
		}
		try(p)
	}
}

// TestShortPrintable holds shortPrintable to its definition: true for
// exactly the values of 8 to 32 octets that are all 0x20-0x7E, tried with
// every octet value at every position of such a value, at every length
// from 0 to 40; and no class holds an octet of that range, which is what
// lets Check accept such a value without looking at its classes.
func TestShortPrintable(t *testing.T) {
	for c := rune(0x20); c <= 0x7e; c++ {
		if cl := ClassOf(c); cl != 0 {
			t.Fatalf("ClassOf(%q) = %v: printable ASCII holds a class", c, cl)
		}
	}
	for n := 0; n <= 40; n++ {
		p := []byte(strings.Repeat("~", n))
		if got, want := shortPrintable(string(p)), n >= 8 && n <= 32; got != want {
			t.Fatalf("shortPrintable(%d times ~) = %v", n, got)
		}
		for at := range n {
			for v := range 256 {
				p[at] = byte(v)
				want := n >= 8 && n <= 32 && v >= 0x20 && v <= 0x7e
				if got := shortPrintable(string(p)); got != want {
					t.Fatalf("length %d, %02X at %d: shortPrintable = %v", n, v, at, got)
				}
			}
			p[at] = '~'
		}
	}
}
