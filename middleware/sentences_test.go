package middleware_test

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// sentences reads the corpus of testdata/sentences/strict-accepts.txt: one
// sentence a line, as the body of a Go string literal.
func sentences(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../testdata/sentences/strict-accepts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := strconv.Unquote(`"` + line + `"`)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no sentences")
	}
	return out
}

// jsonEscapeAll writes s as the content of a JSON string with every
// character outside printable ASCII as a \u escape (a surrogate pair
// above U+FFFF), as some clients send text.
func jsonEscapeAll(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7F:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonRaw writes s as the content of a JSON string, as UTF-8, with only
// the escapes JSON requires.
func jsonRaw(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestStrictAcceptsSentences: real sentences, right-to-left ones with
// their bidi marks, Persian and Indic ones with ZWNJ and ZWJ, CJK, Thai,
// Hangul, emoji sequences, flags and tag sequences, a textarea's CRLF,
// pass the strict preset unchanged wherever a value is: the handler reads
// them as sent, on every adapter and mount of the conformance harness.
func TestStrictAcceptsSentences(t *testing.T) {
	t.Parallel()
	none := map[string]string{}
	for i, s := range sentences(t) {
		vals := url.Values{"t": {s}}
		var cases []confCase
		if !strings.ContainsAny(s, "\r\n") { // Strict refuses line breaks in URLs
			cases = append(cases, confCase{name: "query", target: "/api/e?t=" + url.QueryEscape(s),
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Query: vals}})
		}
		form := vals.Encode()
		mp := mpBody("t", s)
		raw := `{"t":"` + jsonRaw(s) + `"}`
		esc := `{"t":"` + jsonEscapeAll(s) + `"}`
		cases = append(cases,
			confCase{name: "form", method: "POST", target: "/api/e", ct: "application/x-www-form-urlencoded", body: form,
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: form, Form: vals}},
			confCase{name: "multipart", method: "POST", target: "/api/e", ct: ctMP, body: mp,
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: mp, Form: vals}},
			confCase{name: "json", method: "POST", target: "/api/e", ct: "application/json", body: raw,
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: raw}},
			confCase{name: "json escaped", method: "POST", target: "/api/e", ct: "application/json", body: esc,
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: esc}},
			confCase{name: "text", method: "POST", target: "/api/e", ct: "text/plain; charset=utf-8", body: s,
				status: 200, reads: &confReads{Path: "/api/e", Params: none, Body: s}},
		)
		for _, tc := range cases {
			t.Run(strconv.Itoa(i)+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				t.Logf("%+q", s)
				tc.runAll(t, func(tg confTarget) *confResult { return tc.run(t, tg) })
			})
		}
	}
}
