package sanitize

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

type validateCase struct {
	name   string
	in     string
	reason Reason // 0: valid
	off    int
}

// validateCases pins the reason and offset of each class, grouped by class.
var validateCases = []validateCase{
	// Valid.
	{"empty", "", 0, 0},
	{"ascii", "hello, world", 0, 0},
	{"nul", "\x00", 0, 0},
	{"rfc3629 A<NOT IDENTICAL TO><ALPHA>.", hx("41 E2 89 A2 CE 91 2E"), 0, 0},
	{"rfc3629 korean", hx("ED 95 9C EA B5 AD EC 96 B4"), 0, 0},
	{"rfc3629 japanese", hx("E6 97 A5 E6 9C AC E8 AA 9E"), 0, 0},
	{"rfc3629 BOM+U+233B4", hx("EF BB BF F0 A3 8E B4"), 0, 0},
	{"U+007F", hx("7F"), 0, 0},
	{"U+0080", hx("C2 80"), 0, 0},
	{"U+07FF", hx("DF BF"), 0, 0},
	{"U+0800", hx("E0 A0 80"), 0, 0},
	{"U+0FFF", hx("E0 BF BF"), 0, 0},
	{"U+1000", hx("E1 80 80"), 0, 0},
	{"U+CFFF", hx("EC BF BF"), 0, 0},
	{"U+D000", hx("ED 80 80"), 0, 0},
	{"U+D7FF", hx("ED 9F BF"), 0, 0},
	{"U+E000", hx("EE 80 80"), 0, 0},
	{"U+FFFD", hx("EF BF BD"), 0, 0},
	{"U+FFFF", hx("EF BF BF"), 0, 0},
	{"U+10000", hx("F0 90 80 80"), 0, 0},
	{"U+3FFFF", hx("F0 BF BF BF"), 0, 0},
	{"U+40000", hx("F1 80 80 80"), 0, 0},
	{"U+FFFFF", hx("F3 BF BF BF"), 0, 0},
	{"U+100000", hx("F4 80 80 80"), 0, 0},
	{"U+10FFFF", hx("F4 8F BF BF"), 0, 0},
	{"long mixed", strings.Repeat("aé€😀", 20), 0, 0},

	// Overlong.
	{"design C0 AE", hx("C0 AE"), Overlong, 0},
	{"NUL smuggling C0 80", hx("C0 80"), Overlong, 0},
	{"rfc3629 s10 attack /../", hx("2F C0 AE 2E 2F"), Overlong, 1},
	{"C0 AE then valid", hx("C0 AE") + "abc", Overlong, 0},
	{"C1 80", hx("C1 80"), Overlong, 0},
	{"'/' in 2 octets", hx("C0 AF"), Overlong, 0},
	{"'/' in 3 octets", hx("E0 80 AF"), Overlong, 0},
	{"'/' in 4 octets", hx("F0 80 80 AF"), Overlong, 0},
	{"'/' in 5 octets", hx("F8 80 80 80 AF"), Overlong, 0},
	{"'/' in 6 octets", hx("FC 80 80 80 80 AF"), Overlong, 0},
	{"NUL in 3 octets", hx("E0 80 80"), Overlong, 0},
	{"NUL in 4 octets", hx("F0 80 80 80"), Overlong, 0},
	{"NUL in 5 octets", hx("F8 80 80 80 80"), Overlong, 0},
	{"NUL in 6 octets", hx("FC 80 80 80 80 80"), Overlong, 0},
	{"maximal overlong 2 octets U+007F", hx("C1 BF"), Overlong, 0},
	{"maximal overlong 3 octets U+07FF", hx("E0 9F BF"), Overlong, 0},
	{"maximal overlong 4 octets U+FFFF", hx("F0 8F BF BF"), Overlong, 0},
	{"U+10FFFF in 5 octets", hx("F8 84 8F BF BF"), Overlong, 0},
	{"U+10FFFF in 6 octets", hx("FC 80 84 8F BF BF"), Overlong, 0},
	{"U+D800 in 5 octets", hx("F8 80 8D A0 80"), Overlong, 0},
	{"E0 80 at end", hx("E0 80"), Overlong, 0},
	{"E0 9F then ASCII", hx("E0 9F 41"), Overlong, 0},
	{"F0 8F at end", hx("F0 8F"), Overlong, 0},
	{"F0 80 80 then ASCII", hx("F0 80 80 41"), Overlong, 0},

	// Surrogate.
	{"design ED A0 80", hx("ED A0 80"), Surrogate, 0},
	{"U+DBFF", hx("ED AF BF"), Surrogate, 0},
	{"U+DC00", hx("ED B0 80"), Surrogate, 0},
	{"U+DFFF", hx("ED BF BF"), Surrogate, 0},
	{"CESU-8 pair U+1F600", hx("ED A0 BD ED B8 80"), Surrogate, 0},
	{"CESU-8 pair after text", "ab" + hx("ED A0 BD ED B8 80"), Surrogate, 2},
	{"ED A0 at end", hx("ED A0"), Surrogate, 0},
	{"ED BF then ASCII", hx("ED BF 41"), Surrogate, 0},

	// Out of range.
	{"design F4 90 80 80", hx("F4 90 80 80"), OutOfRange, 0},
	{"F4 BF BF BF", hx("F4 BF BF BF"), OutOfRange, 0},
	{"F4 90 at end", hx("F4 90"), OutOfRange, 0},
	{"F5 80 80 80", hx("F5 80 80 80"), OutOfRange, 0},
	{"F7 BF BF BF", hx("F7 BF BF BF"), OutOfRange, 0},
	{"0x110000 in 5 octets", hx("F8 84 90 80 80"), OutOfRange, 0},
	{"0x110000 in 6 octets", hx("FC 80 84 90 80 80"), OutOfRange, 0},
	{"0x200000, first 5-octet value", hx("F8 88 80 80 80"), OutOfRange, 0},
	{"0x3FFFFFF, last 5-octet value", hx("FB BF BF BF BF"), OutOfRange, 0},
	{"0x7FFFFFFF, last 6-octet value", hx("FD BF BF BF BF BF"), OutOfRange, 0},
	// The maximal overlongs of RFC 2279's 5- and 6-octet forms (Kuhn's
	// test file, 4.2) are above U+10FFFF: classified by value, they are
	// out of range, not overlong.
	{"maximal overlong 5 octets 0x1FFFFF", hx("F8 87 BF BF BF"), OutOfRange, 0},
	{"maximal overlong 6 octets 0x3FFFFFF", hx("FC 83 BF BF BF BF"), OutOfRange, 0},

	// Invalid byte.
	{"design FE", hx("FE"), InvalidByte, 0},
	{"FF", hx("FF"), InvalidByte, 0},
	{"FE FE FF FF", hx("FE FE FF FF"), InvalidByte, 0},
	{"FE after text", "abc" + hx("FE"), InvalidByte, 3},
	{"C0 at end", hx("C0"), InvalidByte, 0},
	{"C1 then ASCII", hx("C1 41"), InvalidByte, 0},
	{"C0 C0", hx("C0 C0"), InvalidByte, 0},
	{"F5 at end", hx("F5"), InvalidByte, 0},
	{"F5 80 80 at end", hx("F5 80 80"), InvalidByte, 0},
	{"F7 80 80 then ASCII", hx("F7 80 80 41"), InvalidByte, 0},
	{"F8 at end", hx("F8"), InvalidByte, 0},
	{"incomplete 5 octets", hx("F8 88 80 80"), InvalidByte, 0},
	{"incomplete 5 octets then ASCII", hx("F8 88 80 80 41"), InvalidByte, 0},
	{"FB 80 80 80", hx("FB 80 80 80"), InvalidByte, 0},
	{"FC at end", hx("FC"), InvalidByte, 0},
	{"incomplete 6 octets", hx("FC 84 80 80 80"), InvalidByte, 0},
	{"incomplete 6 octets then ASCII", hx("FD 80 80 80 80 41"), InvalidByte, 0},

	// Truncated.
	{"design E2 82 at end", hx("E2 82"), Truncated, 0},
	{"E2 82 then ASCII", hx("E2 82 41"), Truncated, 0},
	{"E2 82 then a lead", hx("E2 82 C2 80"), Truncated, 0},
	{"E2 82 then overlong", hx("E2 82 C0 AE"), Truncated, 0},
	{"C2 at end", hx("C2"), Truncated, 0},
	{"C2 then ASCII", hx("C2 41"), Truncated, 0},
	{"DF then space", hx("DF 20"), Truncated, 0},
	{"E0 at end", hx("E0"), Truncated, 0},
	{"E0 A0 at end", hx("E0 A0"), Truncated, 0},
	{"E1 C0", hx("E1 C0"), Truncated, 0},
	{"ED 80 at end", hx("ED 80"), Truncated, 0},
	{"ED 9F then ASCII", hx("ED 9F 41"), Truncated, 0},
	{"EF BF at end", hx("EF BF"), Truncated, 0},
	{"F0 at end", hx("F0"), Truncated, 0},
	{"F0 90 80 at end", hx("F0 90 80"), Truncated, 0},
	{"F1 80 80 then ASCII", hx("F1 80 80 41"), Truncated, 0},
	{"F3 BF then FE", hx("F3 BF FE"), Truncated, 0},
	{"F4 at end", hx("F4"), Truncated, 0},
	{"F4 8F BF at end", hx("F4 8F BF"), Truncated, 0},
	{"euro cut after text", "é" + hx("E2 82"), Truncated, 2},

	// Unexpected continuation.
	{"design 80", hx("80"), UnexpectedContinuation, 0},
	{"BF", hx("BF"), UnexpectedContinuation, 0},
	{"80 80 80", hx("80 80 80"), UnexpectedContinuation, 0},
	{"after ASCII", hx("41 80"), UnexpectedContinuation, 1},
	{"after 2 octets", hx("C2 80 80"), UnexpectedContinuation, 2},
	{"after 3 octets", hx("E2 82 AC 80"), UnexpectedContinuation, 3},
	{"after 4 octets", hx("F0 9F 98 80 BF"), UnexpectedContinuation, 4},
	{"fifth octet of a 4-octet char", hx("F4 8F BF BF BF"), UnexpectedContinuation, 4},

	// Offsets after valid prefixes long enough to cross the ASCII fast path.
	{"overlong after 16 ASCII", strings.Repeat("a", 16) + hx("C0 AE"), Overlong, 16},
	{"overlong after 17 ASCII", strings.Repeat("a", 17) + hx("C0 AE"), Overlong, 17},
	{"surrogate after 31 ASCII", strings.Repeat("a", 31) + hx("ED A0 80"), Surrogate, 31},
	{"truncated after 32 ASCII", strings.Repeat("a", 32) + hx("F0 90 80"), Truncated, 32},
	{"continuation after 33 ASCII", strings.Repeat("a", 33) + hx("80") + strings.Repeat("b", 20), UnexpectedContinuation, 33},
	{"invalid after 100 ASCII", strings.Repeat("a", 100) + hx("FF") + strings.Repeat("b", 100), InvalidByte, 100},
	{"out of range after multibyte", "aé€😀" + hx("F4 90 80 80"), OutOfRange, 10},
	{"overlong after ASCII, multibyte, ASCII", strings.Repeat("x", 20) + "€" + strings.Repeat("y", 20) + hx("C1 81"), Overlong, 43},
	{"first of two errors", strings.Repeat("z", 18) + hx("80") + hx("C0 AE"), UnexpectedContinuation, 18},
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkValidateCase(t, tc)
		})
	}
}

func checkValidateCase(t *testing.T, tc validateCase) {
	t.Helper()
	wantOff := len(tc.in)
	if tc.reason != 0 {
		wantOff = tc.off
	}
	for _, v := range []struct {
		fn  string
		err error
	}{
		{"Validate", Validate([]byte(tc.in))},
		{"ValidateString", ValidateString(tc.in)},
		{"Check(0)", Check([]byte(tc.in), 0)},
		{"CheckString(0)", CheckString(tc.in, 0)},
	} {
		if tc.reason == 0 {
			if v.err != nil {
				t.Errorf("%s(% X) = %v, want nil", v.fn, tc.in, v.err)
			}
			continue
		}
		e, ok := v.err.(*Error)
		if !ok {
			t.Errorf("%s(% X) = %T(%v), want *Error %v at %d", v.fn, tc.in, v.err, v.err, tc.reason, tc.off)
			continue
		}
		if e.Reason != tc.reason || e.Offset != tc.off || e.Class != 0 {
			t.Errorf("%s(% X) = %v at %d (class %v), want %v at %d", v.fn, tc.in, e.Reason, e.Offset, e.Class, tc.reason, tc.off)
		}
	}
	if got := ValidPrefix([]byte(tc.in)); got != wantOff {
		t.Errorf("ValidPrefix(% X) = %d, want %d", tc.in, got, wantOff)
	}
	if got := utf8.ValidString(tc.in); got != (tc.reason == 0) {
		t.Errorf("utf8.ValidString(% X) = %v, disagrees with want %v", tc.in, got, tc.reason)
	}
	if r, off := refValidate([]byte(tc.in)); r != tc.reason || off != wantOff {
		t.Errorf("reference: refValidate(% X) = %v at %d, want %v at %d", tc.in, r, off, tc.reason, wantOff)
	}
}

// TestValidateOffsetSweep moves one malformation of each class through
// every offset 0..40 after ASCII and after multibyte prefixes, with valid
// text after it, so that the error surfaces from every position relative to
// the 16-octet ASCII fast path.
func TestValidateOffsetSweep(t *testing.T) {
	t.Parallel()
	bad := []struct {
		seq    string
		reason Reason
	}{
		{hx("C0 AE"), Overlong},
		{hx("ED A0 80"), Surrogate},
		{hx("F4 90 80 80"), OutOfRange},
		{hx("FE"), InvalidByte},
		{hx("E2 82") + "A", Truncated},
		{hx("80"), UnexpectedContinuation},
	}
	fills := []string{"a", "é", "€", "😀", "ab€"}
	for _, b := range bad {
		for _, fill := range fills {
			for n := 0; n <= 40; n++ {
				prefix := strings.Repeat(fill, n)
				in := prefix + b.seq + strings.Repeat("z", 17)
				for _, err := range []error{Validate([]byte(in)), ValidateString(in)} {
					e, ok := err.(*Error)
					if !ok || e.Reason != b.reason || e.Offset != len(prefix) {
						t.Errorf("Validate(%d×%q + % X + …) = %v, want %v at offset %d", n, fill, b.seq, err, b.reason, len(prefix))
					}
				}
				if got := ValidPrefix([]byte(in)); got != len(prefix) {
					t.Errorf("ValidPrefix(%d×%q + % X + …) = %d, want %d", n, fill, b.seq, got, len(prefix))
				}
				// Valid up to the malformation.
				if err := ValidateString(prefix + strings.Repeat("z", 17)); err != nil {
					t.Errorf("ValidateString(%d×%q + …) = %v, want nil", n, fill, err)
				}
			}
		}
	}
}

func TestValidateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	inputs := []string{"", "hello", strings.Repeat("aé€😀", 100), strings.Repeat("x", 4096)}
	for _, s := range inputs {
		p := []byte(s)
		if n := testing.AllocsPerRun(100, func() {
			if Validate(p) != nil || ValidateString(s) != nil {
				t.Fatal("unexpected error")
			}
		}); n != 0 {
			t.Errorf("Validate(%d octets) allocates %v times, want 0", len(s), n)
		}
	}
}

var allReasons = []Reason{
	Overlong, Surrogate, OutOfRange, InvalidByte, Truncated, UnexpectedContinuation,
	BadEscape, DoubleEncoding, ForbiddenChar, NotNormalized, TooLarge, BadCharset, Precis,
	CanonicalSyntax, UnsupportedMediaType, BadMediaType, KeyCollision, DuplicateKey, ForbiddenTrailer,
	BodyUnreadable, ParsedBeforeCheck, UnsupportedEncoding, SpoolFull, AmbiguousHeader,
}

var allSentinels = []error{
	ErrOverlong, ErrSurrogate, ErrOutOfRange, ErrInvalidByte, ErrTruncated, ErrUnexpectedContinuation,
	ErrBadEscape, ErrDoubleEncoding, ErrForbiddenChar, ErrNotNormalized, ErrTooLarge, ErrBadCharset, ErrPrecis,
	ErrCanonicalSyntax, ErrUnsupportedMediaType, ErrBadMediaType, ErrKeyCollision, ErrDuplicateKey, ErrForbiddenTrailer,
	ErrBodyUnreadable, ErrParsedBeforeCheck, ErrUnsupportedEncoding, ErrSpoolFull, ErrAmbiguousHeader,
}

func TestErrorsIsAs(t *testing.T) {
	t.Parallel()
	for i, r := range allReasons {
		err := error(&Error{Reason: r, Offset: 3})
		wrapped := fmt.Errorf("field %q: %w", "q", err)
		if r.Sentinel() != allSentinels[i] {
			t.Errorf("%v.Sentinel() = %v, want %v", r, r.Sentinel(), allSentinels[i])
		}
		for j, s := range allSentinels {
			if got := errors.Is(wrapped, s); got != (i == j) {
				t.Errorf("errors.Is(%v error, %v) = %v, want %v", r, s, got, i == j)
			}
		}
		var e *Error
		if !errors.As(wrapped, &e) || e.Reason != r || e.Offset != 3 {
			t.Errorf("errors.As(%v) = %v, want the *Error", wrapped, e)
		}
	}
	// The sentinels are distinct.
	for i, s := range allSentinels {
		for j, u := range allSentinels {
			if i != j && errors.Is(s, u) {
				t.Errorf("errors.Is(%v, %v) = true", s, u)
			}
		}
	}
	if Reason(0).Sentinel() != nil || Reason(99).Sentinel() != nil {
		t.Error("Sentinel of a non-reason is not nil")
	}
	// An error from Validate, end to end.
	err := ValidateString("/a" + hx("C0 AE"))
	if !errors.Is(err, ErrOverlong) || errors.Is(err, ErrTruncated) {
		t.Errorf("errors.Is(%v, ErrOverlong/ErrTruncated) wrong", err)
	}
	if errors.Unwrap(&Error{}) != nil {
		t.Error("Unwrap of a zero Error is not nil")
	}
}

func TestErrorText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Reason: Overlong, Offset: 7}, "sanitize: overlong encoding at offset 7"},
		{&Error{Reason: Surrogate}, "sanitize: encoded surrogate at offset 0"},
		{&Error{Reason: OutOfRange, Offset: 1}, "sanitize: code point above U+10FFFF at offset 1"},
		{&Error{Reason: InvalidByte, Offset: 2}, "sanitize: invalid byte at offset 2"},
		{&Error{Reason: Truncated, Offset: 3}, "sanitize: truncated sequence at offset 3"},
		{&Error{Reason: UnexpectedContinuation, Offset: 4}, "sanitize: unexpected continuation byte at offset 4"},
		{&Error{Reason: BadEscape, Offset: 5}, "sanitize: malformed percent-escape at offset 5"},
		{&Error{Reason: DoubleEncoding, Offset: 6}, "sanitize: double percent-encoding at offset 6"},
		{&Error{Reason: ForbiddenChar, Offset: 8, Class: BidiControl}, "sanitize: forbidden character (bidi_control) at offset 8"},
		{&Error{Reason: ForbiddenChar, Offset: 0, Class: BOM | DefaultIgnorable}, "sanitize: forbidden character (bom|default_ignorable) at offset 0"},
		{&Error{Reason: ForbiddenChar, Offset: 9}, "sanitize: forbidden character at offset 9"},
		{&Error{Reason: NotNormalized, Offset: 10}, "sanitize: text not normalized at offset 10"},
		{&Error{Reason: TooLarge, Offset: 11}, "sanitize: over the size limit at offset 11"},
		{&Error{Reason: BadCharset}, "sanitize: charset not UTF-8 at offset 0"},
		{&Error{Reason: Precis, Offset: 12}, "sanitize: disallowed by PRECIS profile at offset 12"},
		{&Error{}, "sanitize: Reason(0) at offset 0"},
		{&Error{Reason: 200, Offset: 1}, "sanitize: Reason(200) at offset 1"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("(%#v).Error() = %q, want %q", *tc.err, got, tc.want)
		}
	}
	if got := ValidateString("abcdefg" + hx("C0 AE")).Error(); got != "sanitize: overlong encoding at offset 7" {
		t.Errorf("ValidateString(\"abcdefg\\xC0\\xAE\").Error() = %q", got)
	}
}

func TestReasonNames(t *testing.T) {
	t.Parallel()
	// The taxonomy names (the README's table), in the order of the Reason constants.
	names := []string{
		"overlong", "surrogate", "out_of_range", "invalid_byte", "truncated",
		"unexpected_continuation", "bad_escape", "double_encoding", "forbidden_char",
		"not_normalized", "too_large", "bad_charset", "precis",
		"canonical_syntax", "unsupported_media_type", "bad_media_type", "key_collision",
		"duplicate_key", "forbidden_trailer", "body_unreadable", "parsed_before_check", "unsupported_encoding",
		"spool_full",
		"ambiguous_header",
	}
	if len(names) != len(allReasons) {
		t.Fatalf("%d names for %d reasons", len(names), len(allReasons))
	}
	for i, r := range allReasons {
		if got := r.String(); got != names[i] {
			t.Errorf("Reason(%d).String() = %q, want %q", int(r), got, names[i])
		}
		got, err := ParseReason(names[i])
		if err != nil || got != r {
			t.Errorf("ParseReason(%q) = %v, %v; want %v", names[i], got, err, r)
		}
	}
	for _, r := range []Reason{0, Reason(len(allReasons) + 1), 255} {
		want := fmt.Sprintf("Reason(%d)", int(r))
		if got := r.String(); got != want {
			t.Errorf("Reason(%d).String() = %q, want %q", int(r), got, want)
		}
	}
	for _, bad := range []string{"", "Overlong", "overlong ", "Reason(1)", "none"} {
		if r, err := ParseReason(bad); err == nil {
			t.Errorf("ParseReason(%q) = %v, nil; want an error", bad, r)
		}
	}
}

// TestShortASCII checks the word test of short inputs: for every length up
// to 80 and every position, one non-ASCII octet there is found (by Valid,
// ValidString, Validate and ValidPrefix, at that offset), and ASCII alone is
// valid.
func TestShortASCII(t *testing.T) {
	for n := 0; n <= 80; n++ {
		short := shortASCII(strings.Repeat("x", n)) || n > 32 && n <= 64 && shortASCII64(strings.Repeat("x", n))
		p := []byte(strings.Repeat("x", n))
		if !Valid(p) || !ValidString(string(p)) || Validate(p) != nil || !short && n >= 8 && n <= 64 {
			t.Fatalf("%d octets of ASCII: not valid", n)
		}
		for at := range n {
			p[at] = 0x80
			if Valid(p) || ValidString(string(p)) || shortASCII(string(p)) || n > 32 && n <= 64 && shortASCII64(string(p)) {
				t.Fatalf("length %d, 80 at %d: valid", n, at)
			}
			if e, ok := Validate(p).(*Error); !ok || e.Offset != at || e.Reason != UnexpectedContinuation {
				t.Fatalf("length %d, 80 at %d: Validate = %v", n, at, Validate(p))
			}
			if k := ValidPrefix(p); k != at {
				t.Fatalf("length %d, 80 at %d: ValidPrefix = %d", n, at, k)
			}
			p[at] = 'x'
		}
	}
}
