package middleware

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Canonicalization brings accepted text to the one form the route wants:
// its Unicode normalization form, and the enforced form of the PRECIS
// profile of each named field. It runs after every check has passed, so it
// only ever sees valid UTF-8 (norm passes ill-formed octets through), and
// only on routes that ask for it. It rewrites what the handler can read:
// URL.Path and URL.RawPath, the route parameters, URL.RawQuery, and form,
// JSON, multipart and text bodies (with a correct ContentLength). In
// RejectUnnormalized mode it rewrites nothing and rejects text that is not
// normal (not_normalized); in Monitor mode it rewrites nothing and flags
// what it would reject.

// precisKey names a field for PRECIS: its location and its name in the
// route's normalization form, case-folded (foldKey).
type precisKey struct {
	loc   rules.Location
	field string
}

// compileCanon fills in the canonicalization part of c.
func (c *policy) compileCanon() {
	switch c.Normalization {
	case rules.NFC:
		c.form = normalize.NFC
	case rules.NFKC:
		c.form = normalize.NFKC
	}
	for _, f := range c.Precis {
		if c.precis == nil {
			c.precis = make(map[precisKey]normalize.Profile)
		}
		c.precis[precisKey{f.Location, foldKey(c.form.String(f.Field))}] = f.Profile
		c.precisLocs |= 1 << f.Location
	}
	c.canon = c.form != normalize.None || c.precis != nil
}

// precisProfile returns the PRECIS profile of the field named field (in
// its canonical form) at loc, if the policy names one.
//
// Names match without regard to case, in the sense of strings.EqualFold:
// Echo's binder (c.Bind) fills a struct field tagged query:"user" or
// form:"user" from a key "USER" when there is no "user", and encoding/json
// fills a field tagged json:"name" from a key "NAME" or "ＮＡＭＥ"'s NFKC
// form "NAME" alike (and from "ſ" for "s", "K" for "k"). Matching names
// exactly would let a client send a case variant of the key past its
// profile into the very struct field the profile guards. The price is
// that the profile also applies to a key that differs from the named one
// only in case, where a handler reading exact keys (c.QueryParam, a
// map[string]any) would not have mixed them up: failing closed.
func (c *policy) precisProfile(loc rules.Location, field string) (normalize.Profile, bool) {
	if c.precisLocs&(1<<loc) == 0 {
		return 0, false
	}
	prof, ok := c.precis[precisKey{loc, foldKey(field)}]
	return prof, ok
}

// foldKey returns s with every character replaced by one representative of
// its simple case-folding orbit (unicode.SimpleFold), so that
// foldKey(a) == foldKey(b) exactly when strings.EqualFold(a, b), the
// equivalence Echo's binder and encoding/json match names under. The
// representative is the smallest code point of the orbit (as
// encoding/json's foldName takes it), but a lower-case ASCII letter for
// the orbits that hold one: a lower-case ASCII name, the common one, comes
// back as it is, without allocating.
func foldKey(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			b := make([]byte, i, len(s)+4)
			copy(b, s[:i])
			for _, r := range s[i:] {
				b = utf8.AppendRune(b, foldRune(r))
			}
			return string(b)
		}
	}
	return s
}

// foldRune returns the representative of r's case-folding orbit that
// foldKey uses.
func foldRune(r rune) rune {
	for {
		next := unicode.SimpleFold(r) // the next larger in the orbit, or the smallest
		if next <= r {
			r = next
			break
		}
		r = next
	}
	if 'A' <= r && r <= 'Z' {
		r += 'a' - 'A'
	}
	return r
}

// canonAt reports whether loc has anything to canonicalize.
func (c *policy) canonAt(loc rules.Location) bool {
	return c.form != normalize.None || c.precisLocs&(1<<loc) != 0
}

// canonValue brings one decoded, validated value to its canonical form. A
// field with a PRECIS profile (precis true and the field, by its canonical
// name, named in the policy) gets the profile's enforced form; any other
// value the route's normalization. It returns v itself and false when
// nothing changes. The Field of a Rejection is safeField(field), which
// may alias field.
func (c *policy) canonValue(loc rules.Location, field string, v []byte, precis bool) ([]byte, bool, *Rejection) {
	if precis {
		if prof, ok := c.precisProfile(loc, field); ok {
			s := bytesString(v)
			out, err := normalize.Enforce(prof, s)
			if err != nil {
				return nil, false, reject(err, loc, safeField(field), v)
			}
			if c.Mode == rules.Monitor || out == s {
				return v, false, nil
			}
			return []byte(out), true, nil
		}
	}
	if c.form == normalize.None {
		return v, false, nil
	}
	if c.RejectUnnormalized {
		if err := c.form.Check(v); err != nil {
			return nil, false, reject(err, loc, safeField(field), v)
		}
		return v, false, nil
	}
	if c.Mode == rules.Monitor || c.form.IsNormal(v) {
		return v, false, nil
	}
	return c.form.Bytes(v), true, nil
}

// canonString is canonValue for a string.
func (c *policy) canonString(loc rules.Location, field, v string, precis bool) (string, bool, *Rejection) {
	out, changed, rj := c.canonValue(loc, field, stringBytes(v), precis)
	if !changed {
		return v, false, rj
	}
	return string(out), true, rj
}

// canonicalize rewrites the accepted request r to its canonical form, or
// returns the rejection of a value that may not pass. params are the
// parameter values checkParams returned (nil: values unchanged).
//
// Path parameters come from Echo (names and values) after routing. Without
// them, a request that a net/http ServeMux has routed (r.Pattern set: the
// adapter wraps a handler registered on the mux) has its wildcard values,
// which r.PathValue returns, canonicalized in place with r.SetPathValue.
func (s *scratch) canonicalize(r *http.Request, p *policy, names, values, params []string) ([]string, *Rejection) {
	if p.Path.On && p.canonAt(rules.Path) {
		if rj := p.canonPath(r); rj != nil {
			return nil, rj
		}
		if names == nil && r.Pattern != "" {
			if rj := p.canonPathValues(r); rj != nil {
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
			nv, changed, rj := p.canonString(rules.Path, name, v, true)
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
	if p.Query.On && r.URL.RawQuery != "" && p.canonAt(rules.Query) {
		_, changed, rj := s.canonPairs(r.URL.RawQuery, rules.Query, p, false)
		if rj != nil {
			return nil, rj
		}
		if changed {
			r.URL.RawQuery, _, _ = s.canonPairs(r.URL.RawQuery, rules.Query, p, true)
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
func (p *policy) canonPathValues(r *http.Request) *Rejection {
	for name := range patternWildcards(r.Pattern) {
		v := r.PathValue(name)
		nv, changed, rj := p.canonString(rules.Path, name, v, true)
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
// encoded '/' stays encoded. PRECIS applies to parameters, not to the path.
// URL.RawPath is set only where URL.Path's default escaping is not the
// path (it holds an encoded '/'), as url.Parse leaves it.
func (p *policy) canonPath(r *http.Request) *Rejection {
	if p.form == normalize.None {
		return nil
	}
	path := r.URL.Path
	if p.RejectUnnormalized {
		if err := p.form.CheckString(path); err != nil {
			return reject(err, rules.Path, "", path)
		}
		return nil
	}
	if p.Mode == rules.Monitor || p.form.IsNormalString(path) {
		return nil
	}
	var dec, enc []byte
	for seg := range strings.SplitSeq(r.URL.EscapedPath(), "/") {
		d, _ := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment) // checked already
		d = p.form.Bytes(d)
		dec = append(append(dec, d...), '/')
		enc = append(sanitize.AppendEscape(enc, bytesString(d), sanitize.EscapePathSegment), '/')
	}
	r.URL.Path = string(dec[:len(dec)-1])
	r.URL.RawPath = ""
	if raw := enc[:len(enc)-1]; r.URL.EscapedPath() != string(raw) {
		r.URL.RawPath = string(raw)
	}
	return nil
}

// canonPairs canonicalizes the keys and values of a query or form text,
// which has passed checkPairs. Keys are normalized; values are normalized,
// or PRECIS-enforced when their key names a PRECIS field. Without build it
// only reports whether anything changes (no allocation when nothing
// does); with build it returns the text re-encoded.
func (s *scratch) canonPairs(raw string, loc rules.Location, p *policy, build bool) (string, bool, *Rejection) {
	mode := p.queryMode &^ sanitize.RefuseDoubleEncoding
	if loc == rules.Form {
		mode = p.formMode &^ sanitize.RefuseDoubleEncoding
	}
	var out []byte
	changed := false
	for rest := raw; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		key, val, hasVal := strings.Cut(pair, "=")
		s.buf = s.buf[:0]
		k := s.decoded(key, mode)
		nk, kch, rj := p.canonValue(loc, "", k, false)
		if rj != nil {
			// Cloned: key points into the body of a form, which a
			// Rejection kept by OnReject should not pin.
			rj.Field = strings.Clone(safeField(key))
			return "", false, rj
		}
		name := bytesString(nk) // the canonical key names the field; s.buf only grows
		v := s.decoded(val, mode)
		nv, vch, rj := p.canonValue(loc, name, v, true)
		if rj != nil {
			// Cloned: name may point into s.buf, which the next request
			// reuses once this one has put its scratch back, while the
			// Rejection lives on in the log line, OnReject and the error
			// handler.
			rj.Field = strings.Clone(rj.Field)
			return "", false, rj
		}
		changed = changed || kch || vch
		if build {
			if len(out) > 0 {
				out = append(out, '&')
			}
			out = sanitize.AppendEscape(out, bytesString(nk), sanitize.EscapeQuery)
			if hasVal {
				out = append(out, '=')
				out = sanitize.AppendEscape(out, bytesString(nv), sanitize.EscapeQuery)
			}
		}
	}
	return string(out), changed, nil
}

// decoded returns raw percent-decoded, in s.buf after what is there, or
// raw itself when there is nothing to decode. raw has been checked.
func (s *scratch) decoded(raw string, mode sanitize.EscapeMode) []byte {
	if !needsDecoding(raw, mode) {
		return stringBytes(raw)
	}
	start := len(s.buf)
	s.buf, _ = sanitize.AppendUnescape(s.buf, raw, mode)
	return s.buf[start:len(s.buf):len(s.buf)]
}

// canonBody canonicalizes a body that checkBody read and accepted.
func (s *scratch) canonBody(r *http.Request, p *policy) *Rejection {
	body, loc := s.body, s.bodyLoc
	if body == nil || !p.canonAt(loc) {
		return nil // no body read: not a checked one
	}
	var out []byte
	switch loc {
	case rules.Form:
		_, changed, rj := s.canonPairs(bytesString(body), loc, p, false)
		if rj != nil || !changed {
			return rj
		}
		text, _, _ := s.canonPairs(bytesString(body), loc, p, true)
		out = []byte(text)
	case rules.JSON:
		var rj *Rejection
		if out, rj = p.canonJSON(body); rj != nil {
			return rj
		}
	case rules.Multipart:
		var rj *Rejection
		if out, rj = p.canonMultipart(r, body); rj != nil {
			return rj
		}
	case rules.Body:
		nb, changed, rj := p.canonValue(loc, "", body, false)
		if rj != nil || !changed {
			return rj
		}
		out = nb
	}
	if out != nil {
		setBody(r, out)
	}
	return nil
}
