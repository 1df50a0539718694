// Package form checks application/x-www-form-urlencoded text, a query or a
// form body, pair by pair as url.ParseQuery and Request.ParseForm read it
// (CheckPairs, with Plain, the fast path of a plain query), scans its
// decoded keys and values for escapes (CheckFormEscapes), and brings it to
// its canonical form (CanonText). A Scratch is the working memory of one
// request.
package form

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// CheckPairs checks an application/x-www-form-urlencoded text, a query or a
// form body, key by key and value by value. Unlike url.ParseQuery, it skips
// nothing: a malformed escape anywhere is a rejection. When the check
// repairs ill-formed UTF-8, it returns the re-encoded text and true.
//
// A query longer than lim.QueryBytes is refused whole before anything in
// it is decoded (too_large, no field: 400, as a path over its limit); a
// form body is bounded by the body limit, which checkBody has applied.
//
// Keys are names: they are refused c.Names on top of c.Forbid. The fast
// path checks the whole text under both, so that the common text, with
// no character of c.Names anywhere, costs one pass; text with one goes
// the slow way, which tells keys from values.
func (s *Scratch) CheckPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *finding.Rejection) {
	if loc == rules.Query && compiled.OverLimit(len(raw), int64(lim.QueryBytes)) {
		return "", false, finding.TooLarge(loc, "", int64(lim.QueryBytes))
	}
	if s.cleanPairs(raw, c.Forbid|c.Names, mode, lim) {
		return "", false, nil
	}
	return s.checkEachPair(raw, loc, c, mode, lim)
}

// Scratch is the working memory of the checks of query and form
// pairs: the decoded key or value at hand.
type Scratch struct {
	Buf []byte
}

// pair is one key=value of an application/x-www-form-urlencoded text.
type pair struct {
	key, val string
	hasVal   bool // an '=' was there: "k=" has an empty value, "k" none
	at       int  // the offset of the key in the text
}

// eachPair yields the pairs of raw as url.ParseQuery cuts them: at every
// '&', empty ones skipped, each at its first '='.
func eachPair(raw string) func(yield func(pair) bool) {
	return func(yield func(pair) bool) {
		for at := 0; at < len(raw); {
			end := indexByteNear(raw[at:], '&')
			if end < 0 {
				end = len(raw)
			} else {
				end += at
			}
			if p := raw[at:end]; p != "" {
				key, val, hasVal := p, "", false
				if eq := indexByteNear(p, '='); eq >= 0 {
					key, val, hasVal = p[:eq], p[eq+1:], true
				}
				if !yield(pair{key, val, hasVal, at}) {
					return
				}
			}
			at = end + 1
		}
	}
}

// indexByteNear is strings.IndexByte for a byte that is usually near the
// start of s: the first shortField octets are looked at one by one, the
// rest by IndexByte, whose call costs more than a short field's loop (a
// query of a thousand short pairs made two calls per pair).
func indexByteNear(s string, c byte) int {
	n := min(len(s), shortField)
	for i := 0; i < n; i++ {
		if s[i] == c {
			return i
		}
	}
	if n == len(s) {
		return -1
	}
	if i := strings.IndexByte(s[n:], c); i >= 0 {
		return n + i
	}
	return -1
}

// checkEachPair is checkPairs without the fast path (the query limit
// included, so that the two answer alike).
func (s *Scratch) checkEachPair(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *finding.Rejection) {
	if loc == rules.Query && compiled.OverLimit(len(raw), int64(lim.QueryBytes)) {
		return "", false, finding.TooLarge(loc, "", int64(lim.QueryBytes))
	}
	n, repair := 0, false
	for pr := range eachPair(raw) {
		if n++; lim.Fields >= 0 && n > lim.Fields {
			return "", false, finding.TooMany(loc, lim.Fields)
		}
		key, val := pr.key, pr.val
		s.Buf = s.Buf[:0]
		kb, rj := s.field(key, loc, "", c.Forbid|c.Names, mode, lim)
		if rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && finding.IsEncodingReason(rj.Reason)) {
				// Cloned: key points into the body of a form, which a
				// Rejection kept by OnReject should not pin.
				rj.Field = strings.Clone(finding.SafeField(key))
				return "", false, rj
			}
			repair = true
		}
		name := key
		if kb != nil && rj == nil {
			name = octets.BytesString(kb) // s.buf is not reset before the value is checked
		}
		if _, rj := s.field(val, loc, name, c.Forbid, mode, lim); rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && finding.IsEncodingReason(rj.Reason)) {
				// Cloned: a decoded key points into s.buf, which the next
				// request reuses once this one has put its scratch back,
				// while the Rejection lives on in the log line, OnReject
				// and the error handler.
				rj.Field = strings.Clone(finding.SafeField(rj.Field))
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
func (s *Scratch) cleanPairs(raw string, forbid sanitize.Class, mode sanitize.EscapeMode, lim *rules.Limits) bool {
	if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes {
		return false
	}
	if lim.Fields >= 0 && strings.Count(raw, "&") >= lim.Fields {
		return false // perhaps more than lim.Fields non-empty pairs
	}
	if !needsDecoding(raw, mode) {
		if forbid&sanitize.BOM != 0 && strings.Contains(raw, octets.BOM) {
			return false
		}
		return sanitize.CheckString(raw, forbid&^sanitize.BOM) == nil
	}
	var err error
	s.Buf, err = sanitize.AppendUnescape(s.Buf[:0], raw, mode) // validates, too
	if err != nil {
		return false
	}
	if forbid&sanitize.BOM != 0 && bytes.Contains(s.Buf, []byte(octets.BOM)) {
		return false
	}
	return sanitize.CheckClasses(s.Buf, forbid&^sanitize.BOM) == nil
}

// field decodes and checks one key or value, in s.buf after what is there,
// refusing the classes in forbid. It returns the decoded value (aliasing
// s.buf, or raw itself when nothing was escaped).
func (s *Scratch) field(raw string, loc rules.Location, name string, forbid sanitize.Class, mode sanitize.EscapeMode, lim *rules.Limits) ([]byte, *finding.Rejection) {
	var err error
	var dec []byte
	if !needsDecoding(raw, mode) {
		if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes {
			return nil, finding.TooLarge(loc, name, int64(lim.FieldBytes))
		}
		if err = sanitize.CheckString(raw, forbid); err != nil {
			return nil, finding.Reject(err, loc, name, raw)
		}
		return nil, nil
	}
	start := len(s.Buf)
	s.Buf, err = sanitize.AppendUnescape(s.Buf, raw, mode)
	dec = s.Buf[start:]
	if err != nil {
		rj := finding.RejectEscaped(finding.FirstViolation(err, dec, forbid), loc, name, raw, dec)
		if rj.Reason == sanitize.BadEscape || rj.Reason == sanitize.DoubleEncoding {
			return nil, rj
		}
		// A UTF-8 error: dec is the whole decoded value. Its length is
		// checked first, as for a value without escapes, so that a Repair
		// check cannot let an over-long value through.
		if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
			return nil, finding.TooLarge(loc, name, int64(lim.FieldBytes))
		}
		return nil, rj
	}
	if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
		return nil, finding.TooLarge(loc, name, int64(lim.FieldBytes))
	}
	if err = sanitize.CheckClasses(dec, forbid); err != nil {
		return nil, finding.Reject(err, loc, name, dec)
	}
	return dec, nil
}

// needsDecoding reports whether s holds a '%', or a '+' in a query or
// form text (EscapeQuery).
func needsDecoding(s string, mode sanitize.EscapeMode) bool {
	query := mode&^sanitize.RefuseDoubleEncoding == sanitize.EscapeQuery
	if len(s) <= shortField {
		// A short key or value: one pass, octet by octet, costs less
		// than the calls of IndexByte (two per field, a thousand fields
		// in a query).
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '%' || c == '+' && query {
				return true
			}
		}
		return false
	}
	return strings.IndexByte(s, '%') >= 0 || query && strings.IndexByte(s, '+') >= 0
}

// shortField is the longest key or value that needsDecoding looks at
// octet by octet.
const shortField = 32

// rebuildPairs re-encodes raw with every ill-formed sequence of every key
// and value replaced by U+FFFD. raw has passed checkPairs but for encoding
// errors, so what fails here is a forbidden character that the repair
// exposed, or a value that U+FFFD made longer than the limit. Each key and
// value is decoded into pooled working memory (ToValid allocates the
// repaired ones); the text returned is memory of its own, which nothing
// else references: the caller may hand its octets on (checkBody does).
func rebuildPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *finding.Rejection) {
	pc := Canons.Get().(*Canon)
	defer pc.Release()
	out := make([]byte, 0, len(raw)+16)
	keyRepaired := false // a key was repaired: see repairedKeyCollision
	for pr := range eachPair(raw) {
		if len(out) > 0 {
			out = append(out, '&')
		}
		if sentPair(pr) {
			out = append(out, pr.text(raw)...)
			continue
		}
		key, val, hasVal := pr.key, pr.val, pr.hasVal
		for i, part := range [2]string{key, val} {
			if i == 1 {
				if !hasVal {
					break
				}
				out = append(out, '=')
			}
			pc.tmp, _ = sanitize.AppendUnescape(pc.tmp[:0], part, mode&^sanitize.RefuseDoubleEncoding)
			dec := sanitize.ToValid(pc.tmp)
			// ToValid returns its input itself when it repairs nothing.
			keyRepaired = keyRepaired || i == 0 && len(dec) > 0 && &dec[0] != &pc.tmp[0]
			if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
				return "", false, finding.TooLarge(loc, strings.Clone(finding.SafeField(key)), int64(lim.FieldBytes))
			}
			forbid := c.Forbid
			if i == 0 {
				forbid |= c.Names // a key is a name
			}
			if err := sanitize.CheckClasses(dec, forbid); err != nil {
				return "", false, finding.Reject(err, loc, strings.Clone(finding.SafeField(key)), dec)
			}
			out = sanitize.AppendEscape(out, octets.BytesString(dec), sanitize.EscapeQuery)
		}
	}
	if keyRepaired {
		if rj := repairedKeyCollision(raw, loc, mode); rj != nil {
			return "", false, rj
		}
	}
	// U+FFFD, escaped, is nine octets where the octet it replaces was
	// one or three: the repaired text is held to the limit the text as
	// sent was.
	if limit := compiled.TextLimit(loc, lim); compiled.OverLimit(len(out), limit) {
		return "", false, finding.TooLarge(loc, "", limit)
	}
	return octets.BytesString(out), true, nil
}

// repairedKeyCollision refuses two distinct keys of raw that repair to
// one ("a%FF" and "a%FE" both to "a\uFFFD"), as key_collision: after the
// repair one handler would read the first value and a binder the last,
// as canonText refuses two keys with one canonical form. It runs only when
// a key was repaired, which costs allocations anyway.
func repairedKeyCollision(raw string, loc rules.Location, mode sanitize.EscapeMode) *finding.Rejection {
	seen := make(map[string]string) // decoded key by its repaired form
	var dec []byte
	for pr := range eachPair(raw) {
		if sentPair(pr) {
			continue
		}
		dec, _ = sanitize.AppendUnescape(dec[:0], pr.key, mode&^sanitize.RefuseDoubleEncoding)
		fixed := sanitize.ToValid(dec)
		if first, ok := seen[string(fixed)]; !ok {
			seen[string(fixed)] = string(dec)
		} else if first != string(dec) {
			return &finding.Rejection{Reason: sanitize.KeyCollision, Location: loc, Field: strings.Clone(finding.SafeField(pr.key)),
				Sample: finding.Sample(fixed, 0), Err: sanitize.ErrKeyCollision}
		}
	}
	return nil
}

// CanonText canonicalizes a query or form text that has passed checkPairs:
// it returns the text re-encoded in canonical form (which Monitor mode
// only measures), or nil when nothing changes, or the rejection of a
// canonical key or value that fails the location's policy (the first, in
// the text's order), or of two distinct keys that have one canonical form
// (key_collision), or of a canonical text over the location's limit.
//
// Keys are normalized, values normalized or PRECIS-enforced when their
// key names a PRECIS field, and each canonical form is held to the
// location's policy (recheck). It goes over the text once, and normalizes
// each key and value once: the canonical text is written from the first
// pair that changes on (the pairs before it re-encoded as they are), and
// the canonical keys are kept for the collision check, which runs only
// when a key changes. Nothing allocates when nothing changes.
//
// The canonical text is written into pooled working memory, up to
// maxPooledPairBytes of it, and only counted past that; once the text is
// accepted, it goes into one slice of its exact length, and what did not
// fit is written there by a second pass over the pairs that did not
// (writePairs), which normalizes their changed values again (a PRECIS
// form is kept from the first pass, in pc.arena). So a rewrite allocates
// the canonical text once, at its length (and the working memory's
// growth, past what the pool keeps); PRECIS fields are enforced into the
// working memory (normalize.Enforcer), not one allocation group per
// value; a text longer than the working memory costs a second
// normalization of what did not fit. The
// returned slice is memory of its own, which nothing else references:
// the caller may hand it to the handler.
func (s *Scratch) CanonText(raw string, loc rules.Location, p *compiled.Policy) ([]byte, *finding.Rejection) {
	return s.canonTextIn(raw, loc, p, maxPooledPairBytes)
}

// canonTextIn is canonText with the most octets of the canonical text it
// writes into its working memory before it spills (tests make it small).
func (s *Scratch) canonTextIn(raw string, loc rules.Location, p *compiled.Policy, budget int) ([]byte, *finding.Rejection) {
	c, mode := p.PairsMode(loc)
	dec := mode &^ sanitize.RefuseDoubleEncoding
	pc := Canons.Get().(*Canon)
	defer pc.Release()
	pc.hint, pc.budget = len(raw)+len(raw)/8+16, budget
	changed := false // a key or a value changes: the canonical text is being written
	keys := false    // a key changes
	for pr := range eachPair(raw) {
		if sentPair(pr) {
			pc.keys = append(pc.keys, pairKey{raw: pr.at, rawEnd: pr.at + len(pr.key), sent: true})
			if changed {
				pc.emitSent(len(pc.keys)-1, pr.at, pr.text(raw))
			}
			continue
		}
		s.Buf = s.Buf[:0]
		k := s.decoded(pr.key, dec)
		key := pairKey{raw: pr.at, rawEnd: pr.at + len(pr.key)}
		nk, kch, rj := pc.canonKey(p, loc, k, len(raw)-pr.at)
		key.changed = kch
		if rj == nil && kch {
			rj = compiled.Recheck(loc, "", nk, c.Forbid|c.Names, p.Limits.FieldBytes, mode)
		}
		if rj != nil {
			// Cloned: the key points into the body of a form, which a
			// Rejection kept by OnReject should not pin.
			rj.Field = strings.Clone(finding.SafeField(pr.key))
			return nil, rj
		}
		if key.changed {
			keys = true
			key.hi = len(pc.arena)
			key.lo = key.hi - len(nk)
		}
		name := octets.BytesString(nk) // the canonical key names the field; it stays where it is
		v := s.decoded(pr.val, dec)
		nv, vch, enforced, rj := pc.canonValue(p, loc, name, v)
		if rj == nil && vch {
			// The field's name, made safe to log, only for a refusal:
			// most values pass.
			if rj = compiled.Recheck(loc, "", nv, c.Forbid, p.Limits.FieldBytes, mode); rj != nil {
				rj.Field = finding.SafeField(name)
			}
		}
		if rj != nil {
			// Cloned: name may point into s.buf or pc, which the next
			// request reuses, while the Rejection lives on in the log
			// line, OnReject and the error handler.
			rj.Field = strings.Clone(rj.Field)
			return nil, rj
		}
		key.valChanged = vch
		pc.keys = append(pc.keys, key)
		if !changed && (key.changed || vch) {
			// The first change: the pairs before it are written as
			// they decode, which is their canonical form.
			changed = true
			i := 0
			for before := range eachPair(raw[:pr.at]) {
				if sentPair(before) {
					pc.emitSent(i, before.at, before.text(raw))
					i++
					continue
				}
				pc.tmp = appendDecoded(pc.tmp[:0], before.key, dec)
				n := len(pc.tmp)
				pc.tmp = appendDecoded(pc.tmp, before.val, dec)
				pc.emit(i, before.at, pc.tmp[:n], pc.tmp[n:], before.hasVal)
				i++
			}
		}
		if changed {
			pc.emit(len(pc.keys)-1, pr.at, nk, nv, pr.hasVal)
			if pc.spilled && enforced {
				// Kept for writePairs, which need not enforce it
				// again: nv is in pc.norm, which the next value reuses.
				if cap(pc.arena)-len(pc.arena) < len(nv) {
					// Room at once for the forms of the rest of the
					// text, which its length bounds (decoding only
					// shortens it) unless a profile lengthens them:
					// one allocation, not one per doubling.
					pc.arena = slices.Grow(pc.arena, max(len(nv), len(raw)-pr.at))
				}
				lo := len(pc.arena)
				pc.arena = append(pc.arena, nv...)
				pc.keys[len(pc.keys)-1].val = pc.arena[lo:len(pc.arena):len(pc.arena)]
			}
		}
	}
	if keys {
		if rj := s.keyCollision(raw, loc, dec, pc); rj != nil {
			return nil, rj
		}
	}
	if !changed {
		return nil, nil
	}
	if limit := compiled.TextLimit(loc, &p.Limits); compiled.OverLimit(pc.size, limit) {
		return nil, finding.TooLarge(loc, "", limit) // NFKC writes U+FDFA as 18 octets, 54 escaped
	}
	out := append(make([]byte, 0, pc.size), pc.Out...)
	if pc.spilled {
		out = s.writePairs(out, raw[pc.spillAt:], pc.spillPair, loc, p, dec, pc)
	}
	return out, nil
}

// emitSent adds the i-th pair of the text, at offset at, as it was sent
// (text: sentPair), as emit adds one in canonical form.
func (pc *Canon) emitSent(i, at int, text string) {
	m := len(text)
	if pc.size > 0 {
		m++ // the '&' before it
	}
	if pc.reserve(i, at, m) {
		if len(pc.Out) > 0 {
			pc.Out = append(pc.Out, '&')
		}
		pc.Out = append(pc.Out, text...)
	}
}

// emit adds the i-th pair of the text, at offset at, in canonical form
// (key=val, or key alone without hasVal), to the canonical text: it is
// written to pc.out while the text fits in pc.budget octets (at most
// maxPooledPairBytes), and from the first pair that does not on only
// counted (pc.spilled).
func (pc *Canon) emit(i, at int, key, val []byte, hasVal bool) {
	if !pc.spilled && len(pc.Out)+3*(len(key)+len(val))+2 <= min(cap(pc.Out), pc.budget) {
		// It fits, however much of it is escaped (three octets for one,
		// and the '&' and '='): no need to count first.
		n := len(pc.Out)
		pc.Out = appendPair(pc.Out, key, val, hasVal)
		pc.size += len(pc.Out) - n
		return
	}
	m := queryEscapedLen(key)
	if hasVal {
		m += 1 + queryEscapedLen(val)
	}
	if pc.size > 0 {
		m++ // the '&' before it
	}
	if pc.reserve(i, at, m) {
		pc.Out = appendPair(pc.Out, key, val, hasVal)
	}
}

// reserve counts m more octets of the canonical text, those of its i-th
// pair, at offset at, and reports whether they are to be written to
// pc.out, which it has grown for them (at most to the budget, which they
// are within); from the first pair past the budget on, they are only
// counted (pc.spilled).
func (pc *Canon) reserve(i, at, m int) bool {
	write := false
	switch {
	case pc.spilled:
	case pc.size+m <= pc.budget:
		if need := len(pc.Out) + m; need > cap(pc.Out) {
			grown := make([]byte, len(pc.Out), min(max(need, 2*cap(pc.Out), pc.hint), pc.budget))
			copy(grown, pc.Out)
			pc.Out = grown
		}
		write = true
	default:
		pc.spilled, pc.spillPair, pc.spillAt = true, i, at
	}
	pc.size += m
	return write
}

// writePairs appends to out, the canonical text up to the pair at which
// canonText's working memory filled up, the pairs of rest (the text from
// that pair on, the i-th) in canonical form, as canonText found them (in
// pc.keys): a key that changes is in pc.arena, a value that changes is
// kept there when a PRECIS profile made it, and normalized again
// otherwise (as pc.canonValue did, without its IsNormal, which said no),
// and the others are written as they decode.
func (s *Scratch) writePairs(out []byte, rest string, i int, loc rules.Location, p *compiled.Policy, mode sanitize.EscapeMode, pc *Canon) []byte {
	for pr := range eachPair(rest) {
		k := &pc.keys[i]
		i++
		if k.sent {
			if len(out) > 0 {
				out = append(out, '&')
			}
			out = append(out, pr.text(rest)...)
			continue
		}
		s.Buf = s.Buf[:0]
		key := pc.arena[k.lo:k.hi]
		if !k.changed {
			key = s.decoded(pr.key, mode)
		}
		var val []byte
		switch {
		case k.val != nil:
			val = k.val
		case k.valChanged:
			// Changed, and not by a PRECIS profile (whose form is kept):
			// its normal form, as canonValue made it.
			pc.Norm = p.Norm.Append(pc.Norm[:0], s.decoded(pr.val, mode))
			val = pc.Norm
		default:
			val = s.decoded(pr.val, mode)
		}
		out = appendPair(out, key, val, pr.hasVal)
	}
	return out
}

// queryEscapedLen returns the length of b escaped for a query or form
// text, len(sanitize.AppendEscape(nil, string(b), sanitize.EscapeQuery)):
// an octet outside the unreserved set takes three octets, a space one
// ('+').
func queryEscapedLen(b []byte) int {
	n := len(b)
	for _, c := range b {
		if !queryKept[c] {
			n += 2
		}
	}
	return n
}

// queryKept are the octets sanitize.AppendEscape writes as one octet in a
// query: the unreserved set, and the space (as '+').
var queryKept = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~ ") {
		t[c] = true
	}
	return t
}()

// appendPair appends the pair key=val (key alone without hasVal) to the
// text dst, '&' first unless dst is empty, escaped for a query or form.
func appendPair(dst, key, val []byte, hasVal bool) []byte {
	if len(dst) > 0 {
		dst = append(dst, '&')
	}
	dst = sanitize.AppendEscape(dst, octets.BytesString(key), sanitize.EscapeQuery)
	if hasVal {
		dst = append(dst, '=')
		dst = sanitize.AppendEscape(dst, octets.BytesString(val), sanitize.EscapeQuery)
	}
	return dst
}

// Canon is canonText's working memory, pooled: nothing in it reaches
// a handler or outlives the request.
type Canon struct {
	// Norm holds the normal form of the value being looked at, tmp a
	// pair being re-encoded, and arena the normal forms of the keys that
	// change and, in keyCollision, the decoded forms of the others.
	Norm, tmp, arena []byte
	// Out is the canonical text, written from the first change on, up to
	// maxPooledPairBytes; size is its length, counted on past that,
	// from the spillPair-th pair, at spillAt in the text, on (spilled).
	Out                      []byte
	size, spillPair, spillAt int
	spilled                  bool
	hint, budget             int // the size to give out when it grows, and its most
	// keys are the text's keys, in order.
	keys []pairKey
	// seen maps a canonical key (in arena) to the index of the first key
	// with it, in keyCollision.
	seen map[string]int
	// enf enforces the PRECIS fields' values into norm.
	enf normalize.Enforcer
	// profs remembers the PRECIS profiles of the last two field names
	// looked up (precisProfile): a form repeats a few names, and folding
	// a name and looking it up in the policy's map cost as much as
	// enforcing a short value.
	profs    [2]profMemo
	profNext int
}

// profMemo is a field name, copied, and what policy.precisProfile
// answered for it at loc under p.
type profMemo struct {
	p    *compiled.Policy
	loc  rules.Location
	n    int // the name's length; 0: none yet
	name [32]byte
	prof normalize.Profile
	ok   bool
}

// precisProfile is p.precisProfile, remembered for the last two names of
// up to 32 octets.
func (pc *Canon) precisProfile(p *compiled.Policy, loc rules.Location, field string) (normalize.Profile, bool) {
	if !p.HasPrecis(loc) {
		return 0, false
	}
	if len(field) == 0 || len(field) > len(pc.profs[0].name) {
		return p.PrecisProfile(loc, field)
	}
	for i := range pc.profs {
		if m := &pc.profs[i]; m.p == p && m.loc == loc && m.n == len(field) && string(m.name[:m.n]) == field {
			return m.prof, m.ok
		}
	}
	prof, ok := p.PrecisProfile(loc, field)
	m := &pc.profs[pc.profNext]
	pc.profNext ^= 1
	m.p, m.loc, m.n, m.prof, m.ok = p, loc, copy(m.name[:], field), prof, ok
	return prof, ok
}

// pairKey is one key of the text: raw[raw:rawEnd] as sent, and its
// canonical form, arena[lo:hi], where it changes (keyCollision fills it
// in for the others).
type pairKey struct {
	raw, rawEnd, lo, hi int
	changed             bool
	valChanged          bool   // its value changes
	sent                bool   // a pair no parser reads, kept as sent (sentPair)
	val                 []byte // its value's canonical form, where canonText keeps it
}

// sentPair reports whether pr holds a raw ';', which url.ParseQuery (and
// so Request.ParseForm, c.QueryParam, Echo v5's query lookup) refuses in
// a pair and skips the pair for: a rewritten text keeps it as sent (its
// octets checked all the same), where re-encoding the ';' as %3B would
// make it a pair every parser reads. Its key takes no part in the
// collision check: no handler reads it beside another.
func sentPair(pr pair) bool {
	return strings.IndexByte(pr.key, ';') >= 0 || strings.IndexByte(pr.val, ';') >= 0
}

// text returns pr as it stands in the text it was cut from, raw.
func (pr pair) text(raw string) string {
	end := pr.at + len(pr.key)
	if pr.hasVal {
		end += 1 + len(pr.val)
	}
	return raw[pr.at:end]
}

var Canons = sync.Pool{New: func() any { return new(Canon) }}

// Past these sizes a pairCanon's memory is not kept for the next request.
const (
	maxPooledPairBytes = 64 << 10
	maxPooledPairKeys  = 1 << 10
)

// Release empties pc and puts it back in the pool.
func (pc *Canon) Release() {
	if cap(pc.Norm) > maxPooledPairBytes {
		pc.Norm = nil
	}
	if cap(pc.tmp) > maxPooledPairBytes {
		pc.tmp = nil
	}
	if cap(pc.arena) > maxPooledPairBytes {
		pc.arena = nil
	}
	if cap(pc.Out) > maxPooledPairBytes {
		pc.Out = nil
	}
	if cap(pc.keys) > maxPooledPairKeys {
		pc.keys = nil
	}
	clear(pc.keys) // the values kept: nothing of a request outlives it here
	if len(pc.seen) > maxPooledPairKeys {
		pc.seen = nil
	}
	pc.Norm, pc.tmp, pc.arena, pc.keys, pc.Out = pc.Norm[:0], pc.tmp[:0], pc.arena[:0], pc.keys[:0], pc.Out[:0]
	pc.size, pc.spillPair, pc.spillAt, pc.spilled = 0, 0, 0, false
	clear(pc.seen)
	pc.enf.Reset()
	pc.profs, pc.profNext = [2]profMemo{}, 0 // a policy is compared by address: none kept
	Canons.Put(pc)
}

// canonKey returns the canonical form of the decoded key k (p.canonOf,
// without PRECIS, which applies to values), and whether it differs from
// k: a normal form is appended to pc.arena. rest is the length of the
// text from k on.
func (pc *Canon) canonKey(p *compiled.Policy, loc rules.Location, k []byte, rest int) ([]byte, bool, *finding.Rejection) {
	if p.Norm == normalize.None || p.RejectUnnormalized {
		return compiled.CanonOf(p, loc, "", k, false) // k itself, or a refusal
	}
	if need := len(k) + len(k)>>4 + 80; cap(pc.arena)-len(pc.arena) < need && !octets.IsASCII(k) {
		// The room Append asks for, and at once for the keys of the
		// rest of the text, which its length bounds unless their normal
		// forms are longer: one allocation, where growing by what each
		// key needs made a dozen or more.
		pc.arena = slices.Grow(pc.arena, max(need, rest))
	}
	lo := len(pc.arena)
	var changed bool
	if pc.arena, changed = appendNormal(p.Norm, pc.arena, k); !changed {
		return k, false, nil
	}
	return pc.arena[lo:len(pc.arena):len(pc.arena)], true, nil
}

// canonValue returns the canonical form of the decoded value v of the
// field named field (its canonical key) at loc (p.canonOf), and whether
// it differs from v: a normal form or a PRECIS profile's enforced form is
// made in pc.norm, which the next value reuses. enforced reports a
// changed form that a PRECIS profile made (writePairs would have to
// enforce it again).
func (pc *Canon) canonValue(p *compiled.Policy, loc rules.Location, field string, v []byte) (nv []byte, changed, enforced bool, rj *finding.Rejection) {
	if prof, ok := pc.precisProfile(p, loc, field); ok {
		out, err := pc.enf.Append(pc.Norm[:0], prof, v)
		if err != nil {
			return nil, false, false, finding.Reject(err, loc, finding.SafeField(field), v)
		}
		pc.Norm = out
		if bytes.Equal(out, v) {
			return v, false, false, nil
		}
		return out, true, true, nil
	}
	if p.Norm == normalize.None || p.RejectUnnormalized {
		nv, _, rj = compiled.CanonOf(p, loc, field, v, false) // v itself, or a refusal
		return nv, false, false, rj
	}
	if pc.Norm, changed = appendNormal(p.Norm, pc.Norm[:0], v); !changed {
		return v, false, false, nil
	}
	return pc.Norm, true, false, nil
}

// onePassBytes is the longest text that appendNormal normalizes at once
// and compares with its normal form, rather than ask IsNormal first: for
// short text the fixed cost of a call of the scanner outweighs the copy,
// and a query of a thousand short NFD values paid it twice per value
// (26-39 times a benign query of 16 KiB). Longer text, which
// is usually normal, is not copied.
const onePassBytes = 256

// appendNormal appends to dst the normal form of b in f, a Form other than
// None, when that differs from b, and reports whether it does; otherwise
// it returns dst as it was. It is f.IsNormal(b), and f.Append(dst, b)
// when that is false: text that is not well-formed is not normal, even
// where its normal form has the same octets.
func appendNormal(f normalize.Form, dst, b []byte) ([]byte, bool) {
	if octets.IsASCII(b) {
		// ASCII is normal in every form: a key or a short value, most
		// often, checked without a call of the scanner.
		return dst, false
	}
	if len(b) > onePassBytes {
		if f.IsNormal(b) {
			return dst, false
		}
		return f.Append(dst, b), true
	}
	lo := len(dst)
	dst = f.Append(dst, b)
	if bytes.Equal(dst[lo:], b) && utf8.Valid(b) {
		return dst[:lo], false
	}
	return dst, true
}

// keyCollision reports two distinct keys of a query or form text whose
// canonical forms are equal ("%C3%A9" and "e%CC%81" under NFC, "ｑ" and
// "q" under NFKC): after the rewrite the handler would see one key with
// both values, and c.QueryParam takes the first while a binder takes the
// last. It runs only when some key changes (canonText), since keys that
// are all canonical already collide only where they are equal. pc.keys
// are the text's keys, with the canonical forms of those that change in
// pc.arena; those of the others are their decoded forms, added to the
// arena here. The rejection is at the first key, in the text's order,
// whose canonical form an earlier, different key has.
func (s *Scratch) keyCollision(raw string, loc rules.Location, mode sanitize.EscapeMode, pc *Canon) *finding.Rejection {
	for i := range pc.keys {
		if k := &pc.keys[i]; !k.changed && !k.sent {
			k.lo = len(pc.arena)
			pc.arena = appendDecoded(pc.arena, raw[k.raw:k.rawEnd], mode)
			k.hi = len(pc.arena)
		}
	}
	if pc.seen == nil {
		pc.seen = make(map[string]int, len(pc.keys))
	}
	for i := range pc.keys {
		k := &pc.keys[i]
		if k.sent {
			continue
		}
		canon := octets.BytesString(pc.arena[k.lo:k.hi]) // the arena is complete: it stays where it is
		first, ok := pc.seen[canon]
		if !ok {
			pc.seen[canon] = i
			continue
		}
		f := &pc.keys[first]
		s.Buf = appendDecoded(s.Buf[:0], raw[f.raw:f.rawEnd], mode)
		at := len(s.Buf)
		s.Buf = appendDecoded(s.Buf, raw[k.raw:k.rawEnd], mode)
		if d := s.Buf[at:]; !bytes.Equal(s.Buf[:at], d) {
			return &finding.Rejection{Reason: sanitize.KeyCollision, Location: loc, Field: strings.Clone(finding.SafeField(raw[k.raw:k.rawEnd])),
				Sample: finding.Sample(d, 0), Err: sanitize.ErrKeyCollision}
		}
	}
	return nil
}

// appendDecoded appends raw, percent-decoded, to dst. raw has been
// checked.
func appendDecoded(dst []byte, raw string, mode sanitize.EscapeMode) []byte {
	if !needsDecoding(raw, mode) {
		return append(dst, raw...)
	}
	dst, _ = sanitize.AppendUnescape(dst, raw, mode)
	return dst
}

// decoded returns raw percent-decoded, in s.buf after what is there, or
// raw itself when there is nothing to decode. raw has been checked.
func (s *Scratch) decoded(raw string, mode sanitize.EscapeMode) []byte {
	if !needsDecoding(raw, mode) {
		return octets.StringBytes(raw)
	}
	start := len(s.Buf)
	s.Buf, _ = sanitize.AppendUnescape(s.Buf, raw, mode)
	return s.Buf[start:len(s.Buf):len(s.Buf)]
}

// CheckFormEscapes scans the keys and values of a form body one by one,
// percent-decoded as r.FormValue returns them, for what escape.Check
// finds: a browser sends a="\e[31m" as a=%22%5Ce%5B31m%22, whose octets
// hold no escape, and a field alone may hold a run the whole text does
// not (a="&b="\x85" is two runs whole, b's value one). Only a text with a
// backslash, or an escaped '\\', '&' or '<', can hold such a field; the
// rest costs one pass. The Rejection names the field, its offset counts
// in the decoded key or value.
func (s *Scratch) CheckFormEscapes(raw string, mode sanitize.EscapeMode, c *rules.Check) *finding.Rejection {
	if !formHidesEscapes(raw) {
		return nil
	}
	for pr := range eachPair(raw) {
		name := pr.key
		for i, field := range [2]string{pr.key, pr.val} {
			dec := octets.StringBytes(field) // read only, and not kept
			if needsDecoding(field, mode) {
				s.Buf, _ = sanitize.AppendUnescape(s.Buf[:0], field, mode) // checkPairs has checked it
				dec = s.Buf
				if i == 0 {
					name = string(dec)
				}
			}
			if rj := escape.Check(dec, rules.Form, c.Forbid, 0); rj != nil {
				rj.Field = strings.Clone(finding.SafeField(name))
				return rj
			}
		}
	}
	return nil
}

// formHidesEscapes reports whether a form text holds a backslash or a
// percent-escape of '\\', '&' or '<'.
func formHidesEscapes(raw string) bool {
	if strings.IndexByte(raw, '\\') >= 0 {
		return true
	}
	for i := strings.IndexByte(raw, '%'); i >= 0 && i+2 < len(raw); {
		switch raw[i+1] {
		case '2':
			if raw[i+2] == '6' {
				return true
			}
		case '3':
			if raw[i+2]|0x20 == 'c' {
				return true
			}
		case '5':
			if raw[i+2]|0x20 == 'c' {
				return true
			}
		}
		k := strings.IndexByte(raw[i+1:], '%')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}

// Plain reports whether a query passes checkPairs unchanged without
// decoding anything, as cleanPairs would find: printable ASCII without
// '%' or '+' (plainQuery) within the field and query length limits, with fewer '&'
// than the field count limit.
func Plain(raw string, lim *rules.Limits) bool {
	if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes || compiled.OverLimit(len(raw), int64(lim.QueryBytes)) {
		return false
	}
	if !octets.PlainQuery(raw) {
		return false
	}
	// Fewer '&' than octets: counted only when that is not few enough.
	return lim.Fields < 0 || len(raw) < lim.Fields || strings.Count(raw, "&") < lim.Fields
}
