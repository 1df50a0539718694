package media

import (
	"maps"
	"mime"
	"runtime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
)

// readMediaTypeSeeds are values mime.ParseMediaType reads in every way it
// can: quoted strings and their escapes (a backslash before a tspecial, one
// before anything else, one at the end), white space Unicode calls space,
// duplicates equal and not, trailing semicolons, RFC 2231 extended values
// and continuations (plain and extended pieces, gaps, bad escapes, other
// charsets), and the errors of each part.
var readMediaTypeSeeds = []string{
	"", "form-data", "FORM-DATA", " form-data ", "form-data;", "form-data ; ", "form-data;;", "form-data; ;",
	`form-data; name="a"`, `form-data; name=a`, `form-data; NAME="a"; filename="b.txt"`,
	`form-data; name=""`, `form-data; name=`, `form-data; name`, `form-data; =a`, `form-data name="a"`,
	`form-data; name="a`, `form-data; name="a\"b"`, `form-data; name="a\\b"`, `form-data; name="C:\dev\x.txt"`,
	`form-data; name="a\`, `form-data; name="a\"`, "form-data; name=\"a\r\"", "form-data; name=\"a\\\nb\"",
	"form-data;\u00a0name=a", "form-data; name=a\u0085", "form-data; name\u2028=a", "form-data; name =\ta",
	`form-data; name="a"; name="a"`, `form-data; name="a"; name=a`, `form-data; name="a"; name="b"`,
	`form-data; name="a"x`, `form-data; name="a";x`, `form-data; name="a" ; x=y`, `form-data; name=a"b"`,
	`form-data; name="é"`, "form-data; name=\"\xff\"", `form-data; na/me=a`, `form-data; name=a/b`,
	`text/plain; charset=utf-8`, `text/PLAIN; Charset="UTF-8"`, `text/`, `/plain`, `text/plain/x`, `text/pla in`,
	`multipart/form-data; boundary="--x;y"`, `text/plain; a="x;y"; b=z`,
	`form-data; name*=utf-8''%C3%A9`, `form-data; name*=UTF-8'en'a%20b`, `form-data; name*=us-ascii''a`,
	`form-data; name*=latin1''%E9`, `form-data; name*=''a`, `form-data; name*=utf-8'a`, `form-data; name*=utf-8''%E`,
	`form-data; name*=utf-8''%ZZ`, `form-data; name="x"; name*=utf-8''y`, `form-data; name*=utf-8''y; name="x"`,
	`form-data; name*0=a; name*1=b`, `form-data; name*0="a b"; name*1="c"`, `form-data; name*1=b`,
	`form-data; name*0=a; name*2=c`, `form-data; name*0*=utf-8''%C3; name*1*=%A9; name*2=x`,
	`form-data; name*0*=bad; name*1=b`, `form-data; name*0=a; name*1*=%zz; name*2=c`,
	`form-data; name*0=a; name*0*=b`, `form-data; name*0=a; name*0=b`, `form-data; name*0=a; name*0=a`,
	`form-data; name*=a; name*0=b`, `form-data; *=a`, `form-data; **=a`, `form-data; name**=a`, `form-data; *0=a; *1=b`,
	`form-data; name*00=a`, `form-data; name*-1=a`, `form-data; name*0=a; NAME*1=B`,
}

// checkReadMediaType holds Read to mime.ParseMediaType on v.
func checkReadMediaType(t *testing.T, v string) {
	t.Helper()
	mt, params, ok := Read(v)
	wantMT, wantParams, err := mime.ParseMediaType(v)
	if mt != wantMT || ok != (err == nil) || (params == nil) != (wantParams == nil) || !maps.Equal(params, wantParams) {
		t.Fatalf("Read(%q) = %q, %q, %v; mime.ParseMediaType: %q, %q, %v", v, mt, params, ok, wantMT, wantParams, err)
	}
}

func TestReadMediaType(t *testing.T) {
	for _, v := range append(readMediaTypeSeeds, mediaTypeSeeds...) {
		checkReadMediaType(t, v)
	}
}

// FuzzReadMediaType holds Read to mime.ParseMediaType, the
// reading of every handler's multipart parser.
func FuzzReadMediaType(f *testing.F) {
	for _, v := range append(readMediaTypeSeeds, mediaTypeSeeds...) {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) { checkReadMediaType(t, v) })
}

// TestReadMediaTypeMemory: a long quoted parameter, the field name a
// hostile multipart part may carry, costs no copy of it; one with escapes,
// or a long continued value, about one.
func TestReadMediaTypeMemory(t *testing.T) {
	if racetest.Enabled {
		t.Skip("allocation figures differ under the race detector")
	}
	long := strings.Repeat("e\u0301", 32<<10)
	for _, c := range []struct {
		name string
		v    string
		max  int // octets allocated per call, at most
	}{
		{"quoted", `form-data; name="` + long + `"; filename="f.txt"`, 1 << 10},
		{"token", "form-data; name=" + strings.Repeat("a", 64<<10), 1 << 10},
		{"escaped", `form-data; name="` + strings.Repeat(`\"`, 32<<10) + `"`, 1<<10 + 32<<10},
		{"continued", `form-data; name*0="` + long + `"; name*1="` + long + `"`, 2<<10 + 2*len(long)},
		{"extended", `form-data; name*=utf-8''` + strings.Repeat("%C3%A9", 16<<10), 1<<10 + 2*16<<10},
	} {
		var before, after runtime.MemStats
		const runs = 20
		runtime.ReadMemStats(&before)
		for range runs {
			if _, _, ok := Read(c.v); !ok {
				t.Fatalf("%s: does not parse", c.name)
			}
		}
		runtime.ReadMemStats(&after)
		if per := int(after.TotalAlloc-before.TotalAlloc) / runs; per > c.max {
			t.Errorf("%s (%d octets): %d octets allocated per call, want at most %d", c.name, len(c.v), per, c.max)
		}
	}
}
