package jsonbody

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody/jsoncases"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// memberBodies are bodies for the comparisons of the member check with
// its references: names equal and distinct in every way the check
// distinguishes, in objects nested and side by side.
var memberBodies = func() []string {
	var out []string
	for _, c := range jsoncases.Duplicates() {
		out = append(out, c.Body)
	}
	for _, f := range canonForms {
		for _, c := range jsoncases.Collisions(f, false) {
			out = append(out, c.Body)
		}
	}
	return append(out, jsonSamples...)
}()

// memberPolicies are the policies the comparisons run under.
func memberPolicies() []*compiled.Policy {
	var out []*compiled.Policy
	for _, dup := range []bool{false, true} {
		for _, n := range []normalize.Form{normalize.None, normalize.NFC, normalize.NFKC} {
			if !dup && n == normalize.None {
				continue // no member check
			}
			p := rules.Default()
			p.RefuseDuplicateKeys, p.Normalization = dup, n
			out = append(out, compiled.Compile(p))
		}
	}
	return out
}

// mutateJSON changes a few octets of b to ones that matter to names.
func mutateJSON(rng *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	const octets = "\"\\{}[],: aAkK\u017f\u212a"
	for range 1 + rng.IntN(3) {
		if len(b) == 0 {
			break
		}
		switch rng.IntN(3) {
		case 0:
			b[rng.IntN(len(b))] = octets[rng.IntN(len(octets))]
		case 1: // duplicate a stretch
			i := rng.IntN(len(b))
			j := min(len(b), i+rng.IntN(12))
			b = append(b[:j], append(bytes.Clone(b[i:j]), b[j:]...)...)
		case 2: // delete a stretch
			i := rng.IntN(len(b))
			j := min(len(b), i+rng.IntN(4))
			b = append(b[:i], b[j:]...)
		}
	}
	return b
}

// TestJSONMembersQuickPath: checkMembers (the quick tests namesDistinct
// and objectNamesDistinct, then memberCheck) answers as memberCheck alone
// does, for the member bodies, mutations of them and every policy; each
// quick test answers true only where memberCheck refuses nothing, and
// decides some of them.
func TestJSONMembersQuickPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	bodies := append([]string(nil), memberBodies...)
	for range sweep(5000) {
		bodies = append(bodies, string(mutateJSON(rng, []byte(memberBodies[rng.IntN(len(memberBodies))]))))
	}
	quick, quickNames := 0, 0
	for _, p := range memberPolicies() {
		for _, body := range bodies {
			b := []byte(body)
			escapes := bytes.IndexByte(b, '\\') >= 0
			var mc memberCheck
			mc.p, mc.form, mc.escapes, mc.kinds = b, p.Norm, escapes, kindsOf(p)
			want := mc.run()
			if !escapes && objectNamesDistinct(b, p.Norm) {
				quick++
			}
			if !escapes && namesDistinct(b, p.Norm) {
				if want != nil {
					t.Fatalf("%+q: namesDistinct true, memberCheck %s", body, describe(want))
				}
				quickNames++
			}
			if got := checkMembers(b, p, escapes); describe(got) != describe(want) {
				t.Fatalf("%+q: checkMembers %s, memberCheck %s", body, describe(got), describe(want))
			}
		}
	}
	if quick == 0 {
		t.Error("objectNamesDistinct never answered true")
	}
	if quickNames == 0 {
		t.Error("namesDistinct never answered true")
	}
}

// refMembers is the reference of the member check: encoding/json's own
// tokenizer walks body (valid JSON), and each name is compared with the
// names before it in its object: with dup, refused as a duplicate if
// strings.EqualFold holds for one; with a form, refused as a collision if
// one is equal to it under strings.EqualFold in the form and not before,
// or equal in the form and not before. It returns the first refusal, as
// describe prints it, or "accepted".
func refMembers(body []byte, dup bool, form normalize.Form) string {
	type obj struct{ names []string }
	type frame struct {
		object bool
		index  int
		key    string
		hasKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []frame
	var objs []obj
	pointer := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
			} else {
				fmt.Fprint(&b, f.index)
			}
		}
		return b.String()
	}
	value := func() { // a value ends: the next one is an element or a name
		if n := len(stack); n > 0 {
			if stack[n-1].object {
				stack[n-1].hasKey = false
			} else {
				stack[n-1].index++
			}
		}
	}
	for {
		prev := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return "accepted"
		}
		top := len(stack) - 1
		isName := top >= 0 && stack[top].object && !stack[top].hasKey
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, frame{object: tok == json.Delim('{')})
			if tok == json.Delim('{') {
				objs = append(objs, obj{})
			}
			continue
		case json.Delim('}'), json.Delim(']'):
			if tok == json.Delim('}') {
				objs = objs[:len(objs)-1]
			}
			stack = stack[:top]
			value()
			continue
		}
		if !isName {
			value()
			continue
		}
		name := tok.(string)
		start := int(prev) + bytes.IndexByte(body[prev:], '"') + 1
		o := &objs[len(objs)-1]
		stack[top].key, stack[top].hasKey = name, true
		refuse := func(r sanitize.Reason) string {
			return describe(&finding.Rejection{Reason: r, Offset: start, Field: finding.SafeField(pointer())})
		}
		for _, m := range o.names {
			if dup && strings.EqualFold(m, name) {
				return refuse(sanitize.DuplicateKey)
			}
		}
		if form != normalize.None {
			for _, m := range o.names {
				if strings.EqualFold(form.String(m), form.String(name)) && !strings.EqualFold(m, name) {
					return refuse(sanitize.KeyCollision)
				}
			}
			for _, m := range o.names {
				if form.String(m) == form.String(name) && m != name {
					return refuse(sanitize.KeyCollision)
				}
			}
		}
		o.names = append(o.names, name)
	}
}

// checkMembersRef runs checkMembers over body as checkJSON would: after
// the text check, which the body must pass (valid UTF-8, no lone
// surrogate escape) for refMembers to read the same names.
func checkMembersRef(t *testing.T, body []byte) {
	if !json.Valid(body) {
		return
	}
	if _, rj := checkJSONText(bytes.Clone(body), &rules.Check{On: true}, -1); rj != nil {
		return
	}
	for _, p := range memberPolicies() {
		got := describe(checkMembers(body, p, bytes.IndexByte(body, '\\') >= 0))
		if want := refMembers(body, p.RefuseDuplicateKeys, p.Norm); got != want {
			t.Fatalf("%+q dup %v form %s:\n got %s\nwant %s", body, p.RefuseDuplicateKeys, p.Norm.Name(), got, want)
		}
	}
}

// TestJSONMembersReference: the member check refuses exactly what the
// reference does, with the same pointer and offset, for the member bodies
// and mutations of them that are valid JSON.
func TestJSONMembersReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	valid := 0
	for i := range sweep(20000) {
		body := []byte(memberBodies[i%len(memberBodies)])
		if i >= len(memberBodies) {
			body = mutateJSON(rng, body)
		}
		if json.Valid(body) {
			valid++
		}
		checkMembersRef(t, body)
	}
	t.Logf("%d valid bodies", valid)
}

// FuzzJSONKeys compares the member check with its reference (encoding/json's
// tokenizer and strings.EqualFold) on valid JSON, under every combination
// of RefuseDuplicateKeys and normalization.
func FuzzJSONKeys(f *testing.F) {
	for _, b := range memberBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkMembersRef(t, body)
	})
}

// TestJSONMembersAllocs: the member check of bodies whose objects have few
// plain names allocates nothing, by the quick test or by memberCheck
// (repeated names send it there).
func TestJSONMembersAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	p := compiled.Compile(rules.Strict())
	pn := compiled.Compile(canonPolicy(normalize.NFC))
	records := `[` + strings.Repeat(`{"id":1,"name":"Zoë","tags":["a","b"],"owner":{"id":2,"name":"x"}},`, 20) + `{}]`
	for _, tc := range []struct {
		name string
		p    *compiled.Policy
		body string
	}{
		{"1 KiB strict", p, string(json1K)},
		{"records 1 KiB", p, string(records1K)},
		{"1 KiB nfc", pn, string(json1K)},
		{"records strict", p, records},
		{"records nfc", pn, records},
		{"nested", p, jsoncases.DeepMembers(16, `"a":1,"b":"é"`)},
		{"fifteen members", p, `{` + jsoncases.ManyMembers(15) + `}`},
	} {
		body := []byte(tc.body)
		if _, rj := checkJSON(body, tc.p); rj != nil {
			t.Fatalf("%s: %v", tc.name, rj)
		}
		if n := testing.AllocsPerRun(100, func() { checkJSON(body, tc.p) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", tc.name, n)
		}
	}
}

// TestHashFolded holds hashFolded, which folds a long name a stretch at a
// time, to the hash of the name folded whole, on names valid UTF-8 or not:
// a run of continuation octets longer than a stretch (found by
// FuzzJSONShape, which hands objectNamesDistinct unvalidated bodies) once
// sent the cut before the start of s, or left it where it was for good.
func TestHashFolded(t *testing.T) {
	pieces := []string{"a", "Z", "é", "É", "€", "𐐀", "ǅ", "\x80", "\xbf", "\xe2", "\xe2\x82", "\xf0\x90\x90", "\xff", "\xed\xa0\x80"}
	rng := rand.New(rand.NewPCG(4, 2))
	names := []string{
		strings.Repeat("\x80", 200),
		"\xe2" + strings.Repeat("\x82", 150),
		strings.Repeat("a", 63) + "€" + strings.Repeat("\x80", 70),
		strings.Repeat("a", 61) + "𐐀𐐀" + strings.Repeat("É", 40),
	}
	for range sweep(3000) {
		var b strings.Builder
		for b.Len() < 65+rng.IntN(200) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		names = append(names, b.String())
	}
	var fold [64]byte
	for _, s := range names {
		want := maphash.Bytes(memberSeed, appendFoldKey(nil, []byte(s)))
		if got := hashFolded([]byte(s), false, &fold); got != want {
			t.Fatalf("hashFolded(%+q) = %#x, the whole name folded hashes to %#x", s, got, want)
		}
	}
}
