package compiled

import (
	"slices"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// PrecisNode is a place among the JSON pointers a route names PRECIS
// profiles for, a trie of their reference tokens: the tokens as the route
// names them, in its normalization form (the whole pointer normalized, as
// compileCanon does), RFC 6901 escapes decoded, folded by FoldKey. A
// member whose name, in the normalization form and folded, is one of the
// node's keys is at the child of that key; an array element at index i is
// at the child of the token strconv.Itoa(i). A value is at a PRECIS field
// when its node is set. So a pointer matches the values it matched when
// it was compared whole with a pointer built for each value.
type PrecisNode struct {
	Set     bool // a pointer ends here: the value gets profile
	Profile normalize.Profile
	keys    []precisKeyEdge  // sorted by token
	elems   []precisElemEdge // the tokens that are array indexes, sorted
}

type precisKeyEdge struct {
	tok  string
	node *PrecisNode
}

type precisElemEdge struct {
	index int
	node  *PrecisNode
}

// jsonPointers returns the root of the trie of p's JSON PRECIS pointers,
// or nil if it names none; compileCanon builds it once per route. A
// pointer that is not one (not empty and not starting with '/', or with a
// '~' not followed by '0' or '1') names no value.
func (p *Policy) jsonPointers() *PrecisNode {
	var root *PrecisNode
	for _, f := range p.Precis {
		if f.Location != rules.JSON {
			continue
		}
		ptr := p.Norm.String(f.Field)
		if ptr != "" && ptr[0] != '/' {
			continue
		}
		if root == nil {
			root = new(PrecisNode)
		}
		n := root
		if ptr != "" {
			for tok := range strings.SplitSeq(ptr[1:], "/") {
				t, ok := unescapePointerToken(tok)
				if !ok {
					n = nil
					break
				}
				n = n.add(FoldKey(t))
			}
		}
		if n != nil {
			n.Set, n.Profile = true, f.Profile // the last one named wins, as in p.precis
		}
	}
	return root
}

// add returns the child of n at tok, made if there is none.
func (n *PrecisNode) add(tok string) *PrecisNode {
	k, found := slices.BinarySearchFunc(n.keys, tok, func(e precisKeyEdge, t string) int { return strings.Compare(e.tok, t) })
	if found {
		return n.keys[k].node
	}
	c := new(PrecisNode)
	n.keys = slices.Insert(n.keys, k, precisKeyEdge{tok, c})
	if i, ok := arrayIndex(tok); ok {
		k, _ := slices.BinarySearchFunc(n.elems, i, func(e precisElemEdge, i int) int { return e.index - i })
		n.elems = slices.Insert(n.elems, k, precisElemEdge{i, c})
	}
	return c
}

// HasKeys reports whether a member of an object at n can be at a node.
func (n *PrecisNode) HasKeys() bool { return n != nil && len(n.keys) > 0 }

// Child returns the node of the member named tok (canonical and folded)
// of an object at n, or nil.
func (n *PrecisNode) Child(tok []byte) *PrecisNode {
	if n == nil {
		return nil
	}
	k, found := slices.BinarySearchFunc(n.keys, tok, func(e precisKeyEdge, t []byte) int {
		return strings.Compare(e.tok, octets.BytesString(t))
	})
	if !found {
		return nil
	}
	return n.keys[k].node
}

// Element returns the node of the Element at index i of an array at n, or
// nil.
func (n *PrecisNode) Element(i int) *PrecisNode {
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
