package jsonbody

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
	"golang.org/x/text/unicode/norm"
)

// The canonical form of a JSON body holds to the policy its input did, and
// a PRECIS field of it is found by its pointer in linear time.

// TestJSONCanonicalClasses: a canonical form is checked against the
// classes p.JSON refuses. No character's NFC or NFKC form holds a class
// the character lacks (TestJSONCanonicalCharacters), so a body cannot
// bring that about today; the check is tried on a canonical form given
// directly, with the offset and field of a rejection through
// jsonCanonReject.
func TestJSONCanonicalClasses(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(canonPolicy(normalize.NFC))
	if rj := checkCanonical(p, []byte("caf\u00e9"), true); rj != nil {
		t.Errorf("clean text refused: %v", rj)
	}
	if rj := checkCanonical(p, []byte("\u05d1-10:00\u200f"), false); rj != nil {
		t.Errorf("a bidi mark in a value refused: %v", rj)
	}
	if rj := checkCanonical(p, []byte("a\u200fb"), true); rj == nil || rj.Class != sanitize.BidiMark {
		t.Errorf("a bidi mark in a member name: %s", describe(rj))
	}
	rj := checkCanonical(p, []byte("ab\u202ecd"), false)
	if rj == nil || rj.Reason != sanitize.ForbiddenChar || rj.Class != sanitize.BidiControl {
		t.Fatalf("bidi control: %s", describe(rj))
	}
	body := []byte(`{"x":[1,{"k":"abcd"}]}`)
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *finding.Rejection {
		if isKey || string(body[i:end]) != `"abcd"` {
			return nil
		}
		return jsonCanonReject(p, &sc, rj, i, end, false, true, nil)
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
		p := compiled.Compile(canonPolicy(form))
		for _, text := range texts {
			want := p.Norm.Bytes([]byte(text))
			got, ok := normalBounded(p, []byte(text), math.MaxInt64/2)
			if !ok || string(got) != string(want) {
				t.Errorf("%s of %.20q...: stretch by stretch differs from whole", form.Name(), text)
			}
			if _, ok := normalBounded(p, []byte(text), int64(len(want))-1); ok {
				t.Errorf("%s of %.20q...: a form over room passed", form.Name(), text)
			}
			if got, ok := normalBounded(p, []byte(text), int64(len(want))); !ok || string(got) != string(want) {
				t.Errorf("%s of %.20q...: a form of exactly room refused", form.Name(), text)
			}
		}
	}
}

// TestJSONCanonicalCharacters pins two facts about every code point that
// Canon relies on: no character's NFC or NFKC form is more than
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

// precisPointerBody is a hostile construction, of exactly n octets: 511
// nested objects whose keys fill half the body, then an array of empty
// strings. Before the pointers were matched incrementally, every string
// rebuilt and folded the pointer of half the body.
func precisPointerBody(n int) []byte {
	const depth = 511
	key := strings.Repeat("k", max(1, n/2/depth-len(`{"":`)))
	var b strings.Builder
	b.WriteString(strings.Repeat(`{"`+key+`":`, depth))
	b.WriteString(`[""`)
	end := `]` + strings.Repeat(`}`, depth)
	for b.Len()+len(`,""`)+len(end) <= n {
		b.WriteString(`,""`)
	}
	b.WriteString(strings.Repeat(" ", n-len(end)-b.Len()))
	b.WriteString(end)
	return []byte(b.String())
}

// TestJSONPrecisPointerLinear: on a route with a JSON PRECIS field, the
// work of checking and canonicalizing the body of nested long keys above
// many strings grows linearly with the body, counted in allocations and
// in octets allocated (no timing): a pointer built for each string cost
// allocations per string and octets quadratic in the body (at 64 KiB,
// 1.6 GB where 16 KiB took 64 MB).
func TestJSONPrecisPointerLinear(t *testing.T) {
	pol := rules.Strict()
	pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname}}
	p := compiled.Compile(pol)
	work := func(n int) (allocs, octets float64) {
		body := precisPointerBody(n)
		if len(body) != n {
			t.Fatalf("body of %d octets, want %d", len(body), n)
		}
		if _, rj := checkJSON(body, p); rj != nil {
			t.Fatalf("checkJSON: %v", rj)
		}
		if out, rj := Canon(p, body); rj != nil || out != nil {
			t.Fatalf("Canon: %v, rewrote %v", rj, out != nil)
		}
		const runs = 4
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			checkJSON(body, p)
			Canon(p, body)
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / runs, float64(after.TotalAlloc-before.TotalAlloc) / runs
	}
	a16, o16 := work(16 << 10)
	a64, o64 := work(64 << 10)
	t.Logf("16 KiB: %.0f allocations, %.0f octets; 64 KiB: %.0f allocations, %.0f octets", a16, o16, a64, o64)
	// Four times the body: at most four times the work, with room for
	// the slices that grow by doubling.
	if a64 > 4*a16+8 {
		t.Errorf("allocations grow from %.0f to %.0f for four times the body", a16, a64)
	}
	if o64 > 5*o16+(64<<10) {
		t.Errorf("octets allocated grow from %.0f to %.0f for four times the body", o16, o64)
	}
}

// TestJSONPrecisPointers: the trie of a route's JSON PRECIS pointers
// matches exactly the string values that comparing each value's whole
// canonical pointer (canonPointer, folded by precisProfile) matched:
// keys in the route's form and folded, escapes decoded, RFC 6901 "~0" and
// "~1", array indexes, the root, pointers that are not pointers. Every
// string value of random documents is " Ｘ", which Nickname enforces to
// "X" and no normalization makes "X" (NFKC makes it " X").
func TestJSONPrecisPointers(t *testing.T) {
	t.Parallel()
	keys := []string{"a", "A", "b", "ａ", `\u0061`, "a~b", "a/b", `a\/b`, "0", "1", "ſ", "s", "S", "é", `e\u0301`, ""}
	pointers := []string{"", "/a", "/A/b", "/a/0", "/0", "/1/a", "/a~1b", "/a~0b", "/ａ", "/s", "/S/1", "/ſ/0/b",
		"/É", "/e\u0301/a", "a", "/a~2", "/a~", "/00", "/-", "/a/", "/a//b"}
	rng := rand.New(rand.NewPCG(9, 10))
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := rng.IntN(6); {
		case depth > 3 || k < 2:
			return `" Ｘ"`
		case k == 2:
			return `1`
		case k == 3:
			var parts []string
			for range rng.IntN(4) {
				parts = append(parts, gen(depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			var parts []string
			for range rng.IntN(4) {
				parts = append(parts, `"`+keys[rng.IntN(len(keys))]+`":`+gen(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	for _, n := range []normalize.Form{normalize.None, normalize.NFC, normalize.NFKC} {
		for range sweep(300) {
			pol := rules.Default()
			pol.Normalization = n
			for range 1 + rng.IntN(4) {
				pol.Precis = append(pol.Precis, rules.PrecisField{Location: rules.JSON, Field: pointers[rng.IntN(len(pointers))], Profile: normalize.Nickname})
			}
			p := compiled.Compile(pol)
			for range 10 {
				body := []byte(gen(0))
				want := oldPrecisMatches(p, body)
				got := newPrecisMatches(t, p, body)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, pointers %v, body %s:\n got %v\nwant %v", n.Name(), pol.Precis, body, got, want)
				}
			}
		}
	}
}

// oldPrecisMatches returns the offsets of the string values of body that
// get a PRECIS profile by the matching Canon did before the trie: the
// canonical pointer of each value, looked up whole with precisProfile.
func oldPrecisMatches(p *compiled.Policy, body []byte) []int {
	var out []int
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *finding.Rejection {
		if !isKey {
			if _, ok := p.PrecisProfile(rules.JSON, canonPointer(p, &sc)); ok {
				out = append(out, i)
			}
		}
		return nil
	}
	sc.scan()
	return out
}

// newPrecisMatches returns the offsets of the string values that
// Canon enforced Nickname on: those it rewrote to "X".
func newPrecisMatches(t *testing.T, p *compiled.Policy, body []byte) []int {
	t.Helper()
	out, rj := Canon(p, body)
	if rj != nil {
		t.Fatalf("%s: %v", body, rj)
	}
	if out == nil {
		out = body
	}
	// The values in order, in the output as in the input.
	var offs, got []int
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *finding.Rejection {
		if !isKey {
			offs = append(offs, i)
		}
		return nil
	}
	sc.scan()
	k := 0
	sc = jsonScanner{p: out, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *finding.Rejection {
		if !isKey {
			if string(out[i:end]) == `"X"` {
				got = append(got, offs[k])
			}
			k++
		}
		return nil
	}
	sc.scan()
	return got
}

// TestJSONPrecisPointerFields: the JSON pointers of the trie and of
// rejections, by case.
func TestJSONPrecisPointerFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pointer, body string
		want          string // the enforced body; "" for a rejection
		field         string // of the rejection
	}{
		{"/list/1", `{"list":["Ｘ","Ｘ",["Ｘ"]]}`, `{"list":["Ｘ","X",["Ｘ"]]}`, ""},
		{"/list/1/0", `{"list":["Ｘ",["Ｘ","Ｘ"]]}`, `{"list":["Ｘ",["X","Ｘ"]]}`, ""},
		{"/a~1b/c~0d", `{"a/b":{"c~d":"Ｘ"}}`, `{"a/b":{"c~d":"X"}}`, ""},
		{"", `"Ｘ"`, `"X"`, ""},
		{"/user/name", `{"USER":{"Name":"  "}}`, "", "/USER/Name"},
		{"/user/name", `{"user":[{"name":"  "}],"user ":{"name":"  "},"us\u0065r":{"name":"  "}}`, "", "/user/name"},
		{"/10", `["Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ"]`, `["Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","Ｘ","X"]`, ""},
	}
	for _, tc := range cases {
		pol := rules.Default()
		pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: tc.pointer, Profile: normalize.Nickname}}
		p := compiled.Compile(pol)
		out, rj := Canon(p, []byte(tc.body))
		if tc.want == "" {
			if rj == nil || rj.Reason.String() != "precis" || rj.Field != tc.field {
				t.Errorf("%s in %s: %s, want precis at %s", tc.pointer, tc.body, describe(rj), tc.field)
			}
			continue
		}
		if rj != nil || string(out) != tc.want {
			t.Errorf("%s in %s: %q %s, want %q", tc.pointer, tc.body, out, describe(rj), tc.want)
		}
	}
}

// BenchmarkCanonJSONPrecisPointer: Canon on the nested construction,
// by size.
func BenchmarkCanonJSONPrecisPointer(b *testing.B) {
	pol := rules.Strict()
	pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname}}
	p := compiled.Compile(pol)
	for _, n := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
		body := precisPointerBody(n)
		b.Run(fmt.Sprintf("size=%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				Canon(p, body)
			}
		})
	}
}

// TestBoundaryTable: boundaryBefore answers as norm's Properties do for
// every code point, in NFC and NFKC, both when it looks a code point up
// and when it remembers it, and for a text that is not valid UTF-8.
func TestBoundaryTable(t *testing.T) {
	t.Parallel()
	var buf [utf8.UTFMax + 1]byte
	for _, nf := range []norm.Form{norm.NFC, norm.NFKC} {
		bt := new(boundaryTable)
		for pass := 0; pass < 2; pass++ {
			for r := rune(0); r <= unicode.MaxRune; r++ {
				if 0xD800 <= r && r <= 0xDFFF {
					continue
				}
				n := utf8.EncodeRune(buf[:], r)
				buf[n] = 'a'
				s := buf[:n+1]
				if got, want := bt.boundaryBefore(nf, s), nf.Properties(s).BoundaryBefore(); got != want {
					t.Fatalf("form %v, U+%04X, pass %d: %v, want %v", nf, r, pass, got, want)
				}
			}
		}
		for _, s := range []string{"\xcc", "\xff\xcc\x81", "\xcc\x81"[:1]} {
			if got, want := bt.boundaryBefore(nf, []byte(s)), nf.Properties([]byte(s)).BoundaryBefore(); got != want {
				t.Errorf("form %v, %q: %v, want %v", nf, s, got, want)
			}
		}
	}
}
