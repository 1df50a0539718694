package middleware

import (
	"bytes"
	"encoding/xml"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// canonXML reports the first text of an XML body that is not in the
// route's normalization form p.form (not_normalized), or nil: an XML body
// is checked, never rewritten. It returns nil when p.form is None, and for
// a body whose XML declaration names another encoding (not ours, as for
// checkXML); in Monitor mode it returns the rejection all the same, for
// the caller to log.
//
// The texts are those a handler's decoder yields, as encoding/xml yields
// them, each of which must be normal:
//
//   - each character-data token: a text run with its references decoded
//     (character references and the five predefined entities), or a CDATA
//     section's content;
//   - the character data of each element, the concatenation of its own
//     tokens across comments, processing instructions, CDATA sections and
//     child elements, which is what Unmarshal puts in a string or
//     ",chardata" field: <a>e<!---->&#x301;</a> is "e\u0301";
//   - the same again, once more, with the elements of xml.HTMLAutoClose
//     closed as encoding/xml closes them with Strict off and that list
//     (the configuration its documentation gives for HTML): <br> is closed
//     by the token after its start tag, unless that is its own end tag, so
//     in <a>e<br>&#x301;</a> the "\u0301" is a's;
//   - each attribute value, references decoded; each element, attribute
//     and processing-instruction target name (a name holds no references);
//   - each comment, and the concatenation of each element's comments (a
//     ",comment" field); each processing instruction's content and each
//     directive, as written.
//
// The Rejection's Offset is the body offset of the first octet of the
// character where normalization starts to change the text (of the '&' of a
// reference that decodes to it), and its Field the element path, as for
// checkXML.
//
// Not covered: CR and CRLF, which encoding/xml turns into LF, are left as
// they are (no normalization form composes or reorders either, so it never
// changes whether a text is normal); and AutoClose lists other than
// xml.HTMLAutoClose, which a handler makes up and this package cannot
// know: with one, the text inside an element the list names joins its
// parent's. Strict decoders (c.Bind), and decoders with Strict off and no
// list or that one, are covered exactly.
func (p *policy) canonXML(body []byte) *Rejection {
	if p.form == normalize.None {
		return nil
	}
	if _, foreign := xmlDeclEncoding(body); foreign {
		return nil // another charset: not ours
	}
	if isASCII(body) && !bytes.Contains(body, charRefOpen) {
		return nil // ASCII is in every form, and nothing decodes to more
	}
	cn := xmlCanon{form: p.form, p: body}
	if rj := cn.run(); rj != nil || !cn.sawAutoClose {
		return rj
	}
	cn = xmlCanon{form: p.form, p: body, htmlAutoClose: true, pieces: cn.pieces[:0], buf: cn.buf[:0]}
	return cn.run()
}

// xmlPiece is one piece of an element's text in xmlCanon.pieces: the
// value p[from:to] of a character-data token (refs: with references) or
// of a comment.
type xmlPiece struct {
	from, to int
	refs     bool
	comment  bool
}

// xmlCanon is the state of canonXML over p.
type xmlCanon struct {
	form normalize.Form
	p    []byte
	open []xmlFrame
	// The pieces of the open elements, each element's after its parent's
	// that came before it: an element's own are the last ones when it
	// closes, its children's gone with them.
	pieces []xmlPiece
	split  []xmlPiece // scratch for close
	buf    []byte     // scratch
	// htmlAutoClose closes the elements of xml.HTMLAutoClose as
	// encoding/xml does with Strict off and that list, in a second pass
	// that checks only what the first cannot have: elements' texts joined
	// differently. pending is set
	// while the innermost open element is one whose start tag was the last
	// token, which the next token closes unless it is its end tag.
	// sawAutoClose reports that the body has such an element at all.
	htmlAutoClose, pending, sawAutoClose bool
}

// xmlHTMLAutoClose reports whether the element name is one of
// xml.HTMLAutoClose, whose local part encoding/xml compares with
// strings.EqualFold.
func xmlHTMLAutoClose(name []byte) bool {
	local := xmlLocal(name)
	for _, s := range xml.HTMLAutoClose {
		if bytes.EqualFold(local, []byte(s)) {
			return true
		}
	}
	return false
}

// xmlLocal returns the local part of a name, as encoding/xml splits it:
// after the colon, if there is one with something on each side.
func xmlLocal(name []byte) []byte {
	if k := bytes.IndexByte(name, ':'); k > 0 && k < len(name)-1 {
		return name[k+1:]
	}
	return name
}

// run walks the tokens of p.
func (cn *xmlCanon) run() *Rejection {
	lx := xmlLexer{p: cn.p}
	for {
		t := lx.next()
		var rj *Rejection
		if cn.pending && t.kind != xmlAttr && t.kind != xmlStartEnd {
			cn.pending = false
			top := cn.open[len(cn.open)-1].name
			if !(t.kind == xmlEnd && bytes.EqualFold(xmlLocal(cn.p[t.name[0]:t.name[1]]), xmlLocal(cn.p[top[0]:top[1]]))) {
				if rj := cn.close(); rj != nil {
					return rj
				}
			}
		}
		switch t.kind {
		case xmlEOF:
			for len(cn.open) > 0 {
				if rj := cn.close(); rj != nil {
					return rj
				}
			}
			return nil
		case xmlStart:
			cn.open = append(cn.open, xmlFrame{name: t.name, pieces: len(cn.pieces)})
			rj = cn.raw(t.name, [2]int{})
			if !cn.sawAutoClose && xmlHTMLAutoClose(cn.p[t.name[0]:t.name[1]]) {
				cn.sawAutoClose = true
			}
		case xmlAttr:
			if rj = cn.raw(t.name, t.name); rj == nil {
				rj = cn.text(xmlPiece{from: t.val[0], to: t.val[1], refs: t.refs}, t.name)
			}
		case xmlStartEnd:
			top := cn.open[len(cn.open)-1].name
			if t.empty {
				rj = cn.close()
			} else if cn.htmlAutoClose && xmlHTMLAutoClose(cn.p[top[0]:top[1]]) {
				cn.pending = true
			}
		case xmlEnd:
			if rj = cn.raw(t.name, [2]int{}); rj == nil {
				for k := xmlClose(cn.p, cn.open, t.name); len(cn.open) > k && rj == nil; {
					rj = cn.close()
				}
			}
		case xmlText, xmlBroken, xmlCDATA:
			rj = cn.charData(xmlPiece{from: t.val[0], to: t.val[1], refs: t.kind != xmlCDATA})
		case xmlComment:
			piece := xmlPiece{from: t.val[0], to: t.val[1], comment: true}
			if rj = cn.text(piece, [2]int{}); rj == nil && len(cn.open) > 0 {
				cn.pieces = append(cn.pieces, piece)
			}
		case xmlPI:
			if rj = cn.raw(t.name, [2]int{}); rj == nil {
				rj = cn.raw(t.val, [2]int{})
			}
		case xmlDirective:
			rj = cn.raw(t.val, [2]int{})
		}
		if rj != nil {
			return rj
		}
	}
}

// charData checks a character-data token on its own, and adds it to its
// element's pieces.
func (cn *xmlCanon) charData(piece xmlPiece) *Rejection {
	if piece.to == piece.from {
		return nil // an empty CDATA section: nothing to join
	}
	if rj := cn.text(piece, [2]int{}); rj != nil {
		return rj
	}
	if len(cn.open) > 0 {
		cn.pieces = append(cn.pieces, piece)
	}
	return nil
}

// close checks the text of the innermost open element, its character data
// and its comments each joined, and closes it.
func (cn *xmlCanon) close() *Rejection {
	f := cn.open[len(cn.open)-1]
	own := cn.pieces[f.pieces:]
	if len(own) > 1 {
		// The character data, then the comments, each in body order.
		cn.split = cn.split[:0]
		for _, pc := range own {
			if !pc.comment {
				cn.split = append(cn.split, pc)
			}
		}
		nData := len(cn.split)
		for _, pc := range own {
			if pc.comment {
				cn.split = append(cn.split, pc)
			}
		}
		if data := cn.split[:nData]; len(data) > 1 {
			if rj := cn.joined(data); rj != nil {
				return rj
			}
		}
		if comments := cn.split[nData:]; len(comments) > 1 {
			if rj := cn.joined(comments); rj != nil {
				return rj
			}
		}
	}
	cn.pieces = cn.pieces[:f.pieces]
	cn.open = cn.open[:len(cn.open)-1]
	return nil
}

// raw checks the text p[v[0]:v[1]], which holds no references. attr names
// the attribute it belongs to, if any, for the field.
func (cn *xmlCanon) raw(v [2]int, attr [2]int) *Rejection {
	if cn.htmlAutoClose {
		return nil // the first pass has checked every token
	}
	if text := cn.p[v[0]:v[1]]; isASCII(text) {
		return nil // ASCII is in every form; names mostly are
	}
	if k := cn.form.FirstNonNormal(cn.p[v[0]:v[1]]); k >= 0 {
		return cn.reject(v[0]+k, attr)
	}
	return nil
}

// text checks the text of one piece, references decoded.
func (cn *xmlCanon) text(piece xmlPiece, attr [2]int) *Rejection {
	if cn.htmlAutoClose {
		return nil // the first pass has checked every token
	}
	v := cn.p[piece.from:piece.to]
	if !piece.refs || bytes.IndexByte(v, '&') < 0 {
		return cn.raw([2]int{piece.from, piece.to}, attr)
	}
	cn.buf = xmlAppendText(cn.buf[:0], cn.p, piece)
	if k := cn.form.FirstNonNormal(cn.buf); k >= 0 {
		return cn.reject(xmlTextOffset(cn.p, piece, k), attr)
	}
	return nil
}

// joined checks the concatenation of the texts of pieces.
func (cn *xmlCanon) joined(pieces []xmlPiece) *Rejection {
	cn.buf = cn.buf[:0]
	for _, pc := range pieces {
		cn.buf = xmlAppendText(cn.buf, cn.p, pc)
	}
	k := cn.form.FirstNonNormal(cn.buf)
	if k < 0 {
		return nil
	}
	// The piece that holds the k-th octet, and the octet within it.
	at := 0
	for _, pc := range pieces {
		n := len(xmlAppendText(cn.buf[:0], cn.p, pc))
		if k < at+n {
			return cn.reject(xmlTextOffset(cn.p, pc, k-at), [2]int{})
		}
		at += n
	}
	return cn.reject(pieces[len(pieces)-1].to, [2]int{})
}

// reject is the not_normalized Rejection at offset off of the body, inside
// the open elements (and the attribute attr).
func (cn *xmlCanon) reject(off int, attr [2]int) *Rejection {
	e := &sanitize.Error{Reason: sanitize.NotNormalized, Offset: off}
	return &Rejection{
		Reason:   sanitize.NotNormalized,
		Location: rules.XML,
		Field:    safeField(xmlPath(cn.p, cn.open, attr)),
		Offset:   off,
		Sample:   sample(cn.p, off),
		Err:      e,
	}
}

// xmlAppendText appends the text of piece to dst as a decoder yields it:
// with references decoded when piece.refs, as encoding/xml decodes them
// (a surrogate becomes U+FFFD; what it does not decode stays as written,
// as it does with Strict off).
func xmlAppendText(dst, p []byte, piece xmlPiece) []byte {
	v := p[piece.from:piece.to]
	if !piece.refs {
		return append(dst, v...)
	}
	for {
		k := bytes.IndexByte(v, '&')
		if k < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:k]...)
		v = v[k:]
		r, n := xmlRef(v)
		if n == 0 || r > utf8.MaxRune {
			dst = append(dst, '&')
			v = v[1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		v = v[n:]
	}
}

// xmlTextOffset returns the offset in p of what became octet d of the
// text of piece (xmlAppendText): the octet itself, or the '&' of the
// reference that decoded to it.
func xmlTextOffset(p []byte, piece xmlPiece, d int) int {
	if !piece.refs {
		return piece.from + d
	}
	n := 0 // decoded octets before i
	var tmp [utf8.UTFMax]byte
	for i := piece.from; i < piece.to; {
		if p[i] == '&' {
			r, size := xmlRef(p[i:piece.to])
			if size > 0 && r <= utf8.MaxRune {
				w := len(utf8.AppendRune(tmp[:0], r))
				if d < n+w {
					return i
				}
				n, i = n+w, i+size
				continue
			}
		}
		if d == n {
			return i
		}
		n, i = n+1, i+1
	}
	return piece.to
}
