package decoders

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAcceptedBodiesDecodeToNothingTheStrictPresetRefuses sends each
// hostile body to every server. A refused request passes: its handler
// never ran. An accepted one passes only if no decoder read, from the
// body, a form value, or a part's headers and contents, a character the
// strict preset refuses in values. The reason of a refusal is not
// asserted: only that nothing refused reaches a decoder.
func TestAcceptedBodiesDecodeToNothingTheStrictPresetRefuses(t *testing.T) {
	servers := startServers(t)
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			// One line per finding, naming every server that accepted the
			// request and whose handler's decoder read it.
			var order []string
			by := map[string][]string{}
			for _, s := range servers {
				res := post(t, s, c.contentType, []byte(c.body))
				if !res.ran {
					if res.status < 400 || res.status >= 500 {
						t.Errorf("%s: handler did not run, yet status %d is no refusal: %s", s.name, res.status, res.answer)
					}
					continue
				}
				for _, f := range res.findings {
					k := f.String()
					if by[k] == nil {
						order = append(order, k)
					}
					by[k] = append(by[k], fmt.Sprintf("%s (%d)", s.name, res.status))
				}
			}
			for _, k := range order {
				t.Errorf("case %q accepted by %s, and %s", c.name, strings.Join(by[k], ", "), k)
			}
		})
	}
}

// TestCleanDocumentsAreAcceptedAndDecodeClean sends ordinary documents
// (YAML, package.json, JavaScript, GraphQL, HTML, right-to-left text, a
// Windows path, a browser's upload) to every server: each must be accepted
// (200, the handler ran) and read clean by every decoder.
func TestCleanDocumentsAreAcceptedAndDecodeClean(t *testing.T) {
	servers := startServers(t)
	for _, c := range cleanCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range servers {
				res := post(t, s, c.contentType, []byte(c.body))
				if !res.ran || res.status != http.StatusOK {
					t.Errorf("case %q, server %s: refused with status %d, want 200: %s", c.name, s.name, res.status, strings.TrimSpace(res.answer))
					continue
				}
				for _, f := range res.findings {
					t.Errorf("case %q, server %s: %s", c.name, s.name, f)
				}
			}
		})
	}
}

// TestOracleReadsWhatEachDecoderReads runs the handler alone, without
// middleware, on bodies each of which one decoder turns into a refused
// character: it proves the oracle is not blind, so that a case the
// servers accept without findings is clean, not unseen.
func TestOracleReadsWhatEachDecoderReads(t *testing.T) {
	for _, tc := range []struct {
		contentType, body string
		decoder, char     string
	}{
		{"text/yaml", `a: "\x85"`, "yaml.v3", "U+0085"},
		{"text/yaml", `a: !!binary 4oCu`, "yaml.v3", "U+202E"},
		{"text/plain", shiftJISDoc, "encoding/xml (Strict false", "U+0080"},
		{"text/plain", shiftJISDoc, "encoding/xml (Strict true", "U+0080"},
		{"text/plain", `<a>&#x202e;</a>`, "encoding/xml (Strict true", "U+202E"},
		{"text/plain", `<a b="&#x85;">&nbsp;</a>`, "encoding/xml (Strict false", "U+0085"},
		{"text/html", `<a title="&#x202e">x</a>`, "x/net/html.Parse", "U+202E"},
		{"text/html", `&#x8D`, "html.UnescapeString", "U+008D"},
		{"application/graphql", `{ a(x: "\u202E") }`, "gqlparser lexer", "U+202E"},
		{"application/graphql", `{ a(x: "\u202E") }`, "gqlparser parser.ParseQuery", "U+202E"},
		{"text/javascript", `var a = "\x9b";`, "goja parser", "U+009B"},
		{"text/javascript", "var t = `\\u{202E}`;", "goja parser", "U+202E"},
		{"text/javascript", `var s = "\ud800";`, "goja parser", "U+FFFD not in the body"},
		{"application/json", `{"a":"\u0000"}`, "encoding/json", "U+0000"},
		{"application/json", `{"a":"\ud800"}`, "encoding/json", "U+FFFD not in the body"},
		{"text/plain", "a\x80", "io.ReadAll", "invalid UTF-8"},
		{"text/plain; charset=utf-7", "invoice+IC4-txt.exe", "charset utf-7", "U+202E"},
		{"text/plain; charset=shift_jis", "\xc4\x80", "charset shift_jis", "U+0080"},
		{multipartType, multipartBody("Content-Disposition: form-data; name=\"f\"; filename*=x-bogus''%E2%80%AE\r\n\r\nv"), "RFC 2231", "U+202E"},
		{multipartType, multipartBody("Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%E2%80%AE\r\n\r\nv"), "mime.ParseMediaType", "U+202E"},
		{multipartType, multipartBody("Content-Disposition: form-data; name=\"=?utf-8?q?=E2=80=AE?=\"\r\n\r\nv"), "mime.WordDecoder", "U+202E"},
		{multipartType, multipartBody("Content-Disposition: form-data; name=\"f\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=C2=9B"), "quoted-printable", "U+009B"},
		{"application/x-www-form-urlencoded", "a=%E2%80%AE", "url.ParseQuery", "U+202E"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader([]byte(tc.body)))
		req.Header.Set("Content-Type", tc.contentType)
		found := false
		var all []string
		for _, f := range inspect(req) {
			all = append(all, f.String())
			if strings.HasPrefix(f.Decoder, tc.decoder) && strings.HasPrefix(f.Char, tc.char) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s %q: %s did not read %s; the oracle found:\n\t%s", tc.contentType, tc.body, tc.decoder, tc.char, strings.Join(all, "\n\t"))
		}
	}
}

// TestOracleFindsNothingInCleanDocuments runs the handler alone on the
// clean documents: a finding there would be the oracle's own, and would
// make TestCleanDocumentsAreAcceptedAndDecodeClean blame the middleware.
func TestOracleFindsNothingInCleanDocuments(t *testing.T) {
	for _, c := range cleanCases() {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(c.body))
		req.Header.Set("Content-Type", c.contentType)
		for _, f := range inspect(req) {
			t.Errorf("%s: %s", c.name, f)
		}
	}
}
