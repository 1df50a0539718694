package middleware

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// TestCheckDecodedPathAgrees: checkDecodedPath, which checks URL.Path as it
// is, decides as checkEscapedPath does on URL.EscapedPath(), for paths of
// every kind and several policies: the same rejection, the same repair.
func TestCheckDecodedPathAgrees(t *testing.T) {
	t.Parallel()
	paths := []string{"/", "*", "/a/b", "/été", "/a b", "/a%b", "/a%2e", "/a%252e", "/%zz", "/a%", "/a%2",
		"/\xC0\xAE", "/x\xED\xA0\x80", "/\x00", "/a\x01b", "/\t", "/\u202E", "/\uFEFF", "/a/\xFF/%41",
		"/(x)!*'", "/[ipv6]", "/a?b", "/a#b", "/~user/-._", "/$&+,;=:@", "/" + strings.Repeat("é", 40),
		"/ok/" + strings.Repeat("a", 60), "/%E2%80%AE", "/a%25%32%65", "*%2e", "*x"}
	repair := rules.Strict()
	repair.Path.Repair = true
	short := rules.Strict()
	short.Limits.PathBytes = 24
	pols := map[string]rules.Policy{"strict": rules.Strict(), "default": rules.Default(), "repair": repair, "short": short}
	for name, pol := range pols {
		p := compile(pol)
		for _, path := range paths {
			r1 := httptest.NewRequest("GET", "/", nil)
			r1.URL.Path, r1.URL.RawPath = path, ""
			r2 := httptest.NewRequest("GET", "/", nil)
			r2.URL.Path, r2.URL.RawPath = path, ""
			s := getScratch()
			rj1, rep1 := checkDecodedPath(r1, p)
			rj2, rep2 := s.checkEscapedPath(r2, r2.URL.EscapedPath(), p)
			putScratch(s)
			if (rj1 == nil) != (rj2 == nil) || rep1 != rep2 ||
				rj1 != nil && (rj1.Reason != rj2.Reason || rj1.Offset != rj2.Offset || rj1.Sample != rj2.Sample || rj1.Class != rj2.Class || rj1.Field != rj2.Field) {
				t.Errorf("%s %q: decoded %+v %v, escaped %+v %v", name, path, rj1, rep1, rj2, rep2)
			}
			if r1.URL.Path != r2.URL.Path || r1.URL.RawPath != r2.URL.RawPath {
				t.Errorf("%s %q: rewritten to %q %q and %q %q", name, path, r1.URL.Path, r1.URL.RawPath, r2.URL.Path, r2.URL.RawPath)
			}
		}
	}
}

// TestInspectAllocs pins the allocations of a clean request's checks: none
// for the path and query, escaped or not; for a JSON body, the body's
// buffer and the reader handed to the handler.
func TestInspectAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	g, err := newGuard(rules.Strict(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	p := g.def
	cases := []struct {
		target string
		body   []byte
		want   float64
	}{
		{"/api/users/42?name=alice&sort=desc&page=2&limit=50", nil, 0},
		{"/api/users/%C3%A9t%C3%A9?q=caf%C3%A9&r=a+b", nil, 0},
		// The body handed on in memory of its own, and its reader: the
		// octets are read in pooled chunks no handler can reach.
		{"/api/items", mixedText(1000), 2},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", tc.target, nil)
		if tc.body != nil {
			r.Header.Set("Content-Type", "text/plain")
		}
		n := testing.AllocsPerRun(200, func() {
			if tc.body != nil {
				r.Body, r.ContentLength = &bodyReader{}, int64(len(tc.body))
				r.Body.(*bodyReader).Reset(tc.body)
			}
			s := getScratch()
			_, rj := g.inspect(s, r, p, nil, nil, false)
			putScratch(s)
			if rj != nil {
				t.Fatal(rj)
			}
		})
		if tc.body != nil {
			n-- // the test's own reader
		}
		if n != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.target, n, tc.want)
		}
	}
}
