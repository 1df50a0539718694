package form

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestQueryEscapedLen: queryEscapedLen is the length AppendEscape writes
// in a query, for every octet and for texts of them.
func TestQueryEscapedLen(t *testing.T) {
	var all []byte
	for c := range 256 {
		b := []byte{byte(c)}
		if got, want := queryEscapedLen(b), len(sanitize.AppendEscape(nil, string(b), sanitize.EscapeQuery)); got != want {
			t.Errorf("%#x: %d, want %d", c, got, want)
		}
		all = append(all, b...)
	}
	rng := rand.New(rand.NewPCG(14, 2))
	for range 200 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = all[rng.IntN(len(all))]
		}
		if got, want := queryEscapedLen(b), len(sanitize.AppendEscape(nil, string(b), sanitize.EscapeQuery)); got != want {
			t.Fatalf("%q: %d, want %d", b, got, want)
		}
	}
}

// TestCanonTextReference holds canonText, which goes over a text once, to
// the implementation it replaced (refCanonText: a pass to find what
// changes, a pass per key for collisions, a pass to write), on texts made
// at random of keys and values that change, collide, grow, turn into
// syntax or into refused characters, under normalizing, rejecting, PRECIS
// and Monitor policies with tight limits: the same text, the same
// rejection (reason, offset, class, field, sample); with its working
// memory too small for the canonical text at any pair too (the second
// pass), in a slice of the text's exact length.
func TestCanonTextReference(t *testing.T) {
	t.Parallel()
	pieces := []string{
		"a", "q", "user", "USER", "nick", "e%CC%81", "%C3%A9", "E%CC%81", "%EF%BC%B1", "%EF%BD%91", "Q",
		"%EF%B7%BA", "+", "%2B", "%26", "%3D", "x%CD%BE", "%EF%BC%85", "41", "%E2%80%AE", "%EF%AC%81",
		"%C3%85", "%E2%84%AB", "%CC%81%CC%81", "Mike", "%EF%BC%AD", "%20",
	}
	pol := func(form normalize.Form, edit func(*rules.Policy)) *compiled.Policy {
		p := rules.Strict()
		p.Normalization = form
		p.Limits.FieldBytes, p.Limits.QueryBytes = 48, 160
		p.Precis = []rules.PrecisField{
			{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
			{Location: rules.Form, Field: "nick", Profile: normalize.Nickname},
		}
		if edit != nil {
			edit(&p)
		}
		return compiled.Compile(p)
	}
	policies := []*compiled.Policy{
		pol(normalize.NFC, nil), pol(normalize.NFKC, nil), pol(normalize.None, nil),
		pol(normalize.NFC, func(p *rules.Policy) { p.RejectUnnormalized = true }),
		pol(normalize.NFKC, func(p *rules.Policy) { *p = p.AsMonitor() }),
		pol(normalize.NFKC, func(p *rules.Policy) { p.Query.RefuseDoubleEncoding = true; p.Form.Forbid |= sanitize.DefaultIgnorable }),
	}
	rng := rand.New(rand.NewPCG(14, 1))
	s := new(Scratch)
	checked, reasons, rewritten := 0, map[sanitize.Reason]int{}, 0
	n := 6000
	if testing.Short() {
		n = 1000
	}
	for range n {
		var b strings.Builder
		for i := range 1 + rng.IntN(6) {
			if i > 0 {
				b.WriteString([]string{"&", "&", "&&"}[rng.IntN(3)])
			}
			for range 1 + rng.IntN(3) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			if rng.IntN(5) > 0 {
				b.WriteByte('=')
				for range rng.IntN(4) {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
			}
		}
		raw := b.String()
		for _, p := range policies {
			for _, loc := range []rules.Location{rules.Query, rules.Form} {
				c, mode := p.PairsMode(loc)
				if _, _, rj := s.CheckPairs(raw, loc, c, mode, &p.Limits); rj != nil {
					continue // canonText sees only what passed
				}
				checked++
				want, wantRj := refCanonText(s, raw, loc, p)
				// The budget of the working memory: the canonical text
				// written there whole, or spilled at any pair (0: the
				// second pass writes it all).
				for _, budget := range []int{maxPooledPairBytes, 0, 1 + rng.IntN(len(raw)+8)} {
					out, gotRj := s.canonTextIn(raw, loc, p, budget)
					if len(out) != cap(out) {
						t.Fatalf("%q at %v, budget %d: %d octets in a slice of %d", raw, loc, budget, len(out), cap(out))
					}
					got := string(out)
					if got != want || describe(gotRj) != describe(wantRj) || gotRj != nil && gotRj.Sample != wantRj.Sample {
						t.Fatalf("%q at %v, %+v, budget %d:\n got %q %s\nwant %q %s", raw, loc, p.Policy, budget, got, describe(gotRj), want, describe(wantRj))
					}
				}
				if wantRj != nil {
					reasons[wantRj.Reason]++
				} else if want != "" {
					rewritten++
				}
			}
		}
	}
	t.Logf("%d texts compared: %d rewritten, refused %v", checked, rewritten, reasons)
	for _, r := range []sanitize.Reason{sanitize.KeyCollision, sanitize.Precis, sanitize.TooLarge, sanitize.NotNormalized,
		sanitize.DoubleEncoding} {
		if reasons[r] == 0 {
			t.Errorf("no text refused as %v: the texts do not reach it", r)
		}
	}
}

// The implementation canonText replaced, as it was (with the limit on the
// canonical text).

func refCanonText(s *Scratch, raw string, loc rules.Location, p *compiled.Policy) (string, *finding.Rejection) {
	changed, keys, rj := refCanonPairs(s, raw, loc, p, nil)
	if rj != nil {
		return "", rj
	}
	if keys {
		if rj := refKeyCollision(s, raw, loc, p); rj != nil {
			return "", rj
		}
	}
	if !changed {
		return "", nil
	}
	out := make([]byte, 0, len(raw)+16)
	refCanonPairs(s, raw, loc, p, &out)
	if limit := compiled.TextLimit(loc, &p.Limits); compiled.OverLimit(len(out), limit) {
		return "", finding.TooLarge(loc, "", limit) // NFKC writes U+FDFA as 18 octets, 54 escaped
	}
	return string(out), nil
}

// canonPairs walks the keys and values of a query or form text, which has
// passed checkPairs, in canonical form: keys normalized, values normalized
// or PRECIS-enforced when their key names a PRECIS field, each canonical
// form held to the location's policy (recheck). It reports whether
// anything changes and whether a key does; with out, it appends the text
// re-encoded to *out. Nothing allocates when nothing changes.
func refCanonPairs(s *Scratch, raw string, loc rules.Location, p *compiled.Policy, out *[]byte) (changed, keys bool, rj *finding.Rejection) {
	c, mode := p.PairsMode(loc)
	dec := mode &^ sanitize.RefuseDoubleEncoding
	for pr := range eachPair(raw) {
		key, val, hasVal := pr.key, pr.val, pr.hasVal
		s.Buf = s.Buf[:0]
		k := s.decoded(key, dec)
		nk, kch, rj := compiled.CanonOf(p, loc, "", k, false)
		if rj == nil && kch {
			rj = compiled.Recheck(loc, "", nk, c.Forbid, p.Limits.FieldBytes, mode)
		}
		if rj != nil {
			// Cloned: key points into the body of a form, which a
			// Rejection kept by OnReject should not pin.
			rj.Field = strings.Clone(finding.SafeField(key))
			return false, false, rj
		}
		name := octets.BytesString(nk) // the canonical key names the field; s.Buf only grows
		v := s.decoded(val, dec)
		nv, vch, rj := compiled.CanonOf(p, loc, name, v, true)
		if rj == nil && vch {
			rj = compiled.Recheck(loc, finding.SafeField(name), nv, c.Forbid, p.Limits.FieldBytes, mode)
		}
		if rj != nil {
			// Cloned: name may point into s.Buf, which the next request
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
			*out = sanitize.AppendEscape(*out, octets.BytesString(nk), sanitize.EscapeQuery)
			if hasVal {
				*out = append(*out, '=')
				*out = sanitize.AppendEscape(*out, octets.BytesString(nv), sanitize.EscapeQuery)
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
func refKeyCollision(s *Scratch, raw string, loc rules.Location, p *compiled.Policy) *finding.Rejection {
	_, mode := p.PairsMode(loc)
	mode &^= sanitize.RefuseDoubleEncoding
	seen := make(map[string]string) // canonical key -> the decoded key
	for pr := range eachPair(raw) {
		key := pr.key
		s.Buf = s.Buf[:0]
		k := s.decoded(key, mode)
		nk, _, _ := compiled.CanonOf(p, loc, "", k, false) // passed canonPairs
		if first, ok := seen[string(nk)]; !ok {
			seen[string(nk)] = string(k)
		} else if first != string(k) {
			return &finding.Rejection{Reason: sanitize.KeyCollision, Location: loc, Field: strings.Clone(finding.SafeField(key)),
				Sample: finding.Sample(k, 0), Err: sanitize.ErrKeyCollision}
		}
	}
	return nil
}

// TestAppendNormal holds appendNormal to what it replaced, IsNormal and
// then Append: on text of every kind, short (one pass) and long (IsNormal
// first), ill-formed text included, which is never normal even where
// its normal form has the same octets.
func TestAppendNormal(t *testing.T) {
	long := strings.Repeat("x", onePassBytes)
	texts := []string{"", "k123", "e\u0301", "\u00e9", "\ufb01", "\uff21B", "\ufdfa", "q\u0301", "\u1100\u1161",
		"a\xffb", "\xc3", "\xed\xa0\x80", "e\u0301\xff", "\u0301", "x\u0302\u0323", "Zoë Ångström 你好"}
	for _, s := range texts {
		texts = append(texts, long+s, s+long)
	}
	for _, f := range []normalize.Form{normalize.NFC, normalize.NFKC} {
		for _, s := range texts {
			b := []byte(s)
			wantChanged := !f.IsNormal(b)
			want := "pre"
			if wantChanged {
				want += string(f.Append(nil, b))
			}
			got, changed := appendNormal(f, []byte("pre"), b)
			if changed != wantChanged || string(got) != want {
				t.Errorf("%v %+q: %+q %v, want %+q %v", f.Name(), s, got, changed, want, wantChanged)
			}
		}
	}
}

// TestCanonOfForm holds canonOf without PRECIS to what it was, IsNormal
// and then Bytes: v itself when normal (ill-formed text never is), else
// the normal form in memory of its own.
func TestCanonOfForm(t *testing.T) {
	for _, f := range []normalize.Form{normalize.NFC, normalize.NFKC} {
		p := compiled.Compile(canonPolicy(f))
		for _, s := range []string{"", "abc", "e\u0301", "\u00e9", "\ufb01", "\xff", "a\xffe\u0301", "\u0301", "\ufdfa"} {
			v := []byte(s)
			got, changed, rj := compiled.CanonOf(p, rules.Query, "q", v, false)
			if rj != nil {
				t.Fatalf("%v %+q: %v", f.Name(), s, rj)
			}
			wantChanged := !f.IsNormal(v)
			if changed != wantChanged || string(got) != string(f.Bytes(v)) {
				t.Errorf("%v %+q: %+q %v, want %+q %v", f.Name(), s, got, changed, f.Bytes(v), wantChanged)
			}
			if !changed && len(v) > 0 && &got[0] != &v[0] {
				t.Errorf("%v %+q: unchanged, but a copy", f.Name(), s)
			}
			if changed && len(got) > 0 && len(v) > 0 && &got[0] == &v[0] {
				t.Errorf("%v %+q: changed in place", f.Name(), s)
			}
		}
	}
}
