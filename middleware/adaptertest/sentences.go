package adaptertest

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
)

// sentencesRows are real sentences (testdata/sentences/strict-accepts.txt),
// right-to-left ones with their bidi marks, Persian and Indic ones with ZWNJ
// and ZWJ, CJK, Thai, Hangul, emoji sequences, flags and tag sequences, a
// textarea's CRLF, wherever a value is: each passes the strict preset
// unchanged, and the handler reads it as sent.
func sentencesRows() ([]row, error) {
	dir, err := testdata()
	if err != nil {
		return nil, err
	}
	sentences, err := readSentences(filepath.Join(dir, "sentences", "strict-accepts.txt"))
	if err != nil {
		return nil, err
	}
	none := map[string]string{}
	var rows []row
	for i, s := range sentences {
		n := strconv.Itoa(i) + "/"
		vals := url.Values{"t": {s}}
		if !strings.ContainsAny(s, "\r\n") { // Strict refuses line breaks in URLs
			rows = append(rows, row{name: n + "query", target: "/api/e?t=" + url.QueryEscape(s),
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Query: vals}})
		}
		form := vals.Encode()
		mp := mpBody("t", s)
		raw := `{"t":"` + jsonRaw(s) + `"}`
		esc := `{"t":"` + jsonEscapeAll(s) + `"}`
		rows = append(rows,
			row{name: n + "form", method: "POST", target: "/api/e", ct: "application/x-www-form-urlencoded", body: form,
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: form, Form: vals}},
			row{name: n + "multipart", method: "POST", target: "/api/e", ct: ctMP, body: mp,
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: mp, Form: vals}},
			row{name: n + "json", method: "POST", target: "/api/e", ct: "application/json", body: raw,
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: raw}},
			row{name: n + "json escaped", method: "POST", target: "/api/e", ct: "application/json", body: esc,
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: esc}},
			row{name: n + "text", method: "POST", target: "/api/e", ct: "text/plain; charset=utf-8", body: s,
				status: 200, reads: &Reads{Path: "/api/e", Params: none, Body: s}},
		)
	}
	return rows, nil
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
