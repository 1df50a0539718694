package media

import (
	"mime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// TestContentType checks ContentType, its shortcuts for common values
// included, against mime.ParseMediaType: the same type and subtype, lower
// case, and the same charset parameter.
func TestContentType(t *testing.T) {
	for _, ct := range []string{
		"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8",
		"application/json; charset=UTF-8", "application/x-www-form-urlencoded",
		"text/plain; charset=utf-8", "Application/JSON", "text/plain;charset=\"latin1\"",
		"multipart/form-data; boundary=x", "application/problem+json", " text/html ; charset=ascii ",
		"applİcation/json", "application/vnd.api+json; charset=utf-8; x=1",
	} {
		typ, sub, charset := ContentType(ct)
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("%q: %v", ct, err)
		}
		wantTyp, wantSub, _ := strings.Cut(mt, "/")
		if typ != wantTyp || sub != wantSub || charset != params["charset"] {
			t.Errorf("ContentType(%q) = %q, %q, %q; mime says %q, %q, %q", ct, typ, sub, charset, wantTyp, wantSub, params["charset"])
		}
	}
}

// TestContentTypeParameters checks that parameters are read as
// mime.ParseMediaType reads them, which is how handlers read them: a
// charset hidden in a quoted string, given twice, or given as an RFC 2231
// charset* is the charset mime sees, and a value mime refuses does not
// parse.
func TestContentTypeParameters(t *testing.T) {
	tests := []struct {
		ct      string
		charset string
		ok      bool
	}{
		{"text/plain; charset*=utf-8''utf-16", "utf-16", true},
		{`text/plain; charset=utf-16; x="a;charset=utf-8"`, "utf-16", true},
		{"application/json; charset*=utf-8''utf-7", "utf-7", true},
		{"text/plain; charset*0=utf; charset*1=-16", "utf-16", true},
		{"text/plain; charset=utf-8; charset=utf-16", "", false}, // duplicate parameter
		{"text/plain; charset", "", false},
		{"text/", "", false},
		{"", "", true},
	}
	for _, tt := range tests {
		_, _, cs, ok := Parse(tt.ct)
		if cs != tt.charset || ok != tt.ok {
			t.Errorf("Parse(%q): charset %q, ok %v; want %q, %v", tt.ct, cs, ok, tt.charset, tt.ok)
		}
	}
}

// TestSimpleMediaType holds the allocation-free parse of simple values to
// mime.ParseMediaType's answers, on values near the edge of "simple".
func TestSimpleMediaType(t *testing.T) {
	for _, ct := range mediaTypeSeeds {
		checkSimpleMediaType(t, ct)
	}
}

var mediaTypeSeeds = []string{
	"text/plain", "text/plain; charset=utf-8", "text/plain;charset=UTF-8", " text/plain\t;\tcharset = latin1 ",
	"Text/plain", "text/plain; Charset=x", "text/plain; charset=", "text/plain; charset=\"x\"", "text/plain; charset*=x",
	"text/plain; charset=a; charset=b", "text/plain; charset=a;", "text/plain;", "text/", "/plain", "text/pla in",
	"text/plain\u00a0", "\u0085text/plain", "text/plain; charset=\u00e9", "text/plain; ch\u017fset=x", "text",
	"text/plain/x", "application/vnd.api+json", "multipart/form-data; boundary=x", "text/plain; charset=a b",
	"text/plain ;charset=a", "text/plain; charset=a=b", "text/plain\x00", "text/plain; charset=utf-8\r",
}

func checkSimpleMediaType(t *testing.T, ct string) {
	t.Helper()
	typ, sub, charset, ok := simpleMediaType(ct)
	if !ok {
		return
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("simpleMediaType(%q) parses; mime.ParseMediaType: %v", ct, err)
	}
	if typ+"/"+sub != mt || charset != params["charset"] || len(params) > 1 || charset == "" && len(params) != 0 {
		t.Fatalf("simpleMediaType(%q) = %q, %q, %q; mime says %q, %q", ct, typ, sub, charset, mt, params)
	}
	if n := testing.AllocsPerRun(10, func() { simpleMediaType(ct) }); n != 0 && !racetest.Enabled {
		t.Fatalf("simpleMediaType(%q): %v allocations", ct, n)
	}
}

// FuzzMediaType holds simpleMediaType to mime.ParseMediaType on any value
// it takes as simple.
func FuzzMediaType(f *testing.F) {
	for _, ct := range mediaTypeSeeds {
		f.Add(ct)
	}
	f.Fuzz(func(t *testing.T, ct string) { checkSimpleMediaType(t, ct) })
}
