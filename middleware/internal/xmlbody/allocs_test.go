package xmlbody

import (
	"math/bits"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestXMLCanonAllocs pins the goal for Canon: once its pooled
// state has served a body of the default limit (1 MiB), checking another
// allocates nothing, however the body nests or splits its text.
func TestXMLCanonAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector allocates, and drops pooled values at random")
	}
	p := compiled.Compile(rules.Policy{XML: rules.Check{On: true, Forbid: strictXML}, Normalization: normalize.NFC})
	for _, name := range []string{"deep", "autoclose", "pieces"} {
		for _, n := range []int{16 << 10, maxPooledXMLBody - 64} {
			body := xmlCanonHostile(n, name)
			if rj := Canon(p, body); rj != nil {
				t.Fatalf("%s %d: %v", name, n, rj)
			}
			if a := testing.AllocsPerRun(3, func() { _ = Canon(p, body) }); a != 0 {
				t.Errorf("%s, %d octets: %v allocations", name, len(body), a)
			}
			// A state that is new, or that the pool dropped, grows its
			// three slices by doubling: a few allocations per doubling of
			// the body, none per element or piece.
			fresh := testing.AllocsPerRun(1, func() { _ = new(xmlCanon[uint32]).check(normalize.NFC, body) })
			if most := 3*bits.Len(uint(len(body))) + 1; fresh > float64(most) {
				t.Errorf("%s, %d octets, new state: %v allocations, want at most %d", name, len(body), fresh, most)
			}
		}
	}
}

// TestXMLAllocs: Check allocates nothing on a body it accepts, on each
// of its paths (xmlShape).
func TestXMLAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	c := &rules.Check{On: true, Forbid: strictXML}
	cb := &rules.Check{On: true, Forbid: strictXML | sanitize.BOM}
	for _, tc := range xmlCleanCases {
		body := []byte(tc.body)
		for _, chk := range []*rules.Check{c, cb} {
			if n := testing.AllocsPerRun(100, func() { _ = Check(body, chk, true) }); n != 0 {
				t.Errorf("%s, %v: %v allocations", tc.name, chk.Forbid, n)
			}
		}
	}
	for _, kind := range []string{"plain", "refs", "lexer"} {
		big := xmlBenchBody(64<<10, kind)
		if n := testing.AllocsPerRun(10, func() { _ = Check(big, c, true) }); n != 0 {
			t.Errorf("64 KiB %s: %v allocations", kind, n)
		}
	}
	for _, kind := range xmlHostileKinds[1:] {
		big := xmlHostileBody(64<<10, kind)
		for _, chk := range []*rules.Check{c, cb} {
			if n := testing.AllocsPerRun(10, func() { _ = Check(big, chk, true) }); n != 0 {
				t.Errorf("64 KiB %s, %v: %v allocations", kind, chk.Forbid, n)
			}
		}
	}
}
