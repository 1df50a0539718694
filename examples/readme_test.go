package examples

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock is a code block of the README that shows an example file:
//
//	<!-- file: examples/quickstart-v4/main.go -->
//	```go
//	...the file, verbatim...
//	```
//
// or, with "#NAME" after the path, the part of the file between the lines
// "// NAME:begin" and "// NAME:end".
var readmeBlock = regexp.MustCompile("(?s)<!-- file: ([^ #]+)(?:#(\\w+))? -->\n```go\n(.*?)```\n")

// TestREADMEShowsTheExamples: every code block the README marks as an
// example file is that file (or the marked part of it), byte for byte;
// and the quick starts and recipes the README promises are all there.
func TestREADMEShowsTheExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range readmeBlock.FindAllStringSubmatch(string(readme), -1) {
		path, part, block := m[1], m[2], m[3]
		shown[path] = true
		src, err := os.ReadFile("../" + path)
		if err != nil {
			t.Errorf("the README shows %s: %v", path, err)
			continue
		}
		want := string(src)
		if part != "" {
			begin, end := "// "+part+":begin\n", "// "+part+":end\n"
			i, j := strings.Index(want, begin), strings.Index(want, end)
			if i < 0 || j < i {
				t.Errorf("%s has no %q ... %q part", path, begin, end)
				continue
			}
			want = strings.TrimRight(want[i+len(begin):j], "\n") + "\n"
		}
		if block != want {
			t.Errorf("the README's block of %s%s differs from the file:\n--- README\n%s--- file\n%s", path, "#"+part, block, want)
		}
	}
	for _, path := range []string{
		"examples/quickstart-v4/main.go",
		"examples/quickstart-v5/main.go",
		"examples/quickstart-nethttp/main.go",
		"examples/logger/main.go",
	} {
		if !shown[path] {
			t.Errorf("the README does not show %s", path)
		}
	}
	// No Go block outside the marked ones names a package: a whole program
	// in the README must be an example file.
	for _, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatchIndex(string(readme), -1) {
		body := string(readme[m[2]:m[3]])
		before := string(readme[:m[0]])
		if strings.HasPrefix(body, "// Command ") || strings.Contains(body, "\npackage main\n") {
			if !strings.HasSuffix(before, " -->\n") {
				t.Errorf("a whole program in the README is not marked as an example file:\n%.200s", body)
			}
		}
	}
}
