// Package jsoncases holds the JSON member tables that both the JSON
// engine's tests (package jsonbody) and the middleware's end-to-end tests
// run: bodies with duplicate and colliding member names, and what must
// happen to each. It is imported by tests only.
package jsoncases

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
)

// Member is a JSON body and what the middleware must do with it:
// accept it (reason "") or refuse the member whose name starts at offset,
// with the JSON pointer field.
type Member struct {
	Name, Body    string
	Reason, Field string
	Offset        int
}

// ManyMembers returns the members "k0":0 to "k<n-1>":0, comma-separated.
func ManyMembers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":0`, i)
	}
	return b.String()
}

// DeepMembers returns depth objects nested in member "k" of each other,
// the innermost holding inner.
func DeepMembers(depth int, inner string) string {
	return strings.Repeat(`{"k":`, depth-1) + `{` + inner + `}` + strings.Repeat(`}`, depth-1)
}

// At returns the offset of the n-th (from 1) occurrence of sub in s, plus
// skip: where a name starts.
func At(s, sub string, n, skip int) int {
	off := 0
	for range n - 1 {
		off += strings.Index(s[off:], sub) + len(sub)
	}
	return off + strings.Index(s[off:], sub) + skip
}

// Duplicates are the bodies of TestJSONDuplicateKeys.
func Duplicates() []Member {
	dup := func(name, body, field, sub string, n int) Member {
		return Member{Name: name, Body: body, Reason: "duplicate_key", Field: field, Offset: At(body, sub, n, 1)}
	}
	ok := func(name, body string) Member { return Member{Name: name, Body: body} }
	deep := DeepMembers(300, `"a":1,"b":2,"a":3`)
	many := `{` + ManyMembers(40) + `,"k7":1}`
	manyFold := `{` + ManyMembers(40) + `,"K39":1}`
	manyNested := `{` + ManyMembers(20) + `,"in":{` + ManyMembers(20) + `},"k3":1}`
	return []Member{
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
		ok("siblings with many members", `[{`+ManyMembers(40)+`},{`+ManyMembers(40)+`}]`),
		ok("many members in many members", `{`+ManyMembers(20)+`,"in":{`+ManyMembers(20)+`}}`),
		ok("names in strings", `{"x":"\"a\":1,","a":1,"y":"{\"a\":2}"}`),
		ok("colons in values", `{"a,":" :x","b":":","c":"a:b","d":{"e":": "}}`),
		ok("case differs from long s", `{"role":1,"ro`+"\u017f"+`e":2}`), // ſ folds with s, not l
		ok("dotless i", `{"i":1,"`+"\u0131"+`":2,"`+"\u0130"+`":3}`),     // no simple folding joins them
		ok("not normalized, no normalization", `{"é":1,"e`+"\u0301"+`":2}`),
		ok("scalars", `[1,"a",true,null]`),
	}
}

// Collisions are the bodies of TestJSONKeyCollision under a route that
// normalizes to form; distinct says whether the policy refuses duplicates.
func Collisions(form normalize.Form, dupRefused bool) []Member {
	col := func(name, body, field, sub string, n int) Member {
		return Member{Name: name, Body: body, Reason: "key_collision", Field: field, Offset: At(body, sub, n, 1)}
	}
	ok := func(name, body string) Member { return Member{Name: name, Body: body} }
	cases := []Member{
		col("escaped decomposed", `{"é":"safe","e\u0301":"evil"}`, `/e\xcc\x81`, `"e\u`, 1),
		col("raw decomposed", `{"é":"safe","e`+"\u0301"+`":"evil"}`, `/e\xcc\x81`, `"e`, 1),
		col("decomposed first", `{"e\u0301":"evil","é":"safe"}`, `/\xc3\xa9`, `"é`, 1),
		col("folded and composed", `{"é":1,"E\u0301":2}`, `/E\xcc\x81`, `"E`, 1),
		col("nested", `{"a":[{"x":1},{"ė":1,"e\u0307":2}]}`, `/a/1/e\xcc\x87`, `"e\u`, 1),
		col("many members", `{`+ManyMembers(30)+`,"é":1,"e\u0301":2}`, `/e\xcc\x81`, `"e\u`, 1),
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
			Member{Name: "duplicate first", Body: dups, Reason: "duplicate_key", Field: `/\xc3\xa9`, Offset: At(dups, `"é`, 2, 1)},
			Member{Name: "angstrom sign", Body: angstrom, Reason: "duplicate_key", Field: `/\xe2\x84\xab`, Offset: At(angstrom, "\"\u212b", 1, 1)})
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

// IsNormal reports whether every string of body, decoded, is in form.
func IsNormal(form normalize.Form, body string) bool {
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

// Doc1K is a clean 1 KiB JSON document with non-ASCII text.
var Doc1K = func() []byte {
	var b strings.Builder
	b.WriteString(`{"id":42,"name":"Zoë Ångström","tags":["café","日本語","😀"],"note":"`)
	const filler = "été, straße, Привет, 你好; "
	for b.Len()+len(filler) <= 1024-2 {
		b.WriteString(filler)
	}
	b.WriteString(strings.Repeat(".", 1024-2-b.Len()))
	b.WriteString(`"}`)
	return []byte(b.String())
}()
