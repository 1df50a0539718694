// Package normalize puts validated text into one canonical form: Unicode
// normalization (NFC, NFKC) for text, and the PRECIS profiles of RFC 8265 and
// RFC 8266 for identifiers. It normalizes with its own tables, generated from
// the Unicode Character Database of golang.org/x/text/unicode/norm's version
// and tested against norm, uses golang.org/x/text/secure/precis for the
// profiles, and imports nothing of utf8guard but sanitize, whose
// *sanitize.Error it returns.
//
// # The threat
//
// RFC 3629 section 10 warns that the same text can be written as different
// sequences of characters: "é" is U+00E9, or "e" followed by U+0301
// COMBINING ACUTE ACCENT; "Å" is U+00C5, or U+212B ANGSTROM SIGN, or "A" +
// U+030A; a Hangul syllable is one code point or two or three conjoining
// jamo. Unicode calls such sequences canonically equivalent: they display
// the same and mean the same, but they are not the same octets. When one
// layer of a program checks one spelling and another layer compares or
// stores another (a name in a credential against an access-control list, a
// path against a deny rule, a username against the accounts table), the
// check and the comparison disagree. The cure is to decide on one form at
// the edge, before any layer looks at the text: either reject text that is
// not in it, or rewrite it into it.
//
// # Forms
//
// A Form is NFC, NFKC or None, and its methods follow those of norm.Form:
//
//	normalize.NFC.String("cafe\u0301") == "caf\u00e9"
//	normalize.NFC.IsNormalString("caf\u00e9") == true
//	err := normalize.NFC.Check(p) // nil, or a *sanitize.Error, Reason NotNormalized
//
// NFC composes what can be composed and puts combining marks in canonical
// order; it changes no visible text, and is the form to rewrite requests
// into. NFKC also folds compatibility characters (U+FB01 ﬁ to "fi", U+00B2
// to "2", fullwidth "Ａ" to "A", U+1D2E ᴮ to "B"): it loses distinctions, so
// it suits identifiers, not free text.
//
// String and Bytes return their input itself, without copying or allocating,
// when it is already normal, so a caller learns whether to rewrite a value
// from the same call. Append appends the normal form of its source to a
// buffer. IsNormal, Check and FirstNonNormal do not allocate when the text is
// normal; Check and FirstNonNormal give the offset of the first character
// that normalization changes, which is what a rejection log wants.
//
// The methods decide that text is already normal without norm where they
// can. The characters that can neither change nor interact with what
// precedes them (canonical combining class 0 and quick check Yes: for NFC
// every code point below U+0300 and nearly all letters of the Latin, Greek,
// Cyrillic, Kana, CJK and Hangul blocks; for NFKC the same less the
// compatibility characters, such as U+00A0 and U+00B2) are skipped: ASCII
// eight and 32 octets at a time, the others with one table lookup each,
// indexed by their octets. On amd64 with AVX2, where sanitize.ValidPrefix
// validates text with SIMD instructions, the text is validated first and
// then NFC's characters below U+0300 are skipped a word at a time as well.
// Only the stretches around other characters are normalized: by the
// package's own normalizer, which decomposes, reorders and composes each
// segment as UAX #15 defines it, one character at a time, and first checks
// whether the stretch is normal as it is (marks in canonical order that
// compose with nothing). On already-normal text this is an order of
// magnitude faster than norm.NFC.IsNormal (BenchmarkNFCIsNormal in the
// bench directory), and hostile text (NFD text, "q" + U+0301 repeated,
// long runs of marks) costs a bounded multiple of benign text, linear in
// its length (BenchmarkHostile). The tables are generated from the Unicode
// Character Database of the version of norm (go generate runs
// internal/mktables on the copy in testdata/ucd), and tests check them
// against norm for every code point and the normalizer against norm on
// sequences built to exercise it; under another norm.Version than theirs (a
// Go release can switch x/text to newer Unicode data) they are not used
// and every non-ASCII character goes to norm.
//
// # Ill-formed UTF-8
//
// Normalization never runs on text that is not well-formed UTF-8: validate
// first, with sanitize.Validate (utf8guard's middleware always does). norm
// does not validate; it passes ill-formed octets through, and whatever such
// a text means to a later decoder was never normalized. The methods are safe
// on such input all the same: they do not panic, IsNormal reports false,
// Check reports the first malformation as sanitize.Validate does (Reason
// Overlong, Surrogate, ... at its offset) unless a character that
// normalization changes comes first, and Bytes, String and Append copy the
// ill-formed octets as they are and normalize the well-formed text between
// them, each stretch on its own.
//
// # Unicode version
//
// UnicodeVersion is the version of the Unicode data behind the forms
// (norm.Version: 15.0.0 with x/text v0.43.0 before Go 1.27). The package is
// tested against the NormalizationTest.txt of that version, every line, for
// NFC and NFKC. Normalization is stable: text normal under one version stays
// normal under later ones, for every character assigned in the first.
//
// Like norm, and as UAX #15 section 13 (the Stream-Safe Text Format)
// advises, a run of more than 30 combining marks is not normal: the normal
// form has U+034F COMBINING GRAPHEME JOINER after every 30 of them. This
// bounds the work and the buffering an attacker can cause with a long run of
// marks.
//
// # PRECIS identifiers
//
// Normalization is not enough for identifiers: "Mike" and "mike", "ｍｉｋｅ"
// (fullwidth) and "mike" are all NFC. The PRECIS framework (RFC 8264) maps an
// identifier to one enforced form, or refuses it. Enforce applies one of
// four profiles, named for configuration files by ParseProfile:
//
//	username_case_mapped     UsernameCaseMapped (RFC 8265): usernames, case-insensitive
//	username_case_preserved  UsernameCasePreserved (RFC 8265): usernames, case-sensitive
//	opaque_string            OpaqueString (RFC 8265): passwords and other secrets
//	nickname                 Nickname (RFC 8266): display names
//
// Enforce returns the enforced form, or a *sanitize.Error with Reason
// sanitize.Precis and, as a best effort, the offset of the first character
// the profile refuses. Compare reports whether two values are the same
// under a profile, and CompareKey returns the key it compares, to index a
// table of accounts by.
//
// # What the profiles do to lookalikes
//
// These are the facts as x/text implements them, pinned by the tests of
// this package; choose a profile knowingly.
//
// UsernameCaseMapped lowercases with Unicode's default mapping, with no
// language tailoring, after mapping fullwidth and halfwidth forms to ordinary
// ones:
//
//	Enforce("MIKE")   = "mike"   same account as "mike" (intended)
//	Enforce("ｍｉｋｅ") = "mike"   same account as "mike" (intended)
//	Enforce("mıke")   = "mıke"   U+0131 DOTLESS I is a lowercase letter of its own:
//	                              Compare("mıke", "mike") is false, no collision
//	Enforce("MİKE")   = "mi̇ke"   U+0130 lowercases to "i" + U+0307: no collision either
//	Enforce("ᴮᴵᴳᴮᴵᴿᴰ") refused    characters with compatibility decompositions are
//	                              not in the IdentifierClass
//	Enforce("mike smith") refused at offset 4 (no spaces in usernames)
//
// So "mıke" and "mike" are two different, valid usernames that look alike:
// PRECIS prevents collisions, not confusables. Where lookalike registrations
// matter, add a confusables check (UTS #39) on top.
//
// Nickname maps non-ASCII spaces to U+0020, trims and collapses spaces, and
// applies NFKC, until the result is stable; its comparison also lowercases:
//
//	Enforce("ᴮᴵᴳᴮᴵᴿᴰ")         = "BIGBIRD"   (U+1D2E U+1D35 U+1D33 U+1D2E U+1D35 U+1D3F U+1D30)
//	CompareKey("ᴮᴵᴳᴮᴵᴿᴰ")      = "bigbird"
//	Compare("ᴮᴵᴳᴮᴵᴿᴰ", "bigbird") = true
//	Enforce("  Big   Bird ")   = "Big Bird"
//
// This is the pattern of the 2013 Spotify account takeover: a name that a
// canonicalization maps onto an existing one. Spotify's bug was a mapping
// that was not idempotent; x/text repeats the Nickname rules until they are
// stable, and Enforce(Enforce(x)) == Enforce(x) is tested. But the collision
// itself is the design of Nickname: if nicknames identify accounts, index
// them by CompareKey and refuse a second registration of the same key; never
// let one value through a check and store another.
//
// OpaqueString keeps case, width and compatibility characters (it only maps
// non-ASCII spaces to U+0020 and applies NFC): "ᴮᴵᴳᴮᴵᴿᴰ" stays as it is.
// UsernameCasePreserved is UsernameCaseMapped without the lowercasing.
//
// Where this package departs from x/text, and other caveats:
//
//   - x/text accepts the empty string under the two username profiles
//     (UsernameCaseMapped.String("") is "" with no error, and
//     UsernameCaseMapped.Compare("", "") is true); RFC 8265 does not allow
//     an empty username or password, and Enforce refuses an empty result
//     under every profile.
//   - x/text reports different errors for the same fault depending on the
//     path: "mike smith" fails as a disallowed character, "mike" + U+3000 +
//     "smith" (an ideographic space, width-mapped to a space) fails the Bidi
//     Rule, because x/text checks the Bidi Rule first on non-ASCII input; and
//     "a" + U+200D fails the Bidi Rule under the username profiles but a
//     contextual rule under OpaqueString. Its error values are mostly
//     unexported. Enforce reports all of them as Reason Precis and looks for
//     the offending character itself.
//   - Enforce validates its input first and returns the validation error for
//     ill-formed UTF-8. x/text does not validate, and its OpaqueString maps
//     every ill-formed octet to U+FFFD and accepts the result: the passwords
//     "pw\xff", "pw\xfe" and "pw" + U+FFFD all enforce to "pw" + U+FFFD and
//     compare equal under precis.OpaqueString.Compare. (The other profiles
//     refuse such input, with a disallowed-character or a Bidi Rule error.)
//   - The profiles are those of x/text's Unicode version (UnicodeVersion); a
//     code point unassigned there is disallowed, even if a later version
//     assigns it.
package normalize
