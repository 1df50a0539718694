package middleware

import (
	"mime"
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// mediaPattern is a media type such as "text/plain", or a pattern:
// "text/*" matches every subtype of text, "application/*+xml" every
// subtype of application with the suffix +xml (RFC 6838 section 4.2.8).
type mediaPattern struct{ typ, sub string }

func parsePatterns(list []string) []mediaPattern {
	var out []mediaPattern
	for _, m := range list {
		typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(m)), "/")
		out = append(out, mediaPattern{typ, sub})
	}
	return out
}

// matchMedia reports whether typ/sub, lower case as contentType returns
// them, matches one of pats.
func matchMedia(pats []mediaPattern, typ, sub string) bool {
	for _, p := range pats {
		if p.typ == typ && (p.sub == "*" || p.sub == sub ||
			strings.HasPrefix(p.sub, "*+") && strings.HasSuffix(sub, p.sub[1:])) {
			return true
		}
	}
	return false
}

// contentType splits a Content-Type value into its type and subtype, lower
// case, and its charset parameter, exactly as mime.ParseMediaType reads
// them (and so Request.ParseForm, Request.MultipartReader and the handlers
// that call it): quoted strings, RFC 2231 continuations and "charset*"
// included. A value mime.ParseMediaType refuses gives three empty strings.
// It does not allocate for the most common values.
func contentType(ct string) (typ, sub, charset string) {
	typ, sub, charset, _ = parseMediaType(ct)
	return typ, sub, charset
}

// parseMediaType is contentType that also reports whether ct parses: an
// empty ct does (no media type), a value mime.ParseMediaType refuses does
// not.
func parseMediaType(ct string) (typ, sub, charset string, ok bool) {
	// The most common values, without the general parse below.
	switch ct {
	case "":
		return "", "", "", true
	case "application/json":
		return "application", "json", "", true
	case "application/json; charset=utf-8", "application/json;charset=utf-8":
		return "application", "json", "utf-8", true
	case "application/json; charset=UTF-8":
		return "application", "json", "UTF-8", true
	case "application/x-www-form-urlencoded":
		return "application", "x-www-form-urlencoded", "", true
	case "text/plain; charset=utf-8":
		return "text", "plain", "utf-8", true
	}
	if typ, sub, charset, ok := simpleMediaType(ct); ok {
		return typ, sub, charset, true
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", "", "", false
	}
	typ, sub, _ = strings.Cut(mt, "/")
	return typ, sub, params["charset"], true
}

// simpleMediaType parses, without allocating, the Content-Type values
// whose reading by mime.ParseMediaType is plain: a lower-case type/subtype
// of token characters, optionally followed by one parameter
// "charset=token" (the name in any case), with spaces and tabs around the
// parts. It reports false for every other value, which parseMediaType
// leaves to mime.ParseMediaType itself (TestSimpleMediaType and
// FuzzMediaType hold the two to the same answers).
func simpleMediaType(ct string) (typ, sub, charset string, ok bool) {
	mt, param, hasParam := strings.Cut(ct, ";")
	typ, sub, slash := strings.Cut(trimSpaceTab(mt), "/")
	if !slash || !isLowerToken(typ) || !isLowerToken(sub) {
		return "", "", "", false
	}
	if !hasParam {
		return typ, sub, "", true
	}
	k, v, eq := strings.Cut(param, "=")
	k, v = trimSpaceTab(k), trimSpaceTab(v)
	if !eq || len(k) != len("charset") || !strings.EqualFold(k, "charset") || !isToken(v) {
		return "", "", "", false
	}
	return typ, sub, v, true
}

// trimSpaceTab trims the white space mime.ParseMediaType trims around the
// parts of a media type that matter here: SP and HTAB. (It trims any
// Unicode white space; a value holding other white space is not simple.)
func trimSpaceTab(s string) string { return strings.Trim(s, " \t") }

// isToken reports whether s is a non-empty RFC 2045 token: ASCII
// printable characters but SP and tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// isLowerToken is isToken without upper-case letters, which
// mime.ParseMediaType would lower-case.
func isLowerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return isToken(s)
}

// utf8Charset reports whether a declared charset leaves the body UTF-8:
// none declared, UTF-8 or US-ASCII (a subset), under their common names.
func utf8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// mediaLocation says which location a body of media type typ/sub (lower
// case, from contentType) belongs to, and false for a type no location
// reads as text.
func (p *policy) mediaLocation(typ, sub string) (rules.Location, bool) {
	switch {
	case typ == "application" && sub == "x-www-form-urlencoded":
		return rules.Form, true
	case typ == "application" && sub == "json", strings.HasSuffix(sub, "+json"),
		sub == "" && strings.HasSuffix(typ, "+json"):
		// application/json, and any type with the +json structured
		// syntax suffix (RFC 6839), under whatever top-level type, or
		// none (mime.ParseMediaType takes "application+json"): a handler
		// that goes by the suffix decodes it as JSON.
		return rules.JSON, true
	case isJSONLines(typ, sub):
		// application/x-ndjson and the other JSON-lines types: JSON
		// values, one a line (jsonlines.go).
		return rules.JSON, true
	case typ == "application" && sub == "xml", typ == "text" && sub == "xml", strings.HasSuffix(sub, "+xml"),
		sub == "" && strings.HasSuffix(typ, "+xml"):
		return rules.XML, true
	case typ == "multipart" && sub != "":
		// form-data and mixed, which Request.MultipartReader reads, and
		// every other subtype, which a handler's own multipart.Reader
		// reads as well.
		return rules.Multipart, true
	case typ == "text" && sub != "" || matchMedia(p.bodyTypes, typ, sub):
		// text/* has a subtype: "text" alone (mime.ParseMediaType takes
		// it) is no text type a reader knows, and unlisted like any other.
		return rules.Body, true
	}
	return 0, false
}

// binderLocation is the location Echo's DefaultBinder decodes a body of
// Content-Type ct as: it matches the raw header value by prefix, case
// and parameters included ("application/jsonx" is JSON to it), where
// mime.ParseMediaType reads "application/jsonx" as a type of its own.
func binderLocation(ct string) (rules.Location, bool) {
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return rules.JSON, true
	case strings.HasPrefix(ct, "application/xml"), strings.HasPrefix(ct, "text/xml"):
		return rules.XML, true
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		return rules.Form, true
	case strings.HasPrefix(ct, "multipart/form-data"):
		return rules.Multipart, true
	}
	return 0, false
}

// bodyLocation says which location the body of Content-Type ct (and
// typ/sub, its parse) is checked as, and false for a body no location
// reads as text. Two readers decide how a handler decodes a body:
// mime.ParseMediaType (net/http's form and multipart readers, most
// handlers) and Echo's binder (a prefix of the raw value). Where only one
// of them sees a structured body, it is checked as that; where they see
// two different structured bodies ("application/xml+json" is XML to the
// binder and JSON by its suffix), no single check covers both readers,
// and the body is refused (bad_media_type).
func (p *policy) bodyLocation(ct, typ, sub string) (rules.Location, bool, *Rejection) {
	// The most common values, which both readers take alike
	// (TestBodyLocationCommon).
	switch ct {
	case "application/json", "application/json; charset=utf-8", "application/json;charset=utf-8",
		"application/json; charset=UTF-8":
		return rules.JSON, true, nil
	case "application/x-www-form-urlencoded":
		return rules.Form, true, nil
	}
	loc, ok := p.mediaLocation(typ, sub)
	bloc, bok := binderLocation(ct)
	switch {
	case !bok || ok && loc == bloc:
		return loc, ok, nil
	case !ok || loc == rules.Body:
		return bloc, true, nil
	}
	return 0, false, badMediaType(rules.Body, ct)
}

// badMediaType is the Rejection of a Content-Type value that cannot be
// read as one media type.
func badMediaType(loc rules.Location, ct string) *Rejection {
	return &Rejection{Reason: sanitize.BadMediaType, Location: loc, Field: "Content-Type",
		Sample: sample(ct, 0), Err: sanitize.ErrBadMediaType}
}

// requestContentType returns the request's Content-Type value, and false
// when it has several different ones: net/http's readers and Echo's
// binder take the first, a proxy or another framework may take the last.
func requestContentType(r *http.Request) (string, bool) {
	// r.Header["Content-Type"], not r.Header.Get: the key is canonical
	// already, as net/http stores it.
	v := r.Header["Content-Type"]
	if len(v) == 0 {
		return "", true
	}
	for _, o := range v[1:] {
		if o != v[0] {
			return v[0], false
		}
	}
	return v[0], true
}
