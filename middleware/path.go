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

// checkPath checks the escaped path of r, and reports whether it repaired
// (rewrote) the path.
func (s *scratch) checkPath(r *http.Request, p *compiled.Policy) (rej *Rejection, repaired bool) {
	if r.URL.RawPath == "" {
		rej, repaired = checkDecodedPath(r, p)
		s.rewroteURL = s.rewroteURL || repaired // the request line follows (run)
		return rej, repaired
	}
	return s.checkEscapedPath(r, r.URL.EscapedPath(), p)
}

// checkDecodedPath checks a path without a RawPath, the common case (Go
// leaves RawPath empty when escaping Path gives back what the client
// sent, upper-case escapes included). URL.Path is then the decoded value,
// checked as it is, and the escaped path is the escaping of URL.Path,
// which is only built (URL.EscapedPath allocates) when a rejection or a
// repair needs it. The result is checkEscapedPath's for that escaped path:
// its length is the one limited, and a '%' followed by two hexadecimal
// digits in Path is, escaped, a "%25" followed by them: double encoding,
// at the offset of the '%' in Path, the decoded value (the sample is the
// escaped path's, around the "%25").
func checkDecodedPath(r *http.Request, p *compiled.Policy) (*Rejection, bool) {
	path := r.URL.Path
	if p.Limits.PathBytes >= 0 && len(path) > p.Limits.PathBytes/3 && escapedPathLen(path) > p.Limits.PathBytes {
		return finding.TooLarge(rules.Path, "", int64(p.Limits.PathBytes)), false
	}
	if p.Path.RefuseDoubleEncoding {
		for i := strings.IndexByte(path, '%'); i >= 0; {
			if i+2 < len(path) && octets.IsHex(path[i+1]) && octets.IsHex(path[i+2]) {
				return &Rejection{Reason: sanitize.DoubleEncoding, Location: rules.Path, Offset: i,
					Sample: finding.Sample(r.URL.EscapedPath(), escapedLen(path[:i])),
					Err:    &sanitize.Error{Reason: sanitize.DoubleEncoding, Offset: i}}, false
			}
			j := strings.IndexByte(path[i+1:], '%')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	err := sanitize.CheckString(path, p.Path.Forbid)
	if err == nil {
		return nil, false
	}
	rj := finding.Reject(err, rules.Path, "", path)
	if !(p.Path.Repair && finding.IsEncodingReason(rj.Reason)) {
		return rj, false
	}
	if rj := repairPath(r, r.URL.EscapedPath(), p); rj != nil {
		return rj, false
	}
	return nil, true
}

// escapedPathLen is len(u.EscapedPath()) for a URL u with Path path and no
// RawPath.
func escapedPathLen(path string) int {
	if path == "*" {
		return 1 // not escaped (net/url, Go issue 11202)
	}
	return escapedLen(path)
}

// escapedLen is the length of s escaped as net/url escapes a path: the
// octets it escapes count three.
func escapedLen(path string) int {
	n := len(path)
	for i := 0; i < len(path); i++ {
		if c := path[i]; pathKeep[c>>6]&(1<<(c&63)) == 0 {
			n += 2
		}
	}
	return n
}

// pathKeep is the set of octets net/url leaves unescaped in a path
// (shouldEscape with encodePath): ALPHA, DIGIT, "-._~", "$&+,/:;=@".
var pathKeep = func() (s [4]uint64) {
	const keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~$&+,/:;=@"
	for i := 0; i < len(keep); i++ {
		s[keep[i]>>6] |= 1 << (keep[i] & 63)
	}
	return s
}()

// checkEscapedPath checks the escaped path raw of r.
func (s *scratch) checkEscapedPath(r *http.Request, raw string, p *compiled.Policy) (rej *Rejection, repaired bool) {
	if p.Limits.PathBytes >= 0 && len(raw) > p.Limits.PathBytes {
		return finding.TooLarge(rules.Path, "", int64(p.Limits.PathBytes)), false
	}
	if strings.IndexByte(raw, '%') < 0 {
		// Nothing to decode: the raw path is the value.
		err := sanitize.CheckString(raw, p.Path.Forbid)
		if err == nil {
			return nil, false
		}
		if rj := finding.Reject(err, rules.Path, "", raw); !(p.Path.Repair && finding.IsEncodingReason(rj.Reason)) {
			return rj, false
		}
		if rj := repairPath(r, raw, p); rj != nil {
			return rj, false
		}
		return nil, true
	}
	dec, err := sanitize.AppendUnescape(s.buf[:0], raw, p.PathMode)
	s.buf = dec[:0]
	if err == nil {
		err = sanitize.CheckClasses(dec, p.Path.Forbid)
	} else {
		err = finding.FirstViolation(err, dec, p.Path.Forbid)
	}
	if err == nil {
		return nil, false
	}
	rj := finding.RejectEscaped(err, rules.Path, "", raw, dec)
	if rj.Reason == sanitize.BadEscape || rj.Reason == sanitize.DoubleEncoding {
		return rj, false
	}
	if !(p.Path.Repair && finding.IsEncodingReason(rj.Reason)) {
		return rj, false
	}
	if rj := repairPath(r, raw, p); rj != nil {
		return rj, false
	}
	s.rewroteURL = true
	return nil, true
}

// repairPath rewrites the path of r with each ill-formed sequence of each
// segment replaced by U+FFFD; encoded slashes stay encoded. raw has passed
// the strict decoding but for UTF-8 errors (no bad or double escapes). The
// repaired path must still pass the policy's character classes: when it
// does not, repairPath leaves r alone and returns the rejection.
func repairPath(r *http.Request, raw string, p *compiled.Policy) *Rejection {
	var dec, enc []byte
	for seg := range strings.SplitSeq(raw, "/") {
		d, err := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment)
		if err != nil {
			if e := err.(*sanitize.Error); !finding.IsEncodingReason(e.Reason) {
				return finding.Reject(err, rules.Path, "", seg) // cannot happen: raw decoded
			}
		}
		d = sanitize.ToValid(d)
		dec = append(dec, d...)
		dec = append(dec, '/')
		enc = sanitize.AppendEscape(enc, octets.BytesString(d), sanitize.EscapePathSegment)
		enc = append(enc, '/')
	}
	dec, enc = dec[:len(dec)-1], enc[:len(enc)-1]
	if err := sanitize.CheckClasses(dec, p.Path.Forbid); err != nil {
		return finding.Reject(err, rules.Path, "", dec)
	}
	r.URL.Path = string(dec)
	r.URL.RawPath = string(enc)
	return nil
}

// checkParams decodes and validates Echo's path parameter values, which
// the router cut from URL.RawPath when that was set (routedRaw) and from
// the decoded URL.Path otherwise. From RawPath, Echo hands the handler the
// raw escaped text of each parameter; this decodes it. When the path was
// repaired after routing, the values are repaired as the path was. It
// returns the new values, or nil when nothing changes.
//
// The classes apply as they did to the whole path, which has passed
// them, but for BOM, which counts at the start of a value: a parameter is
// a value of its own to the handler, so a leading U+FEFF is refused at the
// start of each parameter (paramBOM), as at the start of each query value.
func checkParams(names, values []string, p *compiled.Policy, routedRaw, repaired bool) ([]string, *Rejection) {
	if !routedRaw && !repaired {
		// Cut from the decoded path, which has passed.
		for i, v := range values {
			if rj := paramBOM(names, i, v, p); rj != nil {
				return nil, rj
			}
		}
		return nil, nil
	}
	forbid := p.Path.Forbid &^ sanitize.BOM
	var out []string
	for i, v := range values {
		decode := routedRaw && strings.IndexByte(v, '%') >= 0
		if !decode && !repaired {
			if rj := paramBOM(names, i, v, p); rj != nil {
				return nil, rj
			}
			continue
		}
		dec, err := v, error(nil)
		if decode {
			dec, err = sanitize.Unescape(v, p.PathMode)
		} else {
			err = sanitize.ValidateString(v)
		}
		if err == nil {
			err = sanitize.CheckClassesString(dec, forbid)
		}
		if err != nil {
			if p.Path.Repair {
				if e := err.(*sanitize.Error); finding.IsEncodingReason(e.Reason) {
					dec = sanitize.ToValidString(dec)
					err = sanitize.CheckClassesString(dec, forbid)
				}
			}
			if err != nil {
				return nil, finding.RejectEscaped(err, rules.Path, paramName(names, i), v, dec)
			}
		}
		if rj := paramBOM(names, i, dec, p); rj != nil {
			return nil, rj
		}
		if dec == v {
			continue
		}
		if out == nil {
			out = append([]string(nil), values...)
		}
		out[i] = dec
	}
	return out, nil
}

// paramName is the name of the i-th path parameter, or "".
func paramName(names []string, i int) string {
	if i < len(names) {
		return finding.SafeField(names[i])
	}
	return ""
}

// paramBOM refuses a decoded path parameter value that starts with U+FEFF
// where the path's classes refuse a leading BOM.
func paramBOM(names []string, i int, v string, p *compiled.Policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 || !strings.HasPrefix(v, octets.BOM) {
		return nil
	}
	return finding.Reject(&sanitize.Error{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM}, rules.Path, paramName(names, i), v)
}

// segmentBOM refuses a U+FEFF at the start of a segment of the decoded
// path where the path's classes refuse a leading BOM: every path parameter
// a router cuts at a segment boundary is a value of its own to the
// handler, and an adapter wrapped around a whole router (a ServeMux) does
// not know which segments those are.
func segmentBOM(r *http.Request, p *compiled.Policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 {
		return nil
	}
	path := r.URL.Path
	if strings.IndexByte(path, octets.BOM[0]) < 0 {
		return nil // the common case: no octet EF at all
	}
	i := strings.Index(path, "/"+octets.BOM)
	if i < 0 {
		return nil
	}
	return &Rejection{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM, Location: rules.Path, Offset: i + 1,
		Sample: finding.Sample(path, i+1), Err: &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: i + 1, Class: sanitize.BOM}}
}

// checkPathValues checks, for a request a net/http ServeMux has routed
// (r.Pattern set), the wildcard values r.PathValue returns, as checkParams
// checks Echo's parameters: the mux cut them from the decoded path, which
// has passed, so what is left is a leading BOM.
func checkPathValues(r *http.Request, p *compiled.Policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 {
		return nil
	}
	for name := range patternWildcards(r.Pattern) {
		if rj := paramBOM([]string{name}, 0, r.PathValue(name), p); rj != nil {
			return rj
		}
	}
	return nil
}

// patternWildcards yields the wildcard names of a ServeMux pattern
// ("GET /users/{id}", "/files/{rest...}"), "{$}" left out.
func patternWildcards(pat string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for {
			i := strings.IndexByte(pat, '{')
			if i < 0 {
				return
			}
			j := strings.IndexByte(pat[i:], '}')
			if j < 0 {
				return
			}
			name := strings.TrimSuffix(pat[i+1:i+j], "...")
			pat = pat[i+j+1:]
			if name != "" && name != "$" && !yield(name) {
				return
			}
		}
	}
}

// pathSyntax are the octets that mean something in a path to a handler,
// a router or a file system.
const pathSyntax = "/\\%;?#"

// addsSyntax reports whether after, the canonical form of before, holds
// more of an octet of pathSyntax, or more dot segments ("." or ".."
// between slashes), than before.
func addsSyntax(before, after []byte) bool { return compiled.AddsSyntaxOf(pathSyntax, before, after) }

// syntaxRejection is the Rejection of a canonical path value that adds
// syntax; off is where the value starts in the decoded path (0 for a
// parameter, whose offset is into its own value).
func syntaxRejection(field string, before []byte, off int) *Rejection {
	e := &sanitize.Error{Reason: sanitize.CanonicalSyntax, Offset: off}
	return finding.Reject(e, rules.Path, field, before)
}

// canonParam brings a path parameter value to its canonical form and
// holds it to the path's policy: no added syntax, the path's classes (a
// leading BOM refused, as at the start of any parameter) and the path
// limit. In Monitor mode it checks and changes nothing.
func canonParam(c *compiled.Policy, name, v string) (string, bool, *Rejection) {
	out, changed, rj := compiled.CanonOf(c, rules.Path, name, octets.StringBytes(v), true)
	if rj != nil || !changed {
		return v, false, rj
	}
	field := finding.SafeField(name)
	if addsSyntax(octets.StringBytes(v), out) {
		return v, false, syntaxRejection(field, octets.StringBytes(v), 0)
	}
	if rj := compiled.Recheck(rules.Path, field, out, c.Path.Forbid, c.Limits.PathBytes, c.PathMode); rj != nil {
		return v, false, rj
	}
	if c.Mode == rules.Monitor {
		return v, false, nil
	}
	return string(out), true, nil
}

// canonicalize rewrites the accepted request r to its canonical form, or
// returns the rejection of a value that may not pass. params are the
// parameter values checkParams returned (nil: values unchanged).
//
// Path parameters come from Echo (names and values) after routing. Without
// them, a request that a net/http ServeMux has routed (r.Pattern set: the
// adapter wraps a handler registered on the mux) has its wildcard values,
// which r.PathValue returns, canonicalized in place with r.SetPathValue.
func (s *scratch) canonicalize(r *http.Request, p *compiled.Policy, names, values, params []string) ([]string, *Rejection) {
	if p.Path.On && p.CanonAt(rules.Path) {
		if rj := s.canonPath(r, p); rj != nil {
			return nil, rj
		}
		if names == nil && r.Pattern != "" {
			if rj := canonPathValues(p, r); rj != nil {
				return nil, rj
			}
		}
		cur := values
		if params != nil {
			cur = params
		}
		for i, v := range cur {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			nv, changed, rj := canonParam(p, name, v)
			if rj != nil {
				return nil, rj
			}
			if changed {
				if params == nil {
					params = append([]string(nil), values...)
				}
				params[i] = nv
			}
		}
	}
	if p.Query.On && r.URL.RawQuery != "" && p.CanonAt(rules.Query) {
		fixed, rj := s.pairs.CanonText(r.URL.RawQuery, rules.Query, p)
		if rj != nil {
			return nil, rj
		}
		if fixed != nil && p.Mode == rules.Enforce {
			r.URL.RawQuery = octets.BytesString(fixed) // memory of its own, which nothing else references
			s.rewroteURL = true
		}
	}
	if rj := s.canonBody(r, p); rj != nil {
		return nil, rj
	}
	return params, nil
}

// canonPathValues canonicalizes the wildcard values of the ServeMux pattern
// that routed r ("GET /users/{id}", "/files/{rest...}"), which the mux cut
// from the path before the path was checked and canonicalized.
func canonPathValues(p *compiled.Policy, r *http.Request) *Rejection {
	for name := range patternWildcards(r.Pattern) {
		nv, changed, rj := canonParam(p, name, r.PathValue(name))
		if rj != nil {
			return rj
		}
		if changed {
			r.SetPathValue(name, nv)
		}
	}
	return nil
}

// canonPath normalizes the decoded path, segment by segment so that an
// encoded '/' stays encoded, and holds the result to the path's policy: no
// segment gains syntax, the classes and the path limit hold. PRECIS
// applies to parameters, not to the path. URL.RawPath is set only where
// URL.Path's default escaping is not the path (it holds an encoded '/'),
// as url.Parse leaves it. In Monitor mode it checks and rewrites nothing.
//
// The segments are decoded in s.buf, and the canonical path, decoded and
// escaped, written in the buffers of a pooled pairCanon: what it allocates
// is the new URL.Path and URL.RawPath, however many segments there are.
func (s *scratch) canonPath(r *http.Request, p *compiled.Policy) *Rejection {
	if p.Norm == normalize.None {
		return nil
	}
	path := r.URL.Path
	if p.RejectUnnormalized {
		if err := p.Norm.CheckString(path); err != nil {
			return finding.Reject(err, rules.Path, "", path)
		}
		return nil
	}
	if p.Norm.IsNormalString(path) {
		return nil
	}
	pc := form.Canons.Get().(*form.Canon)
	defer pc.Release()
	dec, enc := pc.Norm[:0], pc.Out[:0]
	off := 0 // where the segment starts in the decoded path
	for seg := range strings.SplitSeq(r.URL.EscapedPath(), "/") {
		s.buf, _ = sanitize.AppendUnescape(s.buf[:0], seg, sanitize.EscapePathSegment) // checked already
		d := s.buf
		at := len(dec)
		dec = p.Norm.Append(dec, d)
		nd := dec[at:]
		if addsSyntax(d, nd) {
			return syntaxRejection("", octets.StringBytes(path), off)
		}
		off += len(d) + 1
		dec = append(dec, '/')
		enc = append(sanitize.AppendEscape(enc, octets.BytesString(nd), sanitize.EscapePathSegment), '/')
	}
	pc.Norm, pc.Out = dec, enc // the grown buffers go back to the pool
	dec, enc = dec[:len(dec)-1], enc[:len(enc)-1]
	if p.Limits.PathBytes >= 0 && len(enc) > p.Limits.PathBytes {
		return finding.TooLarge(rules.Path, "", int64(p.Limits.PathBytes))
	}
	if rj := compiled.Recheck(rules.Path, "", dec, p.Path.Forbid&^sanitize.BOM, -1, 0); rj != nil {
		return rj
	}
	if p.Mode == rules.Monitor {
		return nil
	}
	r.URL.Path = string(dec)
	r.URL.RawPath = ""
	if r.URL.EscapedPath() != string(enc) {
		r.URL.RawPath = string(enc)
	}
	s.rewroteURL = true
	return nil
}
