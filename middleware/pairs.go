package middleware

import (
	"bytes"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkPairs checks an application/x-www-form-urlencoded text, a query or a
// form body, key by key and value by value. Unlike url.ParseQuery, it skips
// nothing: a malformed escape anywhere is a rejection. When the check
// repairs ill-formed UTF-8, it returns the re-encoded text and true.
//
// A query longer than lim.QueryBytes is refused whole before anything in
// it is decoded (too_large, no field: 400, as a path over its limit); a
// form body is bounded by the body limit, which checkBody has applied.
func (s *scratch) checkPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *Rejection) {
	if loc == rules.Query && overLimit(len(raw), int64(lim.QueryBytes)) {
		return "", false, tooLarge(loc, "")
	}
	if s.cleanPairs(raw, c.Forbid, mode, lim) {
		return "", false, nil
	}
	return s.checkEachPair(raw, loc, c, mode, lim)
}

// textLimit returns the limit on the whole text of a query or form body at
// loc: lim.QueryBytes for the query, lim.BodyBytes for a form body (the
// body as read is within it; its repaired or canonical form must be too).
// Negative: none.
func textLimit(loc rules.Location, lim *rules.Limits) int64 {
	if loc == rules.Query {
		return int64(lim.QueryBytes)
	}
	return lim.BodyBytes
}

// overLimit reports whether n octets are over limit (negative: no limit).
func overLimit(n int, limit int64) bool { return limit >= 0 && int64(n) > limit }

// pair is one key=value of an application/x-www-form-urlencoded text.
type pair struct {
	key, val string
	hasVal   bool // an '=' was there: "k=" has an empty value, "k" none
}

// eachPair yields the pairs of raw as url.ParseQuery cuts them: at every
// '&', empty ones skipped, each at its first '='.
func eachPair(raw string) func(yield func(pair) bool) {
	return func(yield func(pair) bool) {
		for rest := raw; rest != ""; {
			var p string
			p, rest, _ = strings.Cut(rest, "&")
			if p == "" {
				continue
			}
			key, val, hasVal := strings.Cut(p, "=")
			if !yield(pair{key, val, hasVal}) {
				return
			}
		}
	}
}

// checkEachPair is checkPairs without the fast path (the query limit
// included, so that the two answer alike).
func (s *scratch) checkEachPair(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *Rejection) {
	if loc == rules.Query && overLimit(len(raw), int64(lim.QueryBytes)) {
		return "", false, tooLarge(loc, "")
	}
	n, repair := 0, false
	for pr := range eachPair(raw) {
		if n++; lim.Fields >= 0 && n > lim.Fields {
			return "", false, tooMany(loc)
		}
		key, val := pr.key, pr.val
		s.buf = s.buf[:0]
		kb, rj := s.field(key, loc, "", c, mode, lim)
		if rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && isEncodingReason(rj.Reason)) {
				// Cloned: key points into the body of a form, which a
				// Rejection kept by OnReject should not pin.
				rj.Field = strings.Clone(safeField(key))
				return "", false, rj
			}
			repair = true
		}
		name := key
		if kb != nil && rj == nil {
			name = bytesString(kb) // s.buf is not reset before the value is checked
		}
		if _, rj := s.field(val, loc, name, c, mode, lim); rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && isEncodingReason(rj.Reason)) {
				// Cloned: a decoded key points into s.buf, which the next
				// request reuses once this one has put its scratch back,
				// while the Rejection lives on in the log line, OnReject
				// and the error handler.
				rj.Field = strings.Clone(safeField(rj.Field))
				return "", false, rj
			}
			repair = true
		}
	}
	if !repair {
		return "", false, nil
	}
	return rebuildPairs(raw, loc, c, mode, lim)
}

// cleanPairs is the fast path of checkPairs: it reports whether raw passes
// every check of the slow path, when it can tell in one pass over the
// whole text, and false when the slow path must decide. The separators '&'
// and '=' are ASCII characters of no class, and decoding leaves them as
// they are, so the whole text, decoded at once, is the decoded keys and
// values with separators between them; checking it as a whole checks every
// key and value (a UTF-8 sequence cannot straddle an ASCII octet, and a
// percent-escape is three octets of one field). A decoded field is never
// longer than raw. BOM counts only at the start of a value, so text holding
// one goes the slow way; so does raw that could hold a field or a count
// over its limit, and any error, which the slow path places in its field.
func (s *scratch) cleanPairs(raw string, forbid sanitize.Class, mode sanitize.EscapeMode, lim *rules.Limits) bool {
	if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes {
		return false
	}
	if lim.Fields >= 0 && strings.Count(raw, "&") >= lim.Fields {
		return false // perhaps more than lim.Fields non-empty pairs
	}
	if !needsDecoding(raw, mode) {
		if forbid&sanitize.BOM != 0 && strings.Contains(raw, bom) {
			return false
		}
		return sanitize.CheckString(raw, forbid&^sanitize.BOM) == nil
	}
	var err error
	s.buf, err = sanitize.AppendUnescape(s.buf[:0], raw, mode) // validates, too
	if err != nil {
		return false
	}
	if forbid&sanitize.BOM != 0 && bytes.Contains(s.buf, []byte(bom)) {
		return false
	}
	return sanitize.CheckClasses(s.buf, forbid&^sanitize.BOM) == nil
}

// field decodes and checks one key or value, in s.buf after what is there.
// It returns the decoded value (aliasing s.buf, or raw itself when nothing
// was escaped).
func (s *scratch) field(raw string, loc rules.Location, name string, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) ([]byte, *Rejection) {
	var err error
	var dec []byte
	if !needsDecoding(raw, mode) {
		if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes {
			return nil, tooLarge(loc, name)
		}
		if err = sanitize.CheckString(raw, c.Forbid); err != nil {
			return nil, reject(err, loc, name, raw)
		}
		return nil, nil
	}
	start := len(s.buf)
	s.buf, err = sanitize.AppendUnescape(s.buf, raw, mode)
	dec = s.buf[start:]
	if err != nil {
		rj := reject(firstViolation(err, dec, c.Forbid), loc, name, dec)
		if rj.Reason == sanitize.BadEscape || rj.Reason == sanitize.DoubleEncoding {
			rj.Sample = sample(raw, rj.Offset)
			return nil, rj
		}
		// A UTF-8 error: dec is the whole decoded value. Its length is
		// checked first, as for a value without escapes, so that a Repair
		// check cannot let an over-long value through.
		if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
			return nil, tooLarge(loc, name)
		}
		return nil, rj
	}
	if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
		return nil, tooLarge(loc, name)
	}
	if err = sanitize.CheckClasses(dec, c.Forbid); err != nil {
		return nil, reject(err, loc, name, dec)
	}
	return dec, nil
}

// needsDecoding reports whether s holds a '%', or a '+' in a query or
// form text (EscapeQuery).
func needsDecoding(s string, mode sanitize.EscapeMode) bool {
	return strings.IndexByte(s, '%') >= 0 ||
		mode&^sanitize.RefuseDoubleEncoding == sanitize.EscapeQuery && strings.IndexByte(s, '+') >= 0
}

// rebuildPairs re-encodes raw with every ill-formed sequence of every key
// and value replaced by U+FFFD. raw has passed checkPairs but for encoding
// errors, so what fails here is a forbidden character that the repair
// exposed, or a value that U+FFFD made longer than the limit.
func rebuildPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *Rejection) {
	out := make([]byte, 0, len(raw)+16)
	for pr := range eachPair(raw) {
		if len(out) > 0 {
			out = append(out, '&')
		}
		key, val, hasVal := pr.key, pr.val, pr.hasVal
		for i, part := range [2]string{key, val} {
			if i == 1 {
				if !hasVal {
					break
				}
				out = append(out, '=')
			}
			dec, _ := sanitize.AppendUnescape(nil, part, mode&^sanitize.RefuseDoubleEncoding)
			dec = sanitize.ToValid(dec)
			if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
				return "", false, tooLarge(loc, strings.Clone(safeField(key)))
			}
			if err := sanitize.CheckClasses(dec, c.Forbid); err != nil {
				return "", false, reject(err, loc, strings.Clone(safeField(key)), dec)
			}
			out = sanitize.AppendEscape(out, bytesString(dec), sanitize.EscapeQuery)
		}
	}
	// U+FFFD, escaped, is nine octets where the octet it replaces was
	// one or three: the repaired text is held to the limit the text as
	// sent was.
	if overLimit(len(out), textLimit(loc, lim)) {
		return "", false, tooLarge(loc, "")
	}
	return string(out), true, nil
}

// pairsMode returns the check of a query or form text and the escape mode
// its keys and values are decoded with.
func (p *policy) pairsMode(loc rules.Location) (*rules.Check, sanitize.EscapeMode) {
	if loc == rules.Form {
		return &p.Form, p.formMode
	}
	return &p.Query, p.queryMode
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
	if overLimit(len(out), textLimit(loc, &p.Limits)) {
		return "", tooLarge(loc, "") // NFKC writes U+FDFA as 18 octets, 54 escaped
	}
	return string(out), nil
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
