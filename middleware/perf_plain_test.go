package middleware

import (
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/form"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The word-wise scans (octets.go) let a plain path or query skip the
// general checks. They hold only as long as those checks find nothing in
// plain text: these tests hold them to the general checks, on every
// policy's classes and on limits set at random, every limit field of
// rules.Limits included (a limit added later is drawn too, and a fast
// path that ignores it fails here).

// randomLimits sets every integer field of rules.Limits at random, negative
// (no limit) included.
func randomLimits(rng *rand.Rand) rules.Limits {
	var l rules.Limits
	v := reflect.ValueOf(&l).Elem()
	vals := []int64{-1, 0, 1, 2, 3, 4, 5, 8, 13, 20, 40, 100, 1 << 20}
	for i := range v.NumField() {
		if f := v.Field(i); f.CanInt() {
			f.SetInt(vals[rng.IntN(len(vals))])
		}
	}
	return l
}

// plainSamples are texts to mutate: plain ones, and ones with every kind
// of octet the scans must see.
var plainSamples = []string{
	"", "a", "/", "/api/users/42", "name=alice&sort=desc&page=2&limit=50", "a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8",
	"/a b/c~d/$&+,;=:@", "q=a+b", "q=%41", "/%2e%2e/", "/caf\xC3\xA9", "/\xEF\xBB\xBFx", "q=\x7F", "q=\x1F&r=\t",
	"/" + strings.Repeat("abcdefgh", 9), "x=" + strings.Repeat("&", 17), "/(x)!*'[]{}|\\^`\"<>",
}

func mutatePlain(rng *rand.Rand) string {
	q := []byte(plainSamples[rng.IntN(len(plainSamples))])
	for range rng.IntN(4) {
		const octets = "%&=+/2C3AEx \x00\x1F\x7F\x80\xC3\xA9\xEF\xBB\xBF\xFF;?#\\"
		switch {
		case len(q) > 0 && rng.IntN(2) == 0:
			q[rng.IntN(len(q))] = octets[rng.IntN(len(octets))]
		default:
			i := rng.IntN(len(q) + 1)
			q = append(q[:i], append([]byte{octets[rng.IntN(len(octets))]}, q[i:]...)...)
		}
	}
	return string(q)
}

// TestPlainPairsAgrees: a query plainPairs takes is one the pair-by-pair
// check (checkEachPair) and checkPairs pass unchanged, under every class
// and every limit.
func TestPlainPairsAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := getScratch()
	defer putScratch(s)
	plain := 0
	for range 60000 {
		q := mutatePlain(rng)
		lim := randomLimits(rng)
		if !form.Plain(q, &lim) {
			continue
		}
		plain++
		for _, forbid := range []sanitize.Class{sanitize.AllClasses, rules.Strict().Query.Forbid} {
			c := &rules.Check{On: true, Forbid: forbid}
			mode := sanitize.EscapeQuery | sanitize.RefuseDoubleEncoding
			for _, loc := range []rules.Location{rules.Query, rules.Form} {
				// CheckPairs, which form's TestPairsFastPath holds to the
				// general pass.
				if text, changed, rj := s.pairs.CheckPairs(q, loc, c, mode, &lim); text != "" || changed || rj != nil {
					t.Fatalf("%q limits %+v: plain, but CheckPairs gives %q %v %s", q, lim, text, changed, describe(rj))
				}
			}
		}
	}
	if plain < 1000 {
		t.Errorf("only %d plain queries drawn", plain)
	}
}

// TestPlainPathAgrees: a path inspect takes as plain is one checkPath
// (on the escaped path, as checkEscapedPath decodes it) and segmentBOM
// pass unchanged, under every class, with double encoding refused, and
// every path limit.
func TestPlainPathAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	s := getScratch()
	defer putScratch(s)
	plain := 0
	for range 60000 {
		path := mutatePlain(rng)
		pol := rules.Strict()
		pol.Path.Forbid = sanitize.AllClasses
		pol.Limits = randomLimits(rng)
		p := compiled.Compile(pol)
		if !octets.PlainPath(path) || !(p.Limits.PathBytes < 0 || len(path) <= p.Limits.PathBytes/3) {
			continue
		}
		plain++
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path, r.URL.RawPath = path, ""
		rj1, rep1 := checkDecodedPath(r, p)
		rj2, rep2 := s.checkEscapedPath(r, r.URL.EscapedPath(), p)
		if rj1 != nil || rep1 || rj2 != nil || rep2 || segmentBOM(r, p) != nil || r.URL.Path != path || r.URL.RawPath != "" {
			t.Fatalf("%q limits %+v: plain, but %s %v, %s %v", path, p.Limits, describe(rj1), rep1, describe(rj2), rep2)
		}
	}
	if plain < 1000 {
		t.Errorf("only %d plain paths drawn", plain)
	}
}

// FuzzPlain holds both scans to the general checks on fuzzed text.
func FuzzPlain(f *testing.F) {
	for _, s := range plainSamples {
		f.Add(s, int64(-1), int64(3))
	}
	f.Fuzz(func(t *testing.T, text string, fields, fieldBytes int64) {
		lim := rules.Limits{Fields: int(fields % 64), FieldBytes: int(fieldBytes % 256), PathBytes: int(fieldBytes % 1024),
			QueryBytes: int(fields % 512)}
		s := getScratch()
		defer putScratch(s)
		if form.Plain(text, &lim) {
			c := &rules.Check{On: true, Forbid: sanitize.AllClasses}
			if text2, changed, rj := s.pairs.CheckPairs(text, rules.Query, c, sanitize.EscapeQuery|sanitize.RefuseDoubleEncoding, &lim); text2 != "" || changed || rj != nil {
				t.Fatalf("%q %+v: plain, but %q %v %s", text, lim, text2, changed, describe(rj))
			}
		}
		if octets.PlainPath(text) {
			pol := rules.Strict()
			pol.Path.Forbid = sanitize.AllClasses
			pol.Limits.PathBytes = -1
			p := compiled.Compile(pol)
			r := httptest.NewRequest("GET", "/", nil)
			r.URL.Path, r.URL.RawPath = text, ""
			if rj, rep := s.checkEscapedPath(r, r.URL.EscapedPath(), p); rj != nil || rep || segmentBOM(r, p) != nil {
				t.Fatalf("%q: plain, but %s %v", text, describe(rj), rep)
			}
		}
	})
}

// TestBodyLocationCommon: the Content-Type values bodyLocation answers
// without parsing get the answer of the general path.
func TestBodyLocationCommon(t *testing.T) {
	for _, pol := range []rules.Policy{rules.Strict(), rules.Default()} {
		p := compiled.Compile(pol)
		for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8",
			"application/json; charset=UTF-8", "application/x-www-form-urlencoded"} {
			typ, sub, _, ok := media.Parse(ct)
			if !ok {
				t.Fatalf("%q does not parse", ct)
			}
			loc, text, rj := bodyLocation(p, ct, typ, sub)
			// The general path: as bodyLocation decides past its switch.
			wloc, wok := mediaLocation(p, typ, sub)
			bloc, bok := binderLocation(ct)
			if !bok || !wok || wloc != bloc || loc != wloc || !text || rj != nil {
				t.Errorf("%q: %v %v %v; media %v %v, binder %v %v", ct, loc, text, rj, wloc, wok, bloc, bok)
			}
		}
	}
}
