package jsonbody

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// jsonSamples are bodies for the comparison of checkJSONText, with its fast
// path, with the scanner alone: clean ones the fast path takes, and ones it
// must leave to the scanner.
var jsonSamples = []string{
	`{}`, `[]`, `""`, `{"a":1}`, `{"name":"Zoë","tags":["café","日本語","😀"]}`,
	"{\n\t\"a\": \"b\",\n\t\"c\": [1, 2]\n}", // TAB and LF between members
	"{\"a\":\"x\ty\"}",                       // a raw TAB in a string
	"{\"a\":\"\x00\"}", "{\"a\x01\":1}", "{\"a\":\"\u0085\"}", "{\"a\":\"\u202e\"}",
	"{\"a\":\"\u200b\"}", "{\"a\":\"\ufeff\"}", "{\"a\":\"x\ufeff\"}", "\ufeff{\"a\":1}",
	"{\"a\":\"\ue000\"}", "{\"a\":\"\ufdd0\"}", "{\"a\":\"\x7f\"}",
	`{"a":"\u0000"}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\\"}`, `{"a":"\""}`,
	`[[[[[[[[[[1]]]]]]]]]]`, `{"a":"[[[[[[[[[["}`, `{"a":"]]]]]]]]]]","b":[[[[[[1]]]]]]}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\xc0\xae\"}", "{\"a\":\"\xed\xa0\x80\"}", `{"a":`,
	`{"a":"` + strings.Repeat("Привет мир, 你好世界. ", 40) + `"}`,
	`{"a":"` + strings.Repeat("x", 100) + "\x01" + `"}`,
	`[` + strings.Repeat(`{"k":"v"},`, 30) + `{}]`,
}

// TestJSONFastPath checks that checkJSONText, which skips the scanner when a
// few SIMD passes show the body clean, answers exactly as the scanner
// does: the same body, the same rejection (reason, offset, class, field),
// for every sample, mutations of them, every set of classes of the
// presets and others, depth limits around the nesting, with and without
// repair.
func TestJSONFastPath(t *testing.T) {
	t.Parallel()
	forbids := []sanitize.Class{
		0, sanitize.NUL, sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi,
		sanitize.NUL | sanitize.C0 | sanitize.TabNewline | sanitize.C1 | sanitize.Bidi | sanitize.BOM,
		sanitize.BOM, sanitize.DefaultIgnorable, sanitize.AllClasses,
		sanitize.PrivateUse | sanitize.Noncharacter | sanitize.DEL,
	}
	bodies := append([]string(nil), jsonSamples...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range sweep(3000) {
		b := []byte(jsonSamples[rng.IntN(len(jsonSamples))])
		for range 1 + rng.IntN(3) {
			if len(b) == 0 {
				break
			}
			const octets = "\\\"{}[]\x00\t\x01\x7f\xc2\x85\xe2\x80\xae\xef\xbb\xbfa"
			b[rng.IntN(len(b))] = octets[rng.IntN(len(octets))]
		}
		bodies = append(bodies, string(b))
	}
	fast := 0
	for _, body := range bodies {
		for _, forbid := range forbids {
			for _, depth := range []int{-1, 0, 1, 5, 10, 64} {
				for _, repair := range []bool{false, true} {
					c := &rules.Check{On: true, Forbid: forbid, Repair: repair}
					gotBody, gotRj := checkJSONText([]byte(body), c, depth)
					wantBody, wantRj := scanJSON([]byte(body), c, depth)
					if jsonClean([]byte(body), forbid, depth) {
						fast++
					}
					if string(gotBody) != string(wantBody) || describe(gotRj) != describe(wantRj) {
						t.Fatalf("%+q forbid %v depth %d repair %v:\n got %q %s\nwant %q %s",
							body, forbid, depth, repair, gotBody, describe(gotRj), wantBody, describe(wantRj))
					}
				}
			}
		}
	}
	t.Logf("%d bodies x %d class sets x 6 depths x 2: %d took the fast path", len(bodies), len(forbids), fast)
	if fast == 0 {
		t.Error("the fast path was never taken")
	}
}

// TestJSONRefusesEscapesJSONDoesNotHave: in a JSON or JSON-lines body, an
// escape that is not JSON's, and a backslash outside a string, are
// bad_escape at the escape with the string's pointer; JSON's own pass.
func TestJSONRefusesEscapesJSONDoesNotHave(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(rules.Strict())
	for _, tc := range []struct {
		body, ptr string
		off       int
	}{
		{`{"a":"x\0y"}`, "/a", 7},
		{`{"a":["ok","\x85"]}`, "/a/1", 12},
		{`{"a":"\N"}`, "/a", 6},
		{`{"a":"\e[31m"}`, "/a", 6},
		{`{"k\U0000202E":1}`, `/k\x5cU0000202E`, 3}, // a member named whole, as the body has it
		{`{"a":"\u{202E}"}`, "/a", 6},
		{`{"a":"\u00"}`, "/a", 6},
		{`{"a":"\x"}`, "/a", 6},
		{`{"a":1} \x85`, "", 8},
		{`['\x85']`, "/0", 2},
		{`{"a":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, "", -1},
	} {
		_, rj := checkJSON([]byte(tc.body), p)
		switch {
		case tc.off < 0 && rj != nil && rj.Reason == sanitize.BadEscape:
			t.Errorf("%s: %v, want no bad_escape", tc.body, rj)
		case tc.off >= 0 && (rj == nil || rj.Reason != sanitize.BadEscape || rj.Field != tc.ptr || rj.Offset != tc.off):
			t.Errorf("%s: %+v, want bad_escape at %q, %d", tc.body, rj, tc.ptr, tc.off)
		}
	}
	// JSON lines: the pointer starts with the line's index.
	body := []byte("{\"a\":\"ok\"}\n{\"b\":\"x\\0y\"}\n")
	if _, rj := CheckLines(body, p); rj == nil || rj.Reason != sanitize.BadEscape || rj.Field != "/1/b" || rj.Offset != 18 {
		t.Errorf("JSON lines: %+v, want bad_escape at /1/b, 18", rj)
	}
}
