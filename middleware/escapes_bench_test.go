package middleware

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/rules"
)

// escapeBenchBodies are text bodies of about 4 KiB as the escape scan
// meets them: prose without a backslash or an ampersand (the common
// case), JSON sent as text with escapes of plain characters, HTML with
// references of plain characters, and prose with Windows paths.
func escapeBenchBodies() []struct {
	name string
	loc  rules.Location
	p    []byte
} {
	fill := func(unit string) []byte { return []byte(strings.Repeat(unit, 4096/len(unit)+1)[:4096]) }
	return []struct {
		name string
		loc  rules.Location
		p    []byte
	}{
		{"prose", rules.Body, fill("Café “naïve” — Ελληνικά, кириллица, l’été. Meeting at 10:00, room 3. ")},
		{"json-as-text", rules.Body, fill(`{"name":"Zo\u00eb","note":"line one\nline two\t\"quoted\"","path":"C:\\Users\\zoe"} `)},
		{"html", rules.Body, fill(`<p title="a &amp; b">Caf&eacute; &copy; 2024 &#233;&nbsp;&lt;ok&gt;</p> `)},
		{"windows-paths", rules.Body, fill(`Files in C:\2024\x64\files and C:\build\files, share \\server\share\new. `)},
		{"json-body", rules.JSON, fill(`{"name":"Zo\u00eb","note":"a & b\n"} `)},
	}
}

func BenchmarkCheckEscapes(b *testing.B) {
	strict := compiled.Compile(rules.Strict())
	for _, body := range escapeBenchBodies() {
		b.Run(body.name, func(b *testing.B) {
			forbid := strict.Location(body.loc).Forbid
			b.SetBytes(int64(len(body.p)))
			b.ReportAllocs()
			for b.Loop() {
				if rj := escape.Check(body.p, body.loc, forbid, 0); rj != nil {
					b.Fatal(rj)
				}
			}
		})
	}
}
