package middleware

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody/jsoncases"
	"github.com/utf8guard/utf8guard/rules"
)

// BenchmarkBodyPieces times the reading and the whole body check of a
// clean 1 KiB JSON body under the strict preset; package jsonbody's
// BenchmarkPieces times the JSON passes one by one:
//
//	go test -run '^$' -bench Pieces -benchmem -cpu=1 ./middleware/...
func BenchmarkBodyPieces(b *testing.B) {
	p := compiled.Compile(rules.Strict())
	body := jsoncases.Doc1K
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
