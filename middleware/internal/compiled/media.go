package compiled

import "strings"

// MediaPattern is a media type such as "text/plain", or a pattern:
// "text/*" matches every subtype of text, "application/*+xml" every
// subtype of application with the suffix +xml (RFC 6838 section 4.2.8).
type MediaPattern struct{ typ, sub string }

// ParsePatterns parses a list of media types and patterns as a policy
// gives them (BodyTypes, BinaryTypes, MultipartTextTypes).
func ParsePatterns(list []string) []MediaPattern {
	var out []MediaPattern
	for _, m := range list {
		typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(m)), "/")
		out = append(out, MediaPattern{typ, sub})
	}
	return out
}

// MatchMedia reports whether typ/sub, in lower case, matches one of pats.
func MatchMedia(pats []MediaPattern, typ, sub string) bool {
	for _, p := range pats {
		if p.typ == typ && (p.sub == "*" || p.sub == sub ||
			strings.HasPrefix(p.sub, "*+") && strings.HasSuffix(sub, p.sub[1:])) {
			return true
		}
	}
	return false
}
