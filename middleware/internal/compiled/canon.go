package compiled

import (
	"bytes"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
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

// CanonValue brings one decoded, validated value to its canonical form. A
// field with a PRECIS profile (precis true and the field, by its canonical
// name, named in the policy) gets the profile's enforced form; any other
// value the route's normalization. It returns v itself and false when
// nothing changes, and in Monitor mode, which rewrites nothing (canonOf
// gives the canonical form whatever the mode). The Field of a Rejection is
// finding.SafeField(field), which may alias field.
func CanonValue(c *Policy, loc rules.Location, field string, v []byte, precis bool) ([]byte, bool, *finding.Rejection) {
	out, changed, rj := CanonOf(c, loc, field, v, precis)
	if c.Mode == rules.Monitor {
		return v, false, rj
	}
	return out, changed, rj
}

// CanonOf is canonValue in every mode: in Monitor mode too it returns the
// canonical form, for the checks that hold it to the policy, so that
// Monitor flags what Enforce would refuse.
func CanonOf(c *Policy, loc rules.Location, field string, v []byte, precis bool) ([]byte, bool, *finding.Rejection) {
	if precis {
		if prof, ok := c.PrecisProfile(loc, field); ok {
			// One allocation, the enforced form, where Enforce's
			// string in and out and x/text's buffers made several.
			out, err := normalize.AppendEnforce(nil, prof, v)
			if err != nil {
				return nil, false, finding.Reject(err, loc, finding.SafeField(field), v)
			}
			if bytes.Equal(out, v) {
				return v, false, nil
			}
			return out, true, nil
		}
	}
	if c.Norm == normalize.None {
		return v, false, nil
	}
	if c.RejectUnnormalized {
		if err := c.Norm.Check(v); err != nil {
			return nil, false, finding.Reject(err, loc, finding.SafeField(field), v)
		}
		return v, false, nil
	}
	// Bytes returns v itself when it is normal (IsNormal): one scan,
	// where asking IsNormal first scanned a text that changes twice.
	out := c.Norm.Bytes(v)
	if len(out) == len(v) && (len(v) == 0 || &out[0] == &v[0]) {
		return v, false, nil
	}
	return out, true, nil
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

// AddsSyntaxOf is addsSyntax for the octets of syntax.
func AddsSyntaxOf(syntax string, before, after []byte) bool {
	for i := 0; i < len(syntax); i++ {
		if sep := []byte{syntax[i]}; bytes.Count(after, sep) > bytes.Count(before, sep) {
			return true
		}
	}
	return DotSegments(after) > DotSegments(before)
}

// Recheck holds the canonical form after of a value to the checks of c at
// loc that its input passed: the character classes (forbid, which the
// caller gives with or without BOM as the value's place wants), the length
// limit (negative: none), and, where mode refuses double encoding, no
// escape in the decoded value.
func Recheck(loc rules.Location, field string, after []byte, forbid sanitize.Class, limit int, mode sanitize.EscapeMode) *finding.Rejection {
	if limit >= 0 && len(after) > limit {
		return finding.TooLarge(loc, field, int64(limit))
	}
	if forbid&sanitize.BOM != 0 && bytes.HasPrefix(after, []byte(octets.BOM)) {
		return finding.Reject(&sanitize.Error{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM}, loc, field, after)
	}
	if err := sanitize.CheckClasses(after, forbid&^sanitize.BOM); err != nil {
		return finding.Reject(err, loc, field, after)
	}
	if mode&sanitize.RefuseDoubleEncoding != 0 {
		for i := bytes.IndexByte(after, '%'); i >= 0 && i+2 < len(after); {
			if octets.IsHex(after[i+1]) && octets.IsHex(after[i+2]) {
				return finding.Reject(&sanitize.Error{Reason: sanitize.DoubleEncoding, Offset: i}, loc, field, after)
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

// DotSegments counts the pieces of s between slashes that are "." or "..".
func DotSegments(s []byte) int {
	n := 0
	for seg := range bytes.SplitSeq(s, []byte("/")) {
		if string(seg) == "." || string(seg) == ".." {
			n++
		}
	}
	return n
}

// TextLimit returns the limit on the whole text of a query or form body at
// loc: lim.QueryBytes for the query, lim.BodyBytes for a form body (the
// body as read is within it; its repaired or canonical form must be too).
// Negative: none.
func TextLimit(loc rules.Location, lim *rules.Limits) int64 {
	if loc == rules.Query {
		return int64(lim.QueryBytes)
	}
	return lim.BodyBytes
}

// OverLimit reports whether n octets are over limit (negative: no limit).
func OverLimit(n int, limit int64) bool { return limit >= 0 && int64(n) > limit }
