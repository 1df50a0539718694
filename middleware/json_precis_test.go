package middleware

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// precisPointerBody is issue 14's construction, of exactly n octets: 511
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
	p := compile(pol)
	work := func(n int) (allocs, octets float64) {
		body := precisPointerBody(n)
		if len(body) != n {
			t.Fatalf("body of %d octets, want %d", len(body), n)
		}
		if _, rj := checkJSON(body, p); rj != nil {
			t.Fatalf("checkJSON: %v", rj)
		}
		if out, rj := p.canonJSON(body); rj != nil || out != nil {
			t.Fatalf("canonJSON: %v, rewrote %v", rj, out != nil)
		}
		const runs = 4
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			checkJSON(body, p)
			p.canonJSON(body)
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
		for range 300 {
			pol := rules.Default()
			pol.Normalization = n
			for range 1 + rng.IntN(4) {
				pol.Precis = append(pol.Precis, rules.PrecisField{Location: rules.JSON, Field: pointers[rng.IntN(len(pointers))], Profile: normalize.Nickname})
			}
			p := compile(pol)
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
// get a PRECIS profile by the matching canonJSON did before the trie: the
// canonical pointer of each value, looked up whole with precisProfile.
func oldPrecisMatches(p *policy, body []byte) []int {
	var out []int
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *Rejection {
		if !isKey {
			if _, ok := p.precisProfile(rules.JSON, p.canonPointer(&sc)); ok {
				out = append(out, i)
			}
		}
		return nil
	}
	sc.scan()
	return out
}

// newPrecisMatches returns the offsets of the string values that
// canonJSON enforced Nickname on: those it rewrote to "X".
func newPrecisMatches(t *testing.T, p *policy, body []byte) []int {
	t.Helper()
	out, rj := p.canonJSON(body)
	if rj != nil {
		t.Fatalf("%s: %v", body, rj)
	}
	if out == nil {
		out = body
	}
	// The values in order, in the output as in the input.
	var offs, got []int
	sc := jsonScanner{p: body, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *Rejection {
		if !isKey {
			offs = append(offs, i)
		}
		return nil
	}
	sc.scan()
	k := 0
	sc = jsonScanner{p: out, maxDepth: -1}
	sc.onString = func(i, end int, isKey bool) *Rejection {
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
		p := compile(pol)
		out, rj := p.canonJSON([]byte(tc.body))
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

// BenchmarkCanonJSONPrecisPointer: canonJSON on the nested construction,
// by size.
func BenchmarkCanonJSONPrecisPointer(b *testing.B) {
	pol := rules.Strict()
	pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname}}
	p := compile(pol)
	for _, n := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
		body := precisPointerBody(n)
		b.Run(fmt.Sprintf("size=%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				p.canonJSON(body)
			}
		})
	}
}
