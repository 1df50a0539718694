package middleware

// Reference implementations of the pipeline checks that the tests hold
// the shipped code to (by comparing the two on the same inputs), kept in
// test files so that no user's binary links them.

import (
	"net/http"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
)

// inspect checks r under p: path, path parameters (names and values, from
// Echo, escaped or not as Match.Escaped says; nil otherwise), query,
// headers, body, in that order, and stops at the first violation. On
// acceptance r may have been rewritten (repairs) and params holds the
// decoded parameter values when they differ from values. A body that could
// not be read is a Rejection too (body_unreadable).
func (g *guard) inspect(s *scratch, r *http.Request, p *compiled.Policy, names, values []string, escaped bool) (params []string, rj *Rejection) {
	ls := lazyScratch{s: s, lent: true}
	return g.inspectWith(&ls, r, p, names, values, escaped)
}
