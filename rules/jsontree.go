package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
)

// This file reads a policy file into a small tree of JSON values that keeps
// the members of each object in file order with their offsets, so that the
// loader can report the first mistake in the file with its key path and
// position. encoding/json cannot do this by decoding into structs: it takes
// the last of duplicate keys silently, matches keys regardless of case
// ("PRESET" sets Preset), and names no path in its unknown-field errors.

// maxDepth bounds the nesting of a policy file. The format nests four deep
// (routes, a route, a location, a class list); anything much deeper is a
// mistake, and the bound keeps the recursion small.
const maxDepth = 16

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

func (k jsonKind) String() string { return jsonKindNames[k] }

// jsonValue is one value of the file.
type jsonValue struct {
	kind    jsonKind
	off     int          // offset of the value's first octet
	str     string       // a string, or the literal of a number
	b       bool         // a boolean
	members []jsonMember // an object's members, in file order
	elems   []*jsonValue // an array's elements
}

type jsonMember struct {
	key string
	off int // offset of the key's opening quote
	val *jsonValue
}

// treeReader reads data into jsonValues.
type treeReader struct {
	ld  *loader
	dec *json.Decoder
}

// readTree reads the one JSON value of ld.data, refusing a duplicate key in
// any object and anything but white space after the value.
func readTree(ld *loader) (*jsonValue, error) {
	dec := json.NewDecoder(bytes.NewReader(ld.data))
	dec.UseNumber()
	r := &treeReader{ld: ld, dec: dec}
	tok, off, err := r.next()
	if err == io.EOF {
		return nil, ld.errAt(0, "", "empty file: want a JSON object")
	}
	if err != nil {
		return nil, r.syntaxError(err)
	}
	v, err := r.value(tok, off, "", 1)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, _, err := r.next(); err != io.EOF {
		return nil, ld.errAt(skipSpace(ld.data, end), "", "unexpected data after the top-level object")
	}
	return v, nil
}

// next returns the next token and the offset of its first octet.
func (r *treeReader) next() (json.Token, int, error) {
	off := skipSpace(r.ld.data, int(r.dec.InputOffset()))
	tok, err := r.dec.Token()
	return tok, off, err
}

// value reads the value that starts with tok, at off, whose key path is
// path.
func (r *treeReader) value(tok json.Token, off int, path string, depth int) (*jsonValue, error) {
	if depth > maxDepth {
		return nil, r.ld.errAt(off, path, "nested too deeply")
	}
	switch t := tok.(type) {
	case nil:
		return &jsonValue{kind: jsonNull, off: off}, nil
	case bool:
		return &jsonValue{kind: jsonBool, off: off, b: t}, nil
	case json.Number:
		return &jsonValue{kind: jsonNumber, off: off, str: string(t)}, nil
	case string:
		return &jsonValue{kind: jsonString, off: off, str: t}, nil
	case json.Delim:
		switch t {
		case '{':
			return r.object(off, path, depth)
		case '[':
			return r.array(off, path, depth)
		}
	}
	// encoding/json returns an error rather than a stray '}' or ']'.
	return nil, r.ld.errAt(off, path, "unexpected token")
}

func (r *treeReader) object(off int, path string, depth int) (*jsonValue, error) {
	v := &jsonValue{kind: jsonObject, off: off}
	seen := make(map[string]int)
	for {
		tok, koff, err := r.next()
		if err != nil {
			return nil, r.syntaxError(err)
		}
		if tok == json.Delim('}') {
			return v, nil
		}
		key, ok := tok.(string)
		if !ok { // encoding/json returns a SyntaxError first
			return nil, r.ld.errAt(koff, path, "want a key")
		}
		kpath := keyPath(path, key)
		if first, dup := seen[key]; dup {
			line, col := r.ld.position(first)
			what := "key"
			if path == "routes" {
				what = "route"
			}
			return nil, r.ld.errAt(koff, kpath, what+" given twice (first at line "+strconv.Itoa(line)+", column "+strconv.Itoa(col)+")")
		}
		seen[key] = koff
		tok, voff, err := r.next()
		if err != nil {
			return nil, r.syntaxError(err)
		}
		val, err := r.value(tok, voff, kpath, depth+1)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, jsonMember{key: key, off: koff, val: val})
	}
}

func (r *treeReader) array(off int, path string, depth int) (*jsonValue, error) {
	v := &jsonValue{kind: jsonArray, off: off}
	for {
		tok, eoff, err := r.next()
		if err != nil {
			return nil, r.syntaxError(err)
		}
		if tok == json.Delim(']') {
			return v, nil
		}
		elem, err := r.value(tok, eoff, indexPath(path, len(v.elems)), depth+1)
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, elem)
	}
}

// syntaxError turns an error of the decoder into a *ParseError at the
// position where it occurred.
func (r *treeReader) syntaxError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// The offsets of the decoder's errors are inexact, and its
		// messages terse; the scanner of Unmarshal, which checks the whole
		// text first, finds the same first error exactly: its Offset
		// counts the offending octet.
		off, msg := int(se.Offset), se.Error()
		var raw json.RawMessage
		if err := json.Unmarshal(r.ld.data, &raw); errors.As(err, &se) {
			off, msg = int(se.Offset)-1, se.Error()
		}
		return r.ld.errAt(min(max(off, 0), len(r.ld.data)), "", "syntax error: "+msg)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return r.ld.errAt(len(r.ld.data), "", "syntax error: unexpected end of file")
	}
	return r.ld.errAt(int(r.dec.InputOffset()), "", "syntax error: "+err.Error())
}

// skipSpace returns the offset of the first octet at or after off that is
// neither JSON white space nor a separator (':' or ','): the start of the
// next token, given the end of the previous one.
func skipSpace(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// keyPath returns the path of the member key of the object at path:
// path.key for a key made of lower-case letters, digits and '_', such as
// those of the format, and path["key"] otherwise. Routes are always written
// routes["/route"].
func keyPath(path, key string) string {
	if path != "routes" && isIdent(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
