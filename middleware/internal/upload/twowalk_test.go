package upload

// The two-walk canonicalization of a spooled multipart body, as it was
// before the walk that checks a body rebuilt it too (mpRebuild): the
// reference the one walk is held to (multipart_onewalk_test.go). It reads
// the body as sent again from its spool to rebuild it, and again to copy
// and compare the contents of its data parts.

import (
	"bytes"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// canonSpoolTwoWalk canonicalizes a multipart body that was spooled to a file, as
// canonMultipart does one in memory (the rules are those of the comment
// on rebuilding, in multipart.go): the top-level parts are read from the
// spool, names and text contents brought to their canonical form in
// memory (they are text, bounded by the text limit), and, when something
// changes, the body is written anew to a second spool, the contents of its
// data parts copied from the first one as they are, never held in memory.
// The new body is then parsed again and compared with the parts it was
// built from (data contents with the spool's, octet for octet), and
// checked again as a body that streams in is. The handler gets the new
// spool, which it returns; the first one is released at once.
func canonSpoolTwoWalk(r *http.Request, p *compiled.Policy, sp *Spool, store *Store) (*Spool, *finding.Rejection) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return sp, nil
	}
	boundary := params["boundary"]
	rb := &rebuilder{p: p, boundary: randText, stream: true}
	src := newSpoolReader(sp.reader(), nil, -1)
	sc := newStreamScanner(src, boundary, p.Limits.BodyBytes)
	lv := &rebuiltLevel{complete: true}
	for pt := sc.next(); pt != nil; pt = sc.next() {
		part, changed, complete, rj := rb.part(pt, 0)
		if rj != nil {
			src.done()
			return sp, rj
		}
		lv.parts = append(lv.parts, part)
		lv.changed = lv.changed || changed
		lv.complete = lv.complete && complete
	}
	lv.complete = lv.complete && !sc.broken && !src.failed()
	src.done()
	switch {
	case !lv.changed:
		return sp, nil // nothing changes
	case !lv.complete && rb.first != nil:
		return sp, rb.first
	case !lv.complete:
		return sp, multipartSyntax("") // cannot happen: every change sets first
	}
	out := newSpool(store, sp.n)
	if rj := lv.writeSpoolTwoWalk(rb.boundary, sp, boundary, p, out); rj != nil {
		out.Release()
		return sp, rj
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, err := mime.ParseMediaType(ct); err != nil || ps["boundary"] != lv.boundary {
		out.Release()
		return sp, multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if field, ok := lv.verifySpoolTwoWalk(out, sp, boundary, p); !ok {
		out.Release()
		return sp, multipartSyntax(field)
	}
	// Checked again, whole, as the body as sent was: classes, counts and
	// the limits of text and data.
	recheck := newSpoolReader(out.reader(), nil, -1)
	rj := checkStream(p, recheck, lv.boundary, nil)
	if recheck.over {
		rj = finding.TooLarge(rules.Multipart, "", recheck.overLimit())
	}
	recheck.done()
	if rj != nil {
		out.Release()
		return sp, rj
	}
	r.Header.Set("Content-Type", ct)
	setSpoolBody(r, out)
	sp.Release()
	return out, nil
}

// writeSpoolTwoWalk writes the parts of lv to out as write writes them to
// memory, with a fresh boundary (drawn with draw) that occurs in no header
// block and no text content; the content of a data part is copied from
// the spool orig (its body delimited by boundary), part for part, and a
// copy that holds the new boundary refuses the body (canonical_syntax):
// with 128 random bits, drawn after the body arrived, it does not happen.
func (lv *rebuiltLevel) writeSpoolTwoWalk(draw func() string, orig *Spool, boundary string, p *compiled.Policy, out *Spool) *finding.Rejection {
	for i := range lv.parts {
		pt := &lv.parts[i]
		pt.head = appendHeader(nil, pt.header)
	}
	var b string
	for range 4 {
		if c := draw(); c != "" && !lv.holds(c) {
			b = c
			break
		}
	}
	if b == "" {
		return multipartSyntax("")
	}
	src := newSpoolReader(orig.reader(), nil, -1)
	defer src.done()
	sc := newStreamScanner(src, boundary, p.Limits.BodyBytes)
	w := &boundaryWatch{w: out, pat: []byte(b)}
	put := func(parts ...string) {
		for _, s := range parts {
			_, _ = out.Write([]byte(s))
		}
	}
	for i := range lv.parts {
		pt := &lv.parts[i]
		op := sc.next() // the same part of the body as sent
		if op == nil {
			return multipartSyntax(pt.name) // cannot happen: the body is complete
		}
		if i > 0 {
			put("\r\n")
		}
		put("--", b, "\r\n", string(pt.head))
		if !pt.data {
			_, _ = out.Write(pt.content)
			continue
		}
		if _, err := io.Copy(w, op.raw); err != nil && out.err() == nil {
			return multipartSyntax(pt.name) // cannot happen: the body is complete
		}
		if w.found {
			return multipartSyntax(pt.name)
		}
		w.reset()
	}
	put("\r\n--", b, "--\r\n")
	if err := out.flush(); err != nil {
		return &finding.Rejection{Reason: sanitize.BodyUnreadable, Location: rules.Multipart, Err: err}
	}
	lv.boundary = b
	return nil
}

// verifySpoolTwoWalk is verify for a body written by writeSpool: it parses out
// as a handler does and reports whether it gives exactly lv.parts, the
// contents of data parts equal, octet for octet, to those of the body as
// sent (orig, delimited by boundary).
func (lv *rebuiltLevel) verifySpoolTwoWalk(out, orig *Spool, boundary string, p *compiled.Policy) (field string, ok bool) {
	mr := multipart.NewReader(out.reader(), lv.boundary)
	src := newSpoolReader(orig.reader(), nil, -1)
	defer src.done()
	sc := newStreamScanner(src, boundary, p.Limits.BodyBytes)
	for i := 0; ; i++ {
		got, err := mr.NextPart()
		if err == io.EOF {
			return "", i == len(lv.parts)
		}
		if err != nil || i == len(lv.parts) {
			return "", false
		}
		want := &lv.parts[i]
		op := sc.next()
		if op == nil {
			return want.name, false
		}
		if !maps.EqualFunc(got.Header, want.header, slices.Equal) {
			return want.name, false
		}
		_, params, derr := mime.ParseMediaType(got.Header.Get("Content-Disposition"))
		if (derr == nil) != want.hasDisp || params["name"] != want.name || params["filename"] != want.file {
			return want.name, false
		}
		if want.data {
			if !sameStream(got, op.raw) {
				return want.name, false
			}
			continue
		}
		content, err := io.ReadAll(io.LimitReader(got, int64(len(want.content))+1))
		if err != nil || !bytes.Equal(content, want.content) {
			return want.name, false
		}
		if want.nested != nil {
			_, _, _, tp := partType(got.Header)
			if tp["boundary"] != want.nested.boundary {
				return want.name, false
			}
			if f, ok := want.nested.verify(); !ok {
				return f, false
			}
		}
	}
}
