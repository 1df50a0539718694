package upload

import (
	"mime/multipart"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
)

// TestMultipartRetryingReader pins the behaviour of Go's reader that the
// scan relies on: after an error, NextPart reads on.
func TestMultipartRetryingReader(t *testing.T) {
	t.Parallel()
	body := "--BB\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--BB\tjunk\r\n--BB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ny\r\n--BB--\r\n"
	var names []string
	s := newScanner([]byte(body), "BB")
	for pt := s.next(); pt != nil; pt = s.next() {
		names = append(names, pt.name)
	}
	if !slices.Equal(names, []string{"a", "b"}) || !s.broken {
		t.Errorf("scanner: parts %q, broken %v; want [a b], true", names, s.broken)
	}
	got := mptest.Stream(multipart.NewReader(strings.NewReader(body), "BB"), 0, nil)
	if n := mptest.Names(got); !slices.Equal(n, []string{"a", "b"}) {
		t.Errorf("a retrying handler reads %q, want [a b]", n)
	}
}
