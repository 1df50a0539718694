package jsonbody

// Reference implementations of the JSON checks that the tests hold
// the shipped code to (by comparing the two on the same inputs), kept in
// test files so that no user's binary links them.

import (
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonscan"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkJSONText checks the text of a JSON body: the octets are well-formed
// UTF-8, and no string or key, once its escapes are decoded, holds a lone
// surrogate (encoding/json would silently turn "\ud800" into U+FFFD), a
// character of a refused class ("\u0000" is NUL as much as a raw NUL is;
// c.Names on top of c.Forbid in a member name), or nests deeper than
// depth. The Rejection's Field is the RFC 6901 JSON
// pointer of the offending string and its Offset the offset in the body.
//
// checkJSONText is no JSON validator: syntax errors are left to the
// handler's decoder, and every string literal is checked whatever the
// structure around it.
//
// Under c.Repair, ill-formed UTF-8 is replaced with U+FFFD and a lone
// surrogate escape with "\uFFFD", in place: body is modified.
func checkJSONText(body []byte, c *rules.Check, depth int) ([]byte, *finding.Rejection) {
	if jsonClean(body, c.Forbid|c.Names, depth) {
		return body, nil
	}
	return scanJSON(body, c, depth)
}

// jsonClean reports whether body passes checkJSONText without the scanner: it
// is valid UTF-8, has no escapes (nothing to decode, nothing to repair), no
// character of the forbidden classes anywhere (so none in a string) and no
// more brackets than the depth limit (so no deeper nesting). Two SIMD
// passes over the body: jsonscan's for the backslashes and brackets, then
// the classes check. Otherwise the scanner decides: it alone knows
// where strings are, which a forbidden TAB between two members, or a
// bracket inside a string, needs.
func jsonClean(body []byte, forbid sanitize.Class, maxDepth int) bool {
	brackets, backslash, _ := jsonscan.Structure(body)
	return !backslash && jsonCleanAfter(body, forbid, maxDepth, brackets)
}

// normalBounded returns text in p.form, or false when that is longer than
// room octets. A text that could grow past room is normalized a stretch
// at a time, each ending before a character with a boundary before it in
// the form (a starter that combines with nothing before it, where
// normalizing the parts gives the whole's form), so that a text whose
// form is far over the limit costs what the limit allows, not what the
// form would hold: 300,000 U+FDFA are 900,000 octets and 9.9 MB in NFKC.
// (norm's LastBoundary will not do: it also counts the places where the
// stream-safe format breaks a run of more than 30 non-starters, and
// normalizing the parts apart breaks it elsewhere.)
func normalBounded(p *compiled.Policy, text []byte, room int64) ([]byte, bool) {
	out, ok := normalBoundedTo(p, nil, text, room)
	if !ok {
		return nil, false
	}
	return out, true
}
