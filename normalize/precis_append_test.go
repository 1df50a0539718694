package normalize

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// appendEnforceSeeds are texts on which AppendEnforce must agree with
// Enforce for every profile: what each mapping step changes (width,
// case, NFC, NFKC, spaces), texts whose mapped form is not stable, text
// that is ASCII once mapped, the Bidi Rule, and the refusals.
var appendEnforceSeeds = []string{
	"", "mike", "MIKE", "Mike", "mıke", "MİKE", "ｍｉｋｅ", "\uff21B\uff21B", "\uff21\uff42", "cafe\u0301", "CAFE\u0301",
	"ΣΑΣ", "ᴮᴵᴳᴮᴵᴿᴰ", "mike smith", "mike\u3000smith", "\ufb01re", "\u212a", "\u212aelvin", "\u212b", "\u037e",
	"\u1fef", "\u0130", "\u00df", "\u1e9e", "\u05d0\u05d1", "\u05d0a", "a\u05d0", "1\u05d0", "\u0644\u0627", "\u0661\u0662",
	"a\u200db", "a\u094d\u200db", "\u00b7", "l\u00b7l", "\u0375\u03b1", "\u30fb", "\u30a2\u30fb", "\u0f0b",
	"\uff76\uff9e", "\uffe3", "\u3000", " x ", "a  b", "\u00a0a\u00a0", "\u1100\u1161", "\uac00", "\ufdfa",
	"a" + strings.Repeat("\u0301", 40), "pass\x07word", "\u00ad", "x\u200b", "\u00a8", "\u2474", strings.Repeat("\uff21", 300),
	strings.Repeat("e\u0301", 200), "Zoë Ångström", "zoë", "Ǆ", "ǅ", "\u0345", "\u03a3\u0345",
}

// checkAppendEnforce compares AppendEnforce(dst, p, s) with Enforce(p, s):
// the same form after what dst held, or the same error; and so does
// e.Append, unless e is nil, e an Enforcer reused from one value to the
// next, as a caller keeps one: nothing of a value may stay behind for the
// next.
//
// It calls t.Helper only on a failure: a sweep checks tens of millions of
// values, and Helper costs a stack walk each time.
func checkAppendEnforce(t *testing.T, e *Enforcer, p Profile, s string) {
	want, wantErr := Enforce(p, s)
	dst := []byte("prefix:")
	got, err := AppendEnforce(dst, p, []byte(s))
	switch {
	case (err != nil) != (wantErr != nil):
		t.Helper()
		t.Errorf("AppendEnforce(%v, %+q): error %v, Enforce %v", p, s, err, wantErr)
	case err != nil:
		var e, we *sanitize.Error
		if errors.As(err, &e) != errors.As(wantErr, &we) || e != nil && *e != *we {
			t.Helper()
			t.Errorf("AppendEnforce(%v, %+q): error %#v, Enforce %#v", p, s, err, wantErr)
		}
		if string(got) != "prefix:" {
			t.Helper()
			t.Errorf("AppendEnforce(%v, %+q) refused, returned %+q", p, s, got)
		}
	case string(got) != "prefix:"+want:
		t.Helper()
		t.Errorf("AppendEnforce(%v, %+q) = %+q, Enforce %+q", p, s, got, "prefix:"+want)
	}
	if e == nil {
		return
	}
	got, err = e.Append(dst[:0], p, []byte(s))
	if (err != nil) != (wantErr != nil) || err == nil && string(got) != want {
		t.Helper()
		t.Errorf("Enforcer.Append(%v, %+q) = %+q, %v; Enforce %+q, %v", p, s, got, err, want, wantErr)
	}
}

// sharedEnforcer is the Enforcer that the tests outside the sweep of
// code points reuse, one value after another.
var sharedEnforcer Enforcer

var allProfiles = []Profile{UsernameCaseMapped, UsernameCasePreserved, OpaqueString, Nickname}

// TestAppendEnforceDifferential holds AppendEnforce to Enforce on the
// seeds, on every code point alone and beside letters, spaces and marks
// (a stride of them without -long), and on the conformance data; and so
// an Enforcer reused from one value to the next, but in the sweep of -long
// on the code points of the plain run only. (AppendEnforce is that
// Enforcer's Append, through a pool that hands the same one back in a
// row: the sweep takes 26 million values, and the second Enforcer made it
// take a third longer.)
//
// The stride of the code points is 211 with -sweep (0.5 s of CPU), 1021
// by default and with -short; every stride is a prime, so that the code
// points taken have every residue in a plane.
func TestAppendEnforceDifferential(t *testing.T) {
	for _, p := range allProfiles {
		for _, s := range appendEnforceSeeds {
			checkAppendEnforce(t, &sharedEnforcer, p, s)
		}
		for _, s := range nicknameSeeds {
			checkAppendEnforce(t, &sharedEnforcer, p, s)
		}
	}
	const plain = rune(211) // a prime: every residue over the planes
	stride := rune(1021)
	switch {
	case longTests():
		stride = 1
	case sweepTests():
		stride = plain
	}
	t.Run("runes", func(t *testing.T) {
		sweepRunes(t, 0, stride, func(t *testing.T) func(rune) {
			var e Enforcer
			return func(r rune) {
				reused := &e
				if stride == 1 && r%plain != 0 {
					reused = nil
				}
				c := string(r)
				for _, s := range []string{c, "A" + c, c + "\u0301", "a " + c + " b", c + c, "\uff21" + c} {
					for _, p := range allProfiles {
						checkAppendEnforce(t, reused, p, s)
					}
				}
			}
		})
	})
	if d, err := loadConformanceOnce(); err == nil {
		for i, cl := range d.lines {
			if cl.part != 1 || i%16 == 0 {
				for _, p := range allProfiles {
					checkAppendEnforce(t, &sharedEnforcer, p, cl.c[0])
				}
			}
		}
	}
}

// TestAppendEnforceIllFormed: ill-formed input gets Enforce's validation
// error, and dst back as it was.
func TestAppendEnforceIllFormed(t *testing.T) {
	for _, p := range allProfiles {
		for _, s := range []string{"\xff", "ab\xc3", "\xed\xa0\x80", "\xc0\xaf"} {
			checkAppendEnforce(t, &sharedEnforcer, p, s)
		}
	}
	if _, err := AppendEnforce(nil, Profile(0), []byte("x")); err == nil {
		t.Error("AppendEnforce with no profile: no error")
	}
}

// TestAppendEnforceAllocs: an accepted value that the profile maps
// (width, case, NFKC) costs no allocation once dst has room (a query of a thousand PRECIS
// fields allocated per field).
func TestAppendEnforceAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, tc := range []struct {
		p  Profile
		in string
	}{
		{UsernameCaseMapped, "\uff21B\uff21B"},
		{UsernameCaseMapped, "MIKE"},
		{UsernameCaseMapped, "CAFE\u0301"},
		{UsernameCaseMapped, "\u00c9COLE"},
		{UsernameCaseMapped, "\u03a3\u0391\u03a3"},
		{UsernameCasePreserved, "\uff21B"},
		{OpaqueString, "pass\u00a0worde\u0301"},
		{Nickname, "\uff21B\uff21B"},
		{Nickname, "  Big\u3000Bird \ufb01 "},
		{Nickname, "zoë"},
	} {
		in := []byte(tc.in)
		dst := make([]byte, 0, 256)
		if _, err := AppendEnforce(dst, tc.p, in); err != nil {
			t.Fatalf("%v %+q: %v", tc.p, tc.in, err)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = AppendEnforce(dst, tc.p, in) }); n != 0 {
			t.Errorf("AppendEnforce(%v, %+q): %v allocations, want 0", tc.p, tc.in, n)
		}
		var e Enforcer
		if n := testing.AllocsPerRun(100, func() { _, _ = e.Append(dst, tc.p, in) }); n != 0 {
			t.Errorf("Enforcer.Append(%v, %+q): %v allocations, want 0", tc.p, tc.in, n)
		}
		if !bytes.Equal(in, []byte(tc.in)) {
			t.Errorf("AppendEnforce(%v, %+q) changed its input to %+q", tc.p, tc.in, in)
		}
	}
}

// FuzzAppendEnforce holds AppendEnforce to Enforce for every profile.
func FuzzAppendEnforce(f *testing.F) {
	for _, s := range appendEnforceSeeds {
		f.Add(s)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range allProfiles {
			checkAppendEnforce(t, &sharedEnforcer, p, s)
		}
	})
}

// TestASCIIClass holds AppendEnforce's check of ASCII text to x/text's:
// every ASCII character alone, after a letter and between letters is
// accepted by each profile exactly when it is in the range of octets
// that AppendEnforce allows for it.
func TestASCIIClass(t *testing.T) {
	for _, p := range allProfiles {
		lo := byte('!')
		if p == Nickname || p == OpaqueString {
			lo = ' '
		}
		for b := byte(0); b < utf8.RuneSelf; b++ {
			for _, s := range []string{string(b), "a" + string(b), "a" + string(b) + "b", "\uff21" + string(b) + "b"} {
				_, err := p.precis().String(s)
				wantOK := b >= lo && b <= '~'
				if p == Nickname && b == ' ' {
					wantOK = true // trimmed or kept, never refused next to a letter
					if s == " " {
						wantOK = false
					}
				}
				if (err == nil) != wantOK {
					t.Errorf("%v: x/text on %+q: error %v, want accepted %v", p, s, err, wantOK)
				}
				checkAppendEnforce(t, &sharedEnforcer, p, s)
			}
		}
	}
}

// TestNicknameStable pins nicknameStable, which decides whether
// enforceNickname may take its one round: spaces at either end, runs of
// them before and after non-ASCII text, and spaces of category Zs other
// than U+0020.
func TestNicknameStable(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "a": true, "a b": true, "é b": true, "a é b": true, "aé": true,
		" a": false, "a ": false, "a  b": false, "é  b": false, "aé  b": false, "a  é": false,
		"a\u3000b": false, "a\u00a0b": false, "é\u2000": false, "\u00a0": false, "a \u00a0b": false,
	} {
		if got := nicknameStable(s); got != want {
			t.Errorf("nicknameStable(%+q) = %v, want %v", s, got, want)
		}
	}
}
