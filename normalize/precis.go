package normalize

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/sanitize"
)

// A Profile is one of the PRECIS profiles of RFC 8265 and RFC 8266, for
// identifier fields: enforcing it maps a value to one canonical form (or
// refuses it), so that two values that a person cannot tell apart compare
// equal. It is implemented by golang.org/x/text/secure/precis; see the
// package documentation for what each profile does to lookalikes such as
// "mıke" and "ᴮᴵᴳᴮᴵᴿᴰ".
//
// The zero Profile is not a profile: Enforce and CompareKey return an error
// for it and Compare returns false.
type Profile uint8

const (
	// UsernameCaseMapped (RFC 8265) is for usernames compared
	// without regard to case: width mapping (fullwidth and halfwidth forms
	// to their ordinary forms), Unicode lowercasing, NFC, the Bidi Rule,
	// and the IdentifierClass: letters and digits and ASCII symbols and
	// punctuation; no spaces, no symbols outside ASCII, no characters with
	// compatibility decompositions. Enforce returns the lowercased form.
	UsernameCaseMapped Profile = iota + 1
	// UsernameCasePreserved (RFC 8265) is
	// UsernameCaseMapped without the lowercasing: "Mike" and "mike" stay
	// different.
	UsernameCasePreserved
	// OpaqueString (RFC 8265, section 4.2) is for passwords and other
	// secrets: non-ASCII spaces become U+0020, then NFC, and the
	// FreeformClass (anything but controls, unassigned code points and a
	// few other classes). Case, width and compatibility characters are
	// kept.
	OpaqueString
	// Nickname (RFC 8266) is for display names: non-ASCII spaces become
	// U+0020, leading and trailing spaces are removed and inner runs of
	// spaces collapse to one, then NFKC, and the FreeformClass, applied
	// until the result is stable. Comparison also folds case; enforcement
	// does not.
	Nickname
)

var profileNames = [...]string{
	UsernameCaseMapped:    "username_case_mapped",
	UsernameCasePreserved: "username_case_preserved",
	OpaqueString:          "opaque_string",
	Nickname:              "nickname",
}

var profiles = [...]*precis.Profile{
	UsernameCaseMapped:    precis.UsernameCaseMapped,
	UsernameCasePreserved: precis.UsernameCasePreserved,
	OpaqueString:          precis.OpaqueString,
	Nickname:              precis.Nickname,
}

// ParseProfile returns the Profile named name, as written in configuration
// files: "username_case_mapped", "username_case_preserved", "opaque_string"
// or "nickname" (in any case).
func ParseProfile(name string) (Profile, error) {
	for p := UsernameCaseMapped; int(p) < len(profileNames); p++ {
		if strings.EqualFold(name, profileNames[p]) {
			return p, nil
		}
	}
	return 0, errors.New("normalize: unknown PRECIS profile " + strconv.Quote(name))
}

// String returns the name of p as ParseProfile reads it, or "Profile(N)"
// for a value that is not a profile.
func (p Profile) String() string {
	if p.precis() != nil {
		return profileNames[p]
	}
	return "Profile(" + strconv.Itoa(int(p)) + ")"
}

// MarshalText returns the name of p, so that a Profile reads and writes
// itself in JSON, YAML or TOML configuration. It fails for a value that is
// not a profile.
func (p Profile) MarshalText() ([]byte, error) {
	if p.precis() == nil {
		return nil, errors.New("normalize: invalid " + p.String())
	}
	return []byte(profileNames[p]), nil
}

// UnmarshalText sets p to the Profile named by text, as ParseProfile does.
func (p *Profile) UnmarshalText(text []byte) error {
	q, err := ParseProfile(string(text))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

func (p Profile) precis() *precis.Profile {
	if p > 0 && int(p) < len(profiles) {
		return profiles[p]
	}
	return nil
}

// Enforce applies the PRECIS profile p to value and returns the enforced
// form: the one value to store and to show the handler.
//
// value must be well-formed UTF-8; if it is not, Enforce returns the
// *sanitize.Error that sanitize.ValidateString reports (PRECIS never runs on
// ill-formed text). If the profile refuses value, Enforce returns a
// *sanitize.Error with Reason sanitize.Precis. Its Offset is a best effort:
// the offset in value of the first character that the profile refuses on
// its own (a space in a username, a control character anywhere, a U+200D
// ZERO WIDTH JOINER out of context); 0 when no single character is refused
// (the value as a whole fails the Bidi Rule, or enforces to the empty
// string).
//
// Unlike golang.org/x/text/secure/precis, Enforce refuses a value whose
// enforced form is empty for every profile: x/text applies that rule to
// OpaqueString and Nickname only and returns "" without an error for the
// two username profiles, but RFC 8265 (sections 3.1 and 4.1) says that
// neither a username nor a password may be zero octets long once mapped and
// normalized.
//
// Enforce returns a plain error, not a *sanitize.Error, when p is not a
// profile.
func Enforce(p Profile, value string) (string, error) {
	return enforce(p, value, false)
}

// CompareKey returns the form of value under p that Compare compares: the
// enforced form, and for Nickname also lowercased (RFC 8266, section 2.3).
// Use it as the key of a uniqueness index, so that two values that Compare
// reports equal cannot both be registered. Errors are those of Enforce.
func CompareKey(p Profile, value string) (string, error) {
	return enforce(p, value, true)
}

// Compare reports whether a and b are the same under p: whether both can be
// enforced and their comparison keys (CompareKey) are equal. A value that
// cannot be enforced, such as the empty string, equals nothing.
func Compare(p Profile, a, b string) bool {
	ka, err := CompareKey(p, a)
	if err != nil {
		return false
	}
	kb, err := CompareKey(p, b)
	return err == nil && ka == kb
}

func enforce(p Profile, value string, key bool) (string, error) {
	prof := p.precis()
	if prof == nil {
		return "", errors.New("normalize: invalid " + p.String())
	}
	if err := sanitize.ValidateString(value); err != nil {
		return "", err
	}
	var out string
	var err error
	switch {
	case key:
		out, err = prof.CompareKey(value)
	case p == Nickname:
		out, err = enforceNickname(value)
	default:
		out, err = prof.String(value)
	}
	if err != nil {
		return "", &sanitize.Error{Reason: sanitize.Precis, Offset: precisOffset(prof, value)}
	}
	if out == "" {
		return "", &sanitize.Error{Reason: sanitize.Precis, Offset: 0}
	}
	return out, nil
}

// errDisallowed is the error x/text returns for a disallowed character; it
// does not export it, so ask for it once with a character every profile
// refuses (NUL is a control character, disallowed in both string classes).
var errDisallowed = sync.OnceValue(func() error {
	_, err := precis.OpaqueString.String("\x00")
	return err
})

// precisOffset returns the offset of the first character of value that the
// profile refuses on its own, or 0. A character counts as refused when
// enforcing it alone fails on a disallowed character, or fails in any way
// while the profile's string class does not contain it. The second test is
// needed because x/text checks the Bidi Rule before the characters: "mike"
// + U+3000 + "smith" fails the Bidi Rule (U+3000 IDEOGRAPHIC SPACE is width
// mapped to a space, of bidi class WS), where "mike smith" fails on its
// disallowed space; and it also finds a joiner out of context (U+200D).
// The first test alone would miss those, the second alone would flag
// fullwidth letters, which the class does not contain but width mapping
// turns into letters it does.
//
// Each distinct character is enforced once: a value that fails as a whole
// but on no single character (a letter and 31 combining marks, which
// normalization breaks up with U+034F COMBINING GRAPHEME JOINER, a default
// ignorable code point that no profile allows) would otherwise cost a call
// of the profile, and its allocations, per character.
func precisOffset(prof *precis.Profile, value string) int {
	var ascii [2]uint64 // ASCII characters found not refused
	var seen map[rune]bool
	for i, r := range value {
		if r < utf8.RuneSelf && ascii[r>>6]>>(r&63)&1 != 0 {
			continue
		}
		refused, ok := seen[r]
		if !ok {
			_, err := prof.String(string(r))
			refused = err != nil && (err == errDisallowed() || !prof.Allowed().Contains(r))
			if r < utf8.RuneSelf {
				if !refused {
					ascii[r>>6] |= 1 << (r & 63)
				}
			} else {
				if seen == nil {
					seen = make(map[rune]bool)
				}
				seen[r] = refused
			}
		}
		if refused {
			return i
		}
	}
	return 0
}

// nicknameOnce is the Nickname profile of x/text without its additional
// mapping and applied once rather than four times: for a text on which
// that mapping and NFKC change nothing, it is what Nickname does in each of
// its rounds.
var nicknameOnce = precis.NewFreeform(precis.IgnoreCase, precis.Norm(norm.NFKC), precis.DisallowEmpty)

// enforceNickname returns what precis.Nickname.String returns for value,
// well-formed UTF-8, with the same success or failure, at a fraction of its
// cost on text that NFKC lengthens (U+FDFA, 11 times as long,
// cost 74 times benign text).
//
// x/text applies the rules of RFC 8266 (the additional mapping of spaces,
// NFKC, then the checks of the FreeformClass) four times over the whole
// text, as RFC 8266, section 2.4, asks for a text that is not stable after
// one round. Here the first round's mapping and NFKC are done by this
// package (nicknameSpaces, NFKC.String: the same results as x/text's, which
// the differential tests and FuzzEnforceNickname hold it to), and when
// their result v is stable, that is when the mapping leaves it as it is
// (NFKC does, being idempotent), the four rounds of x/text on value each
// turn v into itself and check v: one round of checks on v gives the same
// answer. When v is not stable (a character such as U+00A8 whose NFKC
// starts with a space), x/text runs as it is.
func enforceNickname(value string) (string, error) {
	v := NFKC.String(nicknameSpaces(value))
	if !nicknameStable(v) {
		return precis.Nickname.String(value)
	}
	return nicknameOnce.String(v)
}

// isSpaceZs reports whether r is of General Category Zs, as x/text's
// Nickname mapping asks: U+0020 and the non-ASCII spaces.
func isSpaceZs(r rune) bool {
	return r == ' ' || r >= utf8.RuneSelf && unicode.Is(unicode.Zs, r)
}

// nicknameStable reports whether the additional mapping of RFC 8266,
// section 2.1 leaves s as it is: no space of category Zs but U+0020, none
// at either end, no two in a row.
func nicknameStable(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	// One pass: a space followed by a space (never the last octet, which
	// is not a space), or a space of category Zs other than U+0020.
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if s[i+1] == ' ' {
				return false
			}
		case c >= utf8.RuneSelf:
			prev := rune(0)
			for _, r := range s[i:] {
				if r == ' ' && prev == ' ' || r >= utf8.RuneSelf && isSpaceZs(r) {
					return false
				}
				prev = r
			}
			return true
		}
	}
	return true
}

// nicknameSpaces applies the additional mapping rule of RFC 8266, section
// 2.1, to s, well-formed UTF-8, as x/text's Nickname does: every space of
// category Zs becomes U+0020, those at either end are removed, and a run of
// them inside becomes one.
func nicknameSpaces(s string) string {
	if nicknameStable(s) {
		return s
	}
	return string(appendNicknameSpaces(make([]byte, 0, len(s)), s))
}
