package middleware

import (
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestEscapeScanReadsYAMLBinary: a YAML binary scalar is base64 that
// yaml.v3 decodes into a string whatever its octets; its decoded octets
// are held to the body's classes and to UTF-8, in every body checked as
// text, at the offset of the tag. "4oCu" is U+202E, "wK4=" the overlong
// C0 AE, "aGVsbG8=" "hello".
func TestEscapeScanReadsYAMLBinary(t *testing.T) {
	t.Parallel()
	runEscapeCases(t, []escapeCase{
		{name: "plain", body: "a: !!binary 4oCu", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "overlong", body: "a: !!binary wK4=", reason: "overlong", off: 3},
		{name: "quoted", body: `a: !!binary "4oCu"`, reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "block", body: "a: !!binary |\n  4o\n  Cu\nb: 1", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "verbatim tag", body: "a: !<tag:yaml.org,2002:binary> 4oCu", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "a %TAG handle", body: "%TAG !x! tag:yaml.org,2002:\n---\na: !x!binary 4oCu", reason: "forbidden_char", off: 35, class: sanitize.BidiControl},
		{name: "in a sequence", body: "- !!binary wp0=", reason: "forbidden_char", off: 2, class: sanitize.C1},
		{name: "in a JSON body", loc: rules.JSON, body: `{"a": !!binary "4oCu"}`, reason: "forbidden_char", off: 6, class: sanitize.BidiControl},
		{name: "a comment after", body: "a: !!binary 4oCu # c", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "in a flow mapping", body: "{a: !!binary 4oCu, b: 1}", reason: "forbidden_char", off: 4, class: sanitize.BidiControl},
		{name: "an anchor after the tag", body: "a: !!binary &x 4oCu\n", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "the scalar on the next line", body: "a:\n  !!binary\n  4oCu\n", reason: "forbidden_char", off: 5, class: sanitize.BidiControl},
		{name: "a %TAG prefix that starts the tag", body: "%TAG !x! tag:yaml.org,2002:bi\n---\na: !x!nary 4oCu\n", reason: "forbidden_char", off: 37, class: sanitize.BidiControl},
		{name: "the secondary handle remapped", body: "%TAG !! tag:yaml.org,2002:bin\n---\na: !!ary 4oCu\n", reason: "forbidden_char", off: 37, class: sanitize.BidiControl},
		{name: "a percent-encoded verbatim tag", body: "a: !<tag:yaml.org,2002:%62inary> 4oCu\n", reason: "forbidden_char", off: 3, class: sanitize.BidiControl},
		{name: "text", body: "a: !!binary aGVsbG8=\nb: !!binary |\n  aGVs\n  bG8=\nc: 1"},
		{name: "not base64", body: "a: !!binary ~~~"},
		{name: "the word in prose", body: "a binary file, !binary-ish: 4oCu"},
		{name: "the next key is not the scalar", body: "a: !!binary aGVsbG8=\nb: 4oCu"},
	})
}
