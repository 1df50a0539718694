package middleware

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
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
		"/ok/" + strings.Repeat("a", 60), "/%E2%80%AE", "/a%25%32%65", "*%2e", "*x",
		"/é%2e", "/€/😀/%41", "/é/%zz%41"}
	repair := rules.Strict()
	repair.Path.Repair = true
	short := rules.Strict()
	short.Limits.PathBytes = 24
	pols := map[string]rules.Policy{"strict": rules.Strict(), "default": rules.Default(), "repair": repair, "short": short}
	for name, pol := range pols {
		p := compiled.Compile(pol)
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

// pathCases: the path, per reason.
func pathCases() []locCase {
	c := []locCase{
		{name: "clean", target: "/api/files/a/b.txt", status: 200, check: func(t *testing.T, s *seen) {
			if s.Params["*"] != "a/b.txt" {
				t.Errorf("param * = %q", s.Params["*"])
			}
		}},
		{name: "clean utf8 escaped", target: "/api/files/%C3%A9t%C3%A9", status: 200, check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/été" || s.Params["*"] != "été" {
				t.Errorf("path %q param %q", s.Path, s.Params["*"])
			}
		}},
		{name: "raw C0 AE in request line", target: "/api/files/\xC0\xAE", want: rej("overlong", "path", "", 11)},
		{name: "raw ED A0 80 in request line", target: "/api/files/x\xED\xA0\x80", want: rej("surrogate", "path", "", 12)},
		{name: "default double encoding passes", pol: deflt, target: "/api/files/%252e", status: 200, check: func(t *testing.T, s *seen) {
			if s.Params["*"] != "%2e" {
				t.Errorf("param * = %q, want %%2e", s.Params["*"])
			}
		}},
		{name: "double_encoding", target: "/api/files/%252e", want: rej("double_encoding", "path", "", 11)},
		{name: "double_encoding of escapes", target: "/api/files/%25%32%65", want: rej("double_encoding", "path", "", 11)},
		{name: "default C0 passes", pol: deflt, target: "/api/files/%01", status: 200},
		{name: "default nul", pol: deflt, target: "/api/files/%00", want: forb("path", "", 11, "nul")},
		{name: "too_large path", pol: withLimits(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/api/files/aaaaaaaaaaaa", want: rej("too_large", "path", "", 0)},
		{name: "path at the limit", pol: withLimits(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/api/files/aaaaa", status: 200},
		{name: "param overlong", target: "/api/users/%C0%AE", want: rej("overlong", "path", "", 11), route: rUser},
		{name: "first violation wins", target: "/api/files/%E2%80%AE%FF", want: forb("path", "", 11, "bidi_control")},
		{name: "first violation wins raw", target: "/api/files/%00\xC0\xAE", want: forb("path", "", 11, "nul")},
		// A parameter is a value of its own to the handler: a leading
		// BOM is refused there as at the start of a query value (issue
		// 12, point 10).
		{name: "bom leading a param", target: "/api/users/%EF%BB%BFa", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom leading a param lower", target: "/api/users/%ef%bb%bfa", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom leading a param mixed", target: "/api/users/%EF%BB%BF%61", route: rUser, want: forb("path", "id", 0, "bom")},
		{name: "bom inside a param", target: "/api/users/a%EF%BB%BF", status: 200, route: rUser},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, target: "/api/files/" + e.esc, want: rej(e.reason, "path", "", 11)})
	}
	for _, f := range urlForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, target: "/api/files/" + f.esc, want: forb("path", "", 11, f.class)})
	}
	for i := range c {
		if c[i].route == "" {
			c[i].route = rFiles
		}
	}
	return c
}

// TestParams: given escapes Go does not normalize away (lower-case hex),
// Echo routes on RawPath and would hand the handler the raw text; expect
// c.Param and c.ParamValues to agree on the decoded value.
func TestParams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		target     string
		want       map[string]string
		notWithPre bool
	}{
		{"/api/users/%c3%a9", map[string]string{"id": "é"}, false},
		{"/api/users/%C3%A9", map[string]string{"id": "é"}, false},
		{"/api/users/caf%c3%a9/posts/%e2%82%ac", map[string]string{"id": "café", "post": "€"}, false},
		{"/api/users/a%20b", map[string]string{"id": "a b"}, false},
		{"/api/users/a%25b", map[string]string{"id": "a%b"}, false},
		{"/api/users/x\xC3\xA9", map[string]string{"id": "xé"}, false},
		{"/api/files/d%c3%a9j%c3%a0/vu", map[string]string{"*": "déjà/vu"}, false},
		// An encoded slash keeps RawPath under e.Pre (decoding it would
		// move a segment boundary), so Echo then hands raw values: the
		// decoded ones need the middleware after routing.
		{"/api/users/a%2fb", map[string]string{"id": "a/b"}, true},
	}
	for _, m := range mounts {
		for _, tc := range cases {
			if tc.notWithPre && m == mountPre {
				continue
			}
			t.Run(m.String()+tc.target, func(t *testing.T) {
				t.Parallel()
				ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, m), &recorder{})
				w := ev.do(req("GET", tc.target, "", nil))
				if w.Code != 200 {
					t.Fatalf("status %d %s", w.Code, w.Body.String())
				}
				s := ev.rec.seen()
				if !reflect.DeepEqual(s.Params, tc.want) {
					t.Errorf("c.Param: %q, want %q", s.Params, tc.want)
				}
				if len(s.ParamValues) != len(s.ParamNames) {
					t.Fatalf("c.ParamValues() = %q for names %q", s.ParamValues, s.ParamNames)
				}
				for i, name := range s.ParamNames {
					if s.ParamValues[i] != s.Params[name] {
						t.Errorf("c.ParamValues()[%d] = %q, c.Param(%q) = %q", i, s.ParamValues[i], name, s.Params[name])
					}
				}
			})
		}
	}
}
