package middleware

import (
	"encoding/json"
	"html"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// FuzzEscapeScan: the scan never panics, and a text whose octets pass the
// strict preset's body classes and whose escapes pass the scan decodes,
// by html.UnescapeString and, when it is JSON, by encoding/json, to no
// character of those classes.
func FuzzEscapeScan(f *testing.F) {
	for _, s := range []string{
		`a: "x\0y"`, `a: "\x85\N"`, `a: "\U0000202E"`, `a: "\e[31m"`, `{"path":"C:\build\files"}`,
		`{ a(x: "\u{202E}evil") }`, `"\u{0}"`, `"\u{9B}31m"`, `"\u{0000202e}"`, `"\x9b"`, `'\0'`, `"\33"`, `"\205"`,
		`&#x202e `, `&#8238 `, `&#27`, `&#x8D`, `&#X202E;`, `&#0;`, `&#x10000202E;`, `&ZeroWidthSpace;`, `&shyx`,
		`<?xml version="1.0" encoding="shift_jis"?>`, `it's C:\2024\x64\files`, `{"a":["\ud83d\ude00","\u00e9"]}`,
		"`\\x1b ${'\\x85'}`", `return'\x85'`, `"\\\x85"`,
	} {
		f.Add([]byte(s))
	}
	forbid := rules.Strict().Body.Forbid &^ sanitize.BOM
	f.Fuzz(func(t *testing.T, body []byte) {
		rj := escape.Check(body, rules.Body, forbid, 0)
		if rj != nil {
			if rj.Offset < 0 || rj.Offset >= len(body) {
				t.Fatalf("offset %d out of %d octets", rj.Offset, len(body))
			}
			return
		}
		if sanitize.Check(body, forbid) != nil {
			return
		}
		if s := html.UnescapeString(string(body)); sanitize.CheckString(s, forbid) != nil {
			t.Errorf("passed, and html.UnescapeString reads %+q", s)
		}
		var v any
		if json.Unmarshal(body, &v) == nil {
			if s, _ := json.Marshal(v); sanitize.CheckString(jsonStrings(v), forbid) != nil {
				t.Errorf("passed, and encoding/json reads %s", s)
			}
		}
	})
}

// jsonStrings returns the strings of a decoded JSON value, keys included,
// one after another.
func jsonStrings(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		s := ""
		for _, e := range v {
			s += jsonStrings(e) + " "
		}
		return s
	case map[string]any:
		s := ""
		for k, e := range v {
			s += k + " " + jsonStrings(e) + " "
		}
		return s
	}
	return ""
}
