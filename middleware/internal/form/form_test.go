package form

import (
	"math/rand/v2"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestPairsFastPath checks that checkPairs, whose fast path decodes and
// checks a whole query at once, answers exactly as the pair-by-pair check
// does: the same rewritten text, the same rejection (reason, offset, class,
// field), for queries with and without escapes, mutated at random, under
// the presets' classes, with and without repair and double-encoding
// refusal, and tight limits.
func TestPairsFastPath(t *testing.T) {
	t.Parallel()
	samples := []string{
		"", "a=1", "page=2&sort=price&lang=de&q=caf%C3%A9", "q=a+b&r=%2B%26%3D", "%26=%3D&&x",
		"q=%C0%AE", "q=%ED%A0%80", "q=%E2%80%AE", "q=%00", "q=%EF%BB%BF", "q=x%EF%BB%BF", "%EF%BB%BFk=1",
		"q=%252e", "q=%2", "q=%zz", "q=%C3", "q=%C3&r=%A9", "q=\xC3\xA9", "q=\xFF", "q=%09", "q=%0A",
		"q=%C2%85", "q=%E2%80%8B", "q=%EE%80%80", "a=1&b=2&c=3&d=4&e=5&f=6", "k=" + string(make([]byte, 40)),
	}
	forbids := []sanitize.Class{0, rules.Strict().Query.Forbid, rules.Strict().Path.Forbid, sanitize.AllClasses}
	limits := []rules.Limits{rules.Limits{}.WithDefaults(), {Fields: 3, FieldBytes: 12, QueryBytes: 30}, {Fields: -1, FieldBytes: -1, QueryBytes: -1}}
	rng := rand.New(rand.NewPCG(7, 8))
	queries := append([]string(nil), samples...)
	for range 4000 {
		q := []byte(samples[rng.IntN(len(samples))])
		for range 1 + rng.IntN(3) {
			if len(q) > 0 {
				const octets = "%&=+2C3AE\x00\xC3\xA9\xEFx"
				q[rng.IntN(len(q))] = octets[rng.IntN(len(octets))]
			}
		}
		queries = append(queries, string(q))
	}
	s := new(Scratch)
	fast := 0
	for _, q := range queries {
		for _, forbid := range forbids {
			for _, mode := range []sanitize.EscapeMode{sanitize.EscapeQuery, sanitize.EscapeQuery | sanitize.RefuseDoubleEncoding} {
				for _, repair := range []bool{false, true} {
					for li := range limits {
						c := &rules.Check{On: true, Forbid: forbid, Repair: repair}
						lim := &limits[li]
						gotText, gotChanged, gotRj := s.CheckPairs(q, rules.Query, c, mode, lim)
						wantText, wantChanged, wantRj := s.checkEachPair(q, rules.Query, c, mode, lim)
						if s.cleanPairs(q, forbid, mode, lim) {
							fast++
						}
						if gotText != wantText || gotChanged != wantChanged || describe(gotRj) != describe(wantRj) {
							t.Fatalf("%+q forbid %v mode %v repair %v limits %+v:\n got %q %v %s\nwant %q %v %s",
								q, forbid, mode, repair, *lim, gotText, gotChanged, describe(gotRj), wantText, wantChanged, describe(wantRj))
						}
					}
				}
			}
		}
	}
	if fast == 0 {
		t.Error("the fast path was never taken")
	}
	t.Logf("%d queries: the fast path took %d of %d checks", len(queries), fast, len(queries)*len(forbids)*2*2*len(limits))
}
