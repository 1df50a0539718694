package middleware

import (
	"net/textproto"
	"unicode"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// policy is a rules.Policy compiled for the request path: everything that
// can be worked out once is.
type policy struct {
	rules.Policy
	off         bool     // checks nothing
	headers     []string // canonical header names, when Header.On
	pathMode    sanitize.EscapeMode
	queryMode   sanitize.EscapeMode
	formMode    sanitize.EscapeMode
	readsBody   bool // some body location is on
	bodyTypes   []mediaPattern
	binaryTypes []mediaPattern
	multiTypes  []mediaPattern

	// Canonicalization (canon.go and each location's file).
	canon bool           // something to canonicalize
	form  normalize.Form // the route's normalization, or None
	// precis maps a field's name, in the route's normalization form and
	// case-folded (foldKey), to its PRECIS profile, one map per location:
	// a lookup by a string key alone, which Go's maps hash faster than a
	// struct key (the lookup is made for every query or form
	// value on a route with a PRECIS field there).
	precis     [rules.NumLocations]map[string]normalize.Profile
	precisLocs uint16      // bit l set when a PRECIS field is in location l
	jsonPrecis *precisNode // the JSON PRECIS pointers, as a trie (json.go)
}

func compile(p rules.Policy) *policy {
	if p.Mode == rules.Monitor {
		// Monitor passes requests on unchanged: nothing is repaired, so an
		// ill-formed value is flagged instead.
		for l := range rules.Location(rules.NumLocations) {
			p.Location(l).Repair = false
		}
	}
	c := &policy{Policy: p, off: p.Off()}
	c.Limits = p.Limits.WithDefaults()
	if p.Header.On {
		for _, h := range p.Headers {
			c.headers = append(c.headers, textproto.CanonicalMIMEHeaderKey(h))
		}
	}
	c.pathMode = escapeMode(sanitize.EscapePath, p.Path)
	c.queryMode = escapeMode(sanitize.EscapeQuery, p.Query)
	c.formMode = escapeMode(sanitize.EscapeQuery, p.Form)
	c.readsBody = p.Form.On || p.JSON.On || p.XML.On || p.Multipart.On || p.Body.On
	c.bodyTypes = parsePatterns(p.BodyTypes)
	c.binaryTypes = parsePatterns(p.BinaryTypes)
	c.multiTypes = parsePatterns(p.MultipartTextTypes)
	c.compileCanon()
	return c
}

func escapeMode(m sanitize.EscapeMode, c rules.Check) sanitize.EscapeMode {
	if c.RefuseDoubleEncoding {
		m |= sanitize.RefuseDoubleEncoding
	}
	return m
}

// compileCanon fills in the canonicalization part of c.
//
// A PRECIS field of the query, a form body or a multipart body holds in
// all three, unless the policy names a field of that name there itself:
// r.FormValue, c.FormValue and Echo's form binder (through
// Request.ParseForm, whose Form holds the query's values after the
// body's) read a name from whichever of them the client sent it in, so a
// profile named for one would otherwise be left behind by sending the
// field in another.
func (c *policy) compileCanon() {
	c.form = c.Normalization
	put := func(loc rules.Location, key string, prof normalize.Profile, named bool) {
		m := c.precis[loc]
		if m == nil {
			m = make(map[string]normalize.Profile)
			c.precis[loc] = m
		}
		if _, ok := m[key]; ok && !named {
			return // named there itself
		}
		m[key] = prof
		c.precisLocs |= 1 << loc
	}
	for _, f := range c.Precis {
		put(f.Location, foldKey(c.form.String(f.Field)), f.Profile, true)
	}
	for _, f := range c.Precis {
		if formChannel(f.Location) {
			for _, loc := range [...]rules.Location{rules.Query, rules.Form, rules.Multipart} {
				if loc != f.Location && !c.namesPrecis(loc, f.Field) {
					put(loc, foldKey(c.form.String(f.Field)), f.Profile, false)
				}
			}
		}
	}
	c.jsonPrecis = c.jsonPointers()
	c.canon = c.form != normalize.None || c.precisLocs != 0
}

// formChannel reports whether loc is one of the places a form field can
// come from: the query, a form body, a multipart body.
func formChannel(loc rules.Location) bool {
	return loc == rules.Query || loc == rules.Form || loc == rules.Multipart
}

// namesPrecis reports whether the policy names a PRECIS field at loc that
// matches name as precisProfile matches names.
func (c *policy) namesPrecis(loc rules.Location, name string) bool {
	for _, f := range c.Precis {
		if f.Location == loc && foldKey(c.form.String(f.Field)) == foldKey(c.form.String(name)) {
			return true
		}
	}
	return false
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
	prof, ok := c.precis[loc][foldKey(field)]
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
