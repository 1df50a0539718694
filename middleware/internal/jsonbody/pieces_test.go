package jsonbody

import (
	"bytes"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody/jsoncases"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// BenchmarkPieces times the passes a clean 1 KiB JSON body goes through
// under the strict preset, one by one, to tell where the per-request cost
// of BenchmarkMiddleware's req=json1k goes:
//
//	go test -run '^$' -bench Pieces -benchmem -cpu=1 ./middleware/internal/jsonbody/
func BenchmarkPieces(b *testing.B) {
	p := compiled.Compile(rules.Strict())
	body := jsoncases.Doc1K
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
}
