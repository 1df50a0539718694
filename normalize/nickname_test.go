package normalize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
)

// nicknameSeeds are texts on which enforceNickname must agree with
// x/text's Nickname: spaces of every kind and place, characters whose NFKC
// holds or starts with a space (U+00A8, U+FDFA, U+2474), text that is not
// stable after one round, and the refusals.
var nicknameSeeds = []string{
	"", " ", "   ", "BigBird", "  Big   Bird ", "Big\u00a0\u3000Bird", "\u2000a\u200a", "a \u00a0b",
	"\ufdfa", strings.Repeat("\ufdfa", 20), "x\ufdfa \ufdfay", "\u00a8", "a\u00a8", "\u00a8\u00a8", " \u00a8 ",
	"\u2474\u2475", "\u1fed", "\u1fee\u0301", "\u1100\u1161 \uac00", "\ufb01re", "\u1d2e\u1d35\u1d33",
	"cafe\u0301", "a" + strings.Repeat("\u0301", 40), "pass\x07word", "a\u200db", "\u05d0a", "\u0644\u0627",
	"\u00a0", "\u3000x\u3000", "x\u200b y", "\u0f73 \u0f75", "\uff21\uff22", "\u2028x", "\u00ad",
}

// checkNickname compares Enforce(Nickname, s) with x/text's Nickname:
// the same enforced form, or a refusal for the same texts.
//
// It calls t.Helper only on a failure: a sweep checks millions of texts,
// and Helper costs a stack walk each time.
func checkNickname(t *testing.T, s string) {
	if !utf8.ValidString(s) {
		return
	}
	want, wantErr := precis.Nickname.String(s)
	if wantErr == nil && want == "" {
		wantErr = errDisallowed() // Enforce refuses an empty result
	}
	got, err := Enforce(Nickname, s)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Helper()
		t.Errorf("Enforce(Nickname, %+q): error %v, x/text %v", s, err, wantErr)
	case err == nil && got != want:
		t.Helper()
		t.Errorf("Enforce(Nickname, %+q) = %+q, x/text %+q", s, got, want)
	}
}

// TestEnforceNicknameDifferential holds enforceNickname to x/text on the
// seeds, on every code point alone and between spaces and letters, and on
// the conformance data. The code points are every one with -long, every
// 97th with -sweep (0.15 s of CPU), and every 389th by default and with
// -short.
func TestEnforceNicknameDifferential(t *testing.T) {
	for _, s := range nicknameSeeds {
		checkNickname(t, s)
	}
	stride := rune(389)
	switch {
	case longTests():
		stride = 1
	case sweepTests():
		stride = 97
	}
	t.Run("runes", func(t *testing.T) {
		sweepRunes(t, 0, stride, func(t *testing.T) func(rune) {
			return func(r rune) {
				c := string(r)
				for _, s := range []string{c, " " + c, c + " ", "a" + c + "b", "a " + c + " b", c + c} {
					checkNickname(t, s)
				}
			}
		})
	})
	if d, err := loadConformanceOnce(); err == nil {
		for i, cl := range d.lines {
			if cl.part != 1 || i%16 == 0 {
				checkNickname(t, cl.c[0])
			}
		}
	}
}

// FuzzEnforceNickname holds enforceNickname to x/text's Nickname.
func FuzzEnforceNickname(f *testing.F) {
	for _, s := range nicknameSeeds {
		f.Add(s)
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNickname(t, s)
	})
}
