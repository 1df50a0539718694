package escape

import (
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// htmlNames reads the names of the standard library's HTML table, the one
// htmlentgen derives htmlentities.go from.
func htmlNames(t *testing.T) []string {
	t.Helper()
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "src", "html", "entity.go"))
	if err != nil {
		t.Skipf("the standard library's source: %v", err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"([A-Za-z0-9]+;?)":`).FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	if len(names) < 2200 {
		t.Fatalf("%d names in entity.go", len(names))
	}
	return names
}

// TestHTMLNamedReadsAsUnescapeString: for every name of HTML's table, with
// and without its ';', alone and followed by more letters, the scan reads a
// character of some class exactly where html.UnescapeString decodes one,
// and the same characters; the generated table is the standard library's.
func TestHTMLNamedReadsAsUnescapeString(t *testing.T) {
	t.Parallel()
	for _, name := range htmlNames(t) {
		bare := name[:len(name)-len(";")]
		if name[len(name)-1] != ';' {
			bare = name
		}
		for _, s := range []string{"&" + name, "&" + bare, "&" + bare + "x", "&" + bare + "x;", "&" + name + "x", "&" + bare + "1;"} {
			want := html.UnescapeString(s)
			text, n := htmlNamed([]byte(s))
			if n > 0 {
				if got := text + s[n:]; got != want {
					t.Errorf("htmlNamed(%q) reads %+q, html.UnescapeString %+q", s, got, want)
				}
			} else if c := classesOf(want); c != 0 {
				t.Errorf("htmlNamed(%q) reads nothing; html.UnescapeString reads %+q, of class %v", s, want, c)
			}
		}
	}
}

// TestHTMLNumericReadsAsUnescapeString: numeric references, decimal and hex
// in either case, with and without ';', the Windows-1252 range, NUL,
// surrogates, values out of range and values that wrap around, read as
// html.UnescapeString reads them.
func TestHTMLNumericReadsAsUnescapeString(t *testing.T) {
	t.Parallel()
	var refs []string
	for _, v := range []string{"0", "27", "65", "128", "133", "141", "159", "160", "8238", "55296", "1114111", "1114112", "4294975534", "99999999999"} {
		refs = append(refs, "&#"+v, "&#"+v+";", "&#"+v+" ", "&#"+v+"x")
	}
	for _, v := range []string{"0", "1b", "41", "80", "85", "8D", "8d", "9F", "A0", "202E", "202e", "D800", "10FFFF", "110000", "10000202E", "FFFFFFFFF", ""} {
		for _, x := range []string{"x", "X"} {
			refs = append(refs, "&#"+x+v, "&#"+x+v+";", "&#"+x+v+" ", "&#"+x+v+"g")
		}
	}
	refs = append(refs, "&#", "&#;", "&# ", "&#a")
	for _, s := range refs {
		want := html.UnescapeString(s)
		r, n := htmlNumeric([]byte(s))
		got := s
		if n > 0 {
			got = string(r) + s[n:]
		}
		if oneDigit := len(s) >= 3 && s[2] >= '0' && s[2] <= '9' && (len(s) == 3 || s[3] != ';' && (s[3] < '0' || s[3] > '9')); oneDigit && want == s {
			// html.UnescapeString leaves a one-digit decimal reference
			// without ';' alone; the WHATWG tokenizer, and the scan, read it.
			if n != 3 {
				t.Errorf("htmlNumeric(%q) = %+q, %d; want a reference of 3 octets", s, r, n)
			}
			continue
		}
		if got != want {
			t.Errorf("htmlNumeric(%q) reads %+q, html.UnescapeString %+q", s, got, want)
		}
	}
}
