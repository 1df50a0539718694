package middleware

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// memberCase is a JSON body and what the middleware must do with it:
// accept it (reason "") or refuse the member whose name starts at offset,
// with the JSON pointer field.
type memberCase struct {
	name, body    string
	reason, field string
	offset        int
}

// manyMembers returns the members "k0":0 to "k<n-1>":0, comma-separated.
func manyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	return b.String()
}

// deepMembers returns depth objects nested in member "k" of each other,
// the innermost holding inner.
func deepMembers(depth int, inner string) string {
	return strings.Repeat(`{"k":`, depth-1) + `{` + inner + `}` + strings.Repeat(`}`, depth-1)
}

// at returns the offset of the n-th (from 1) occurrence of sub in s, plus
// skip: where a name starts.
func at(s, sub string, n, skip int) int {
	off := 0
	for range n - 1 {
		off += strings.Index(s[off:], sub) + len(sub)
	}
	return off + strings.Index(s[off:], sub) + skip
}

// duplicateCases are the bodies of TestJSONDuplicateKeys.
func duplicateCases() []memberCase {
	dup := func(name, body, field, sub string, n int) memberCase {
		return memberCase{name: name, body: body, reason: "duplicate_key", field: field, offset: at(body, sub, n, 1)}
	}
	ok := func(name, body string) memberCase { return memberCase{name: name, body: body} }
	deep := deepMembers(300, `"a":1,"b":2,"a":3`)
	many := `{` + manyMembers(40) + `,"k7":1}`
	manyFold := `{` + manyMembers(40) + `,"K39":1}`
	manyNested := `{` + manyMembers(20) + `,"in":{` + manyMembers(20) + `},"k3":1}`
	return []memberCase{
		dup("escaped twin", `{"a":1,"\u0061":2}`, "/a", `"\u`, 1),
		dup("plain twin", `{"a":1,"a":2}`, "/a", `"a"`, 2),
		dup("upper case", `{"role":"user","ROLE":"admin"}`, "/ROLE", `"ROLE"`, 1),
		dup("mixed case escaped", `{"Role":"user","r\u004fle":"admin"}`, "/rOle", `"r\u`, 1),
		dup("long s", `{"user":"a","u`+"\u017f"+`er":"b"}`, `/u\xc5\xbfer`, `"u`, 2),
		dup("long s escaped", `{"user":"a","u\u017fer":"b"}`, `/u\xc5\xbfer`, `"u\u`, 1),
		dup("kelvin sign", `{"k":1,"`+"\u212a"+`":2}`, `/\xe2\x84\xaa`, "\"\u212a", 1),
		dup("raw and pair", `{"`+"\U0001F600"+`":1,"\ud83d\ude00":2}`, `/\xf0\x9f\x98\x80`, `"\u`, 1),
		dup("escaped quote", `{"a\"b":1,"a\u0022b":2}`, `/a"b`, `"a\u`, 1),
		dup("escaped slash", `{"a/b":1,"a\/b":2}`, "/a~1b", `"a\/`, 1),
		dup("key with colon", `{"a:b":1,"a:b":2}`, "/a:b", `"a:b"`, 2),
		dup("empty names", `{"":1,"":2}`, "/", `""`, 2),
		dup("white space", "{ \"a\" : 1 ,\n \"a\"\t:\r 2 }", "/a", `"a"`, 2),
		dup("nested", `{"a":{"b":1,"c":{"d":1,"d":2}}}`, "/a/c/d", `"d"`, 2),
		dup("in an array", `[{"a":1},{"a":2,"b":3,"a":4}]`, "/1/a", `"a"`, 3),
		dup("after a nested object", `{"a":{"x":1},"b":[1,{"a":2}],"a":3}`, "/a", `"a"`, 3),
		dup("deep", deep, finding.SafeField(strings.Repeat("/k", 299)+"/a"), `"a"`, 2), // cut to 64 octets
		dup("many members", many, "/k7", `"k7"`, 2),
		dup("many members case", manyFold, "/K39", `"K39"`, 1),
		dup("many members after many inside", manyNested, "/k3", `"k3"`, 3),
		ok("distinct", `{"a":1,"b":2,"A1":3,"a2":4}`),
		ok("arrays of objects", `[{"a":1},{"a":2},{"a":{"a":{"a":3}}}]`),
		ok("same names at each depth", `{"a":{"a":{"a":1}},"b":[{"a":1,"b":2}]}`),
		ok("siblings with many members", `[{`+manyMembers(40)+`},{`+manyMembers(40)+`}]`),
		ok("many members in many members", `{`+manyMembers(20)+`,"in":{`+manyMembers(20)+`}}`),
		ok("names in strings", `{"x":"\"a\":1,","a":1,"y":"{\"a\":2}"}`),
		ok("colons in values", `{"a,":" :x","b":":","c":"a:b","d":{"e":": "}}`),
		ok("case differs from long s", `{"role":1,"ro`+"\u017f"+`e":2}`), // ſ folds with s, not l
		ok("dotless i", `{"i":1,"`+"\u0131"+`":2,"`+"\u0130"+`":3}`),     // no simple folding joins them
		ok("not normalized, no normalization", `{"é":1,"e`+"\u0301"+`":2}`),
		ok("scalars", `[1,"a",true,null]`),
	}
}

// TestJSONDuplicateKeys: under RefuseDuplicateKeys (the strict preset) an
// object with two members of one name, after unescaping and without regard
// to case as strings.EqualFold (what encoding/json and c.Bind match struct
// fields by), is refused with duplicate_key, the pointer of the second
// member and the offset of its name; on both adapters and every mount.
func TestJSONDuplicateKeys(t *testing.T) {
	t.Parallel()
	runMemberCases(t, rules.Strict(), duplicateCases())
}

// TestJSONDuplicateKeysAllowed: without RefuseDuplicateKeys, and on a route
// that does not normalize, duplicate names pass unchanged.
func TestJSONDuplicateKeysAllowed(t *testing.T) {
	t.Parallel()
	var cases []memberCase
	for _, c := range duplicateCases() {
		cases = append(cases, memberCase{name: c.name, body: c.body})
	}
	p := rules.Strict()
	p.RefuseDuplicateKeys = false
	runMemberCases(t, p, cases)
	runMemberCases(t, rules.Default(), cases)
}

// runMemberCases serves each case under pol on every mount of both
// adapters.
func runMemberCases(t *testing.T, pol rules.Policy, cases []memberCase) {
	t.Helper()
	for _, mnt := range canonMounts {
		ev := canonNewEnv(t, pol, mnt)
		for _, c := range cases {
			t.Run(mnt.name+"/"+c.name, func(t *testing.T) {
				ev.logs.reset()
				w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, c.body))
				s := ev.rec.get()
				wantStatus := http.StatusOK
				if c.reason != "" && pol.Mode == rules.Enforce {
					wantStatus = http.StatusBadRequest
				}
				if w.Code != wantStatus {
					t.Fatalf("status %d, want %d; log %v", w.Code, wantStatus, ev.logs.lines(t))
				}
				rewrites := pol.Normalization != normalize.None && pol.Mode == rules.Enforce && !pol.RejectUnnormalized
				if wantStatus == http.StatusOK {
					if s == nil {
						t.Fatal("handler did not run")
					}
					if string(s.Body) != c.body && !(rewrites && !isNormalJSON(pol.Normalization, c.body)) {
						t.Fatalf("handler saw %q, want the body unchanged", s.Body)
					}
				} else if s != nil {
					t.Fatal("handler ran for a refused body")
				}
				if c.reason == "" {
					if l := ev.logs.lines(t); len(l) != 0 {
						t.Fatalf("log lines: %v", l)
					}
					return
				}
				mode := "enforce"
				if pol.Mode == rules.Monitor {
					mode = "monitor"
				}
				l := checkOneLog(t, ev.logs, wantLog{reason: c.reason, location: "json", field: c.field, offset: c.offset}, mode, "POST", "")
				if l["field"] != c.field { // checkOneLog skips an empty field
					t.Errorf("field = %q, want %q", l["field"], c.field)
				}
			})
		}
	}
}

// collisionCases are the bodies of TestJSONKeyCollision under a route that
// normalizes to form; distinct says whether the policy refuses duplicates.
func collisionCases(form normalize.Form, dupRefused bool) []memberCase {
	col := func(name, body, field, sub string, n int) memberCase {
		return memberCase{name: name, body: body, reason: "key_collision", field: field, offset: at(body, sub, n, 1)}
	}
	ok := func(name, body string) memberCase { return memberCase{name: name, body: body} }
	cases := []memberCase{
		col("escaped decomposed", `{"é":"safe","e\u0301":"evil"}`, `/e\xcc\x81`, `"e\u`, 1),
		col("raw decomposed", `{"é":"safe","e`+"\u0301"+`":"evil"}`, `/e\xcc\x81`, `"e`, 1),
		col("decomposed first", `{"e\u0301":"evil","é":"safe"}`, `/\xc3\xa9`, `"é`, 1),
		col("folded and composed", `{"é":1,"E\u0301":2}`, `/E\xcc\x81`, `"E`, 1),
		col("nested", `{"a":[{"x":1},{"ė":1,"e\u0307":2}]}`, `/a/1/e\xcc\x87`, `"e\u`, 1),
		col("many members", `{`+manyMembers(30)+`,"é":1,"e\u0301":2}`, `/e\xcc\x81`, `"e\u`, 1),
		ok("distinct accents", `{"é":1,"è":2,"e":3}`),
		ok("same name in two objects", `[{"é":1},{"e\u0301":2}]`),
	}
	if form == normalize.NFKC {
		cases = append(cases,
			col("fullwidth", `{"q":"safe","ｑ":"evil"}`, `/\xef\xbd\x91`, `"ｑ`, 1),
			col("ligature", `{"fi":1,"`+"\ufb01"+`":2}`, `/\xef\xac\x81`, "\"\ufb01", 1),
			col("fullwidth upper", `{"name":1,"ＮＡＭＥ":2}`, `/\xef\xbc\xae\xef\xbc\xa1\xef\xbc\xad\xef\xbc\xa5`, `"Ｎ`, 1))
	} else {
		cases = append(cases, ok("fullwidth", `{"q":"safe","ｑ":"evil"}`))
	}
	// "Å" and the Angstrom sign U+212B fold together already: with
	// duplicates refused they are duplicates; without, NFC makes them
	// identical, one entry of a map, which they were not.
	angstrom := `{"Å":1,"` + "\u212b" + `":2}`
	if dupRefused {
		dups := `{"é":1,"é":2,"e\u0301":3}`
		cases = append(cases,
			memberCase{name: "duplicate first", body: dups, reason: "duplicate_key", field: `/\xc3\xa9`, offset: at(dups, `"é`, 2, 1)},
			memberCase{name: "angstrom sign", body: angstrom, reason: "duplicate_key", field: `/\xe2\x84\xab`, offset: at(angstrom, "\"\u212b", 1, 1)})
	} else {
		cases = append(cases,
			ok("duplicate", `{"é":1,"é":2}`),
			ok("case variant", `{"Name":1,"name":2}`), // one name before as after: RefuseDuplicateKeys's to refuse
			col("duplicate then collision", `{"é":1,"é":2,"e\u0301":3}`, `/e\xcc\x81`, `"e\u`, 1),
			col("angstrom sign", angstrom, `/\xe2\x84\xab`, "\"\u212b", 1),
			col("kelvin sign", `{"K":1,"`+"\u212a"+`":2}`, `/\xe2\x84\xaa`, "\"\u212a", 1))
	}
	return cases
}

// TestJSONKeyCollision: on a route that normalizes, two distinct names of
// one object that the canonical form (folded as encoding/json matches
// names) makes one are refused with key_collision, whether or not
// RefuseDuplicateKeys is set, in RejectUnnormalized mode, and flagged in
// Monitor mode.
func TestJSONKeyCollision(t *testing.T) {
	t.Parallel()
	for _, form := range canonForms {
		t.Run(form.Name()+"/strict", func(t *testing.T) {
			t.Parallel()
			runMemberCases(t, canonPolicy(form), collisionCases(form, true))
		})
		t.Run(form.Name()+"/default", func(t *testing.T) {
			t.Parallel()
			p := rules.Default()
			p.Normalization = form
			runMemberCases(t, p, collisionCases(form, false))
		})
		t.Run(form.Name()+"/reject unnormalized", func(t *testing.T) {
			t.Parallel()
			var cases []memberCase
			for _, c := range collisionCases(form, true) {
				if c.reason != "" || isNormalJSON(form, c.body) {
					cases = append(cases, c)
				}
			}
			runMemberCases(t, canonPolicy(form, canonRejecting), cases)
		})
		t.Run(form.Name()+"/monitor", func(t *testing.T) {
			t.Parallel()
			var cases []memberCase
			for _, c := range collisionCases(form, true) {
				if c.reason != "" {
					cases = append(cases, c)
				}
			}
			runMemberCases(t, canonPolicy(form, canonMonitoring), cases)
		})
	}
}

// isNormalJSON reports whether every string of body, decoded, is in form.
func isNormalJSON(form normalize.Form, body string) bool {
	f := normalize.NFC
	if form == normalize.NFKC {
		f = normalize.NFKC
	}
	dec := json.NewDecoder(strings.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return err == io.EOF
		}
		if s, ok := tok.(string); ok && !f.IsNormalString(s) {
			return false
		}
	}
}

// TestJSONMembersBind: what the check protects, seen from the handler:
// without RefuseDuplicateKeys c.Bind takes the last of two case variants,
// so a check that read the first was bypassed; with it the body is
// refused. And a normalizing route rewrites "e\u0301" to the "é" beside
// it, which would hand c.Bind the later value: refused.
func TestJSONMembersBind(t *testing.T) {
	t.Parallel()
	body := `{"q":"safe","Q":"evil"}`
	lax := rules.Strict()
	lax.RefuseDuplicateKeys = false
	ev := canonNewEnv(t, lax, canonMounts[0])
	if w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, body)); w.Code != 200 {
		t.Fatalf("lax: status %d", w.Code)
	}
	if s := ev.rec.get(); s.Doc.Q != "evil" {
		t.Fatalf("c.Bind took %q: the test no longer shows what it should", s.Doc.Q)
	}
	for _, tc := range []struct {
		pol  rules.Policy
		body string
	}{{rules.Strict(), body}, {canonPolicy(normalize.NFC), `{"q":"safe","q\u0301":"x","\u00e9":"safe","e\u0301":"evil"}`}} {
		ev := canonNewEnv(t, tc.pol, canonMounts[0])
		if w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, tc.body)); w.Code != 400 {
			t.Errorf("%s: status %d, want 400", tc.body, w.Code)
		}
	}
}

// memberBodies are bodies for the comparisons of the member check with
// its references: names equal and distinct in every way the check
// distinguishes, in objects nested and side by side.
var memberBodies = func() []string {
	var out []string
	for _, c := range duplicateCases() {
		out = append(out, c.body)
	}
	for _, f := range canonForms {
		for _, c := range collisionCases(f, false) {
			out = append(out, c.body)
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

// TestJSONMembersQuickPath: checkMembers (the quick test of
// objectNamesDistinct, then memberCheck) answers as memberCheck alone does,
// for the member bodies, mutations of them and every policy, and the quick
// test decides some of them.
func TestJSONMembersQuickPath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	bodies := append([]string(nil), memberBodies...)
	for range 5000 {
		bodies = append(bodies, string(mutateJSON(rng, []byte(memberBodies[rng.IntN(len(memberBodies))]))))
	}
	quick := 0
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
			if got := checkMembers(b, p, escapes); describe(got) != describe(want) {
				t.Fatalf("%+q: checkMembers %s, memberCheck %s", body, describe(got), describe(want))
			}
		}
	}
	if quick == 0 {
		t.Error("objectNamesDistinct never answered true")
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
			return describe(&Rejection{Reason: r, Offset: start, Field: finding.SafeField(pointer())})
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
	for i := range 20000 {
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
	if raceEnabled {
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
		{"nested", p, deepMembers(16, `"a":1,"b":"é"`)},
		{"fifteen members", p, `{` + manyMembers(15) + `}`},
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
	for range 3000 {
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
