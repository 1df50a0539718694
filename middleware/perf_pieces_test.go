package middleware

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// piecesJSON1K is a clean 1 KiB JSON document with non-ASCII text.
var piecesJSON1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","tags":["café","日本語","😀"],"note":"`)
	const filler = "été, straße, Привет, 你好; "
	for b.Len()+len(filler) <= 1024-2 {
		b.WriteString(filler)
	}
	b.WriteString(strings.Repeat(".", 1024-2-b.Len()))
	b.WriteString(`"}`)
	return []byte(b.String())
}()

// BenchmarkPieces times the passes a clean 1 KiB JSON body goes through
// under the strict preset, one by one, to tell where the per-request cost
// of BenchmarkMiddleware's req=json1k goes:
//
//	go test -run '^$' -bench Pieces -benchmem -cpu=1 ./middleware/
func BenchmarkPieces(b *testing.B) {
	p := compiled.Compile(rules.Strict())
	body := piecesJSON1K
	b.Run("jsonClean", func(b *testing.B) {
		for b.Loop() {
			jsonClean(body, p.JSON.Forbid, p.Limits.JSONDepth)
		}
	})
	b.Run("sanitizeCheck", func(b *testing.B) {
		for b.Loop() {
			_ = sanitize.Check(body, p.JSON.Forbid)
		}
	})
	b.Run("indexBS", func(b *testing.B) {
		for b.Loop() {
			bytes.IndexByte(body, '\\')
		}
	})
	b.Run("count", func(b *testing.B) {
		for b.Loop() {
			bytes.Count(body, []byte{'{'})
		}
	})
	b.Run("objectNamesDistinct", func(b *testing.B) {
		for b.Loop() {
			objectNamesDistinct(body, p.Norm)
		}
	})
	b.Run("checkMembers", func(b *testing.B) {
		for b.Loop() {
			checkMembers(body, p, false)
		}
	})
	b.Run("checkEscapes", func(b *testing.B) {
		for b.Loop() {
			escape.Check(body, rules.JSON, p.JSON.Forbid, 0)
		}
	})
	b.Run("checkJSON", func(b *testing.B) {
		for b.Loop() {
			checkJSON(body, p)
		}
	})
	b.Run("checkBody", func(b *testing.B) {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Header.Set("Content-Type", "application/json")
		b.ReportAllocs()
		for b.Loop() {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			s := getScratch()
			if rj := s.checkBody(r, p); rj != nil {
				b.Fatal(rj)
			}
			putScratch(s)
		}
	})
	b.Run("readBody", func(b *testing.B) {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		b.ReportAllocs()
		for b.Loop() {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			var ls lazyScratch
			readBody(&ls, r, p.Limits.BodyBytes, false, make([]byte, 8))
			ls.release()
		}
	})
}
