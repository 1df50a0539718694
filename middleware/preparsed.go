package middleware

import (
	"errors"
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Text parsed before the check. A middleware mounted before utf8guard that
// calls c.FormValue, r.FormValue, r.ParseForm or r.ParseMultipartForm
// (session, CSRF and auth middleware do) fills Request.Form, PostForm or
// MultipartForm from the raw request and consumes the body: utf8guard
// would then check an empty body, and the handler would read, through
// the same Request.Form, values no check saw ("x=%ff"). So on a route whose
// policy checks the query, form bodies or multipart bodies, a request that
// arrives with any of the three already set is refused with 500
// (parsed_before_check, a mistake of the server's, not the client's) and an
// error-level log line that says to mount utf8guard earlier; in Monitor
// mode it is logged and passed on.
//
// What cannot be seen from here: Echo's own cache of the query. Echo v4's
// c.QueryParam and c.QueryParams, and Echo v5's c.QueryParams, parse
// URL.RawQuery once into the context, where no middleware can see it. The
// query is still checked from URL.RawQuery, so a query the policy refuses
// is refused; but a query the policy repairs or normalizes reaches a
// handler that reads that cache as it came. (Echo v5's c.QueryParam alone
// reads URL.RawQuery and caches nothing.) Likewise a body that something
// before utf8guard read to its end without putting it back leaves nothing
// to check, and nothing for the handler either.

// preparsed returns the Rejection of r if its form was parsed before the
// check, on a route whose policy p checks the query, form bodies or
// multipart bodies; nil otherwise. It costs three nil tests. The
// Rejection's location is multipart when the multipart form was parsed,
// form when the request has a form body, and query otherwise; its Err
// names the Request fields that were set.
func preparsed(r *http.Request, p *compiled.Policy) *Rejection {
	if r.Form == nil && r.PostForm == nil && r.MultipartForm == nil {
		return nil
	}
	if !p.Query.On && !p.Form.On && !p.Multipart.On {
		return nil
	}
	var set []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"Request.Form", r.Form != nil}, {"Request.PostForm", r.PostForm != nil}, {"Request.MultipartForm", r.MultipartForm != nil}} {
		if f.set {
			set = append(set, f.name)
		}
	}
	rj := &Rejection{Reason: sanitize.ParsedBeforeCheck, Location: rules.Query,
		Err: errors.Join(sanitize.ErrParsedBeforeCheck, errors.New(strings.Join(set, ", ")+
			" already set when utf8guard ran: mount utf8guard before the middleware that reads the form or the query"))}
	typ, sub, _ := media.ContentType(r.Header.Get("Content-Type"))
	switch {
	case r.MultipartForm != nil, typ == "multipart":
		rj.Location = rules.Multipart
	case typ == "application" && sub == "x-www-form-urlencoded", !p.Query.On:
		rj.Location = rules.Form
	}
	return rj
}
