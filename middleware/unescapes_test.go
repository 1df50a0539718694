package middleware

import (
	"net/url"
	"testing"
)

// TestUnescapesToAgreesWithNetURL: unescapesTo(esc, plain) holds exactly
// when esc, percent-decoded as net/url decodes a path, is plain and holds
// no escaped '/', for every pairing of a set of escaped paths and texts.
func TestUnescapesToAgreesWithNetURL(t *testing.T) {
	t.Parallel()
	escs := []string{"", "/", "/a", "/a%20b", "/caf%C3%A9", "/caf%c3%a9", "/a%2Fb", "/a%2fb", "/%", "/%4", "/%zz",
		"/%41%42", "/x%41", "/%E2%80%AE", "/a b", "/a%25b", "/%2525", "/é"}
	plains := []string{"", "/", "/a", "/a b", "/café", "/a/b", "/AB", "/xA", "/\u202e", "/a%b", "/%25", "/é", "/a%20b"}
	for _, e := range escs {
		for _, p := range plains {
			dec, err := url.PathUnescape(e)
			want := err == nil && dec == p && !containsEscapedSlash(e)
			if got := unescapesTo(e, p); got != want {
				t.Errorf("unescapesTo(%q, %q) = %v, want %v", e, p, got, want)
			}
		}
	}
}

func containsEscapedSlash(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && s[i+1] == '2' && (s[i+2] == 'F' || s[i+2] == 'f') {
			return true
		}
	}
	return false
}
