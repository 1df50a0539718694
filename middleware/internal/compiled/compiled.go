// Package compiled turns a rules.Policy into what the request path looks
// up: the header names in canonical form, the escape modes of the path,
// the query and form bodies, the media type patterns, and what the
// canonical pass needs (the normalization form, the PRECIS fields of each
// location by folded name, the JSON PRECIS pointers as a trie). A Policy
// is made once per route (and again when live rules change) and only read
// after that, by every request at once.
package compiled

import (
	"net/textproto"
	"unicode"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Policy is a rules.Policy compiled for the request path: everything that
// can be worked out once is.
type Policy struct {
	rules.Policy
	ChecksNothing  bool                // checks nothing
	HeaderKeys     []string            // the listed header names in canonical form, when Header.On
	PathMode       sanitize.EscapeMode // how the path's percent-escapes are read
	QueryMode      sanitize.EscapeMode // how the query's are read
	FormMode       sanitize.EscapeMode // how a form body's are read
	ReadsBody      bool                // some body location is on
	BodyPatterns   []MediaPattern      // BodyTypes, parsed
	BinaryPatterns []MediaPattern      // BinaryTypes, parsed
	MultiPatterns  []MediaPattern      // MultipartTextTypes, parsed

	// Canonicalization (package middleware's canon.go and each
	// location's file).
	Canon bool           // something to canonicalize
	Norm  normalize.Form // the route's normalization, or None
	// precis maps a field's name, in the route's normalization form and
	// case-folded (FoldKey), to its PRECIS profile, one map per location:
	// a lookup by a string key alone, which Go's maps hash faster than a
	// struct key (the lookup is made for every query or form
	// value on a route with a PRECIS field there).
	precis     [rules.NumLocations]map[string]normalize.Profile
	precisLocs uint16      // bit l set when a PRECIS field is in location l
	JSONPrecis *PrecisNode // the JSON PRECIS pointers, as a trie (precis.go)
}

// Compile compiles p. In Monitor mode it turns repair off in every
// location: a request in Monitor mode passes on as sent.
func Compile(p rules.Policy) *Policy {
	if p.Mode == rules.Monitor {
		// Monitor passes requests on unchanged: nothing is repaired, so an
		// ill-formed value is flagged instead.
		for l := range rules.Location(rules.NumLocations) {
			p.Location(l).Repair = false
		}
	}
	c := &Policy{Policy: p, ChecksNothing: p.Off()}
	c.Limits = p.Limits.WithDefaults()
	if p.Header.On {
		for _, h := range p.Headers {
			c.HeaderKeys = append(c.HeaderKeys, textproto.CanonicalMIMEHeaderKey(h))
		}
	}
	c.PathMode = escapeMode(sanitize.EscapePath, p.Path)
	c.QueryMode = escapeMode(sanitize.EscapeQuery, p.Query)
	c.FormMode = escapeMode(sanitize.EscapeQuery, p.Form)
	c.ReadsBody = p.Form.On || p.JSON.On || p.XML.On || p.Multipart.On || p.Body.On
	c.BodyPatterns = ParsePatterns(p.BodyTypes)
	c.BinaryPatterns = ParsePatterns(p.BinaryTypes)
	c.MultiPatterns = ParsePatterns(p.MultipartTextTypes)
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
func (c *Policy) compileCanon() {
	c.Norm = c.Normalization
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
		put(f.Location, FoldKey(c.Norm.String(f.Field)), f.Profile, true)
	}
	for _, f := range c.Precis {
		if formChannel(f.Location) {
			for _, loc := range [...]rules.Location{rules.Query, rules.Form, rules.Multipart} {
				if loc != f.Location && !c.namesPrecis(loc, f.Field) {
					put(loc, FoldKey(c.Norm.String(f.Field)), f.Profile, false)
				}
			}
		}
	}
	c.JSONPrecis = c.jsonPointers()
	c.Canon = c.Norm != normalize.None || c.precisLocs != 0
}

// formChannel reports whether loc is one of the places a form field can
// come from: the query, a form body, a multipart body.
func formChannel(loc rules.Location) bool {
	return loc == rules.Query || loc == rules.Form || loc == rules.Multipart
}

// namesPrecis reports whether the policy names a PRECIS field at loc that
// matches name as PrecisProfile matches names.
func (c *Policy) namesPrecis(loc rules.Location, name string) bool {
	for _, f := range c.Precis {
		if f.Location == loc && FoldKey(c.Norm.String(f.Field)) == FoldKey(c.Norm.String(name)) {
			return true
		}
	}
	return false
}

// PrecisProfile returns the PRECIS profile of the field named field (in
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
func (c *Policy) PrecisProfile(loc rules.Location, field string) (normalize.Profile, bool) {
	if c.precisLocs&(1<<loc) == 0 {
		return 0, false
	}
	prof, ok := c.precis[loc][FoldKey(field)]
	return prof, ok
}

// FoldKey returns s with every character replaced by one representative of
// its simple case-folding orbit (unicode.SimpleFold), so that
// FoldKey(a) == FoldKey(b) exactly when strings.EqualFold(a, b), the
// equivalence Echo's binder and encoding/json match names under. The
// representative is the smallest code point of the orbit (as
// encoding/json's foldName takes it), but a lower-case ASCII letter for
// the orbits that hold one: a lower-case ASCII name, the common one, comes
// back as it is, without allocating.
func FoldKey(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			b := make([]byte, i, len(s)+4)
			copy(b, s[:i])
			for _, r := range s[i:] {
				b = utf8.AppendRune(b, FoldRune(r))
			}
			return string(b)
		}
	}
	return s
}

// FoldRune returns the representative of r's case-folding orbit that
// FoldKey uses.
func FoldRune(r rune) rune {
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

// CanonAt reports whether loc has anything to canonicalize.
func (c *Policy) CanonAt(loc rules.Location) bool {
	return c.Norm != normalize.None || c.precisLocs&(1<<loc) != 0
}

// ChecksTrailers reports whether p checks any header a trailer could
// carry: listed headers, or cookies.
func (p *Policy) ChecksTrailers() bool { return len(p.HeaderKeys) > 0 || p.Cookies }

// ChecksHeader reports whether p checks the header name (canonical, as
// net/http stores header and trailer names).
func (p *Policy) ChecksHeader(name string) bool {
	if p.Cookies && name == "Cookie" {
		return true
	}
	for _, h := range p.HeaderKeys {
		if h == name {
			return true
		}
	}
	return false
}

// PairsMode returns the check of a query or form text and the escape mode
// its keys and values are decoded with.
func (p *Policy) PairsMode(loc rules.Location) (*rules.Check, sanitize.EscapeMode) {
	if loc == rules.Form {
		return &p.Form, p.FormMode
	}
	return &p.Query, p.QueryMode
}

// NamesForbid is the set of classes refused in the names of a multipart
// body: field names, file names, every other decoded parameter of a part's
// Content-Disposition and Content-Type, and every part header value. They
// are names and header text, so the classes of multipart names
// (Multipart.Names: in the strict preset, the bidi marks, which a field's
// content may hold) and the header classes apply on top of the multipart
// ones: in the strict preset, every C0 control, TAB, LF and CR included,
// where a field's content may hold line breaks. The header values hold
// the names as sent (name="..." in Content-Disposition), so they are held
// to the same classes.
func (p *Policy) NamesForbid() sanitize.Class {
	return p.Multipart.Forbid | p.Multipart.Names | p.Header.Forbid
}

// HasPrecis reports whether the policy names a PRECIS field at loc (or,
// for the query, a form body and a multipart body, at one of the others).
func (c *Policy) HasPrecis(loc rules.Location) bool { return c.precisLocs&(1<<loc) != 0 }
