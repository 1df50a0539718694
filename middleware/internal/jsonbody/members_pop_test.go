package jsonbody

import (
	"fmt"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestMemberTableEmptiesAsObjectsClose: the names of an object with many
// names leave the table when it closes, every kind of each (a route that
// normalizes looks names up under three), whatever places the seeded hash
// gives them: a name left behind, or one whose probe sequence a removal
// out of turn cut, makes a later lookup find a name that is not there
// (a false duplicate_key) or miss one that is (a duplicate let through).
// Many objects of many names, nested, under each form, with the table
// kept small so that probe sequences cross.
func TestMemberTableEmptiesAsObjectsClose(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteByte('[')
	for o := range 40 {
		if o > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for i := range 30 {
			fmt.Fprintf(&b, `"k%d_%d":`, o, i)
			if i == 20 {
				b.WriteString(`{`)
				for j := range 25 {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `"c%d":0`, j)
				}
				b.WriteString(`},`)
				continue
			}
			b.WriteString("0,")
		}
		b.WriteString(`"last":0}`)
	}
	b.WriteByte(']')
	body := []byte(b.String())
	for _, form := range []normalize.Form{normalize.None, normalize.NFC, normalize.NFKC} {
		pol := rules.Strict()
		pol.Normalization = form
		p := compiled.Compile(pol)
		mc := &memberCheck{p: body, form: p.Norm, escapes: true, kinds: kindsOf(p)}
		if rj := mc.run(); rj != nil {
			t.Fatalf("%s: %v, want the body's names distinct", form.Name(), rj)
		}
		if mc.table.n != 0 {
			t.Errorf("%s: %d places left in the table once every object closed", form.Name(), mc.table.n)
		}
	}
}
