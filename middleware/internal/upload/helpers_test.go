package upload

import (
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
)

// req is a request with the Content-Type ct, if not "".
func req(method, target, ct string, body io.Reader) *http.Request {
	r := httptest.NewRequest(method, target, body)
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

// noTrailers is Check's check of the trailers for requests that have
// none.
func noTrailers(*http.Request, *compiled.Policy) *finding.Rejection { return nil }
