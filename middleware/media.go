package middleware

import (
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody"
	"github.com/utf8guard/utf8guard/rules"
)

// mediaLocation says which location a body of media type typ/sub (lower
// case, from media.ContentType) belongs to, and false for a type no location
// reads as text.
func mediaLocation(p *compiled.Policy, typ, sub string) (rules.Location, bool) {
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
	case typ == "application" && sub == "csp-report":
		// A Content Security Policy violation report, which browsers
		// post to a policy's report-uri: a JSON object (CSP Level 2,
		// section 4.4), read as JSON by the handler that takes it.
		return rules.JSON, true
	case jsonbody.IsLines(typ, sub):
		// application/x-ndjson and the other JSON-lines types: JSON
		// values, one a line (package jsonbody).
		return rules.JSON, true
	case typ == "application" && sub == "xml", typ == "text" && sub == "xml", strings.HasSuffix(sub, "+xml"),
		sub == "" && strings.HasSuffix(typ, "+xml"):
		return rules.XML, true
	case typ == "multipart" && sub != "":
		// form-data and mixed, which Request.MultipartReader reads, and
		// every other subtype, which a handler's own multipart.Reader
		// reads as well.
		return rules.Multipart, true
	case typ == "text" && sub != "" || compiled.MatchMedia(p.BodyPatterns, typ, sub):
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
func bodyLocation(p *compiled.Policy, ct, typ, sub string) (rules.Location, bool, *Rejection) {
	// The most common values, which both readers take alike
	// (TestBodyLocationCommon).
	switch ct {
	case "application/json", "application/json; charset=utf-8", "application/json;charset=utf-8",
		"application/json; charset=UTF-8":
		return rules.JSON, true, nil
	case "application/x-www-form-urlencoded":
		return rules.Form, true, nil
	}
	loc, ok := mediaLocation(p, typ, sub)
	bloc, bok := binderLocation(ct)
	switch {
	case !bok || ok && loc == bloc:
		return loc, ok, nil
	case !ok || loc == rules.Body:
		return bloc, true, nil
	}
	return 0, false, finding.BadMediaType(rules.Body, ct)
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
