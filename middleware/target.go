package middleware

import (
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/form"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The request target beyond its path and query. net/url parses an
// absolute-form target (RFC 9112, section 3.2.2: "GET http://host/p")
// into URL.Host and URL.User, percent-decoding both, and net/http then
// takes Request.Host from it instead of from the Host header, which it
// validates; an absolute URI without "//" ("GET http:x") goes to
// URL.Opaque, with URL.Path empty. A handler reads all of them: r.Host,
// r.URL.User, r.RequestURI and r.URL.String(). So on a route that checks
// the path, they are checked as the path is, under its classes and in
// location path, with the part named in the field: "host", "userinfo",
// and "" for an opaque target, which is the target's path (RFC 3986's
// path-rootless). They are never repaired or rewritten: a host or user
// name that is not well formed, or not in the route's normalization
// form, is refused.

// checkTarget checks the request target of r beyond its path and query
// (see above) under p's path check. The common request (an origin-form
// target, a Host header that net/http has validated) costs a word or two
// of the host (plainPath: printable ASCII without '%' has nothing to
// decode and nothing of any class).
func checkTarget(r *http.Request, p *compiled.Policy) *Rejection {
	if u := r.URL; u.Opaque == "" && u.User == nil && (u.Host == "" || u.Host == r.Host) && octets.PlainPath(r.Host) {
		return nil
	}
	return checkTargetParts(r, p)
}

// checkRequestLine checks Request.RequestURI, the target as the request
// line sent it, when it no longer stands for r.URL: a middleware before
// utf8guard rewrote the URL (Echo's Rewrite under e.Pre, a proxy's rules)
// and left the request line as the client sent it, which no check saw and
// a handler reads. It runs once the path and the query have passed, and
// checks the request line's path and query as they are checked, but with
// no repair and no rewrite: it is never rewritten, so what they would
// repair or bring to the route's form is refused, in location path or
// query with the field "RequestURI" (a key's name after it, "RequestURI:q").
// (In Monitor mode, where nothing is rewritten, text not in the route's
// form is not flagged: Enforce mode would rewrite the URL, and set the
// request line from it.)
// A clean one, such as http.StripPrefix leaves (the prefix kept), passes as
// it is. The common request, whose RequestURI is its URL's, costs a
// comparison (requestLineIsURL).
func checkRequestLine(ls *lazyScratch, r *http.Request, p *compiled.Policy) *Rejection {
	if r.RequestURI == "" || requestLineIsURL(r) {
		return nil
	}
	path, query, _ := strings.Cut(originForm(r.RequestURI), "?")
	if rj := checkEscapedText(path, rules.Path, p.PathMode, p.Path.Forbid, p); rj != nil {
		return rj
	}
	if !p.Query.On || query == "" || form.Plain(query, &p.Limits) {
		return nil
	}
	c := p.Query
	c.Repair = false
	fixed, changed, rj := ls.get().pairs.CheckPairs(query, rules.Query, &c, p.QueryMode, &p.Limits)
	if rj == nil && p.Norm != normalize.None && p.Mode == rules.Enforce {
		text := query
		if changed {
			text = fixed
		}
		var out []byte
		if out, rj = ls.get().pairs.CanonText(text, rules.Query, p); rj == nil && out != nil {
			rj = &Rejection{Reason: sanitize.NotNormalized, Location: rules.Query, Err: sanitize.ErrNotNormalized}
		}
	}
	if rj != nil {
		rj.Field = strings.TrimSuffix("RequestURI:"+rj.Field, ":")
	}
	return rj
}

// checkEscapedText checks text, escaped as sent, at loc: strictly
// percent-decoded in mode, then validated and checked against forbid and
// the route's normalization form, in the field "RequestURI".
func checkEscapedText(text string, loc rules.Location, mode sanitize.EscapeMode, forbid sanitize.Class, p *compiled.Policy) *Rejection {
	const field = "RequestURI"
	dec, err := sanitize.AppendUnescape(nil, text, mode)
	if err == nil {
		err = sanitize.CheckClasses(dec, forbid)
	} else {
		err = finding.FirstViolation(err, dec, forbid)
	}
	if err != nil {
		return finding.RejectEscaped(err, loc, field, text, dec)
	}
	if p.Norm != normalize.None && p.Mode == rules.Enforce {
		if off := p.Norm.FirstNonNormal(dec); off >= 0 {
			return finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, loc, field, dec)
		}
	}
	return nil
}

// originForm returns target from its path on: an absolute-form target
// ("http://host/p?q") without its scheme and authority.
func originForm(target string) string {
	if target == "" || target[0] == '/' {
		return target
	}
	if i := strings.Index(target, "://"); i > 0 {
		rest := target[i+3:]
		if j := strings.IndexAny(rest, "/?"); j >= 0 {
			return rest[j:]
		}
		return ""
	}
	return target
}

// requestLineIsURL reports whether r.RequestURI stands for r.URL's path
// and query: its path escapes URL.RawPath exactly, or (without RawPath)
// decodes to URL.Path with no escaped slash, and its query is RawQuery.
// An opaque target and a CONNECT request's authority are checked as sent
// (checkOpaque, the host) and count as standing for their URL.
func requestLineIsURL(r *http.Request) bool {
	u := r.URL
	if u.Opaque != "" || r.Method == http.MethodConnect {
		return true
	}
	path, query, hasQuery := strings.Cut(originForm(r.RequestURI), "?")
	if query != u.RawQuery || !hasQuery && u.ForceQuery {
		return false
	}
	if u.RawPath != "" {
		return path == u.RawPath
	}
	return unescapesTo(path, u.Path)
}

// unescapesTo reports whether esc, percent-decoded, is plain, with no
// escaped '/' (which net/url would have kept in RawPath) and no malformed
// escape. Text equal to plain but for escapes is not enough: "/a%20b" is
// "/a b", not a URL.Path of "/a%20b".
func unescapesTo(esc, plain string) bool {
	for {
		// The text up to the next escape, compared at once.
		k := strings.IndexByte(esc, '%')
		if k < 0 {
			return esc == plain
		}
		if len(plain) < k+1 || esc[:k] != plain[:k] || k+2 >= len(esc) || !octets.IsHex(esc[k+1]) || !octets.IsHex(esc[k+2]) {
			return false
		}
		b := unhex(esc[k+1])<<4 | unhex(esc[k+2])
		if b == '/' || plain[k] != b {
			return false
		}
		esc, plain = esc[k+3:], plain[k+1:]
	}
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// checkTargetParts is checkTarget past the common request.
func checkTargetParts(r *http.Request, p *compiled.Policy) *Rejection {
	u := r.URL
	if u.Opaque != "" {
		if rj := checkOpaque(u.Opaque, p); rj != nil {
			return rj
		}
	}
	// URL.Host was percent-decoded (an escape in it that decodes to an
	// escape is double encoding); a Request.Host that differs from it
	// is the Host header's, sent as it is.
	if rj := targetText(u.Host, "host", true, p); rj != nil {
		return rj
	}
	if r.Host != u.Host {
		if rj := targetText(r.Host, "host", false, p); rj != nil {
			return rj
		}
	}
	if u.User != nil {
		if rj := targetText(u.User.Username(), "userinfo", true, p); rj != nil {
			return rj
		}
		if pw, ok := u.User.Password(); ok {
			if rj := targetText(pw, "userinfo", true, p); rj != nil {
				return rj
			}
		}
	}
	return nil
}

// checkOpaque checks an opaque request target, still escaped as sent, as
// the escaped path is checked: strictly percent-decoded under the path's
// mode, then validated and checked against the path's classes and the
// route's normalization form.
func checkOpaque(opaque string, p *compiled.Policy) *Rejection {
	if p.Limits.PathBytes >= 0 && len(opaque) > p.Limits.PathBytes {
		return finding.TooLarge(rules.Path, "", int64(p.Limits.PathBytes))
	}
	dec, err := sanitize.AppendUnescape(nil, opaque, p.PathMode)
	if err == nil {
		err = sanitize.CheckClasses(dec, p.Path.Forbid)
	} else {
		err = finding.FirstViolation(err, dec, p.Path.Forbid)
	}
	if err != nil {
		return finding.RejectEscaped(err, rules.Path, "", opaque, dec)
	}
	return targetNormal(string(dec), "", p)
}

// targetText checks one decoded part of the request target, named field
// in a Rejection. decoded says that net/url percent-decoded it, so that an
// escape left in it was sent as an escape of an escape.
func targetText(text, field string, decoded bool, p *compiled.Policy) *Rejection {
	if decoded && p.Path.RefuseDoubleEncoding {
		for i := strings.IndexByte(text, '%'); i >= 0 && i+2 < len(text); {
			if octets.IsHex(text[i+1]) && octets.IsHex(text[i+2]) {
				return finding.Reject(&sanitize.Error{Reason: sanitize.DoubleEncoding, Offset: i}, rules.Path, field, text)
			}
			j := strings.IndexByte(text[i+1:], '%')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	if err := sanitize.CheckString(text, p.Path.Forbid); err != nil {
		return finding.Reject(err, rules.Path, field, text)
	}
	return targetNormal(text, field, p)
}

// targetNormal refuses text, a part of the request target, as
// not_normalized on a route that normalizes when it is not in the route's
// form: the target is never rewritten.
func targetNormal(text, field string, p *compiled.Policy) *Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	if off := p.Norm.FirstNonNormalString(text); off >= 0 {
		return finding.Reject(&sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}, rules.Path, field, text)
	}
	return nil
}
