package finding

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestStatus: the status a rejection answers with, set where it is made
// (a count, a file part, a body the server could not keep) or derived from
// its reason, location and field.
func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		rj   *Rejection
		want int
	}{
		{"overlong query", &Rejection{Reason: sanitize.Overlong, Location: rules.Query, Field: "q"}, 400},
		{"body over its limit", TooLarge(rules.Body, "", 1<<20), 413},
		{"JSON body over its limit", TooLarge(rules.JSON, "", 1<<20), 413},
		{"a field over its limit", TooLarge(rules.Multipart, "f", 1<<10), 400},
		{"path over its limit", TooLarge(rules.Path, "", 8<<10), 400},
		{"query over its limit", TooLarge(rules.Query, "", 8<<10), 400},
		{"too many form fields", TooMany(rules.Form, 10), 400},
		{"too many parts", TooMany(rules.Multipart, 10), 400},
		{"a file part over its limit", FileTooLarge("file", 1<<20), 413},
		{"unreadable, the client's", Unreadable(rules.Multipart, io.ErrUnexpectedEOF, false), 400},
		{"unreadable, the server's", Unreadable(rules.Multipart, io.ErrShortWrite, true), 500},
		{"spool full", &Rejection{Reason: sanitize.SpoolFull, Location: rules.Multipart}, 503},
		{"media type", &Rejection{Reason: sanitize.UnsupportedMediaType, Location: rules.Body}, 415},
		{"content coding", &Rejection{Reason: sanitize.UnsupportedEncoding, Location: rules.Body}, 415},
		{"parsed before the check", &Rejection{Reason: sanitize.ParsedBeforeCheck, Location: rules.Form}, 500},
		{"charset", &Rejection{Reason: sanitize.BadCharset, Location: rules.Body, Field: "latin1"}, 400},
	} {
		if got := tc.rj.Status(); got != tc.want {
			t.Errorf("%s: Status() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestErrorsUnwrap: a rejection's error is what errors.Is and errors.As
// look into: the sanitize error, the sentinel of its reason, and the
// too_large of a count or a file.
func TestErrorsUnwrap(t *testing.T) {
	err := sanitize.ValidateString("a\xc0\xaf")
	rj := Reject(err, rules.Query, "q", "a\xc0\xaf")
	if !errors.Is(rj, sanitize.ErrOverlong) || rj.Offset != 1 || rj.Reason != sanitize.Overlong {
		t.Errorf("Reject: %+v, want overlong at 1 that errors.Is ErrOverlong", rj)
	}
	for _, rj := range []*Rejection{TooMany(rules.Form, 3), FileTooLarge("f", 9), TooLarge(rules.Body, "", 9)} {
		if !errors.Is(rj, sanitize.ErrTooLarge) {
			t.Errorf("%v does not unwrap to sanitize.ErrTooLarge", rj)
		}
	}
	if msg := rj.Error(); strings.IndexFunc(msg, func(r rune) bool { return r < 0x20 || r >= 0x7f }) >= 0 {
		t.Errorf("Error() holds raw request octets: %q", msg)
	}
}

// TestSampleAndField: a sample is at most SampleRadius octets each side of
// the offset, and neither it nor a field name ever holds an octet outside
// printable ASCII, or a backslash, as it is; a long field name is cut and
// marked.
func TestSampleAndField(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"caf\xc3\xa9", `caf\xc3\xa9`},
		{"a\\b", `a\x5cb`},
		{"tab\there", `tab\x09here`},
		{strings.Repeat("k", MaxField+1), strings.Repeat("k", MaxField) + "..."},
	} {
		if got := SafeField(tc.in); got != tc.want {
			t.Errorf("SafeField(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	text := strings.Repeat("x", 20) + "\x00" + strings.Repeat("y", 20)
	if got, want := Sample(text, 20), strings.Repeat("x", SampleRadius)+`\x00`+strings.Repeat("y", SampleRadius-1); got != want {
		t.Errorf("Sample = %q, want %q", got, want)
	}
	// At the end of the text (a truncated character), the octets before
	// it.
	if got := Sample("ab", 2); got != "ab" {
		t.Errorf("Sample at the end = %q, want %q", got, "ab")
	}
}
