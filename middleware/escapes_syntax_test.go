package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// escapeCase is a body the escape scan reads at loc under the strict
// preset's classes for loc (or forbid, when set): refused for reason at
// off with class, or passed when reason is "".
type escapeCase struct {
	name   string
	loc    rules.Location
	body   string
	reason string
	off    int
	class  sanitize.Class
	forbid sanitize.Class
}

func runEscapeCases(t *testing.T, cases []escapeCase) {
	t.Helper()
	strict := compiled.Compile(rules.Strict())
	for _, tc := range cases {
		loc := tc.loc
		if loc == 0 {
			loc = rules.Body
		}
		forbid := tc.forbid
		if forbid == 0 {
			forbid = strict.Location(loc).Forbid
		}
		rj := escape.Check([]byte(tc.body), loc, forbid, 0)
		switch {
		case tc.reason == "" && rj != nil:
			t.Errorf("%s: %q: %v, want passed", tc.name, tc.body, rj)
		case tc.reason != "" && rj == nil:
			t.Errorf("%s: %q passed, want %s at %d", tc.name, tc.body, tc.reason, tc.off)
		case tc.reason != "" && (rj.Reason.String() != tc.reason || rj.Offset != tc.off || tc.class != 0 && rj.Class != tc.class):
			t.Errorf("%s: %q: %s at %d (%v), want %s at %d (%v)", tc.name, tc.body, rj.Reason, rj.Offset, rj.Class, tc.reason, tc.off, tc.class)
		}
	}
}

// TestEscapeScanReadsYAMLEscapes: YAML 1.2's double-quoted escapes, in
// every body checked as text, inside a double-quoted run.
func TestEscapeScanReadsYAMLEscapes(t *testing.T) {
	t.Parallel()
	runEscapeCases(t, []escapeCase{
		{name: "\\0", body: `a: "x\0y"`, reason: "forbidden_char", off: 5, class: sanitize.NUL},
		{name: "\\x85 then \\N", body: `a: "\x85\N"`, reason: "forbidden_char", off: 4, class: sanitize.C1},
		{name: "\\N", body: `a: "ok\N"`, reason: "forbidden_char", off: 6, class: sanitize.C1},
		{name: "\\U", body: `a: "\U0000202E"`, reason: "forbidden_char", off: 4, class: sanitize.BidiControl},
		{name: "\\e", body: `a: "\e[31m"`, reason: "forbidden_char", off: 4, class: sanitize.C0},
		{name: "\\a", body: `a: "\a"`, reason: "forbidden_char", off: 4, class: sanitize.C0},
		{name: "\\v", body: `a: "\v"`, reason: "forbidden_char", off: 4, class: sanitize.C0},
		{name: "\\U out of range", body: `a: "\U00110000"`, reason: "out_of_range", off: 4},
		{name: "\\U surrogate", body: `a: "\U0000DC00"`, reason: "surrogate", off: 4},
		{name: "over lines", body: "a: \"one\n  two \\e\"", reason: "forbidden_char", off: 14, class: sanitize.C0},
		{name: "in a form value", loc: rules.Form, body: `a=a: "x\0y"&b=c`, reason: "forbidden_char", off: 7, class: sanitize.NUL},
		{name: "in a multipart part", loc: rules.Multipart, body: `a: "\e[31m"`, reason: "forbidden_char", off: 4, class: sanitize.C0},
		{name: "in an XML body", loc: rules.XML, body: `<a>a: "\N"</a>`, reason: "forbidden_char", off: 7, class: sanitize.C1},
		{name: "plain escapes", body: `a: "tab\there\nnbsp\_ \"q\" \\ \/ \x41\u00e9\U0001F600 \ "`},
		{name: "outside quotes", body: `a: x\0y \e[31m`},
		{name: "single-quoted YAML is JavaScript's too", body: `a: 'x\0y'`, reason: "forbidden_char", off: 5, class: sanitize.NUL},
	})
}

// TestEscapeScanReadsJSONControlLetters: JSON's \b and \f are U+0008 and
// U+000C where a JSON decoder reads them, in a double-quoted run; a
// Windows path in prose holds no escape.
func TestEscapeScanReadsJSONControlLetters(t *testing.T) {
	t.Parallel()
	runEscapeCases(t, []escapeCase{
		{name: "\\b in a string", body: `{"path":"C:\build\files"}`, reason: "forbidden_char", off: 11, class: sanitize.C0},
		{name: "\\f in a string", body: `"\f"`, reason: "forbidden_char", off: 1, class: sanitize.C0},
		{name: "\\b in a form", loc: rules.Form, body: `a="\b"`, reason: "forbidden_char", off: 3, class: sanitize.C0},
		{name: "paths in prose", body: `Files in C:\build\files, C:\2024\x64\files and \\server\share\new.`},
		{name: "escaped backslashes", body: `{"path":"C:\\build\\files\\2024\\x64"}`},
	})
}

// TestEscapeScanReadsGraphQLAndJavaScriptEscapes: \u{...}, \xHH and the
// legacy octal escapes, in JavaScript's three kinds of string literal and
// GraphQL's strings.
func TestEscapeScanReadsGraphQLAndJavaScriptEscapes(t *testing.T) {
	t.Parallel()
	runEscapeCases(t, []escapeCase{
		{name: "GraphQL \\u{}", body: `{ a(x: "\u{202E}evil") }`, reason: "forbidden_char", off: 8, class: sanitize.BidiControl},
		{name: "\\u{0}", body: `"\u{0}"`, reason: "forbidden_char", off: 1, class: sanitize.NUL},
		{name: "\\u{9B}", body: `"\u{9B}31m"`, reason: "forbidden_char", off: 1, class: sanitize.C1},
		{name: "leading zeros", body: `"\u{0000202e}"`, reason: "forbidden_char", off: 1, class: sanitize.BidiControl},
		{name: "\\u{110000}", body: `"\u{110000}"`, reason: "out_of_range", off: 1},
		{name: "many digits", body: `"\u{FFFFFFFFFFFFFFFFFFFF}"`, reason: "out_of_range", off: 1},
		{name: "\\u{D800}", body: `"\u{D800}"`, reason: "surrogate", off: 1},
		{name: "a pair in braces", body: `"\u{D83D}\u{DE00}"`},
		{name: "\\x9b", body: `"\x9b"`, reason: "forbidden_char", off: 1, class: sanitize.C1},
		{name: "'\\0'", body: `x = '\0'`, reason: "forbidden_char", off: 5, class: sanitize.NUL},
		{name: "\\33", body: `"\33"`, reason: "forbidden_char", off: 1, class: sanitize.C0},
		{name: "\\205", body: `"\205"`, reason: "forbidden_char", off: 1, class: sanitize.C1},
		{name: "template literal", body: "s = `\\x1b[31m`", reason: "forbidden_char", off: 5, class: sanitize.C0},
		{name: "after return", body: `return'\x85'`, reason: "forbidden_char", off: 7, class: sanitize.C1},
		{name: "octal LF in single quotes", body: `'\012'`},
		{name: "octal in double quotes is YAML's NUL too", body: `"\012"`, reason: "forbidden_char", off: 1, class: sanitize.NUL},
		{name: "\\8 is a digit", body: `'\8\9'`},
		{name: "a quoted Windows path", body: `'C:\2024'`, reason: "forbidden_char", off: 3, class: sanitize.C1},
		{name: "an apostrophe opens no run", body: `it's in C:\2024\x64\files`},
		{name: "a single-quoted run ends at a line end", body: "'abc\n\\x85'"},
		{name: "an unclosed run runs to the end", body: `say "hi \x85`, reason: "forbidden_char", off: 8, class: sanitize.C1},
		{name: "an escaped backslash", body: `"\\x85"`},
		{name: "an escaped backslash, then an escape", body: `"\\\x85"`, reason: "forbidden_char", off: 3, class: sanitize.C1},
		{name: "an escaped quote", body: `"a\"\x85"`, reason: "forbidden_char", off: 4, class: sanitize.C1},
		{name: "a template in a substitution", body: "`a ${`\\x85`} b`", reason: "forbidden_char", off: 6, class: sanitize.C1},
		{name: "a string in a substitution", body: "`a ${f(\"\\x85\")} b`", reason: "forbidden_char", off: 8, class: sanitize.C1},
		{name: "braces in a substitution", body: "`${ {a: 1}[`\\x85`] }`", reason: "forbidden_char", off: 12, class: sanitize.C1},
		{name: "after a substitution", body: "`${x} \\x85`", reason: "forbidden_char", off: 6, class: sanitize.C1},
		{name: "code in a substitution is not a run", body: "`${a \\x85 b}`"},
		{name: "a dollar alone", body: "`cost: $5 \\n`"},
		{name: "normal escapes", body: "var a = \"\\n\", b = '\\t\\u00e9', c = `template ${x}\\u{1F600}`;"},
	})
}

// TestEscapeScanReadsHTMLReferences: numeric references without ';' and
// with 'X', Windows-1252's C1 holes, NUL, and the named table with its
// legacy names, as html.UnescapeString reads them, anywhere.
func TestEscapeScanReadsHTMLReferences(t *testing.T) {
	t.Parallel()
	invisible := sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi | sanitize.DefaultIgnorable
	runEscapeCases(t, []escapeCase{
		{name: "hex without ';'", body: `<p>&#x202e </p>`, reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "decimal without ';'", body: `a &#8238 b`, reason: "forbidden_char", off: 2, class: sanitize.BidiControl},
		{name: "ESC at the end", body: `a&#27`, reason: "forbidden_char", off: 1, class: sanitize.C0},
		{name: "a C1 hole of Windows-1252", body: `&#x8D`, reason: "forbidden_char", off: 0, class: sanitize.C1},
		{name: "upper-case X", body: `<a title="&#X202E;">`, reason: "forbidden_char", off: 10, class: sanitize.BidiControl},
		{name: "a value that wraps around", body: `&#x10000202E;`, reason: "forbidden_char", off: 0, class: sanitize.BidiControl},
		{name: "XML reads &#x80; as U+0080", body: `&#x80;`, reason: "forbidden_char", off: 0, class: sanitize.C1},
		{name: "HTML alone reads &#X80; and &#x80 as €", body: `&#X80; &#x80 &#128 &#x9f`},
		{name: "XML reads &#0; as NUL", body: `&#0;`, reason: "forbidden_char", off: 0, class: sanitize.NUL},
		{name: "HTML reads &#0 as U+FFFD", body: `&#0 &#00`},
		{name: "ZeroWidthSpace", body: `&ZeroWidthSpace;`, forbid: invisible, reason: "forbidden_char", off: 0, class: sanitize.DefaultIgnorable},
		{name: "NoBreak", body: `x&NoBreak;`, forbid: invisible, reason: "forbidden_char", off: 1, class: sanitize.DefaultIgnorable},
		{name: "InvisibleTimes", body: `&InvisibleTimes;`, forbid: invisible, reason: "forbidden_char", off: 0, class: sanitize.DefaultIgnorable},
		{name: "shy without ';'", body: `&shyx`, forbid: invisible, reason: "forbidden_char", off: 0, class: sanitize.DefaultIgnorable},
		{name: "rlm", body: `&rlm;`, forbid: sanitize.BidiMark, reason: "forbidden_char", off: 0, class: sanitize.BidiMark},
		{name: "lrm without ';' is no reference", body: `&lrm &lrmx`, forbid: sanitize.BidiMark},
		{name: "strict allows the marks", body: `&lrm;&rlm;`},
		{name: "plain references", body: `&amp; &amp &nbsp; &nbsp &copy; &#233; &eacute; &lt;p&gt; AT&T`, forbid: invisible},
	})
}

// TestEscapeScanReadsXMLDeclarations: an XML declaration naming an encoding
// an XML decoder would switch to, in a body of any type.
func TestEscapeScanReadsXMLDeclarations(t *testing.T) {
	t.Parallel()
	decl := `<?xml version="1.0" encoding="shift_jis"?><a/>`
	at := strings.Index(decl, "shift_jis")
	runEscapeCases(t, []escapeCase{
		{name: "text", body: decl, reason: "bad_charset", off: at},
		{name: "later in a text", body: "see:\n" + decl, reason: "bad_charset", off: 5 + at},
		{name: "JSON", loc: rules.JSON, body: `["<?xml version='1.0' encoding='latin1'?>"]`, reason: "bad_charset", off: 32},
		{name: "form", loc: rules.Form, body: `a=<?xml version="1.0" encoding="utf-16"?>`, reason: "bad_charset", off: 32},
		{name: "multipart", loc: rules.Multipart, body: decl, reason: "bad_charset", off: at},
		{name: "UTF-8", body: `<?xml version="1.0" encoding="UTF-8"?><a/>`},
		{name: "US-ASCII in an ASCII body", body: `<?xml version="1.0" encoding="us-ascii"?><a/>`},
		{name: "no encoding", body: `<?xml version="1.0"?><a/>`},
		{name: "never closed", body: `<?xml version="1.0" encoding="shift_jis"`},
		{name: "left to xmlbody.Check", loc: rules.XML, body: decl},
	})
}

// TestFormEscapesReadDecodedValues: the escapes of a form's keys and
// values as r.FormValue returns them, percent-decoded, and as runs of
// their own; a form with nothing escaped that could hide one is not
// decoded at all.
func TestFormEscapesReadDecodedValues(t *testing.T) {
	t.Parallel()
	strict := compiled.Compile(rules.Strict())
	for _, tc := range []struct {
		raw, field, reason string
		off                int
	}{
		{`a=%22%5Ce%5B31m%22`, "a", "forbidden_char", 1},
		{`x=1&a=%26%23x202E%3B`, "a", "forbidden_char", 0},
		{`a="&b="\x85"`, "b", "forbidden_char", 1},
		{`%22%5C0%22=1`, `"\x5c0"`, "forbidden_char", 1}, // the field as the log writes it
		{`a=%3C%3Fxml+version%3D%221.0%22+encoding%3D%22latin1%22%3F%3E`, "a", "bad_charset", 30},
		{`a=%22C%3A%5Cnew%22&b=caf%C3%A9&c=C:\2024\x64`, "", "", 0},
		{`a=%5Cu202e`, "", "", 0}, // a backslash outside a run is text
		{`a=caf%C3%A9%2C+ok&b=%40`, "", "", 0},
	} {
		s := getScratch()
		rj := s.pairs.CheckFormEscapes(tc.raw, strict.FormMode, &strict.Form)
		putScratch(s)
		switch {
		case tc.reason == "" && rj != nil:
			t.Errorf("%q: %v, want passed", tc.raw, rj)
		case tc.reason != "" && (rj == nil || rj.Reason.String() != tc.reason || rj.Field != tc.field || rj.Offset != tc.off):
			t.Errorf("%q: %+v, want %s in %q at %d", tc.raw, rj, tc.reason, tc.field, tc.off)
		}
	}
}

// TestEscapeScanResistsStrayQuotes: a quote that a syntax does not take
// for a delimiter (in a comment, a regular expression, a plain or block
// YAML scalar, a YAML single-quoted scalar over lines, a GraphQL block
// string) does not hide the escape of a string literal after it, and a
// JavaScript line continuation of backslash, CR and LF does not end a
// single-quoted string.
func TestEscapeScanResistsStrayQuotes(t *testing.T) {
	t.Parallel()
	forbid := rules.Strict().Body.Forbid
	for _, body := range []string{
		"# say \"\nb: \"\\x85\"\n",
		"a: 'foo\n \" bar'\nb: \"\\x85\"\n",
		"a: 5\" x\nb: \"\\x85\"\n",
		"a: |\n  he said \"\nb: \"\\x85\"\n",
		"// say \"\nvar s = \"\\x85\";\n",
		"/* \" */ var s = \"\\x85\";\n",
		"var r = /\"/; var s = \"\\x85\";\n",
		"var s = 'a\\\r\n\\x85';\n",
		"var s = `a\n\" ${1}\n`; var t = \"\\x85\";\n",
		"# \"\n{ a(x: \"\\u{202E}\") }",
		"{ a(x: \"\"\"a\"b\"\"\", y: \"\\u{202E}\") }",
		"// it's\nvar s = '\\x85';\n",
		"a: 'it''s \" here'\nb: \"\\x85\"\n",
		"var r = /'/; var s = '\\x85';\n",
		"var r = /`/; var s = `\\x85`;\n",
		"# \"\n{ a(x: \"\\u{202E}\") }\r\n",
		"var s = 'a' + `b ${c} \\x85`;\n",
		"var s = `${\"{\"} \\x85`;\n",
	} {
		if rj := escape.Check([]byte(body), rules.Body, forbid, 0); rj == nil {
			t.Errorf("%q: accepted, want refused", body)
		}
	}
	// Quotes that pair up on a line leave its backslashes outside them as
	// text, an apostrophe is no quote, a template's substitution is code,
	// and a single-quoted string does not reach the next line but through
	// a continuation.
	for _, body := range []string{
		"# say \"hi\"\nFiles in C:\\2024\\x64\\files and C:\\build\\files\n",
		"He said \"stop\" at C:\\build\\files, and 'no' at \\\\server\\share\\new.\n",
		"It's in C:\\build\\files; don't move it.\n",
		"var t = `${a \\x85 b}`;\n",
		"a: 'abc\n\\x85'\n",
	} {
		if rj := escape.Check([]byte(body), rules.Body, forbid, 0); rj != nil {
			t.Errorf("%q: %v, want passed", body, rj)
		}
	}
}
