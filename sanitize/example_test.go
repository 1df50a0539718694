package sanitize_test

import (
	"errors"
	"fmt"

	"github.com/utf8guard/utf8guard/sanitize"
)

func ExampleValidate() {
	// RFC 3629 section 10: "/../" with its '.' written as the overlong C0 AE.
	p := []byte("/\xC0\xAE./")
	err := sanitize.Validate(p)
	fmt.Println(err)

	var e *sanitize.Error
	if errors.As(err, &e) {
		fmt.Println(e.Reason, e.Offset)
	}
	fmt.Println(errors.Is(err, sanitize.ErrOverlong))
	fmt.Println(sanitize.Validate([]byte("日本語")))
	// Output:
	// sanitize: overlong encoding at offset 1
	// overlong 1
	// true
	// <nil>
}

func ExampleValidateString() {
	for _, s := range []string{
		"caf\u00e9",      // valid
		"\xED\xA0\x80",   // U+D800 encoded in UTF-8
		"ab\xF4\x90\x80", // above U+10FFFF
		"€\xE2\x82",      // cut short at the end
		"a\x80",          // continuation where a character starts
	} {
		fmt.Printf("%+q: %v\n", s, sanitize.ValidateString(s))
	}
	// Output:
	// "caf\u00e9": <nil>
	// "\xed\xa0\x80": sanitize: encoded surrogate at offset 0
	// "ab\xf4\x90\x80": sanitize: code point above U+10FFFF at offset 2
	// "\u20ac\xe2\x82": sanitize: truncated sequence at offset 3
	// "a\x80": sanitize: unexpected continuation byte at offset 1
}

func ExampleToValid() {
	// Each maximal subpart becomes one U+FFFD: F0 80 80 is three of them,
	// E2 82 before 'A' is one.
	fmt.Printf("%+q\n", sanitize.ToValid([]byte("\xF0\x80\x80")))
	fmt.Printf("%+q\n", sanitize.ToValid([]byte("\xE2\x82A")))

	// Valid input comes back as is: no copy.
	p := []byte("héllo")
	fmt.Println(&sanitize.ToValid(p)[0] == &p[0])
	// Output:
	// "\ufffd\ufffd\ufffd"
	// "\ufffdA"
	// true
}

func ExampleAppendUnescape() {
	buf := make([]byte, 0, 64) // reused: no allocation per value
	for _, tc := range []struct {
		s    string
		mode sanitize.EscapeMode
	}{
		{"caf%C3%A9+au+lait", sanitize.EscapeQuery},
		{"/files/a+b", sanitize.EscapePath},
		{"/files/%zz", sanitize.EscapePath},
		{"/files/%252e%252e/", sanitize.EscapePath},
		{"/files/%252e%252e/", sanitize.EscapePath | sanitize.RefuseDoubleEncoding},
		{"/files/%C0%AE%C0%AE/", sanitize.EscapePath},
	} {
		var err error
		buf, err = sanitize.AppendUnescape(buf[:0], tc.s, tc.mode)
		fmt.Printf("%q %v\n", buf, err)
	}
	// Output:
	// "café au lait" <nil>
	// "/files/a+b" <nil>
	// "" sanitize: malformed percent-escape at offset 7
	// "/files/%2e%2e/" <nil>
	// "" sanitize: double percent-encoding at offset 7
	// "/files/\xc0\xae\xc0\xae/" sanitize: overlong encoding at offset 7
}

func ExampleEscapedOffset() {
	// The offset of a bad escape counts decoded octets: "é" is two.
	s := "caf%C3%A9-%zz"
	_, err := sanitize.AppendUnescape(nil, s, sanitize.EscapeQuery)
	var e *sanitize.Error
	if errors.As(err, &e) {
		at := sanitize.EscapedOffset(s, e.Offset)
		fmt.Println(e.Reason, e.Offset, at, s[at:])
	}
	// Output:
	// bad_escape 6 10 %zz
}

func ExampleAppendEscape() {
	s := "a b/c?d=é"
	for _, mode := range []sanitize.EscapeMode{
		sanitize.EscapePath, sanitize.EscapePathSegment, sanitize.EscapeQuery,
	} {
		enc := sanitize.AppendEscape(nil, s, mode)
		dec, err := sanitize.AppendUnescape(nil, string(enc), mode)
		fmt.Println(string(enc), string(dec) == s, err)
	}
	// Output:
	// a%20b/c%3Fd=%C3%A9 true <nil>
	// a%20b%2Fc%3Fd=%C3%A9 true <nil>
	// a+b%2Fc%3Fd%3D%C3%A9 true <nil>
}

func ExampleCheck() {
	// Trojan Source: a RIGHT-TO-LEFT OVERRIDE hidden in a string.
	p := []byte("user\u202E \u2066// admin")
	err := sanitize.Check(p, sanitize.NUL|sanitize.C0|sanitize.Bidi)
	fmt.Println(err)

	var e *sanitize.Error
	if errors.As(err, &e) {
		fmt.Println(e.Reason, e.Offset, e.Class)
	}

	// A BOM is refused at offset 0 only; elsewhere U+FEFF is default-ignorable.
	fmt.Println(sanitize.Check([]byte("\uFEFFid"), sanitize.BOM))
	fmt.Println(sanitize.Check([]byte("id\uFEFF"), sanitize.BOM))
	// Output:
	// sanitize: forbidden character (bidi_control) at offset 4
	// forbidden_char 4 bidi_control
	// sanitize: forbidden character (bom) at offset 0
	// <nil>
}

func ExampleValid() {
	fmt.Println(sanitize.Valid([]byte("café")))
	fmt.Println(sanitize.Valid([]byte("caf\xC3")))    // cut short
	fmt.Println(sanitize.ValidString("\xED\xA0\x80")) // a surrogate
	// Output:
	// true
	// false
	// false
}
