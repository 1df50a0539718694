package middleware

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkCookies checks the name and value of every cookie in the Cookie
// headers of r, as text: no percent-decoding (RFC 6265 defines none). A
// repaired cookie rewrites its Cookie header.
func checkCookies(r *http.Request, p *compiled.Policy) *Rejection {
	return checkCookieLines(r.Header["Cookie"], p)
}

// checkCookieLines checks the cookies of Cookie header lines, repairing
// vals in place where the check repairs. Only SP and HTAB around a cookie
// are trimmed, as RFC 6265 (section 5.2) trims them: strings.TrimSpace
// would also drop Unicode white space such as U+0085 (NEL, a C1 control)
// before the check, and a handler reading the header sees it.
func checkCookieLines(vals []string, p *compiled.Policy) *Rejection {
	for i, line := range vals {
		var fixed []string // the line's cookies, when one is repaired
		n := 0
		for rest := line; rest != ""; n++ {
			var c string
			c, rest, _ = strings.Cut(rest, ";")
			name, value, _ := strings.Cut(strings.Trim(c, " \t"), "=")
			goodName, rj := headerText(name, "Cookie:", name, p.Header.Forbid|p.Header.Names, p)
			if rj != nil {
				return rj
			}
			goodValue, rj := headerText(value, "Cookie:", name, p.Header.Forbid, p)
			if rj != nil {
				return rj
			}
			if goodName != name || goodValue != value {
				if fixed == nil {
					fixed = strings.Split(line, ";")
				}
				fixed[n] = " " + goodName + "=" + goodValue
			}
		}
		if fixed != nil {
			vals[i] = strings.Trim(strings.Join(fixed, ";"), " \t")
		}
	}
	return nil
}

// checkHeaders checks the values of the headers p lists.
func checkHeaders(r *http.Request, p *compiled.Policy) *Rejection {
	for _, name := range p.HeaderKeys {
		if name == "Host" {
			// net/http moves the Host header (or the authority of an
			// absolute-form target) to Request.Host, and deletes it
			// from the header map; HTTP/2 moves :authority there, and
			// leaves a host field the client sent besides in the map,
			// which the values below check.
			host, rj := headerText(r.Host, "", name, p.Header.Forbid, p)
			if rj != nil {
				return rj
			}
			if host != r.Host && r.URL.Host == r.Host {
				r.URL.Host = host
			}
			r.Host = host
		}
		if rj := checkHeaderValues(name, r.Header[name], p); rj != nil {
			return rj
		}
	}
	return nil
}

// checkHeaderValues checks the values of the header name, repairing vals
// in place where the check repairs.
func checkHeaderValues(name string, vals []string, p *compiled.Policy) *Rejection {
	for i, v := range vals {
		good, rj := headerText(v, "", name, p.Header.Forbid, p)
		if rj != nil {
			return rj
		}
		vals[i] = good
	}
	return nil
}

// headerText checks one header value, or one cookie's name or value, under
// the Header check, refusing the classes in forbid (p.Header.Forbid, and
// p.Header.Names too for a cookie name), and the field length limit. It
// returns text itself when
// it passes, its repair when the check repairs, or the rejection, whose
// field is prefix+name (built only then: a clean request allocates
// nothing here).
func headerText(text, prefix, name string, forbid sanitize.Class, p *compiled.Policy) (string, *Rejection) {
	field := func() string { return prefix + finding.SafeField(name) }
	if p.Limits.FieldBytes >= 0 && len(text) > p.Limits.FieldBytes {
		return "", finding.TooLarge(rules.Header, field(), int64(p.Limits.FieldBytes))
	}
	err := sanitize.CheckString(text, forbid)
	if err == nil {
		return text, headerNormal(p, text, field)
	}
	if e, ok := err.(*sanitize.Error); !ok || !p.Header.Repair || !finding.IsEncodingReason(e.Reason) {
		return "", finding.Reject(err, rules.Header, field(), text)
	}
	good := sanitize.ToValidString(text)
	if p.Limits.FieldBytes >= 0 && len(good) > p.Limits.FieldBytes {
		return "", finding.TooLarge(rules.Header, field(), int64(p.Limits.FieldBytes))
	}
	if err := sanitize.CheckString(good, forbid); err != nil {
		return "", finding.Reject(err, rules.Header, field(), good)
	}
	if rj := headerNormal(p, good, field); rj != nil {
		return "", rj
	}
	return good, nil
}

// headerNormal refuses text, a checked header value or cookie name or
// value, as not_normalized on a route that normalizes when it is not in
// the route's form, Monitor mode or not, RejectUnnormalized or not:
// header values are checked, never rewritten (a header may be signed,
// or compared octet for octet by a proxy), so one not in the form would
// reach the handler beside text that is, as XML bodies would (xmlbody.Check).
func headerNormal(p *compiled.Policy, text string, field func() string) *Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	if off := p.Norm.FirstNonNormalString(text); off >= 0 {
		return finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, rules.Header, field(), text)
	}
	return nil
}

// checkTrailers checks the trailers of r, once its body has been read to
// its end, as the headers of the same names are checked: listed headers
// and cookies. The Field of a Rejection names the trailer ("Trailer:X-Name").
func checkTrailers(r *http.Request, p *compiled.Policy) *Rejection {
	if len(r.Trailer) == 0 || !p.ChecksTrailers() {
		return nil
	}
	for name, vals := range r.Trailer {
		if !p.ChecksHeader(name) {
			continue
		}
		var rj *Rejection
		if name == "Cookie" {
			rj = checkCookieLines(vals, p)
		} else {
			rj = checkHeaderValues(name, vals, p)
		}
		if rj != nil {
			rj.Field = "Trailer:" + rj.Field
			return rj
		}
	}
	return nil
}

// trailerGuard is the body of a chunked request whose body is passed on
// unread on a route that checks headers or cookies. net/http reads the
// trailers when the body reaches its end, and puts them in r.Trailer,
// announced or not. At that end, a trailer that names a checked header
// and fails the header check is removed from r.Trailer (the map the
// handler's copy of the request shares, once net/http has made it) and
// the read fails with a *Rejection of reason forbidden_trailer instead of
// io.EOF: the handler never reads an unchecked value there.
type trailerGuard struct {
	io.ReadCloser
	r *http.Request // the request net/http reads the body for
	p *compiled.Policy
}

func (t *trailerGuard) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if err == io.EOF {
		if rj := checkTrailers(t.r, t.p); rj != nil {
			for name := range t.r.Trailer {
				if t.p.ChecksHeader(name) {
					delete(t.r.Trailer, name)
				}
			}
			rj.Reason, rj.Err = sanitize.ForbiddenTrailer, errors.Join(sanitize.ErrForbiddenTrailer, rj.Err)
			return n, rj
		}
	}
	return n, err
}
