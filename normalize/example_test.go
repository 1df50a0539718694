package normalize_test

import (
	"errors"
	"fmt"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/sanitize"
)

// NFC.String rewrites text into Normalization Form C. The two spellings of
// "café" become one; text already in NFC comes back as it is, without a
// copy.
func ExampleForm_String() {
	decomposed := "cafe\u0301" // e + COMBINING ACUTE ACCENT
	composed := "caf\u00e9"    // LATIN SMALL LETTER E WITH ACUTE

	fmt.Println(decomposed == composed)
	fmt.Println(normalize.NFC.String(decomposed) == composed)
	fmt.Printf("%+q\n", normalize.NFC.String("\u1100\u1161"))  // Hangul jamo
	fmt.Printf("%+q\n", normalize.NFC.String("\ufb01"))        // NFC keeps the ligature
	fmt.Printf("%+q\n", normalize.NFKC.String("\ufb01"))       // NFKC folds it
	fmt.Printf("%+q\n", normalize.NFC.String("a\u0302\u0323")) // canonical order
	// Output:
	// false
	// true
	// "\uac00"
	// "\ufb01"
	// "fi"
	// "\u1ead"
}

// Check rejects text that is not in the form, with the offset of the first
// character that normalization would change, as a *sanitize.Error.
func ExampleForm_Check() {
	for _, s := range []string{"caf\u00e9", "cafe\u0301", "ab\u212b", "ab\xc0\xaf"} {
		err := normalize.NFC.CheckString(s)
		var e *sanitize.Error
		switch {
		case err == nil:
			fmt.Printf("%+q: NFC\n", s)
		case errors.Is(err, sanitize.ErrNotNormalized) && errors.As(err, &e):
			fmt.Printf("%+q: %s at offset %d\n", s, e.Reason, e.Offset)
		default:
			fmt.Printf("%+q: %v\n", s, err) // ill-formed: never normalized
		}
	}
	// Output:
	// "caf\u00e9": NFC
	// "cafe\u0301": not_normalized at offset 3
	// "ab\u212b": not_normalized at offset 2
	// "ab\xc0\xaf": sanitize: overlong encoding at offset 2
}

// Enforce applies a PRECIS profile to an identifier. UsernameCaseMapped
// lowercases, but keeps the dotless i of "mıke" apart from "mike"; Nickname
// maps the modifier letters of "ᴮᴵᴳᴮᴵᴿᴰ" to "BIGBIRD", which then compares
// equal to "bigbird".
func ExampleEnforce() {
	for _, c := range []struct {
		p normalize.Profile
		s string
	}{
		{normalize.UsernameCaseMapped, "Mike"},
		{normalize.UsernameCaseMapped, "mıke"},
		{normalize.UsernameCaseMapped, "mike smith"},
		{normalize.UsernameCaseMapped, "ᴮᴵᴳᴮᴵᴿᴰ"},
		{normalize.Nickname, "ᴮᴵᴳᴮᴵᴿᴰ"},
		{normalize.Nickname, "  Big   Bird "},
	} {
		out, err := normalize.Enforce(c.p, c.s)
		fmt.Printf("%s %q: %q %v\n", c.p, c.s, out, err)
	}
	fmt.Println(normalize.Compare(normalize.UsernameCaseMapped, "mıke", "mike"))
	fmt.Println(normalize.Compare(normalize.Nickname, "ᴮᴵᴳᴮᴵᴿᴰ", "bigbird"))
	// Output:
	// username_case_mapped "Mike": "mike" <nil>
	// username_case_mapped "mıke": "mıke" <nil>
	// username_case_mapped "mike smith": "" sanitize: disallowed by PRECIS profile at offset 4
	// username_case_mapped "ᴮᴵᴳᴮᴵᴿᴰ": "" sanitize: disallowed by PRECIS profile at offset 0
	// nickname "ᴮᴵᴳᴮᴵᴿᴰ": "BIGBIRD" <nil>
	// nickname "  Big   Bird ": "Big Bird" <nil>
	// false
	// true
}

// Bytes returns its input itself when it is already normal, so a caller can
// tell whether to rewrite a value by comparing slices, without a second
// pass.
func ExampleForm_Bytes() {
	in := []byte("déjà vu")
	out := normalize.NFC.Bytes(in)
	fmt.Println(&out[0] == &in[0])

	in = []byte("de\u0301ja\u0300 vu")
	out = normalize.NFC.Bytes(in)
	fmt.Println(&out[0] == &in[0], string(out) == "déjà vu")
	// Output:
	// true
	// false true
}

// ParseForm reads the name of a form from a configuration file.
func ExampleParseForm() {
	f, err := normalize.ParseForm("nfc")
	fmt.Println(f == normalize.NFC, err)
	_, err = normalize.ParseForm("nfd")
	fmt.Println(err)
	// Output:
	// true <nil>
	// normalize: unknown normalization form "nfd"
}

// UnicodeVersion is the version of the tables, for logs and README.
func ExampleUnicodeVersion() {
	fmt.Println(normalize.UnicodeVersion)
	// Output: 15.0.0
}
