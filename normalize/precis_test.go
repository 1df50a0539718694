package normalize

import (
	"encoding/json"
	"errors"
	"testing"

	"golang.org/x/text/secure/precis"

	"github.com/utf8guard/utf8guard/sanitize"
)

// TestEnforce pins what each profile does, as the package documentation
// states it: enforced form and comparison key, or the refusal and its
// offset.
func TestEnforce(t *testing.T) {
	const refused = "\x00refused" // marks a refusal in want and key
	for _, tc := range []struct {
		p      Profile
		in     string
		want   string // Enforce; refused: a sanitize.Precis error at offset
		key    string // CompareKey
		offset int
	}{
		// Lowercasing is Unicode's, with no language tailoring: U+0131
		// LATIN SMALL LETTER DOTLESS I is a lowercase letter of its own
		// and stays, so "mıke" does not collide with "mike"; U+0130 LATIN
		// CAPITAL LETTER I WITH DOT ABOVE lowercases to "i" + U+0307,
		// which does not collide either.
		{UsernameCaseMapped, "mike", "mike", "mike", 0},
		{UsernameCaseMapped, "MIKE", "mike", "mike", 0},
		{UsernameCaseMapped, "mıke", "mıke", "mıke", 0},
		{UsernameCaseMapped, "MİKE", "mi\u0307ke", "mi\u0307ke", 0},
		{UsernameCaseMapped, "ｍｉｋｅ", "mike", "mike", 0}, // width mapping: a collision, by design
		{UsernameCaseMapped, "cafe\u0301", "caf\u00e9", "caf\u00e9", 0},
		{UsernameCaseMapped, "ΣΑΣ", "σασ", "σασ", 0}, // no final sigma
		{UsernameCaseMapped, "ᴮᴵᴳᴮᴵᴿᴰ", refused, refused, 0},
		{UsernameCaseMapped, "mike smith", refused, refused, 4},
		{UsernameCaseMapped, "mike\u3000smith", refused, refused, 4}, // IDEOGRAPHIC SPACE, width-mapped to a space
		{UsernameCaseMapped, "\ufb01re", refused, refused, 0},
		{UsernameCaseMapped, "", refused, refused, 0},        // x/text itself accepts it
		{UsernameCaseMapped, "a\u200d", refused, refused, 1}, // x/text: Bidi Rule
		{OpaqueString, "a\u200db", refused, refused, 1},      // x/text: contextual rule
		{UsernameCaseMapped, "\u05d0a", refused, refused, 0}, // Bidi Rule: RTL and LTR mixed
		{UsernameCasePreserved, "MIKE", "MIKE", "MIKE", 0},
		{UsernameCasePreserved, "ｍｉｋｅ", "mike", "mike", 0},
		{UsernameCasePreserved, "", refused, refused, 0},
		{OpaqueString, "Correct Horse", "Correct Horse", "Correct Horse", 0},
		{OpaqueString, "pass\u00a0word", "pass word", "pass word", 0}, // non-ASCII space to U+0020
		{OpaqueString, "\ufb01 ｍｉｋｅ", "\ufb01 ｍｉｋｅ", "\ufb01 ｍｉｋｅ", 0},
		{OpaqueString, "ᴮᴵᴳᴮᴵᴿᴰ", "ᴮᴵᴳᴮᴵᴿᴰ", "ᴮᴵᴳᴮᴵᴿᴰ", 0},
		{OpaqueString, "pass\x07word", refused, refused, 4},
		{OpaqueString, "", refused, refused, 0},
		// Nickname: NFKC maps the modifier letters to ASCII capitals;
		// enforcement keeps case, comparison folds it.
		{Nickname, "ᴮᴵᴳᴮᴵᴿᴰ", "BIGBIRD", "bigbird", 0},
		{Nickname, "BigBird", "BigBird", "bigbird", 0},
		{Nickname, "  Big   Bird ", "Big Bird", "big bird", 0},
		{Nickname, "\ufb01re", "fire", "fire", 0},
		{Nickname, "mıke", "mıke", "mıke", 0},
		{Nickname, "   ", refused, refused, 0},
		{Nickname, "bird\x00", refused, refused, 4},
	} {
		got, err := Enforce(tc.p, tc.in)
		if tc.want == refused {
			if got != "" || !isError(err, sanitize.Precis, tc.offset) {
				t.Errorf("Enforce(%s, %+q) = %+q, %v; want precis error at offset %d", tc.p, tc.in, got, err, tc.offset)
			}
		} else if got != tc.want || err != nil {
			t.Errorf("Enforce(%s, %+q) = %+q, %v; want %+q", tc.p, tc.in, got, err, tc.want)
		}
		key, err := CompareKey(tc.p, tc.in)
		if tc.key == refused {
			if key != "" || !isError(err, sanitize.Precis, tc.offset) {
				t.Errorf("CompareKey(%s, %+q) = %+q, %v; want precis error at offset %d", tc.p, tc.in, key, err, tc.offset)
			}
		} else if key != tc.key || err != nil {
			t.Errorf("CompareKey(%s, %+q) = %+q, %v; want %+q", tc.p, tc.in, key, err, tc.key)
		}
		if err == nil {
			// Enforcement is idempotent, and the enforced form has the
			// same key.
			if again, err := Enforce(tc.p, got); again != got || err != nil {
				t.Errorf("Enforce(%s, Enforce(%+q)) = %+q, %v; want %+q", tc.p, tc.in, again, err, got)
			}
			if !Compare(tc.p, tc.in, got) {
				t.Errorf("Compare(%s, %+q, its enforced form) = false", tc.p, tc.in)
			}
		}
	}
}

// TestLookalikes is the proof the issue asks for: "mıke" does not collide
// with "mike" under UsernameCaseMapped, and Nickname maps "ᴮᴵᴳᴮᴵᴿᴰ" to
// "BIGBIRD", which then collides with "bigbird": the pattern of the 2013
// Spotify account takeover, where a name canonicalized to an existing
// one. It also checks the same facts against x/text directly.
func TestLookalikes(t *testing.T) {
	const bigbird = "\u1d2e\u1d35\u1d33\u1d2e\u1d35\u1d3f\u1d30" // ᴮᴵᴳᴮᴵᴿᴰ
	for _, tc := range []struct {
		p    Profile
		a, b string
		same bool
	}{
		{UsernameCaseMapped, "mıke", "mike", false},
		{UsernameCaseMapped, "MİKE", "mike", false},
		{UsernameCaseMapped, "MIKE", "mike", true},
		{UsernameCaseMapped, "ｍｉｋｅ", "mike", true},
		{UsernameCaseMapped, bigbird, "bigbird", false}, // refused outright
		{UsernameCasePreserved, "Mike", "mike", false},
		{OpaqueString, bigbird, "BIGBIRD", false},
		{Nickname, "mıke", "mike", false},
		{Nickname, bigbird, "BIGBIRD", true},
		{Nickname, bigbird, "bigbird", true},
		{Nickname, bigbird, "BigBird", true},
		{Nickname, "Big  Bird ", "big bird", true},
		{UsernameCaseMapped, "", "", false}, // x/text says true
	} {
		if got := Compare(tc.p, tc.a, tc.b); got != tc.same {
			t.Errorf("Compare(%s, %+q, %+q) = %v, want %v", tc.p, tc.a, tc.b, got, tc.same)
		}
		if tc.a != "" {
			if got := profiles[tc.p].Compare(tc.a, tc.b); got != tc.same {
				t.Errorf("x/text: %s.Compare(%+q, %+q) = %v, want %v", tc.p, tc.a, tc.b, got, tc.same)
			}
		}
	}
	if s, err := precis.Nickname.String(bigbird); s != "BIGBIRD" || err != nil {
		t.Errorf("x/text: Nickname.String(%+q) = %+q, %v", bigbird, s, err)
	}
	if s, err := precis.UsernameCaseMapped.String(""); s != "" || err != nil {
		t.Errorf("x/text: UsernameCaseMapped.String(\"\") = %+q, %v; the documentation says it is accepted", s, err)
	}
	if !precis.UsernameCaseMapped.Compare("", "") {
		t.Error(`x/text: UsernameCaseMapped.Compare("", "") = false; the documentation says true`)
	}
}

func TestEnforceIllFormed(t *testing.T) {
	for _, in := range []string{"mi\xc0\xafke", "\xed\xa0\x80", "abc\xff"} {
		for p := UsernameCaseMapped; p <= Nickname; p++ {
			_, err := Enforce(p, in)
			want := sanitize.ValidateString(in)
			if err == nil || want == nil || err.Error() != want.Error() {
				t.Errorf("Enforce(%s, %+q) = %v, want the validation error %v", p, in, err, want)
			}
			if Compare(p, in, in) {
				t.Errorf("Compare(%s, %+q, itself) = true", p, in)
			}
		}
	}
}

// TestOpaqueStringIllFormed pins an x/text behaviour that the package
// documentation warns about: precis.OpaqueString maps ill-formed octets to
// U+FFFD, so different octet strings enforce to the same password. Enforce
// refuses them.
func TestOpaqueStringIllFormed(t *testing.T) {
	for _, in := range []string{"pw\xff", "pw\xfe", "pw\ufffd"} {
		if got, err := precis.OpaqueString.String(in); got != "pw\ufffd" || err != nil {
			t.Errorf("x/text: OpaqueString.String(%+q) = %+q, %v; the documentation says \"pw\\ufffd\", nil", in, got, err)
		}
	}
	if !precis.OpaqueString.Compare("pw\xff", "pw\xfe") {
		t.Error("x/text: OpaqueString.Compare(\"pw\\xff\", \"pw\\xfe\") = false; the documentation says true")
	}
	if Compare(OpaqueString, "pw\xff", "pw\xfe") || Compare(OpaqueString, "pw\xff", "pw\ufffd") {
		t.Error("Compare(OpaqueString) equates ill-formed passwords")
	}
	if _, err := Enforce(OpaqueString, "pw\xff"); !isError(err, sanitize.InvalidByte, 2) {
		t.Errorf("Enforce(OpaqueString, \"pw\\xff\") = %v", err)
	}
}

func TestEnforceInvalidProfile(t *testing.T) {
	for _, p := range []Profile{0, Nickname + 1, 255} {
		if _, err := Enforce(p, "mike"); err == nil {
			t.Errorf("Enforce(%s) = nil error", p)
		} else if errors.As(err, new(*sanitize.Error)) {
			t.Errorf("Enforce(%s) = %v, a *sanitize.Error", p, err)
		}
		if Compare(p, "mike", "mike") {
			t.Errorf("Compare(%s) = true", p)
		}
	}
}

// TestDisallowedError checks the error value that precisOffset recognizes.
func TestDisallowedError(t *testing.T) {
	if err := errDisallowed(); err == nil || err.Error() != "precis: disallowed rune encountered" {
		t.Fatalf("x/text's disallowed-rune error is now %v", err)
	}
}

func TestParseProfile(t *testing.T) {
	for p := UsernameCaseMapped; p <= Nickname; p++ {
		name := p.String()
		if got, err := ParseProfile(name); got != p || err != nil {
			t.Errorf("ParseProfile(%q) = %v, %v", name, got, err)
		}
		b, err := json.Marshal(map[string]Profile{"f": p})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]Profile
		if err := json.Unmarshal(b, &m); err != nil || m["f"] != p {
			t.Errorf("JSON round trip of %s: %s, %v, %v", p, b, m, err)
		}
	}
	for _, name := range []string{"username_case_mapped", "USERNAME_CASE_MAPPED", "nickname", "opaque_string", "username_case_preserved"} {
		if _, err := ParseProfile(name); err != nil {
			t.Errorf("ParseProfile(%q): %v", name, err)
		}
	}
	for _, name := range []string{"", "none", "username", "UsernameCaseMapped", "opaque-string"} {
		if p, err := ParseProfile(name); err == nil {
			t.Errorf("ParseProfile(%q) = %v, want an error", name, p)
		}
	}
	if got := Profile(0).String(); got != "Profile(0)" {
		t.Errorf("Profile(0).String() = %q", got)
	}
	if _, err := Profile(0).MarshalText(); err == nil {
		t.Error("Profile(0).MarshalText() succeeded")
	}
}
