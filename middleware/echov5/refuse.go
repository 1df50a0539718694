package echov5

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// refuseMove refuses, under e.Pre, a request that the policy of route
// rewrote and moved again: no third policy runs on a request whose
// canonical form keeps changing where it goes. The pipeline logs it, under
// route, as it logs its own refusals; OnReject and the answer follow as
// for any other.
func (m *guard) refuseMove(c *echo.Context, r *http.Request, route string) error {
	rj := &middleware.Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Path, Err: sanitize.ErrCanonicalSyntax}
	m.pl.Refuse(r, route, rj, (*identity)(c))
	if m.onReject != nil {
		m.onReject(c, rj)
	}
	return m.onError(c, rj)
}
