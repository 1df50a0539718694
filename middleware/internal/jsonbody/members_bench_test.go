package jsonbody

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/rules"
)

// json1K is bench's 1 KiB JSON document (bench/middleware_test.go), the
// body of BenchmarkMiddleware/req=json1k.
var json1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","email":"zoe@example.com","tags":["café","naïve","日本語","emoji 😀"],"bio":"`)
	filler := "Lorem ipsum dolor sit amet, été über straße, Привет мир, 你好世界. "
	for b.Len() < 1024-2 {
		b.WriteString(filler)
	}
	s := b.String()
	for len(s) > 1024-2 || s[len(s)-1] >= 0x80 {
		s = s[:len(s)-1]
	}
	s += strings.Repeat(" ", 1024-2-len(s)) + `"}`
	return []byte(s)
}()

// records1K is about 1 KiB of an array of small records: names repeat
// from object to object, within each object they differ.
var records1K = []byte(`[` + strings.Repeat(`{"id":1234,"name":"Zoë Ångström","email":"zoe@example.com","active":true},`, 13) + `{}]`)

// BenchmarkCheckJSON: the text check alone (text) and with the member
// names of the strict preset (members), by body.
func BenchmarkCheckJSON(b *testing.B) {
	p := compiled.Compile(rules.Strict())
	for _, body := range []struct {
		name string
		p    []byte
	}{{"1KiB", json1K}, {"records", records1K}} {
		b.Run("body="+body.name+"/check=text", func(b *testing.B) {
			b.SetBytes(int64(len(body.p)))
			b.ReportAllocs()
			for b.Loop() {
				checkJSONText(body.p, &p.JSON, p.Limits.JSONDepth)
			}
		})
		b.Run("body="+body.name+"/check=members", func(b *testing.B) {
			b.SetBytes(int64(len(body.p)))
			b.ReportAllocs()
			for b.Loop() {
				checkJSON(body.p, p)
			}
		})
	}
}
