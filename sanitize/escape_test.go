package sanitize

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

const (
	path    = EscapePath
	segment = EscapePathSegment
	query   = EscapeQuery
	refuse  = RefuseDoubleEncoding
)

var modeNames = map[EscapeMode]string{
	path: "path", segment: "segment", query: "query",
	path | refuse: "path|refuse", segment | refuse: "segment|refuse", query | refuse: "query|refuse",
}

func (m EscapeMode) testName() string {
	if s, ok := modeNames[m]; ok {
		return s
	}
	return fmt.Sprintf("EscapeMode(%#x)", uint8(m))
}

var allModes = []EscapeMode{path, segment, query, path | refuse, segment | refuse, query | refuse}

type unescapeCase struct {
	in    string
	modes []EscapeMode
	want  string // the decoded value, on success and for a UTF-8 reason
	err   Error  // zero: nil
}

func badEscape(off int) Error      { return Error{Reason: BadEscape, Offset: off} }
func doubleEncoding(off int) Error { return Error{Reason: DoubleEncoding, Offset: off} }

var (
	pathModes    = []EscapeMode{path, segment, path | refuse, segment | refuse}
	queryModes   = []EscapeMode{query, query | refuse}
	noRefuse     = []EscapeMode{path, segment, query}
	refuseModes  = []EscapeMode{path | refuse, segment | refuse, query | refuse}
	everyModeSet = allModes
)

var unescapeCases = []unescapeCase{
	// Nothing to decode.
	{"", everyModeSet, "", Error{}},
	{"abc", everyModeSet, "abc", Error{}},
	{"/a/b;c=d", everyModeSet, "/a/b;c=d", Error{}},
	{"café", everyModeSet, "café", Error{}},

	// Escapes, in either case.
	{"%41", everyModeSet, "A", Error{}},
	{"%41%42c", everyModeSet, "ABc", Error{}},
	{"a%2fb", everyModeSet, "a/b", Error{}},
	{"a%2Fb", everyModeSet, "a/b", Error{}},
	{"%e2%82%ac", everyModeSet, "€", Error{}},
	{"%E2%82%AC", everyModeSet, "€", Error{}},
	{"caf%C3%A9", everyModeSet, "café", Error{}},
	{"%00", everyModeSet, "\x00", Error{}},
	{"%2e%2E", everyModeSet, "..", Error{}},

	// '+' is a space in a query only.
	{"a+b", pathModes, "a+b", Error{}},
	{"a+b", queryModes, "a b", Error{}},
	{"++", queryModes, "  ", Error{}},
	{"%2B", everyModeSet, "+", Error{}},
	{"a%2bb+c", queryModes, "a+b c", Error{}},

	// Bad escapes: the offset, into the decoded value, of where the '%'
	// would decode (the octets decoded before it); dst unextended.
	{"%", everyModeSet, "", badEscape(0)},
	{"%2", everyModeSet, "", badEscape(0)},
	{"%zz", everyModeSet, "", badEscape(0)},
	{"%G0", everyModeSet, "", badEscape(0)},
	{"%0g", everyModeSet, "", badEscape(0)},
	{"%u002e", everyModeSet, "", badEscape(0)},
	{"%U002E", everyModeSet, "", badEscape(0)},
	{"a%", everyModeSet, "", badEscape(1)},
	{"ab%2", everyModeSet, "", badEscape(2)},
	{"%41%", everyModeSet, "", badEscape(1)},
	{"%41%zz%41", everyModeSet, "", badEscape(1)},
	{"a+b%", queryModes, "", badEscape(3)},
	{"%%41", everyModeSet, "", badEscape(0)},
	{"% 41", everyModeSet, "", badEscape(0)},
	{"%+41", everyModeSet, "", badEscape(0)},
	{"%C0%A", everyModeSet, "", badEscape(1)},   // bad escape before the overlong is seen
	{"%C0%AE%", everyModeSet, "", badEscape(2)}, // and after: the escapes are checked first

	// Double encoding.
	{"%252e", noRefuse, "%2e", Error{}},
	{"%252e", refuseModes, "", doubleEncoding(0)},
	{"%252E", refuseModes, "", doubleEncoding(0)},
	{"x%252Fy", refuseModes, "", doubleEncoding(1)},
	{"%25%32%65", noRefuse, "%2e", Error{}},
	{"%25%32%65", refuseModes, "", doubleEncoding(0)},
	{"%25%32e", refuseModes, "", doubleEncoding(0)},
	{"%252%65", refuseModes, "", doubleEncoding(0)},
	{"%2525", noRefuse, "%25", Error{}},
	{"%2525", refuseModes, "", doubleEncoding(0)},
	{"%252525", refuseModes, "", doubleEncoding(0)},
	{"a/%2541", refuseModes, "", doubleEncoding(2)},
	{"%25zz", everyModeSet, "%zz", Error{}},
	{"%25", everyModeSet, "%", Error{}},
	{"a%25", everyModeSet, "a%", Error{}},
	{"%25a", everyModeSet, "%a", Error{}},
	{"%25%25", everyModeSet, "%%", Error{}},
	{"%25%7A%41", everyModeSet, "%zA", Error{}}, // %7A is 'z', not a hex digit
	{"%25+2e", queryModes, "% 2e", Error{}},     // '+' is a space, not a hex digit
	{"%25+2e", []EscapeMode{path, segment}, "%+2e", Error{}},
	{"%25+2e", []EscapeMode{path | refuse, segment | refuse}, "%+2e", Error{}},
	{"%25%2", everyModeSet, "", badEscape(1)},
	{"%25%zz", everyModeSet, "", badEscape(1)},

	// The offsets of BadEscape and DoubleEncoding count decoded octets, as
	// every other reason's do: an escape before the offending one counts
	// one octet, not three, and a multi-octet character its octets.
	{"%41%41%zz", everyModeSet, "", badEscape(2)},
	{"%41%41%4", everyModeSet, "", badEscape(2)},
	{"%41%41%", everyModeSet, "", badEscape(2)},
	{"%41%41%4g", everyModeSet, "", badEscape(2)},
	{"%C3%A9%zz", everyModeSet, "", badEscape(2)},                // é is two octets
	{"caf%C3%A9%", everyModeSet, "", badEscape(5)},               // "café" decoded first
	{"%E2%82%AC%F0%9F%98%80%G1", everyModeSet, "", badEscape(7)}, // € and 😀: 3 + 4
	{"é%zz", everyModeSet, "", badEscape(2)},                     // literal, not escaped: the same count
	{"a+%C3%A9+%u00e9", queryModes, "", badEscape(5)},            // '+' is one octet, decoded
	{"/strict/%41%41/%252F", refuseModes, "", doubleEncoding(11)},
	{"/strict/%41%41/%25%32%46", refuseModes, "", doubleEncoding(11)},
	{"%C3%A9%252e", refuseModes, "", doubleEncoding(2)},
	{"%E2%82%AC+%25%32%65", refuseModes, "", doubleEncoding(4)},
	{"%C3%A9%25%32%zz", everyModeSet, "", badEscape(4)}, // "%25%32" decodes to "%2" first

	// UTF-8 errors after decoding: the offset into the decoded value, and
	// the decoded value appended to dst.
	{"ab%C0%AE", everyModeSet, "ab" + hx("C0 AE"), Error{Reason: Overlong, Offset: 2}},
	{"%2F%C0%AE%2E%2F", everyModeSet, "/" + hx("C0 AE") + "./", Error{Reason: Overlong, Offset: 1}},
	{"%C0%80", everyModeSet, hx("C0 80"), Error{Reason: Overlong}},
	{"%E2%82", everyModeSet, hx("E2 82"), Error{Reason: Truncated}},
	{"%ED%A0%80", everyModeSet, hx("ED A0 80"), Error{Reason: Surrogate}},
	{"%F4%90%80%80", everyModeSet, hx("F4 90 80 80"), Error{Reason: OutOfRange}},
	{"%41%42%FF", everyModeSet, "AB" + hx("FF"), Error{Reason: InvalidByte, Offset: 2}},
	{"x%80", everyModeSet, "x" + hx("80"), Error{Reason: UnexpectedContinuation, Offset: 1}},
	{"a+%C0%AE", queryModes, "a " + hx("C0 AE"), Error{Reason: Overlong, Offset: 2}},
	{"%E2" + hx("82"), everyModeSet, hx("E2 82"), Error{Reason: Truncated}},
	{"raw" + hx("C0 AE"), everyModeSet, "raw" + hx("C0 AE"), Error{Reason: Overlong, Offset: 3}},
	{strings.Repeat("%61", 20) + "%FE", everyModeSet, strings.Repeat("a", 20) + hx("FE"), Error{Reason: InvalidByte, Offset: 20}},
}

func TestAppendUnescape(t *testing.T) {
	t.Parallel()
	for _, tc := range unescapeCases {
		for _, mode := range tc.modes {
			t.Run(fmt.Sprintf("%s/%q", mode.testName(), tc.in), func(t *testing.T) {
				t.Parallel()
				checkUnescape(t, tc, mode)
			})
		}
	}
}

func checkUnescape(t *testing.T, tc unescapeCase, mode EscapeMode) {
	t.Helper()
	const prefix = "dst:"
	// With and without room in dst.
	for _, dst := range [][]byte{[]byte(prefix), append(make([]byte, 0, 256), prefix...)} {
		got, err := AppendUnescape(dst, tc.in, mode)
		e, ok := asError(err)
		if !ok || e != tc.err {
			t.Errorf("AppendUnescape(%q, %q, %s) error = %v, want %+v", prefix, tc.in, mode.testName(), err, tc.err)
		}
		// The dst contract: unextended on BadEscape and DoubleEncoding,
		// extended with the decoded value otherwise.
		want := prefix + tc.want
		if e.Reason == BadEscape || e.Reason == DoubleEncoding {
			want = prefix
		}
		if string(got) != want {
			t.Errorf("AppendUnescape(%q, %q, %s) = %q, want %q", prefix, tc.in, mode.testName(), got, want)
		}
	}
	// Unescape: the decoded value, "" on BadEscape and DoubleEncoding.
	got, err := Unescape(tc.in, mode)
	if e, ok := asError(err); !ok || e != tc.err {
		t.Errorf("Unescape(%q, %s) error = %v, want %+v", tc.in, mode.testName(), err, tc.err)
	}
	want := tc.want
	if tc.err.Reason == BadEscape || tc.err.Reason == DoubleEncoding {
		want = ""
	}
	if got != want {
		t.Errorf("Unescape(%q, %s) = %q, want %q", tc.in, mode.testName(), got, want)
	}
	// Agreement with net/url on what it accepts, without RefuseDoubleEncoding.
	if mode&refuse == 0 {
		urlUnescape := url.PathUnescape
		if mode == query {
			urlUnescape = url.QueryUnescape
		}
		u, uerr := urlUnescape(tc.in)
		switch {
		case uerr != nil && tc.err.Reason != BadEscape:
			t.Errorf("net/url refuses %q (%v), the case expects %v", tc.in, uerr, tc.err)
		case uerr == nil && u != tc.want:
			t.Errorf("net/url decodes %q as %q, the case expects %q", tc.in, u, tc.want)
		}
	}
}

// TestEscapedOffset checks EscapedOffset on its own, and as the way back
// from the offset of every BadEscape and DoubleEncoding of unescapeCases
// to the offending escape in the escaped text: s[:at] decodes to exactly
// Offset octets, and s[at] is the '%'.
func TestEscapedOffset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s       string
		off, at int
	}{
		{"", 0, 0},
		{"", 3, 0},
		{"abc", 0, 0},
		{"abc", 2, 2},
		{"abc", 3, 3},
		{"abc", 9, 3},
		{"%41%41%zz", 2, 6},
		{"%41%41%zz", 3, 7}, // a bad '%' counts one octet
		{"%C3%A9/%252F", 2, 6},
		{"%C3%A9/%252F", 3, 7},
		{"a+b%2", 3, 3},
		{"%4", 1, 1},
		{"%%41", 1, 1},
		{"%%41", 2, 4},
		{"é%41", 2, 2},
		{"é%41", 3, 5},
	} {
		if got := EscapedOffset(tc.s, tc.off); got != tc.at {
			t.Errorf("EscapedOffset(%q, %d) = %d, want %d", tc.s, tc.off, got, tc.at)
		}
	}
	for _, tc := range unescapeCases {
		if tc.err.Reason != BadEscape && tc.err.Reason != DoubleEncoding {
			continue
		}
		for _, mode := range tc.modes {
			at := EscapedOffset(tc.in, tc.err.Offset)
			if at >= len(tc.in) || tc.in[at] != '%' {
				t.Errorf("%s %q: EscapedOffset(%d) = %d, not a '%%'", mode.testName(), tc.in, tc.err.Offset, at)
				continue
			}
			dec, err := AppendUnescape(nil, tc.in[:at], mode&^refuse)
			if err != nil && (err.(*Error).Reason == BadEscape || err.(*Error).Reason == DoubleEncoding) || len(dec) != tc.err.Offset {
				t.Errorf("%s %q: %q before the escape decodes to %d octets (%v), the offset is %d", mode.testName(), tc.in, tc.in[:at], len(dec), err, tc.err.Offset)
			}
		}
	}
}

// TestAppendUnescapeAllocs is not parallel: AllocsPerRun refuses to run in a
// parallel test.
func TestAppendUnescapeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	buf := make([]byte, 0, 256)
	for _, tc := range unescapeCases {
		if tc.err != (Error{}) {
			continue
		}
		for _, mode := range tc.modes {
			if n := testing.AllocsPerRun(100, func() {
				var err error
				buf, err = AppendUnescape(buf[:0], tc.in, mode)
				if err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("AppendUnescape(buf[:0], %q, %s) allocates %v times with a reused buffer, want 0", tc.in, mode.testName(), n)
			}
		}
	}
}

// TestUnescapeReturnsInput: with nothing to decode, Unescape returns s
// itself, validated, without allocating.
func TestUnescapeReturnsInput(t *testing.T) {
	for _, tc := range []struct {
		s     string
		modes []EscapeMode
	}{
		{"abc", allModes},
		{"/a/b/café", allModes},
		{"a+b", pathModes},
		{strings.Repeat("€x", 100), allModes},
	} {
		for _, mode := range tc.modes {
			got, err := Unescape(tc.s, mode)
			if err != nil || got != tc.s || unsafeStringData(got) != unsafeStringData(tc.s) {
				t.Errorf("Unescape(%q, %s) = %q, %v; want s itself", tc.s, mode.testName(), got, err)
			}
			if raceEnabled {
				continue // the race detector allocates on its own
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = Unescape(tc.s, mode) }); n != 0 {
				t.Errorf("Unescape(%q, %s) allocates %v times, want 0", tc.s, mode.testName(), n)
			}
		}
	}
	// Nothing to decode but not valid: s itself and the UTF-8 error.
	bad := "a" + hx("C0 AE")
	got, err := Unescape(bad, path)
	if e, _ := asError(err); got != bad || e != (Error{Reason: Overlong, Offset: 1}) {
		t.Errorf("Unescape(%q, path) = %q, %v; want s and overlong at 1", bad, got, err)
	}
	// '+' in a query must be decoded.
	if got, err := Unescape("a+b", query); got != "a b" || err != nil {
		t.Errorf("Unescape(\"a+b\", query) = %q, %v", got, err)
	}
}

// keptByRFC3986 is what AppendEscape keeps, from RFC 3986 section 2 and 3.3:
//
//	unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
//	sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
//	pchar      = unreserved / pct-encoded / sub-delims / ":" / "@"
//
// with '/' in a path, and unreserved only in a query (a space is '+').
func keptByRFC3986(c byte, mode EscapeMode) bool {
	unreserved := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
	subDelim := c != 0 && strings.IndexByte("!$&'()*+,;=", c) >= 0
	pchar := unreserved || subDelim || c == ':' || c == '@'
	switch mode &^ refuse {
	case path:
		return pchar || c == '/'
	case segment:
		return pchar
	default:
		return unreserved
	}
}

func TestAppendEscapeKeeps(t *testing.T) {
	t.Parallel()
	for _, mode := range allModes {
		for c := range 256 {
			s := string([]byte{byte(c)})
			got := string(AppendEscape(nil, s, mode))
			want := fmt.Sprintf("%%%02X", c)
			switch {
			case keptByRFC3986(byte(c), mode):
				want = s
			case c == ' ' && mode&^refuse == query:
				want = "+"
			}
			if got != want {
				t.Errorf("AppendEscape(nil, %q, %s) = %q, want %q", s, mode.testName(), got, want)
			}
			if esc := Escape(s, mode); esc != want {
				t.Errorf("Escape(%q, %s) = %q, want %q", s, mode.testName(), esc, want)
			}
		}
	}
}

func TestAppendEscape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		mode EscapeMode
		want string
	}{
		{"", path, ""},
		{"/a b/c", path, "/a%20b/c"},
		{"/~user/a+b:c@d!$&'()*,;=", path, "/~user/a+b:c@d!$&'()*,;="},
		{"a/b", segment, "a%2Fb"},
		{"a?b#c", path, "a%3Fb%23c"},
		{"100%", path, "100%25"},
		{"%2e", path, "%252e"},
		{"café", path, "caf%C3%A9"},
		{"日本", segment, "%E6%97%A5%E6%9C%AC"},
		{"[::1]", path, "%5B::1%5D"},
		{"a b", query, "a+b"},
		{"a+b", query, "a%2Bb"},
		{"a&b=c", query, "a%26b%3Dc"},
		{"-._~", query, "-._~"},
		{"/:@!*", query, "%2F%3A%40%21%2A"},
		{"\x00\x7F\xFF", query, "%00%7F%FF"},
	} {
		if got := string(AppendEscape([]byte("dst:"), tc.in, tc.mode)); got != "dst:"+tc.want {
			t.Errorf("AppendEscape(\"dst:\", %q, %s) = %q, want %q", tc.in, tc.mode.testName(), got, "dst:"+tc.want)
		}
		if got := Escape(tc.in, tc.mode); got != tc.want {
			t.Errorf("Escape(%q, %s) = %q, want %q", tc.in, tc.mode.testName(), got, tc.want)
		}
		if tc.mode == query {
			if u := url.QueryEscape(tc.in); u != tc.want {
				t.Errorf("url.QueryEscape(%q) = %q, Escape gives %q", tc.in, u, tc.want)
			}
		}
	}
}

// TestEscapeReturnsInput is not parallel: AllocsPerRun refuses to run in a
// parallel test.
func TestEscapeReturnsInput(t *testing.T) {
	for _, tc := range []struct {
		s     string
		modes []EscapeMode
	}{
		{"", allModes},
		{"abc-._~", allModes},
		{"/a/b:c@d;e=f", []EscapeMode{path}},
		{"a:b@c;d=e", []EscapeMode{path, segment}},
	} {
		for _, mode := range tc.modes {
			got := Escape(tc.s, mode)
			if got != tc.s || unsafeStringData(got) != unsafeStringData(tc.s) {
				t.Errorf("Escape(%q, %s) = %q, want s itself", tc.s, mode.testName(), got)
			}
			if raceEnabled {
				continue // the race detector allocates on its own
			}
			if n := testing.AllocsPerRun(100, func() { _ = Escape(tc.s, mode) }); n != 0 {
				t.Errorf("Escape(%q, %s) allocates %v times, want 0", tc.s, mode.testName(), n)
			}
		}
	}
	if raceEnabled {
		return
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendEscape(buf[:0], "a b/c?d=é", query) }); n != 0 {
		t.Errorf("AppendEscape with room in dst allocates %v times, want 0", n)
	}
}

// roundTripInputs are valid UTF-8 strings that exercise every kind of octet.
var roundTripInputs = []string{
	"", "abc", "a b", "a+b", "a/b", "a%b", "%2e", "%25", "%252e", "100%", "%zz",
	"/a b/c?d=e&f#g", "café", "日本語", "😀", "\x00\x01\x7F", "\t\n\r",
	"!$&'()*+,;=:@/?#[]", "\uFEFF\u202E\uFFFD", "%41%42", "%%%", "+ +",
	strings.Repeat("€ %2F+", 30),
}

func TestEscapeRoundTrip(t *testing.T) {
	t.Parallel()
	allOctets := make([]byte, 0, 128)
	for c := range 128 {
		allOctets = append(allOctets, byte(c))
	}
	inputs := append(roundTripInputs, string(allOctets))
	for _, s := range inputs {
		for _, mode := range allModes {
			enc := AppendEscape(nil, s, mode)
			dec, err := AppendUnescape(nil, string(enc), mode)
			wantErr := Error{}
			if mode&refuse != 0 {
				if off := percentHexHex(s); off >= 0 {
					// Escaping "%2e" gives "%252e": a double encoding,
					// at the '%' of s, which is the decoded value.
					wantErr = doubleEncoding(off)
				}
			}
			if e, ok := asError(err); !ok || e != wantErr {
				t.Errorf("AppendUnescape(%q, %s) (escaped from %q) error = %v, want %+v", enc, mode.testName(), s, err, wantErr)
				continue
			}
			if wantErr == (Error{}) && string(dec) != s {
				t.Errorf("AppendUnescape(AppendEscape(%q, %s)) = %q, want it back", s, mode.testName(), dec)
			}
		}
	}
}

// percentHexHex returns the offset of the first '%' in s followed by two
// hexadecimal digits, or -1.
func percentHexHex(s string) int {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			return i
		}
	}
	return -1
}

func isHexDigit(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }

func TestUnescapeErrors(t *testing.T) {
	t.Parallel()
	_, err := AppendUnescape(nil, "a%zz", path)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrBadEscape) || e.Offset != 1 {
		t.Errorf("AppendUnescape(\"a%%zz\") = %v, want bad_escape at 1", err)
	}
	if got := err.Error(); got != "sanitize: malformed percent-escape at offset 1" {
		t.Errorf("Error() = %q", got)
	}
	_, err = Unescape("a%252e", path|refuse)
	if !errors.Is(err, ErrDoubleEncoding) || err.Error() != "sanitize: double percent-encoding at offset 1" {
		t.Errorf("Unescape(\"a%%252e\", path|refuse) = %v", err)
	}
	got, err := Unescape("a%C0%AE", query)
	if !errors.Is(err, ErrOverlong) || got != "a\xC0\xAE" || ToValidString(got) != "a\uFFFD\uFFFD" {
		t.Errorf("Unescape(\"a%%C0%%AE\", query) = %q, %v; want the decoded value to repair and overlong", got, err)
	}
}

// TestUnescapeDigits tries every octet as either digit of an escape: only
// the 22 hexadecimal digits make one, of the value they spell.
func TestUnescapeDigits(t *testing.T) {
	for c := range 256 {
		d := byte(c)
		want := -1
		switch {
		case '0' <= d && d <= '9':
			want = int(d - '0')
		case 'a' <= d && d <= 'f':
			want = int(d-'a') + 10
		case 'A' <= d && d <= 'F':
			want = int(d-'A') + 10
		}
		for _, s := range []string{"%" + string(d) + "0", "%0" + string(d)} {
			got, err := AppendUnescape(nil, s, EscapeQuery)
			if want < 0 {
				var e *Error
				if !errors.As(err, &e) || e.Reason != BadEscape || e.Offset != 0 || len(got) != 0 {
					t.Errorf("AppendUnescape(%q) = %q, %v; want BadEscape at 0", s, got, err)
				}
				continue
			}
			v := byte(want) // the second digit
			if s[1] == d {
				v <<= 4 // the first
			}
			// A single octet from 80 on is not UTF-8: decoded all the
			// same, with an encoding error rather than BadEscape.
			var e *Error
			if len(got) != 1 || got[0] != v || err != nil && (v < 0x80 || !errors.As(err, &e) || e.Reason == BadEscape) {
				t.Errorf("AppendUnescape(%q) = %q, %v; want %q", s, got, err, v)
			}
		}
	}
}

// TestUnescapeShortInvalid checks that a short decoded value, which
// utf8.Valid vouches for first, is diagnosed as a long one is: the same
// reason at the same offset, whatever its length around shortDecoded.
func TestUnescapeShortInvalid(t *testing.T) {
	for _, bad := range []string{"%FF", "%C0%AF", "%ED%A0%80", "%F4%90%80%80", "%E2%82", "%80", "%C3", "%EF%BF%BE"} {
		for pad := range shortDecoded + 4 {
			s := strings.Repeat("a", pad) + bad
			got, err := AppendUnescape([]byte("x"), s, EscapeQuery)
			dec, _ := Unescape(s, EscapePath) // no '+': the same octets
			want := Validate([]byte(dec))
			if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
				t.Errorf("AppendUnescape(%q): %v, want %v", s, err, want)
			}
			if string(got) != "x"+dec {
				t.Errorf("AppendUnescape(%q) = %q, want %q", s, got[1:], dec)
			}
		}
	}
}
