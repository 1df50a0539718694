package middleware

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestJSONPrecisAppendEnforce holds jsonbody.Canon's PRECIS strings, enforced
// into its working memory (AppendEnforce), to normalize.Enforce: the same
// form, the same refusals, whatever the string before it left in that
// memory.
func TestJSONPrecisAppendEnforce(t *testing.T) {
	p := compiled.Compile(canonPrecisPolicy(normalize.NFC))
	values := []string{
		"mike", "MIKE", "\u00c5", "A\u030a", "\uff2d\uff29\uff2b\uff25", "  Mike  Smith ", "e\u0301", "\u212b",
		"\ufdfa", "\u00bd", strings.Repeat("\uff21", 100), "", "\u0000", "a\u200db",
	}
	for _, first := range values {
		for _, v := range values {
			body := `{"user":{"name":` + jsonString(first) + `},"list":[{"user":{"name":` + jsonString(v) + `}}],` +
				`"user2":{"name":` + jsonString(v) + `}}`
			out, rj := jsonbody.Canon(p, []byte(body))
			want, err := normalize.Enforce(normalize.Nickname, first)
			if err != nil {
				if rj == nil || rj.Reason != sanitize.Precis {
					t.Errorf("%q: %v, want a precis refusal (%v)", body, rj, err)
				}
				continue
			}
			if rj != nil {
				t.Errorf("%q: refused: %v", body, rj)
				continue
			}
			got := body
			if out != nil {
				got = string(out)
			}
			var doc struct {
				User  struct{ Name string } `json:"user"`
				User2 struct{ Name string } `json:"user2"`
			}
			if err := json.Unmarshal([]byte(got), &doc); err != nil {
				t.Fatalf("%q: %v", got, err)
			}
			if doc.User.Name != want {
				t.Errorf("%q: user/name %q, want %+q", body, doc.User.Name, want)
			}
			if doc.User2.Name != normalize.NFC.String(v) {
				t.Errorf("%q: user2/name (no profile, the route's NFC) %q, want %+q", body, doc.User2.Name, normalize.NFC.String(v))
			}
		}
	}
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
