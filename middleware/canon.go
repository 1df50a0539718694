package middleware

import (
	"bytes"
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
	c.form = c.Normalization
	for _, f := range c.Precis {
		if c.precis == nil {
			c.precis = make(map[precisKey]normalize.Profile)
		}
		c.precis[precisKey{f.Location, foldKey(c.form.String(f.Field))}] = f.Profile
		c.precisLocs |= 1 << f.Location
	}
	c.jsonPrecis = c.jsonPointers()
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
// nothing changes, and in Monitor mode, which rewrites nothing (canonOf
// gives the canonical form whatever the mode). The Field of a Rejection is
// safeField(field), which may alias field.
func (c *policy) canonValue(loc rules.Location, field string, v []byte, precis bool) ([]byte, bool, *Rejection) {
	out, changed, rj := c.canonOf(loc, field, v, precis)
	if c.Mode == rules.Monitor {
		return v, false, rj
	}
	return out, changed, rj
}

// canonOf is canonValue in every mode: in Monitor mode too it returns the
// canonical form, for the checks that hold it to the policy, so that
// Monitor flags what Enforce would refuse.
func (c *policy) canonOf(loc rules.Location, field string, v []byte, precis bool) ([]byte, bool, *Rejection) {
	if precis {
		if prof, ok := c.precisProfile(loc, field); ok {
			s := bytesString(v)
			out, err := normalize.Enforce(prof, s)
			if err != nil {
				return nil, false, reject(err, loc, safeField(field), v)
			}
			if out == s {
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
	if c.form.IsNormal(v) {
		return v, false, nil
	}
	return c.form.Bytes(v), true, nil
}

// A canonical form must pass the policy its input passed: normalization
// and PRECIS map some characters to ASCII syntax (NFKC maps U+FF05 and
// U+FE6A to '%', U+FF0F to '/', U+FF0E and U+2024 to '.', U+FF3C to '\';
// NFC itself maps U+037E to ';' and U+1FEF to '`'), and expand others
// (U+FDFA to 18 octets). So a canonical value is checked again, against
// the classes, the double-encoding refusal and the limits of its location
// (recheck), and in the path and its parameters a canonical form that
// holds syntax its decoded form did not is refused outright
// (canonical_syntax, addsSyntax): "．．／etc" would otherwise reach the
// handler as c.Param("*") == "../etc", a segment boundary moved after the
// checks.

// pathSyntax are the octets that mean something in a path to a handler,
// a router or a file system.
const pathSyntax = "/\\%;?#"

// fileNameSyntax are the octets that mean something in a file name to a
// handler that joins it into a path or decodes it: separators and '%'.
const fileNameSyntax = "/\\%"

// addsSyntax reports whether after, the canonical form of before, holds
// more of an octet of pathSyntax, or more dot segments ("." or ".."
// between slashes), than before.
func addsSyntax(before, after []byte) bool { return addsSyntaxOf(pathSyntax, before, after) }

// addsSyntaxOf is addsSyntax for the octets of syntax.
func addsSyntaxOf(syntax string, before, after []byte) bool {
	for i := 0; i < len(syntax); i++ {
		if sep := []byte{syntax[i]}; bytes.Count(after, sep) > bytes.Count(before, sep) {
			return true
		}
	}
	return dotSegments(after) > dotSegments(before)
}

// dotSegments counts the pieces of s between slashes that are "." or "..".
func dotSegments(s []byte) int {
	n := 0
	for seg := range bytes.SplitSeq(s, []byte("/")) {
		if string(seg) == "." || string(seg) == ".." {
			n++
		}
	}
	return n
}

// syntaxRejection is the Rejection of a canonical path value that adds
// syntax; off is where the value starts in the decoded path (0 for a
// parameter, whose offset is into its own value).
func syntaxRejection(field string, before []byte, off int) *Rejection {
	e := &sanitize.Error{Reason: sanitize.CanonicalSyntax, Offset: off}
	return reject(e, rules.Path, field, before)
}

// recheck holds the canonical form after of a value to the checks of c at
// loc that its input passed: the character classes (forbid, which the
// caller gives with or without BOM as the value's place wants), the length
// limit (negative: none), and, where mode refuses double encoding, no
// escape in the decoded value.
func recheck(loc rules.Location, field string, after []byte, forbid sanitize.Class, limit int, mode sanitize.EscapeMode) *Rejection {
	if limit >= 0 && len(after) > limit {
		return tooLarge(loc, field)
	}
	if forbid&sanitize.BOM != 0 && bytes.HasPrefix(after, []byte(bom)) {
		return reject(&sanitize.Error{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM}, loc, field, after)
	}
	if err := sanitize.CheckClasses(after, forbid&^sanitize.BOM); err != nil {
		return reject(err, loc, field, after)
	}
	if mode&sanitize.RefuseDoubleEncoding != 0 {
		for i := bytes.IndexByte(after, '%'); i >= 0 && i+2 < len(after); {
			if isHex(after[i+1]) && isHex(after[i+2]) {
				return reject(&sanitize.Error{Reason: sanitize.DoubleEncoding, Offset: i}, loc, field, after)
			}
			j := bytes.IndexByte(after[i+1:], '%')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return nil
}

// canonParam brings a path parameter value to its canonical form and
// holds it to the path's policy: no added syntax, the path's classes (a
// leading BOM refused, as at the start of any parameter) and the path
// limit. In Monitor mode it checks and changes nothing.
func (c *policy) canonParam(name, v string) (string, bool, *Rejection) {
	out, changed, rj := c.canonOf(rules.Path, name, stringBytes(v), true)
	if rj != nil || !changed {
		return v, false, rj
	}
	field := safeField(name)
	if addsSyntax(stringBytes(v), out) {
		return v, false, syntaxRejection(field, stringBytes(v), 0)
	}
	if rj := recheck(rules.Path, field, out, c.Path.Forbid, c.Limits.PathBytes, c.pathMode); rj != nil {
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
			nv, changed, rj := p.canonParam(name, v)
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
		fixed, rj := s.canonText(r.URL.RawQuery, rules.Query, p)
		if rj != nil {
			return nil, rj
		}
		if fixed != "" && p.Mode == rules.Enforce {
			r.URL.RawQuery = fixed
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
		nv, changed, rj := p.canonParam(name, r.PathValue(name))
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
	if p.form.IsNormalString(path) {
		return nil
	}
	var dec, enc []byte
	off := 0 // where the segment starts in the decoded path
	for seg := range strings.SplitSeq(r.URL.EscapedPath(), "/") {
		d, _ := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment) // checked already
		nd := p.form.Bytes(d)
		if addsSyntax(d, nd) {
			return syntaxRejection("", stringBytes(path), off)
		}
		off += len(d) + 1
		dec = append(append(dec, nd...), '/')
		enc = append(sanitize.AppendEscape(enc, bytesString(nd), sanitize.EscapePathSegment), '/')
	}
	dec, enc = dec[:len(dec)-1], enc[:len(enc)-1]
	if p.Limits.PathBytes >= 0 && len(enc) > p.Limits.PathBytes {
		return tooLarge(rules.Path, "")
	}
	if rj := recheck(rules.Path, "", dec, p.Path.Forbid&^sanitize.BOM, -1, 0); rj != nil {
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
	return nil
}

// canonText canonicalizes a query or form text that has passed checkPairs:
// it returns the text re-encoded in canonical form (which Monitor mode
// only measures), or "" when nothing changes, or the
// rejection of a canonical key or value that fails the location's policy,
// or of two distinct keys that have one canonical form (key_collision).
func (s *scratch) canonText(raw string, loc rules.Location, p *policy) (string, *Rejection) {
	changed, keys, rj := s.canonPairs(raw, loc, p, nil)
	if rj != nil {
		return "", rj
	}
	if keys {
		if rj := s.keyCollision(raw, loc, p); rj != nil {
			return "", rj
		}
	}
	if !changed {
		return "", nil
	}
	out := make([]byte, 0, len(raw)+16)
	s.canonPairs(raw, loc, p, &out)
	return string(out), nil
}

// pairsMode returns the check of a query or form text and the escape mode
// its keys and values are decoded with.
func (p *policy) pairsMode(loc rules.Location) (*rules.Check, sanitize.EscapeMode) {
	if loc == rules.Form {
		return &p.Form, p.formMode
	}
	return &p.Query, p.queryMode
}

// canonPairs walks the keys and values of a query or form text, which has
// passed checkPairs, in canonical form: keys normalized, values normalized
// or PRECIS-enforced when their key names a PRECIS field, each canonical
// form held to the location's policy (recheck). It reports whether
// anything changes and whether a key does; with out, it appends the text
// re-encoded to *out. Nothing allocates when nothing changes.
func (s *scratch) canonPairs(raw string, loc rules.Location, p *policy, out *[]byte) (changed, keys bool, rj *Rejection) {
	c, mode := p.pairsMode(loc)
	dec := mode &^ sanitize.RefuseDoubleEncoding
	for pr := range eachPair(raw) {
		key, val, hasVal := pr.key, pr.val, pr.hasVal
		s.buf = s.buf[:0]
		k := s.decoded(key, dec)
		nk, kch, rj := p.canonOf(loc, "", k, false)
		if rj == nil && kch {
			rj = recheck(loc, "", nk, c.Forbid, p.Limits.FieldBytes, mode)
		}
		if rj != nil {
			// Cloned: key points into the body of a form, which a
			// Rejection kept by OnReject should not pin.
			rj.Field = strings.Clone(safeField(key))
			return false, false, rj
		}
		name := bytesString(nk) // the canonical key names the field; s.buf only grows
		v := s.decoded(val, dec)
		nv, vch, rj := p.canonOf(loc, name, v, true)
		if rj == nil && vch {
			rj = recheck(loc, safeField(name), nv, c.Forbid, p.Limits.FieldBytes, mode)
		}
		if rj != nil {
			// Cloned: name may point into s.buf, which the next request
			// reuses once this one has put its scratch back, while the
			// Rejection lives on in the log line, OnReject and the error
			// handler.
			rj.Field = strings.Clone(rj.Field)
			return false, false, rj
		}
		changed = changed || kch || vch
		keys = keys || kch
		if out != nil {
			if len(*out) > 0 {
				*out = append(*out, '&')
			}
			*out = sanitize.AppendEscape(*out, bytesString(nk), sanitize.EscapeQuery)
			if hasVal {
				*out = append(*out, '=')
				*out = sanitize.AppendEscape(*out, bytesString(nv), sanitize.EscapeQuery)
			}
		}
	}
	return changed, keys, nil
}

// keyCollision reports two distinct keys of a query or form text whose
// canonical forms are equal ("%C3%A9" and "e%CC%81" under NFC, "ｑ" and
// "q" under NFKC): after the rewrite the handler would see one key with
// both values, and c.QueryParam takes the first while a binder takes the
// last. It runs only when some key changes (canonPairs), since keys that
// are all canonical already collide only where they are equal.
func (s *scratch) keyCollision(raw string, loc rules.Location, p *policy) *Rejection {
	_, mode := p.pairsMode(loc)
	mode &^= sanitize.RefuseDoubleEncoding
	seen := make(map[string]string) // canonical key -> the decoded key
	for pr := range eachPair(raw) {
		key := pr.key
		s.buf = s.buf[:0]
		k := s.decoded(key, mode)
		nk, _, _ := p.canonOf(loc, "", k, false) // passed canonPairs
		if first, ok := seen[string(nk)]; !ok {
			seen[string(nk)] = string(k)
		} else if first != string(k) {
			return &Rejection{Reason: sanitize.KeyCollision, Location: loc, Field: strings.Clone(safeField(key)),
				Sample: sample(k, 0), Err: sanitize.ErrKeyCollision}
		}
	}
	return nil
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
		text, rj := s.canonText(bytesString(body), loc, p)
		if rj != nil || text == "" {
			return rj
		}
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
	case rules.XML:
		// XML is checked, not rewritten: text not in the form is refused.
		return p.canonXML(body)
	case rules.Body:
		nb, changed, rj := p.canonOf(loc, "", body, false)
		if rj != nil || !changed {
			return rj
		}
		if rj := recheck(loc, "", nb, p.Body.Forbid, -1, 0); rj != nil {
			return rj
		}
		out = nb
	}
	if out == nil {
		return nil
	}
	// The body limit bounds the canonical form too: NFKC expands U+FDFA
	// eighteen times.
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(out)) > lim {
		return tooLarge(loc, "")
	}
	// And the escapes a JSON or XML decoder would read in it: NFKC makes
	// "\u202E" of "＼ｕ２０２Ｅ", and "&#x85;" of "＆＃ｘ８５；" (escapes.go).
	if loc != rules.Multipart {
		if rj := checkEscapes(out, loc, p.Location(loc).Forbid, 0); rj != nil {
			return rj
		}
	}
	if p.Mode == rules.Enforce {
		setBody(r, out)
	}
	return nil
}
