package middleware

import (
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The canonical form of a JSON body holds to the policy its input did.

// TestJSONCanonicalLimit: a JSON body whose canonical form (NFKC, or a
// PRECIS profile built on it) is over the body limit is refused as
// too_large with an empty field (413), as the same body sent canonical
// would have been; one whose canonical form fits passes, rewritten. U+FDFA
// is 3 octets and 33 in NFKC.
func TestJSONCanonicalLimit(t *testing.T) {
	t.Parallel()
	const limit = 1000
	fdfa := func(n int) string { return `{"a":"` + strings.Repeat("\uFDFA", n) + `","b":"x"}` }
	limited := func(edits ...func(p *rules.Policy)) rules.Policy {
		return canonPolicy(normalize.NFKC, append([]func(p *rules.Policy){func(p *rules.Policy) { p.Limits.BodyBytes = limit }}, edits...)...)
	}
	precis := func(p *rules.Policy) {
		p.Normalization = normalize.None
		p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/a", Profile: normalize.Nickname}}
	}
	cases := []struct {
		name string
		pol  rules.Policy
		body string
		want int // status
		log  bool
	}{
		{"nfkc over", limited(), fdfa(40), http.StatusRequestEntityTooLarge, true}, // 133 octets, 1333 in NFKC
		{"nfkc fits", limited(), fdfa(25), http.StatusOK, false},                   // 88 octets, 838 in NFKC
		{"nfkc escaped over", limited(), `{"a":"` + strings.Repeat(`\ufdfa`, 40) + `"}`, http.StatusRequestEntityTooLarge, true},
		{"precis over", limited(precis), fdfa(40), http.StatusRequestEntityTooLarge, true},
		{"precis fits", limited(precis), fdfa(25), http.StatusOK, false},
		{"monitor flags", limited(canonMonitoring), fdfa(40), http.StatusOK, true},
		{"no limit", limited(func(p *rules.Policy) { p.Limits.BodyBytes = -1 }), fdfa(400), http.StatusOK, false},
		// Issue 12: 900,000 octets under the default 1 MiB, 9.9 MB in NFKC.
		{"default limit", canonPolicy(normalize.NFKC), `{"a":"` + strings.Repeat("\uFDFA", 300000) + `"}`, http.StatusRequestEntityTooLarge, true},
	}
	for _, mnt := range canonMounts {
		for _, tc := range cases {
			t.Run(mnt.name+"/"+tc.name, func(t *testing.T) {
				ev := canonNewEnv(t, tc.pol, mnt)
				w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, tc.body))
				if w.Code != tc.want {
					t.Fatalf("status %d, want %d; log %v", w.Code, tc.want, ev.logs.lines(t))
				}
				s := ev.rec.get()
				if (s != nil) != (tc.want == http.StatusOK) {
					t.Fatalf("handler ran: %v", s != nil)
				}
				if !tc.log {
					if l := ev.logs.lines(t); len(l) != 0 {
						t.Fatalf("log lines: %v", l)
					}
					if !strings.Contains(string(s.Body), "صلى") {
						t.Errorf("body not rewritten: %.60q", s.Body)
					}
					canonCheckBodyLen(t, s)
					return
				}
				mode := "enforce"
				if tc.pol.Mode == rules.Monitor {
					mode = "monitor"
					if string(s.Body) != tc.body {
						t.Error("monitor changed the body")
					}
				}
				l := checkOneLog(t, ev.logs, wantLog{reason: "too_large", location: "json", offset: -1}, mode, "POST", "")
				if l["field"] != "" {
					t.Errorf("field = %q, want empty", l["field"])
				}
			})
		}
	}
}

// TestJSONCanonicalClasses: a canonical form is checked against the
// classes p.JSON refuses. No character's NFC or NFKC form holds a class
// the character lacks (TestJSONCanonicalCharacters), so a body cannot
// bring that about today; the check is tried on a canonical form given
// directly, with the offset and field of a rejection through
// jsonCanonReject.
func TestJSONCanonicalClasses(t *testing.T) {
	t.Parallel()
	p := compile(canonPolicy(normalize.NFC))
	if rj := p.checkCanonical([]byte("caf\u00e9")); rj != nil {
		t.Errorf("clean text refused: %v", rj)
	}
	rj := p.checkCanonical([]byte("ab\u202ecd"))
	if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Class != sanitize.Bidi {
		t.Fatalf("bidi control: %s", describe(rj))
	}
	body := []byte(`{"x":[1,{"k":"abcd"}]}`)
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *Rejection {
		if isKey || string(body[i:end]) != `"abcd"` {
			return nil
		}
		return p.jsonCanonReject(&sc, rj, i, end, false, true, nil)
	}
	if got := sc.scan(); got == nil || got.Field != "/x/1/k" || got.Offset != strings.Index(string(body), "abcd") {
		t.Errorf("rejection %s, want field /x/1/k at the string's first octet", describe(got))
	}
}

// TestJSONCanonGrowth: normalBounded, which normalizes a text that could
// grow past its room a stretch at a time, gives the form of the whole, and
// refuses exactly the forms longer than the room.
func TestJSONCanonGrowth(t *testing.T) {
	t.Parallel()
	texts := []string{
		strings.Repeat("\uFDFA", 5000), strings.Repeat("e\u0301", 4000) + "x",
		"a" + strings.Repeat("\u0301", 10000) + "b", strings.Repeat("\u1100\u1161\u11a8", 3000),
		strings.Repeat("ｑ\u0323\u0302", 3000), strings.Repeat("x", 4095) + "\u0301" + strings.Repeat("\uFB01", 2000),
	}
	for _, form := range canonForms {
		p := compile(canonPolicy(form))
		for _, text := range texts {
			want := p.form.Bytes([]byte(text))
			got, ok := p.normalBounded([]byte(text), math.MaxInt64/2)
			if !ok || string(got) != string(want) {
				t.Errorf("%s of %.20q...: stretch by stretch differs from whole", form.Name(), text)
			}
			if _, ok := p.normalBounded([]byte(text), int64(len(want))-1); ok {
				t.Errorf("%s of %.20q...: a form over room passed", form.Name(), text)
			}
			if got, ok := p.normalBounded([]byte(text), int64(len(want))); !ok || string(got) != string(want) {
				t.Errorf("%s of %.20q...: a form of exactly room refused", form.Name(), text)
			}
		}
	}
}

// TestJSONCanonicalCharacters pins two facts about every code point that
// canonJSON relies on: no character's NFC or NFKC form is more than
// maxCanonGrowth times as long (normalBounded normalizes a text whole when
// that many times its length fits), and none holds a character class the
// character lacks (so checkCanonical cannot be reached from a body today).
func TestJSONCanonicalCharacters(t *testing.T) {
	if testing.Short() {
		t.Skip("every code point")
	}
	t.Parallel()
	most, at := 0.0, rune(0)
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		for _, f := range []normalize.Form{normalize.NFC, normalize.NFKC} {
			c := f.String(s)
			if c == s {
				continue
			}
			if g := float64(len(c)) / float64(len(s)); g > most {
				most, at = g, r
			}
			var got sanitize.Class
			for _, q := range c {
				got |= sanitize.ClassOf(q)
			}
			if add := got &^ sanitize.ClassOf(r); add != 0 {
				t.Errorf("%s of U+%04X is %+q, which adds %v: checkCanonical is reachable, test it with it", f.Name(), r, c, add)
			}
		}
	}
	if most > maxCanonGrowth {
		t.Errorf("U+%04X grows %.1f times, more than maxCanonGrowth", at, most)
	}
	t.Logf("the most growth: U+%04X, %.1f times", at, most)
}
