package decoders

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/rs/zerolog"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"go.yaml.in/yaml/v3"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// A decoder reads a body as a handler's decoder would and returns the
// text of its strings, or false when it does not read the body.
type decoder struct {
	name, ct string
	read     func(body string) (string, bool)
}

var decoders = []decoder{
	{"yaml.v3", "application/yaml", func(b string) (string, bool) {
		var v any
		if yaml.Unmarshal([]byte(b), &v) != nil {
			return "", false
		}
		return fmt.Sprint(v), true
	}},
	{"goja", "text/javascript", func(b string) (s string, ok bool) {
		defer func() {
			if recover() != nil { // goja's parser panics on "\u{10FFFF}"
				s, ok = "", false
			}
		}()
		v, err := goja.New().RunString(b)
		if err != nil {
			return "", false
		}
		return v.String(), true
	}},
	{"gqlparser", "application/graphql", func(b string) (string, bool) {
		doc, err := parser.ParseQuery(&ast.Source{Input: b})
		if err != nil {
			return "", false
		}
		var s strings.Builder
		var walk func(ast.SelectionSet)
		walk = func(set ast.SelectionSet) {
			for _, sel := range set {
				if f, ok := sel.(*ast.Field); ok {
					for _, a := range f.Arguments {
						s.WriteString(a.Value.Raw)
					}
					walk(f.SelectionSet)
				}
			}
		}
		for _, op := range doc.Operations {
			walk(op.SelectionSet)
		}
		return s.String(), true
	}},
	{"html.UnescapeString", "text/html", func(b string) (string, bool) { return html.UnescapeString(b), true }},
	{"encoding/xml", "text/xml", func(b string) (string, bool) {
		d := xml.NewDecoder(strings.NewReader(b))
		d.Strict, d.Entity = false, xml.HTMLEntity
		var s strings.Builder
		for {
			tok, err := d.Token()
			if err != nil {
				return s.String(), s.Len() > 0
			}
			if c, ok := tok.(xml.CharData); ok {
				s.Write(c)
			}
		}
	}},
	{"encoding/json", "application/json", func(b string) (string, bool) {
		var v any
		if json.Unmarshal([]byte(b), &v) != nil {
			return "", false
		}
		return fmt.Sprint(v), true
	}},
}

// serve sends body with Content-Type ct to a net/http handler behind
// utf8guard's strict preset and returns the status.
func serveStrict(t *testing.T, ct, body string) int {
	t.Helper()
	pol := rules.Strict()
	nop := zerolog.Nop()
	h := middleware.Handler(middleware.HTTPConfig{Rules: &pol, Logger: &nop})(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", ct)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

var forbid = rules.Strict().Body.Forbid

// TestEscapesAReaderDecodesAreRefused: each body is read by a real
// decoder as a character the strict preset refuses, and utf8guard refuses
// it, as that decoder's type and as text/plain.
func TestEscapesAReaderDecodesAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ decoder, body string }{
		{"yaml.v3", `a: "x\0y"`}, {"yaml.v3", `a: "\x85\N"`}, {"yaml.v3", `a: "\U0000202E"`}, {"yaml.v3", `a: "\e[31m"`},
		{"yaml.v3", `a: "\a\v"`}, {"yaml.v3", `{"path": "C:\build"}`}, {"yaml.v3", `a: "\u202e"`},
		{"goja", `"\u{202E}evil"`}, {"goja", `"\u{0}"`}, {"goja", `"\u{9B}31m"`}, {"goja", `"\u{0000202e}"`}, {"goja", `"\x9b"`},
		{"goja", `'\0'`}, {"goja", `"\33"`}, {"goja", `"\205"`}, {"goja", "`\\x1b[31m`"}, {"goja", "`a ${`\\x85`} b`"},
		{"goja", `"C:\2024"`}, {"goja", `"\f"`},
		{"gqlparser", `{ a(x: "\u{202E}evil") }`}, {"gqlparser", `{ a(x: "\u{9B}") }`}, {"gqlparser", `{ a(x: "\b") }`},
		{"html.UnescapeString", `&#x202e `}, {"html.UnescapeString", `&#8238 `}, {"html.UnescapeString", `&#27`},
		{"html.UnescapeString", `&#x8D`}, {"html.UnescapeString", `&#X202E;`}, {"html.UnescapeString", `&#x10000202E;`},
		{"encoding/xml", `<a>&#x85;</a>`}, {"encoding/xml", `<a>&#x202E;</a>`},
		{"encoding/json", `{"a":"\u202e"}`}, {"encoding/json", `["\b\f"]`},
	} {
		var d decoder
		for _, dd := range decoders {
			if dd.name == tc.decoder {
				d = dd
			}
		}
		got, ok := d.read(tc.body)
		if !ok || sanitize.CheckString(got, forbid) == nil {
			t.Errorf("%s reads %q as %+q (%v): nothing the strict preset refuses", d.name, tc.body, got, ok)
			continue
		}
		for _, ct := range []string{d.ct, "text/plain"} {
			if code := serveStrict(t, ct, tc.body); code != http.StatusBadRequest {
				t.Errorf("%s %q as %s: status %d, want 400; %s reads %+q", d.name, tc.body, ct, code, d.name, got)
			}
		}
	}
}

// TestNoDecoderReadsARefusedCharacterInAnAcceptedBody: bodies of every
// escape syntax, over a range of values, sent as text/plain: whatever
// utf8guard accepts, no decoder reads as a character the strict preset
// refuses.
func TestNoDecoderReadsARefusedCharacterInAnAcceptedBody(t *testing.T) {
	t.Parallel()
	var values []rune
	for r := rune(0); r <= 0xAF; r++ {
		values = append(values, r)
	}
	values = append(values, 0x200B, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A, 0x202E, 0x2066, 0x2069, 0xD800, 0xDC00, 0xFEFF, 0xFFFD, 0x10FFFF, 0x110000)
	var bodies []string
	for _, v := range values {
		bodies = append(bodies,
			fmt.Sprintf(`a: "\x%02X"`, v&0xFF), fmt.Sprintf(`a: "\u%04X"`, v&0xFFFF), fmt.Sprintf(`a: "\U%08X"`, v),
			fmt.Sprintf(`"\u{%X}"`, v), fmt.Sprintf(`'\%o'`, v&0xFF), fmt.Sprintf("`\\x%02x`", v&0xFF),
			fmt.Sprintf(`{ a(x: "\u{%x}") }`, v), fmt.Sprintf(`{ a(x: "\u%04x") }`, v&0xFFFF),
			fmt.Sprintf(`&#x%X;`, v), fmt.Sprintf(`&#x%x `, v), fmt.Sprintf(`&#%d`, v), fmt.Sprintf(`<a>&#%d;</a>`, v),
		)
	}
	for _, l := range "0abtnvfre N_LP/\"\\" {
		bodies = append(bodies, `a: "\`+string(l)+`"`, `'\`+string(l)+`'`)
	}
	for _, body := range bodies {
		if serveStrict(t, "text/plain", body) != http.StatusOK {
			continue
		}
		for _, d := range decoders {
			if got, ok := d.read(body); ok {
				if err := sanitize.CheckString(got, forbid); err != nil {
					t.Errorf("%q accepted, and %s reads %+q: %v", body, d.name, got, err)
				}
			}
		}
	}
}
