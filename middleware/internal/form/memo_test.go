package form

import (
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestPairCanonProfileMemo: the profiles pairCanon remembers are those the
// policy gives, whatever the order of the names, their case, their length,
// the location and the policy asked about.
func TestPairCanonProfileMemo(t *testing.T) {
	mk := func(user, nick normalize.Profile) *compiled.Policy {
		pol := rules.Strict()
		pol.Precis = []rules.PrecisField{
			{Location: rules.Query, Field: "user", Profile: user},
			{Location: rules.Form, Field: "user", Profile: user},
			{Location: rules.Form, Field: "nick", Profile: nick},
			{Location: rules.Form, Field: strings.Repeat("n", 40), Profile: nick},
		}
		return compiled.Compile(pol)
	}
	a := mk(normalize.UsernameCaseMapped, normalize.Nickname)
	b := mk(normalize.OpaqueString, normalize.UsernameCasePreserved)
	names := []string{"user", "nick", "USER", "Nick", "user", "other", "", "ｕｓｅｒ", "user",
		strings.Repeat("n", 40), strings.Repeat("N", 40), strings.Repeat("n", 32), "nick", "nick", "user"}
	var pc Canon
	for round := range 3 {
		for i, name := range names {
			for _, p := range []*compiled.Policy{a, b, a} {
				for _, loc := range []rules.Location{rules.Form, rules.Query, rules.JSON} {
					gotProf, gotOK := pc.precisProfile(p, loc, name)
					wantProf, wantOK := p.PrecisProfile(loc, name)
					if gotProf != wantProf || gotOK != wantOK {
						t.Fatalf("round %d, name %d %q at %v: %v %v, the policy says %v %v", round, i, name, loc, gotProf, gotOK, wantProf, wantOK)
					}
				}
			}
		}
	}
}
