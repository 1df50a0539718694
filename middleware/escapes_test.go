package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestCheckEscapes: the JSON escapes and the references a decoder would
// read in a body of another kind, by class; the other syntaxes have tests
// of their own (escapes_syntax_test.go).
func TestCheckEscapes(t *testing.T) {
	t.Parallel()
	strict := sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi
	tests := []struct {
		name   string
		loc    rules.Location
		body   string
		reason string // "" for accepted
		off    int
	}{
		{"bidi escape in text", rules.Body, `{"a":"\u202e"}`, "forbidden_char", 6},
		{"NUL escape in a form", rules.Form, `{"a":"\u0000"}`, "forbidden_char", 6},
		{"upper-case hex", rules.Body, `"x\u202E"`, "forbidden_char", 2},
		{"lone surrogate", rules.Body, `"\ud800"`, "surrogate", 1},
		{"well-formed pair", rules.Body, `"\ud83d\ude00"`, "", 0},
		{"allowed character", rules.Body, `"\u00e9"`, "", 0},
		{"escaped backslash", rules.Body, `"\\u202e"`, "", 0},
		{"escaped backslash then an escape", rules.Body, `"\\\u202e"`, "forbidden_char", 3},
		{"not hex", rules.Body, `C:\users\uZZZZ\b\f`, "", 0},
		{"truncated", rules.Body, `\u20`, "", 0},
		{"xml reference in text", rules.Body, `<a>&#x202E;</a>`, "forbidden_char", 3},
		{"decimal reference", rules.Form, `a=&#133;`, "forbidden_char", 2},
		{"reference to a surrogate", rules.Body, `&#xD800;`, "surrogate", 0},
		{"reference above U+10FFFF", rules.Body, `&#x110000;`, "out_of_range", 0},
		{"allowed reference", rules.Body, `&#233; &amp; &lt;`, "", 0},
		{"xml reference in JSON", rules.JSON, `["<a>&#x202E;</a>"]`, "forbidden_char", 5},
		{"json escape left to jsonbody.Check", rules.JSON, `{"a":"\u202e"}`, "", 0},
		{"json escape in XML", rules.XML, `<a>{"a":"\u202e"}</a>`, "forbidden_char", 9},
		{"reference left to xmlbody.Check", rules.XML, `<a>&#x202E;</a>`, "", 0},
		{"HTML entity for a bidi mark", rules.Body, `<a>x&rlm;</a>`, "forbidden_char", 4},
		{"HTML entity in JSON", rules.JSON, `["<a>x&lrm;</a>"]`, "forbidden_char", 6},
		{"HTML entity in a form", rules.Form, `a=&rlm;`, "forbidden_char", 2},
		{"allowed HTML entities", rules.Body, `&nbsp;&eacute;&frac12;&sup2;&hellip;`, "", 0},
		{"HTML entity without ';'", rules.Body, `&rlm &rlm`, "", 0},
		{"unknown name", rules.Body, `&rlmx; &RLM; &bogus;`, "", 0},
		{"HTML entity left to xmlbody.Check", rules.XML, `<a>&rlm;</a>`, "", 0},
	}
	for _, tt := range tests {
		rj := escape.Check([]byte(tt.body), tt.loc, strict, 0)
		if tt.name == "allowed HTML entities" {
			// &shy;, &zwj;, &zwnj; are default-ignorable: refused only
			// where that class is.
			if rj := escape.Check([]byte(`&shy;`), tt.loc, sanitize.DefaultIgnorable, 0); rj == nil || rj.Offset != 0 {
				t.Errorf("&shy; under DefaultIgnorable: %v, want forbidden_char at 0", rj)
			}
		}
		switch {
		case tt.reason == "" && rj != nil:
			t.Errorf("%s: %v, want accepted", tt.name, rj)
		case tt.reason != "" && (rj == nil || rj.Reason.String() != tt.reason || rj.Offset != tt.off):
			t.Errorf("%s: %v, want %s at %d", tt.name, rj, tt.reason, tt.off)
		}
	}
}

// TestCheckEscapesLinear: a body of nothing but the octets the scan looks
// for ('&', '\\', quotes, "<?", digits) costs one pass; the scan never
// looks for a missing octet again.
func TestCheckEscapesLinear(t *testing.T) {
	t.Parallel()
	for _, body := range []string{strings.Repeat("&", 1<<20), strings.Repeat(`\`, 1<<20), strings.Repeat(`&\x`, 1<<18), strings.Repeat("&amp", 1<<18),
		`"` + strings.Repeat(`\u{`, 1<<18), `"` + strings.Repeat(`\\`, 1<<19), strings.Repeat(`"\"`, 1<<18), strings.Repeat(`'\`, 1<<19),
		"`" + strings.Repeat(`\u{1`, 1<<18), strings.Repeat(`it's \`, 1<<17), strings.Repeat("return'", 1<<17),
		strings.Repeat("<?xml ", 1<<17), strings.Repeat("<?xml?>", 1<<17), strings.Repeat("<?a", 1<<18), "&#" + strings.Repeat("1", 1<<20),
		strings.Repeat("&#x", 1<<18), strings.Repeat("&shy", 1<<18), strings.Repeat("`${", 1<<18) + `\`,
		"`${" + strings.Repeat("{", 1<<20) + `\`, strings.Repeat("`${}", 1<<18) + `\`,
		strings.Repeat(`""\x`, 1<<18), strings.Repeat(`\"`, 1<<19), strings.Repeat("\"\\\n", 1<<18),
		strings.Repeat("'a'\\", 1<<18), strings.Repeat("\\\r\n", 1<<18), "`" + strings.Repeat("${\"\\", 1<<18)} {
		// Refused or not (a reference of a million digits is out of
		// range): a quadratic scan would run for minutes.
		escape.Check([]byte(body), rules.Body, sanitize.NUL, 0)
	}
}
