package middleware

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// canonJSON canonicalizes every string and key of a JSON body, escapes
// decoded first: "e\u0301" is normalized as much as a raw e+U+0301. A
// string at a JSON pointer the route names a PRECIS profile for gets the
// profile's enforced form, every other string and every key the route's
// normalization. A string that changes is written back as a JSON string
// with only the escapes JSON requires; every other octet of the body stays
// as it was. It returns nil when nothing changes.
//
// A canonical form must satisfy the policy the input did: a string or key
// whose canonical form holds a character of a class p.JSON refuses is
// refused (forbidden_char, at the string's offset in the body), and a
// body whose rewriting is over p.Limits.BodyBytes is refused as too_large
// (413), as a body sent that large would have been (NFKC writes U+FDFA as
// 33 octets). In Monitor mode nothing is rewritten, and what would be
// refused is flagged.
//
// Where a value sits among the PRECIS pointers is followed one step per
// key and per array element as the scanner goes (jsonScanner.pointers),
// so each string's profile is found in constant time; a JSON pointer is
// only built for a rejection. (Building it for every string cost the
// length of the pointer each time: a body of deeply nested long keys
// above many strings took time quadratic in its size.)
func (p *policy) canonJSON(body []byte) ([]byte, *Rejection) {
	sc := jsonScanner{p: body, maxDepth: -1}
	if p.precisLocs&(1<<rules.JSON) != 0 {
		sc.pointers = p.jsonPrecis
	}
	var out, buf, tok []byte
	last := 0
	size := int64(len(body)) // of the body once rewritten
	limit := p.Limits.BodyBytes
	sc.onString = func(i, end int, isKey bool) *Rejection {
		if end-1 <= i || body[end-1] != '"' {
			return nil // unterminated: the decoder's to report
		}
		raw := body[i+1 : end-1]
		text, escaped := raw, bytes.IndexByte(raw, '\\') >= 0
		if escaped {
			var ok bool
			if buf, ok = appendJSONUnquote(buf[:0], raw); !ok {
				return nil // not JSON: the decoder's to report
			}
			text = buf
		}
		var node *precisNode
		if !isKey {
			node = sc.valueNode()
		}
		// The most octets the string's canonical form may have: what the
		// limit leaves after the body before it, as rewritten, and the
		// quotes.
		room := int64(math.MaxInt64)
		if limit >= 0 {
			room = limit - (int64(i) + size - int64(len(body))) - 2
		}
		nt, changed, rj := p.jsonCanonical(text, node, room)
		if rj == nil && changed {
			if rj = p.checkCanonical(nt); rj != nil {
				escaped = true // the offset is not the body's
			}
		}
		if rj != nil {
			if rj.Reason == sanitize.TooLarge {
				return rj // the body's, as any body over its limit
			}
			return p.jsonCanonReject(&sc, rj, i, end, isKey, escaped, node)
		}
		if isKey {
			if f := sc.top(); f != nil && f.node.hasKeys() {
				// The member's place among the pointers: its name as
				// the handler reads it, folded as foldKey does.
				tok = appendFoldKey(tok[:0], nt)
				f.member = f.node.child(tok)
			}
		}
		if !changed {
			return nil
		}
		size += int64(jsonQuotedLen(nt) - (end - i))
		if p.Mode == rules.Monitor {
			return nil
		}
		out = append(out, body[last:i]...)
		out = appendJSONQuote(out, nt)
		last = end
		if limit >= 0 && int64(len(out)) > limit {
			// What follows can only add to it: refused now, before
			// the rest is rewritten.
			return tooLarge(rules.JSON, "")
		}
		return nil
	}
	if rj := sc.scan(); rj != nil {
		return nil, rj
	}
	if limit >= 0 && size > limit {
		return nil, tooLarge(rules.JSON, "")
	}
	if out == nil {
		return nil, nil
	}
	return append(out, body[last:]...), nil
}

// jsonCanonical returns the canonical form of one decoded string or key,
// and whether it differs from text: the enforced form of node's PRECIS
// profile when node has one, the route's normalization otherwise. Unlike
// canonValue it computes the form in Monitor mode too, for the checks of
// canonJSON; in RejectUnnormalized mode a text that is not normal is
// refused instead. A normal form longer than room octets is refused as
// too_large as soon as that is known (normalBounded).
func (p *policy) jsonCanonical(text []byte, node *precisNode, room int64) ([]byte, bool, *Rejection) {
	if node != nil && node.set {
		s := bytesString(text)
		out, err := normalize.Enforce(node.profile, s)
		if err != nil {
			return nil, false, reject(err, rules.JSON, "", text)
		}
		if out == s {
			return text, false, nil
		}
		return stringBytes(out), true, nil
	}
	switch {
	case p.form == normalize.None:
		return text, false, nil
	case p.RejectUnnormalized:
		if err := p.form.Check(text); err != nil {
			return nil, false, reject(err, rules.JSON, "", text)
		}
		return text, false, nil
	case p.form.IsNormal(text):
		return text, false, nil
	}
	nt, ok := p.normalBounded(text, room)
	if !ok {
		return nil, false, tooLarge(rules.JSON, "")
	}
	return nt, true, nil
}

// maxCanonGrowth bounds how many times longer than a text its NFC or NFKC
// form is: U+FDFA, 3 octets, is 33 in NFKC, the most of any character
// (TestJSONCanonGrowth).
const maxCanonGrowth = 11

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
func (p *policy) normalBounded(text []byte, room int64) ([]byte, bool) {
	if int64(len(text)) <= room/maxCanonGrowth {
		return p.form.Bytes(text), true
	}
	nf := norm.NFC
	if p.form == normalize.NFKC {
		nf = norm.NFKC
	}
	const stretch = 4 << 10
	var out []byte
	for len(text) > 0 {
		k := min(stretch, len(text))
		for k < len(text) && !(utf8.RuneStart(text[k]) && nf.Properties(text[k:]).BoundaryBefore()) {
			k++
		}
		out = p.form.Append(out, text[:k])
		text = text[k:]
		if int64(len(out)) > room {
			return nil, false
		}
	}
	return out, true
}

// checkCanonical checks the canonical form of a string or key against the
// classes p.JSON refuses, as its input was checked. (No character's NFC or
// NFKC form holds a class it does not, which TestJSONCanonicalClasses
// pins for this version of Unicode; the check keeps that a fact about the
// request rather than about the tables, and covers the PRECIS profiles.)
func (p *policy) checkCanonical(nt []byte) *Rejection {
	if p.JSON.Forbid == 0 {
		return nil
	}
	if err := sanitize.CheckClasses(nt, p.JSON.Forbid); err != nil {
		return reject(err, rules.JSON, "", nt)
	}
	return nil
}

// jsonCanonReject completes rj, the rejection of the string literal
// body[i:end]: its field is the JSON pointer of the string (of the member,
// for a key), in its canonical form for a PRECIS field as the policy names
// it; its offset is into the body, at the offending octet or, when the
// text was decoded or rewritten (escaped), at the string's first octet.
func (p *policy) jsonCanonReject(sc *jsonScanner, rj *Rejection, i, end int, isKey, escaped bool, node *precisNode) *Rejection {
	if isKey {
		// The pointer of the member whose key this is.
		sc.inKey, sc.keySpan = true, [2]int{i + 1, end - 1}
	}
	if node != nil && node.set {
		rj.Field = safeField(p.canonPointer(sc))
	}
	if rj.Field == "" || isKey {
		rj.Field = sc.pointer()
	}
	rj.Offset += i + 1 // into the body, as the other JSON offsets
	if escaped {
		rj.Offset = i + 1 // the offset within decoded text is not the body's
	}
	rj.Sample = sample(sc.p, rj.Offset)
	return rj
}

// canonPointer returns the RFC 6901 JSON pointer of the value sc is at, as
// the handler sees it: every key with its escapes decoded and in the
// route's normalization form, so that a key written "n\u0061me" or, under
// NFKC, "ｎａｍｅ" names the same field as "name". It costs the length of
// the pointer: for rejections only.
func (p *policy) canonPointer(sc *jsonScanner) string {
	var b strings.Builder
	var buf []byte
	for k := range sc.depth {
		f := sc.frame(k)
		b.WriteByte('/')
		switch {
		case f.object && f.hasKey:
			var ok bool
			raw := sc.p[f.key[0]:f.key[1]]
			tok := raw
			if bytes.IndexByte(raw, '\\') >= 0 {
				if buf, ok = appendJSONUnquote(buf[:0], raw); ok {
					tok = buf
				}
			}
			tok = p.form.Bytes(tok)
			for _, c := range tok {
				switch c {
				case '~':
					b.WriteString("~0")
				case '/':
					b.WriteString("~1")
				default:
					b.WriteByte(c)
				}
			}
		case !f.object:
			b.WriteString(strconv.Itoa(f.index))
		}
	}
	return b.String()
}

// precisNode is a place among the JSON pointers a route names PRECIS
// profiles for, a trie of their reference tokens: the tokens as the route
// names them, in its normalization form (the whole pointer normalized, as
// compileCanon does), RFC 6901 escapes decoded, folded by foldKey. A
// member whose name, in the normalization form and folded, is one of the
// node's keys is at the child of that key; an array element at index i is
// at the child of the token strconv.Itoa(i). A value is at a PRECIS field
// when its node is set. So a pointer matches the values it matched when
// it was compared whole with a pointer built for each value.
type precisNode struct {
	set     bool // a pointer ends here: the value gets profile
	profile normalize.Profile
	keys    []precisKeyEdge  // sorted by token
	elems   []precisElemEdge // the tokens that are array indexes, sorted
}

type precisKeyEdge struct {
	tok  string
	node *precisNode
}

type precisElemEdge struct {
	index int
	node  *precisNode
}

// jsonPointers returns the root of the trie of p's JSON PRECIS pointers,
// or nil if it names none; compileCanon builds it once per route. A
// pointer that is not one (not empty and not starting with '/', or with a
// '~' not followed by '0' or '1') names no value.
func (p *policy) jsonPointers() *precisNode {
	var root *precisNode
	for _, f := range p.Precis {
		if f.Location != rules.JSON {
			continue
		}
		ptr := p.form.String(f.Field)
		if ptr != "" && ptr[0] != '/' {
			continue
		}
		if root == nil {
			root = new(precisNode)
		}
		n := root
		if ptr != "" {
			for tok := range strings.SplitSeq(ptr[1:], "/") {
				t, ok := unescapePointerToken(tok)
				if !ok {
					n = nil
					break
				}
				n = n.add(foldKey(t))
			}
		}
		if n != nil {
			n.set, n.profile = true, f.Profile // the last one named wins, as in p.precis
		}
	}
	return root
}

// add returns the child of n at tok, made if there is none.
func (n *precisNode) add(tok string) *precisNode {
	k, found := slices.BinarySearchFunc(n.keys, tok, func(e precisKeyEdge, t string) int { return strings.Compare(e.tok, t) })
	if found {
		return n.keys[k].node
	}
	c := new(precisNode)
	n.keys = slices.Insert(n.keys, k, precisKeyEdge{tok, c})
	if i, ok := arrayIndex(tok); ok {
		k, _ := slices.BinarySearchFunc(n.elems, i, func(e precisElemEdge, i int) int { return e.index - i })
		n.elems = slices.Insert(n.elems, k, precisElemEdge{i, c})
	}
	return c
}

// hasKeys reports whether a member of an object at n can be at a node.
func (n *precisNode) hasKeys() bool { return n != nil && len(n.keys) > 0 }

// child returns the node of the member named tok (canonical and folded)
// of an object at n, or nil.
func (n *precisNode) child(tok []byte) *precisNode {
	if n == nil {
		return nil
	}
	k, found := slices.BinarySearchFunc(n.keys, tok, func(e precisKeyEdge, t []byte) int {
		return strings.Compare(e.tok, bytesString(t))
	})
	if !found {
		return nil
	}
	return n.keys[k].node
}

// element returns the node of the element at index i of an array at n, or
// nil.
func (n *precisNode) element(i int) *precisNode {
	if n == nil || len(n.elems) == 0 {
		return nil
	}
	k, found := slices.BinarySearchFunc(n.elems, i, func(e precisElemEdge, i int) int { return e.index - i })
	if !found {
		return nil
	}
	return n.elems[k].node
}

// arrayIndex reports whether tok is an array index as strconv.Itoa writes
// one (RFC 6901: "0", or digits without a leading zero), and which.
func arrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' || len(tok) > 18 {
		return 0, false
	}
	i := 0
	for j := 0; j < len(tok); j++ {
		c := tok[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, true
}

// unescapePointerToken decodes the RFC 6901 escapes of a reference token,
// "~0" to '~' and "~1" to '/'. It reports false for a '~' followed by
// anything else, which no pointer of a value holds.
func unescapePointerToken(tok string) (string, bool) {
	if strings.IndexByte(tok, '~') < 0 {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c != '~' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(tok) {
			return "", false
		}
		switch tok[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return b.String(), true
}
