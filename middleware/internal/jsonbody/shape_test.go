package jsonbody

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonscan"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkJSONRef is the reference of checkJSON: the scanner over the whole
// body, then memberCheck over every name, without any quick test.
func checkJSONRef(body []byte, p *compiled.Policy) ([]byte, *finding.Rejection) {
	fixed, rj := scanJSON(body, &p.JSON, p.Limits.JSONDepth)
	if rj != nil {
		return nil, rj
	}
	if p.RefuseDuplicateKeys || p.Norm != normalize.None {
		var mc memberCheck
		mc.p, mc.form, mc.escapes, mc.kinds = fixed, p.Norm, bytes.IndexByte(fixed, '\\') >= 0, kindsOf(p)
		if rj := mc.run(); rj != nil {
			return nil, rj
		}
	}
	return fixed, nil
}

// shapePolicies are the policies the comparisons of checkJSON run under:
// every way names are compared, with and without BOM refused, depth
// limits around the nesting of the bodies, and repair.
func shapePolicies() []*compiled.Policy {
	var out []*compiled.Policy
	for _, dup := range []bool{false, true} {
		for _, n := range []normalize.Form{normalize.None, normalize.NFC, normalize.NFKC} {
			for _, depth := range []int{-1, 0, 1, 3, 17, 64} {
				for k, forbid := range []sanitize.Class{rules.Strict().JSON.Forbid, rules.Strict().JSON.Forbid &^ sanitize.BOM, sanitize.BOM, 0} {
					p := rules.Strict()
					p.RefuseDuplicateKeys, p.Normalization = dup, n
					p.Limits.JSONDepth = depth
					p.JSON.Forbid = forbid
					p.JSON.Repair = k == 1 && depth == 64
					out = append(out, compiled.Compile(p))
				}
			}
		}
	}
	return out
}

// shapeBodies returns bodies that take every turn of objectNamesDistinct and checkJSON: sibling
// objects with the same names (apart for memberCheck), names repeated in
// one object, nested deeper than jsonShape keeps track of, objects of
// more names than it keeps, names that fold or normalize to one, a BOM
// opening a string or standing elsewhere, brackets in strings, long
// strings and gaps, unterminated strings.
func shapeBodies(rng *rand.Rand, k int) []string {
	names := []string{"a", "b", "A", "k", "K", "\u212a", "s", "\u017f", "é", "e\u0301", "E\u0301",
		"ｑ", "q", "id", "ID", "name", "Name", "a_rather_long_member_name", "A_RATHER_LONG_MEMBER_NAME",
		strings.Repeat("n", 70), strings.Repeat("N", 70), "\ufeffa", "x\ufeff", "[{", "}]", ":"}
	values := []string{`0`, `""`, `"v"`, `"\ufeffv"`, `"[[["`, `"]]]"`, `"{{"`, `"}}"`, `[1,2,3]`, `true`,
		`"` + strings.Repeat("Привет ", 20) + `"`, strings.Repeat(" ", 40) + `1`, `"\u00e9"`}
	budget := 0 // containers left in the body being built
	var value func(depth int) string
	value = func(depth int) string {
		switch r := rng.IntN(10); {
		case r < 3 && depth < 20 && budget > 0:
			budget--
			var b strings.Builder
			b.WriteByte('{')
			members := rng.IntN(6)
			if depth < 2 && rng.IntN(3) == 0 {
				members = rng.IntN(40)
			}
			for i := range members {
				if i > 0 {
					b.WriteString([]string{",", ", ", ",\n\t"}[rng.IntN(3)])
				}
				fmt.Fprintf(&b, `"%s"%s:%s`, names[rng.IntN(len(names))], []string{"", " ", "\n"}[rng.IntN(3)], value(depth+1))
			}
			b.WriteByte('}')
			return b.String()
		case r < 5 && depth < 20 && budget > 0:
			budget--
			var b strings.Builder
			b.WriteByte('[')
			for i := range rng.IntN(6) {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(value(depth + 1))
			}
			b.WriteByte(']')
			return b.String()
		}
		return values[rng.IntN(len(values))]
	}
	var out []string
	for range k {
		budget = 30
		body := value(0)
		if rng.IntN(4) == 0 && len(body) > 0 {
			body = body[:rng.IntN(len(body))] // cut: unterminated strings, open containers
		}
		out = append(out, body)
	}
	return out
}

// TestJSONShape: checkJSON, whose member check may be decided by
// objectNamesDistinct, answers exactly as the scanner and memberCheck
// alone do (the same body, the same rejection: reason, offset, class,
// field), on the samples, the member bodies, generated documents and
// mutations of them, under every policy of shapePolicies; and
// objectNamesDistinct answers true only where memberCheck refuses nothing.
func TestJSONShape(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	bodies := append(append([]string(nil), jsonSamples...), memberBodies...)
	bodies = append(bodies, shapeBodies(rng, sweep(300))...)
	for range sweep(600) {
		bodies = append(bodies, string(mutateJSON(rng, []byte(bodies[rng.IntN(len(bodies))]))))
	}
	// The marks' walk takes a SIMD pass of 64 octets and 1 KiB at a
	// time: the same bodies again behind a string that pushes them across
	// those boundaries, at many offsets.
	step := 3
	if testing.Short() {
		step = 30
	}
	for k := 0; k < 140; k += step {
		body := bodies[rng.IntN(len(bodies))]
		bodies = append(bodies, `["`+strings.Repeat("x", 960+k)+`",`+body+`]`)
	}
	quick := 0 // bodies objectNamesDistinct decided
	for _, p := range shapePolicies() {
		names := p.RefuseDuplicateKeys || p.Norm != normalize.None
		for _, body := range bodies {
			b := []byte(body)
			if names && bytes.IndexByte(b, '\\') < 0 && objectNamesMarked(b, p.Norm) != objectNamesScanned(b, p.Norm) {
				t.Fatalf("%+q form %s: objectNamesDistinct %v from the marks, %v scanned",
					body, p.Norm.Name(), objectNamesMarked(b, p.Norm), objectNamesScanned(b, p.Norm))
			}
			if names && bytes.IndexByte(b, '\\') < 0 && namesDistinct(b, p.Norm) {
				var mc memberCheck
				mc.p, mc.form, mc.kinds = b, p.Norm, kindsOf(p)
				if rj := mc.run(); rj != nil {
					t.Fatalf("%+q dup %v form %s: namesDistinct true, memberCheck %s",
						body, p.RefuseDuplicateKeys, p.Norm.Name(), describe(rj))
				}
			}
			if names && bytes.IndexByte(b, '\\') < 0 && objectNamesDistinct(b, p.Norm) {
				var mc memberCheck
				mc.p, mc.form, mc.kinds = b, p.Norm, kindsOf(p)
				if rj := mc.run(); rj != nil {
					t.Fatalf("%+q dup %v form %s: objectNamesDistinct true, memberCheck %s",
						body, p.RefuseDuplicateKeys, p.Norm.Name(), describe(rj))
				}
				quick++
			}
			gotBody, gotRj := checkJSON(bytes.Clone(b), p)
			wantBody, wantRj := checkJSONRef(bytes.Clone(b), p)
			if string(gotBody) != string(wantBody) || describe(gotRj) != describe(wantRj) {
				t.Fatalf("%+q forbid %v depth %d dup %v form %s repair %v:\n got %q %s\nwant %q %s",
					body, p.JSON.Forbid, p.Limits.JSONDepth, p.RefuseDuplicateKeys, p.Norm.Name(), p.JSON.Repair,
					gotBody, describe(gotRj), wantBody, describe(wantRj))
			}
		}
	}
	t.Logf("%d bodies x %d policies: %d decided by objectNamesDistinct alone", len(bodies), len(shapePolicies()), quick)
	if quick == 0 {
		t.Error("objectNamesDistinct never decided a body")
	}
}

// FuzzJSONShape holds checkJSON (and so objectNamesDistinct) to its reference on any body, under a few
// policies of shapePolicies.
func FuzzJSONShape(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s))
	}
	for _, s := range shapeBodies(rand.New(rand.NewPCG(9, 10)), 40) {
		f.Add([]byte(s))
	}
	all := shapePolicies()
	var pols []*compiled.Policy
	for i := 0; i < len(all); i += 7 {
		pols = append(pols, all[i])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.IndexByte(body, '\\') < 0 {
			for _, form := range []normalize.Form{normalize.None, normalize.NFC} {
				if m, s := objectNamesMarked(body, form), objectNamesScanned(body, form); m != s {
					t.Fatalf("%+q form %s: objectNamesDistinct %v from the marks, %v scanned", body, form.Name(), m, s)
				}
			}
		}
		for _, p := range pols {
			gotBody, gotRj := checkJSON(bytes.Clone(body), p)
			wantBody, wantRj := checkJSONRef(bytes.Clone(body), p)
			if string(gotBody) != string(wantBody) || describe(gotRj) != describe(wantRj) {
				t.Fatalf("%+q depth %d dup %v form %s:\n got %q %s\nwant %q %s", body, p.Limits.JSONDepth,
					p.RefuseDuplicateKeys, p.Norm.Name(), gotBody, describe(gotRj), wantBody, describe(wantRj))
			}
		}
	})
}

// TestObjectNamesMarkedAcrossBlocks: the walk over the marks finds a
// member name from the last two quotes before its colon, which may lie in
// an earlier 64-octet block than the colon, or in an earlier 1 KiB chunk
// of blocks: at every offset around both boundaries, with white space
// between name and colon, with a name that repeats (false) and without
// (true), it agrees with the scanned walk and with the expected answer.
func TestObjectNamesMarkedAcrossBlocks(t *testing.T) {
	if !jsonscan.HasMarks {
		t.Skip("no SIMD marks on this machine: objectNamesDistinct scans")
	}
	names := []string{"a", "name", "a_longer_name", ""}
	spaces := []string{"", " ", "\n\t  \r", strings.Repeat(" ", 70)}
	for _, boundary := range []int{64, 128, 1024, 2048} {
		for pad := max(0, boundary-80); pad <= boundary+8; pad++ {
			for _, name := range names {
				for _, sp := range spaces {
					for _, dup := range []bool{false, true} {
						other := "z"
						if dup {
							other = name
						}
						// The padding is a string value, so that the name's
						// quotes fall at every offset of the block.
						body := `{"p":"` + strings.Repeat("x", pad) + `","` + name + `"` + sp + `:1,"` + other + `":2}`
						want := !dup && name != "p" && other != "p"
						m, s := objectNamesMarked([]byte(body), normalize.None), objectNamesScanned([]byte(body), normalize.None)
						if m != want || s != want {
							t.Fatalf("pad %d name %q space %q dup %v: marked %v, scanned %v, want %v", pad, name, sp, dup, m, s, want)
						}
					}
				}
			}
		}
	}
}
