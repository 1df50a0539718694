package normalize

// Tests of the scanner (scan.go): its fallback, both ways of scanning, and
// its fast path safeSpan against a reference.

import (
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestFallback runs the scanner as it runs when the tables do not match
// norm.Version (only ASCII is skipped without norm), on the conformance
// data: with -sweep, every line (0.2 s of CPU); by default and with
// -short, sampleLines(2).
func TestFallback(t *testing.T) {
	d := loadConformance(t)
	for _, f := range []Form{NFC, NFKC} {
		fi := new(fallbackInfo(f.info().norm))
		for _, cl := range d.sampleLines(2) {
			for _, x := range cl.c {
				want := fi.norm.String(x)
				if got := string(appendNormal(fi, nil, x, 0)); got != want {
					t.Fatalf("%s fallback: %+q -> %+q, want %+q", f.Name(), x, got, want)
				}
				_, n, _ := firstDiff(fi, x)
				if msg := checkOffset(x, want, n); msg != "" {
					t.Fatalf("%s fallback, %+q: %s", f.Name(), x, msg)
				}
			}
		}
	}
}

// scanners returns the formInfos of NFC and NFKC, each as it is and with
// prevalidate the other way round, so that tests can run the way of scanning
// that this CPU does not use.
func scanners() []*formInfo {
	var fis []*formInfo
	for _, f := range []Form{NFC, NFKC} {
		fi := *f.info()
		other := fi
		other.prevalidate = !fi.prevalidate
		fis = append(fis, &fi, &other)
	}
	return fis
}

// name names fi in test logs.
func (fi *formInfo) name() string {
	name := "nfc"
	if fi.norm == norm.NFKC {
		name = "nfkc"
	}
	if fi.prevalidate {
		return name + "/prevalidate"
	}
	return name + "/check"
}

// TestScanners runs the conformance data through both ways of scanning,
// whichever this CPU uses (TestConformance runs that one through every
// method): with -sweep, every line (0.25 s of CPU); by default and with
// -short, sampleLines(1).
func TestScanners(t *testing.T) {
	d := loadConformance(t)
	for _, fi := range scanners() {
		t.Run(fi.name(), func(t *testing.T) {
			t.Parallel()
			for _, cl := range d.sampleLines(1) {
				for _, x := range cl.c {
					want := fi.norm.String(x)
					if got := string(appendNormal(fi, nil, x, 0)); got != want {
						t.Fatalf("%+q -> %+q, want %+q", x, got, want)
					}
					_, n, _ := firstDiff(fi, []byte(x))
					if msg := checkOffset(x, want, n); msg != "" {
						t.Fatalf("%+q: %s", x, msg)
					}
				}
			}
		})
	}
}

// refSpan is safeSpan written the simple way: the offset of the first octet
// at or after i that does not start a well-formed character that isSafe
// accepts.
func refSpan(fi *formInfo, p []byte, i int) int {
	for i < len(p) {
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 || !fi.isSafe(r) {
			return i
		}
		i += size
	}
	return len(p)
}

// TestSafeSpan checks the scanner's fast path, which validates the text and
// then reads characters with tables indexed by their octets, against
// refSpan: code points on their own (spanRunes), and followed by enough
// ASCII for the eight-octet path, after ASCII, and after a character of the
// same length (a character of two or three octets is read with the next one
// if that has the same length); sequences of three octets that start with
// a non-ASCII octet (spanThirds); every four-octet lead with every second
// octet; code points in emoji text, after a character of four octets, at
// each octet of wideSpan's words (widePads); random texts made of
// interesting octets, of every length up to 40 (for the short tail that is
// decoded a character at a time); and long random texts, walked through as
// the scanner does, carrying what it knows to be well-formed from one call
// to the next.
//
// That is with -sweep (2 s of CPU). With -long it takes every code point,
// in emoji text at every octet of a word, every sequence of three octets
// and 200 long texts, not 20 (about 40 s of CPU more). The default run
// (and -short) takes spanRunes's sample, smaller than -sweep's, each code
// point at one place in emoji text; of the pairs of octets, every lead
// with every second octet, but after an octet that cannot lead (a
// continuation, C0-C1, F5-FF) only the ends of each class of octet; and
// 5,000 random texts, not 20,000, and 2 long texts, not 20.
//
// It runs both ways of scanning, whichever this CPU uses: with the text
// validated first (prevalidate) and without.
func TestSafeSpan(t *testing.T) {
	for _, fi := range scanners() {
		t.Run(fi.name(), func(t *testing.T) {
			t.Parallel()
			t.Run("runes", func(t *testing.T) {
				check := spanChecker(t, fi)
				var p []byte
				for r := range spanRunes(fi) {
					p = utf8.AppendRune(p[:0], r)
					size := len(p)
					if got := safeSpan(fi, p, 0, new(scanState)) == size; got != fi.isSafe(r) {
						t.Errorf("%U alone: safe is %v, isSafe says %v", r, got, !got)
					}
					p = append(p, "12345678"...)
					check(p, 0)
					check(append([]byte("abc"), p...), 0)
					switch size {
					case 2:
						check(append([]byte("\u0430"), p...), 0)
					case 3:
						check(append([]byte("\u4e2d"), p...), 0)
					}
					if t.Failed() {
						t.FailNow()
					}
				}
			})
			t.Run("octets", func(t *testing.T) {
				check := spanChecker(t, fi)
				for b0 := 0x80; b0 < 0x100; b0++ {
					for b1 := 0; b1 < 0x100; b1++ {
						if !sweepTests() && (b0 < 0xC2 || b0 > 0xF4) && !slices.Contains(octetEnds, byte(b1)) {
							continue
						}
						if b0 >= 0xF0 {
							for _, b2 := range octetEnds {
								for _, b3 := range []byte{0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF} {
									check([]byte{byte(b0), byte(b1), b2, b3, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}, 0)
								}
							}
							continue
						}
						for b2 := range spanThirds(b0, b1) {
							check([]byte{byte(b0), byte(b1), b2, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'}, 0)
						}
					}
				}
			})
			t.Run("wide", func(t *testing.T) {
				if !fi.prevalidate {
					t.Skip("wideSpan reads validated text only")
				}
				check := spanChecker(t, fi)
				var p []byte
				for r := range spanRunes(fi) {
					if !wideRunes(r) {
						continue
					}
					for _, pad := range widePads(r) {
						p = append(append(p[:0], "\U0001F600"...), pad...)
						p = utf8.AppendRune(p, r)
						p = append(p, wideTail...)
						check(p, 0)
						if t.Failed() {
							t.Fatalf("%U after %+q (at octet %d of a word)", r, pad, len(pad)%8)
						}
					}
				}
			})
			rng := rand.New(rand.NewPCG(1, 2))
			t.Run("random", func(t *testing.T) {
				check := spanChecker(t, fi)
				alphabet := []string{"a", " ", "\x80", "\xbf", "\xc0", "\xc3", "\xe0", "\xed", "\xef", "\xf0", "\xf4", "\xff",
					"é", "\u0301", "\u00a0", "\u0400", "\u0483", "\u4e2d", "\uac00", "\u1161", "\uff21", "\U0001f600", "\U0001d15e",
					"\xed\xa0\x80", "\xe0\x80\x80", "\xf4\x90\x80\x80", "\xc1\xbf"}
				var p []byte
				count := 5000
				if sweepTests() {
					count = 20000
				}
				for range count {
					p = p[:0]
					for n := rng.IntN(40); len(p) < n; {
						p = append(p, alphabet[rng.IntN(len(alphabet))]...)
					}
					for i := range min(len(p), 3) {
						check(p, i)
					}
				}
			})
			// Long texts: runs of one script, long enough for several
			// validation stretches, with the odd character that is not
			// safe or octet that is not well-formed.
			t.Run("long", func(t *testing.T) {
				texts := 2
				switch {
				case longTests():
					texts = 200
				case sweepTests():
					texts = 20
				}
				runs := []string{"abc de", "caf\u00e9 d\u00e9j\u00e0 ", "\u0432\u0447\u0435\u0440\u0430 ", "\u6211\u4eec\u660e\u5929", "\U0001f600\U0001f389"}
				odd := []string{"\u0301", "\xff", "\xe2\x82", "\u00a0", "\ufb01", "\u1161", "\xed\xa0\x80"}
				var p []byte
				for range texts {
					p = p[:0]
					for n := rng.IntN(200 << 10); len(p) < n; {
						for k := rng.IntN(1 << uint(rng.IntN(13))); k > 0; k-- {
							p = append(p, runs[rng.IntN(len(runs))]...)
						}
						p = append(p, odd[rng.IntN(len(odd))]...)
					}
					for _, s := range []bool{false, true} {
						var st scanState
						for i := 0; i < len(p); {
							var got int
							if s {
								got = safeSpan(fi, string(p), i, &st)
							} else {
								got = safeSpan(fi, p, i, &st)
							}
							if want := refSpan(fi, p, i); got != want {
								t.Fatalf("in a text of %d octets, safeSpan from %d = %d, want %d", len(p), i, got, want)
							}
							// Go on after the character or octet there.
							i = got + 1
							for i < len(p) && !utf8.RuneStart(p[i]) {
								i++
							}
						}
					}
				}
			})
		})
	}
}

// wideTail follows the code point under test in TestSafeSpan's wide
// subtest: emoji text, for wideSpan to go on with (16 octets at least)
// when that code point is safe.
const wideTail = "\U0001F389\u200d\U0001F600 \u2764\ufe0f\U0001F525\n\U0001F44D\U0001F3FD"

// wideRunes reports whether TestSafeSpan's wide subtest takes r: by
// default and with -short, the code points of three and four octets of
// spanRunes's sample; with -sweep, of two octets too (wideSpan stops at
// them); with -long, every one.
func wideRunes(r rune) bool {
	return sweepTests() || r > 0x7FF
}

// widePads returns what TestSafeSpan's wide subtest puts between the
// character of four octets that sends validSpan to wideSpan and the code
// point r under test: text that ends at one of the octets of a word
// (wideSpan's words start after that character) or of the next word, made
// of ASCII, U+200D (three octets) and emoji (four), of up to two
// characters that are not ASCII. With -long, and with -sweep for a code
// point of four octets, one for each of the eight octets of a word; by
// default and with -short, one. r chooses which.
func widePads(r rune) []string {
	if longTests() || sweepTests() && r > 0xFFFF {
		var pads []string
		for k := range 8 {
			of := slices.Concat(wideAllPads[k], wideAllPads[k+8])
			pads = append(pads, of[int(r)%len(of)])
		}
		return pads
	}
	n := 0
	for _, of := range wideAllPads {
		n += len(of)
	}
	j := int(r) % n
	for _, of := range wideAllPads {
		if j < len(of) {
			return []string{of[j]}
		}
		j -= len(of)
	}
	panic("unreachable")
}

// wideAllPads are widePads's texts, by length.
var wideAllPads = func() [][]string {
	var all [][]string
	for k := range 16 {
		var of []string
		for _, head := range []string{"", "\u200d", "\U0001F389", "\u200d\u200d", "\U0001F389\u200d", "\u200d\U0001F389", "\U0001F389\U0001F389"} {
			// From the second word on, a word of ASCII before r
			// would stop wideSpan.
			if len(head) <= k && (k < 8 || head != "") {
				of = append(of, head+strings.Repeat("a", k-len(head)))
			}
		}
		all = append(all, of)
	}
	return all
}()

// octetEnds are the first and last octet of ASCII, of the continuation
// octets and of the parts of them that E0, ED, F0 and F4 admit as their
// second octet, and of the rest.
var octetEnds = []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF}

// spanChecker returns a function that checks safeSpan(fi, p, i), on p as
// []byte and as a string, against refSpan, and stops t after ten failures.
// It calls t.Helper only on a failure: a sweep makes millions of checks,
// and Helper costs a stack walk each time.
func spanChecker(t *testing.T, fi *formInfo) func(p []byte, i int) {
	bad := 0
	return func(p []byte, i int) {
		if got, want := safeSpan(fi, p, i, new(scanState)), refSpan(fi, p, i); got != want {
			t.Helper()
			t.Errorf("safeSpan(%+q, %d) = %d, want %d", p, i, got, want)
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
		if got, want := safeSpan(fi, string(p), i, new(scanState)), refSpan(fi, p, i); got != want {
			t.Helper()
			t.Errorf("safeSpan(%+q as a string, %d) = %d, want %d", p, i, got, want)
			if bad++; bad > 10 {
				t.FailNow()
			}
		}
	}
}

// spanRunes yields the code points from U+0080 that TestSafeSpan takes on
// their own. With -long, every one. With -sweep, every one of two and
// three octets (the ones looked up in the tables indexed by octets), and
// of four octets (decoded, then looked up by code point): those at either
// end of a row of 64 bits of the tables, those on either side of a change
// of isSafe, and every 61st, so that each of the last octets takes every
// value. That is about 113,000 of 1.1 million. By default, the same
// sample of the code points of three octets too (about 55,000).
func spanRunes(fi *formInfo) iter.Seq[rune] {
	all, from := longTests(), rune(0x7FF)
	if sweepTests() {
		from = 0xFFFF
	}
	return func(yield func(rune) bool) {
		for r := rune(0x80); r <= utf8.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			if !all && r > from && r&63 != 0 && r&63 != 63 && r%61 != 0 &&
				fi.isSafe(r-1) == fi.isSafe(r) && (r == utf8.MaxRune || fi.isSafe(r+1) == fi.isSafe(r)) {
				continue
			}
			if !yield(r) {
				return
			}
		}
	}
}

// spanThirds yields the third octets that TestSafeSpan puts after b0 and
// b1. With -long, every octet. Otherwise the ends of ASCII, of the
// continuation octets and of the other octets, and two more that vary with
// b0 and b1: a continuation octet, so that each two-octet start meets
// continuations of every low six bits, and any octet.
func spanThirds(b0, b1 int) iter.Seq[byte] {
	all := longTests()
	return func(yield func(byte) bool) {
		if all {
			for b2 := range 0x100 {
				if !yield(byte(b2)) {
					return
				}
			}
			return
		}
		for _, b2 := range []byte{0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF, 0x80 | byte(b0+b1)&0x3F, byte(7*b0 + 13*b1)} {
			if !yield(b2) {
				return
			}
		}
	}
}

// wideBit returns the bit that wideSpan reads for the character that p
// starts, of three or four octets, computed as wideSpan computes it.
func wideBit(fi *formInfo, p []byte) bool {
	x := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16
	return fi.wide[(x&0x1F)<<6|x>>8&0x3F]>>(x>>16&63)&1 != 0
}

// TestWideTable checks, for every code point of three and four octets, the
// bit of fi.wide that wideSpan reads for it: for three octets, isSafe's
// answer; for four, set if and only if the 64 code points that share its
// first three octets are all safe, and then the code point is safe as norm
// sees it too. With -sweep, norm is asked of every code point whose bit is
// set (0.5 s of CPU); by default and with -short, of those at either end
// of a row of 64 bits and every 61st.
func TestWideTable(t *testing.T) {
	for _, f := range []Form{NFC, NFKC} {
		fi := f.info()
		set := 0
		var p []byte
		for r := rune(0x800); r <= utf8.MaxRune; r++ {
			if !utf8.ValidRune(r) {
				continue
			}
			p = utf8.AppendRune(p[:0], r)
			got := wideBit(fi, p)
			if len(p) == 3 {
				if got != fi.isSafe(r) {
					t.Fatalf("%s: wide bit of %U = %v, isSafe says %v", f.Name(), r, got, !got)
				}
				continue
			}
			all := true
			for c := r &^ 63; c <= r|63; c++ {
				all = all && fi.isSafe(c)
			}
			if got != all {
				t.Fatalf("%s: wide bit of %U = %v, its 64 are all safe: %v", f.Name(), r, got, all)
			}
			if !got {
				continue
			}
			set++
			if (sweepTests() || r&63 == 0 || r&63 == 63 || r%61 == 0) && !safeInNorm(fi.norm, r) {
				t.Fatalf("%s: wide bit of %U is set, norm says it is not safe", f.Name(), r)
			}
		}
		// The emoji and the ideographs of plane 2 (less the compatibility
		// ideographs from U+2F800) are the rows wideSpan is for.
		for _, r := range []rune{0x1F300, 0x1F600, 0x1FAFF, 0x20000, 0x2A6DF, 0x2F7FF} {
			if !wideBit(fi, utf8.AppendRune(nil, r)) {
				t.Errorf("%s: wide bit of %U is not set", f.Name(), r)
			}
		}
		t.Logf("%s: %d code points of four octets are read by their first three", f.Name(), set)
	}
}

// TestLeadPositions checks wideSpan's way to the first octets of the
// characters in a word, for every set of them: the multiplication that
// gathers them into one octet, and leadPositions.
func TestLeadPositions(t *testing.T) {
	for m := range 256 {
		var l uint64
		var want []uint32
		for k := range 8 {
			if m>>k&1 != 0 {
				l |= 0x80 << (8 * k)
				want = append(want, uint32(k))
			}
		}
		if got := (l >> 7) * 0x0102040810204080 >> 56; got != uint64(m) {
			t.Fatalf("%08b gathers to %08b", m, got)
		}
		for len(want) < 3 {
			if len(want) == 0 {
				want = append(want, 0)
			}
			want = append(want, want[0])
		}
		k := leadPositions[m]
		if got := []uint32{k & 0xFF, k >> 8 & 0xFF, k >> 16 & 0xFF}; !slices.Equal(got, want[:3]) {
			t.Fatalf("leadPositions[%08b] = %v, want %v", m, got, want[:3])
		}
	}
}
