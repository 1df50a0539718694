package sanitize

import (
	"strconv"
	"strings"
	"testing"
)

// benchTexts are sentences in several scripts, none holding a character of
// the benchmarked classes (but the line breaks of "lines", which are only
// benchmarked under the sets that allow them), so that Check and
// CheckClasses scan them to the end. The punctuation (U+2014, U+201C, U+2019) and U+200D in the emoji
// sequences start as the bidi characters do (E2 80): they cost the
// attention scan a second look.
var benchTexts = []struct{ script, text string }{
	{"ascii", "The quick brown fox jumps over the lazy dog, and back again. "},
	{"lines", "{\n  \"id\": 1042,\n  \"name\": \"widget\",\n  \"tags\": [\"a\", \"b\"]\n},\n"},
	{"latin", "The quick brown fox jumps over the lazy dog; café, naïve, Straße. "},
	{"punct", "“Quoted” — it’s the writer’s dash… “and” ‘quotes’ — again. "},
	{"hebrew", "שלום עולם, הפגישה נקבעה למחר בבוקר בחדר הישיבות. "},
	{"arabic", "مرحبا بالعالم، الاجتماع غدا في الساعة الثالثة مساء. "},
	{"cjk", "日本語のテキストと中文的句子，还有한국어 문장도 있습니다。"},
	{"emoji", "👩‍💻 and 👨‍👩‍👧‍👦 met 🏳️‍🌈 at 🧑🏽‍🚀 "},
}

// benchForbid are the sets of classes benchmarked: those the strict
// preset refuses in values and in names.
var benchForbid = []struct {
	name   string
	forbid Class
}{
	{"values", NUL | C0 | C1 | BidiControl},
	{"names", NUL | C0 | TabNewline | C1 | Bidi},
}

// BenchmarkCheckClasses measures Check and CheckClasses on text of several
// scripts and sizes that holds no character of the classes:
//
//	BenchmarkCheckClasses/forbid=values/script=emoji/size=4096/impl=check
func BenchmarkCheckClasses(b *testing.B) {
	impls := []struct {
		name string
		run  func(p []byte, forbid Class) error
	}{
		{"check", Check},
		{"classes", CheckClasses},
	}
	for _, fb := range benchForbid {
		for _, tx := range benchTexts {
			for _, size := range []int{16, 256, 4096, 65536} {
				p := []byte(strings.Repeat(tx.text, size/len(tx.text)+1))
				n := size
				for p[n]&0xC0 == 0x80 {
					n-- // cut at a character boundary
				}
				p = p[:n]
				if tx.script == "lines" && fb.forbid&TabNewline != 0 {
					continue
				}
				for _, impl := range impls {
					if err := impl.run(p, fb.forbid); err != nil {
						b.Fatalf("%s %s: %v", fb.name, tx.script, err)
					}
					name := "forbid=" + fb.name + "/script=" + tx.script + "/size=" + strconv.Itoa(size) + "/impl=" + impl.name
					b.Run(name, func(b *testing.B) {
						b.SetBytes(int64(len(p)))
						for b.Loop() {
							benchSinkErr = impl.run(p, fb.forbid)
						}
					})
				}
			}
		}
	}
}

var benchSinkErr error
