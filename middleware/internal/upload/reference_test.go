package upload

// Reference implementations of the multipart checks that the tests hold
// the shipped code to (by comparing the two on the same inputs), kept in
// test files so that no user's binary links them.

import (
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// reserve returns b emptied, with room for n octets: a part's content is
// never longer than the body it is read from (a quoted-printable one,
// read and decoded, may be twice that, and grows the buffer), so that a
// body's parts are read without the buffer growing on the way.
func reserve(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, 0, n)
	}
	return b[:0]
}

// checkOutsideParts checks, as text, the octets of a multipart body that
// lie outside its parts: the preamble before the first delimiter (all of
// the body if it has none) and the epilogue after the last. No multipart
// reader hands them out, but a handler that reads the body as it is does,
// and a JSON decoder (json.NewDecoder(r.Body), which ignores the
// Content-Type) decodes the first value it finds there. A body that
// streams in is checked by outsideScan, which finds the same two as the
// body passes; this, over a body in memory, is the reference its tests
// hold it to.
func checkOutsideParts(body []byte, boundary string, c *rules.Check) *finding.Rejection {
	delim := []byte("--" + boundary)
	first, last := outsideParts(body, delim)
	for _, seg := range [2][2]int{{0, first}, {last, len(body)}} {
		if err := sanitize.Check(body[seg[0]:seg[1]], c.Forbid); err != nil {
			rj := finding.Reject(err, rules.Multipart, "", body)
			rj.Offset += seg[0]
			rj.Sample = finding.Sample(body, rj.Offset)
			return rj
		}
		// The escapes any decoder of a text type would read there.
		if rj := escape.Check(body[seg[0]:seg[1]], rules.Multipart, c.Forbid, seg[0]); rj != nil {
			return rj
		}
	}
	return nil
}

// outsideParts returns where the preamble of a multipart body ends and
// where its epilogue starts, as multipart.Reader finds them. The first
// part starts at the first line that is a delimiter: delim, then only
// spaces and tabs, then a line end (a line that merely starts with delim,
// "--bX", is preamble); a close delimiter line (delim, "--", spaces and
// tabs, then a line end or the body's end) before any part ends the body
// there. The parts end at the first close delimiter after a line end,
// which no part's content can hold without ending at it; the epilogue
// follows its line. A body without one ends inside a part: no epilogue.
func outsideParts(body, delim []byte) (first, last int) {
	first, last = len(body), len(body)
	for i := 0; i < len(body); {
		if bytes.HasPrefix(body[i:], delim) {
			switch rest := body[i+len(delim):]; {
			case bytes.HasPrefix(rest, []byte("--")):
				if end, ok := lineEnd(rest[2:]); ok {
					return i, i + len(delim) + 2 + end
				}
			default:
				if end, ok := lineEnd(rest); ok && end > 0 {
					first = i
				}
			}
		}
		if first < len(body) {
			break
		}
		j := bytes.IndexByte(body[i:], '\n')
		if j < 0 {
			return first, last
		}
		i += j + 1
	}
	nlDelim := append([]byte{'\n'}, delim...)
	for i := first; ; {
		j := bytes.Index(body[i:], nlDelim)
		if j < 0 {
			return first, last // ends inside a part
		}
		at := i + j + len(nlDelim)
		if rest := body[at:]; bytes.HasPrefix(rest, []byte("--")) {
			if end, ok := lineEnd(rest[2:]); ok {
				return first, at + 2 + end
			}
			return first, at // a broken close line: the rest is outside too
		}
		i = at
	}
}

// lineEnd reports whether p is spaces and tabs up to a line end (CRLF or
// LF) or its end, and returns the length up to and including the line
// end.
func lineEnd(p []byte) (int, bool) {
	k := 0
	for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
		k++
	}
	switch {
	case k == len(p):
		return k, true
	case p[k] == '\n':
		return k + 1, true
	case p[k] == '\r' && k+1 < len(p) && p[k+1] == '\n':
		return k + 2, true
	}
	return 0, false
}

// canonMultipart canonicalizes a multipart body that checkMultipart
// accepted: field names and file names are brought to the route's
// normalization, the contents of fields and text file parts normalized or
// PRECIS-enforced by field name, and the body rebuilt as described above.
// It returns nil when nothing changes, and otherwise the new body, having
// set r's Content-Type to announce its boundary.
//
// A body that is not well-formed to its end cannot be rebuilt, but a
// streaming handler (Request.MultipartReader) would still read the parts
// before the break, and after a syntax error the parts a retrying reader
// finds. If one of those is not in its canonical form, the request is
// rejected, not_normalized at the first such text (a PRECIS field whose
// enforced form differs counts), rather than passed on with that text as
// it came.
func canonMultipart(p *compiled.Policy, r *http.Request, body []byte) ([]byte, *finding.Rejection) {
	mt, params, ok := media.Read(r.Header.Get("Content-Type"))
	if !ok || params["boundary"] == "" {
		return nil, nil
	}
	m := getMPMem()
	defer m.release()
	// A probe first: it reads the parts into working memory, keeps
	// nothing, and stops at the first text that changes. A body in
	// canonical form, the common one, ends here; the rebuild proper,
	// which keeps every part, reads the body again from the start, and
	// so finds what the probe found before the change, and the rest.
	probe := &rebuilder{p: p, boundary: randText, mem: m, probe: true}
	if _, rj := probe.level(body, params["boundary"], 0); rj != errMPChanged {
		return nil, rj // nil when nothing changes
	}
	// The contents kept are the body's, less where normalization
	// shrinks them: most rebuilds fit in what is reserved here.
	m.arena = reserve(m.arena, len(body))
	rb := &rebuilder{p: p, boundary: randText, mem: m}
	lv, rj := rb.level(body, params["boundary"], 0)
	switch {
	case rj != nil:
		return nil, rj
	case !lv.changed:
		return nil, nil // nothing changes
	case !lv.complete && rb.first != nil:
		return nil, rb.first
	case !lv.complete:
		return nil, multipartSyntax("") // cannot happen: every change sets first
	}
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(lv.out))-rb.data > lim {
		return nil, finding.TooLarge(rules.Multipart, "", lim) // its text over the text limit
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, ok := media.Read(ct); !ok || ps["boundary"] != lv.boundary {
		return nil, multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if rj := recheckRebuilt(p, lv, m); rj != nil {
		return nil, rj
	}
	r.Header.Set("Content-Type", ct)
	return lv.out, nil
}

// level reads one multipart body, the top-level one at depth 0 or a
// nested one, canonicalizing every part, and writes it anew when something
// changes and the body is complete.
func (rb *rebuilder) level(body []byte, boundary string, depth int) (*rebuiltLevel, *finding.Rejection) {
	if rj := boundaryRejection(boundary, depth); rj != nil {
		return nil, rj // refused by the check already
	}
	if depth > 0 && !rb.probe {
		growArena(&rb.mem.arena, nestedRoom(len(body)))
	}
	lv := &rebuiltLevel{complete: true, mark: len(rb.mem.arena)}
	s := newScanner(body, boundary)
	for pt := s.next(); pt != nil; pt = s.next() {
		part, changed, complete, rj := rb.part(pt, depth)
		if rj != nil {
			return nil, rj
		}
		if rb.probe {
			continue // nothing changes yet: nothing to keep
		}
		if depth == 0 {
			rb.mem.topParts(lv, part)
		} else {
			lv.parts = append(lv.parts, part)
		}
		lv.changed = lv.changed || changed
		lv.complete = lv.complete && complete
	}
	lv.complete = lv.complete && !s.broken
	if lv.changed && lv.complete && !rb.probe {
		// A nested body is written into the arena: its parent's part
		// holds it, and the parent is written out in turn.
		if rj := lv.writeTo(rb.boundary, &rb.mem.arena, depth > 0); rj != nil {
			return nil, rj
		}
	}
	return lv, nil
}

// part canonicalizes one part: its names, then its content. changed says
// whether anything in it changes; complete is false when the body ends
// inside it or a nested body in it is not complete. It reads the part
// itself; the walk that checks a body (checkPart) reads it once for both,
// and calls names and content.
func (rb *rebuilder) part(pt *mimePart, depth int) (out rebuiltPart, changed, complete bool, rj *finding.Rejection) {
	p := rb.p
	if rb.mem == nil {
		rb.mem = new(mpMem) // a rebuilder made without memory
	}
	out, field, changed, rj := rb.names(pt)
	if rj != nil {
		return out, false, false, rj
	}
	if rb.stream && depth == 0 && dataPart(p, pt) {
		// Data: copied from the spool as it is when the body is written.
		_, err := io.Copy(io.Discard, pt.raw)
		out.data = true
		return out, changed, err == nil, nil
	}
	// Read into the buffer of the part's depth, which the next part
	// reuses (a nested body's parts go into the next depth's): what the
	// rebuild keeps goes into the arena once it is known.
	content, raw, buf, truncated, qpOff := pt.readContent(rb.mem.bufs[depth][:0], &rb.mem.qp)
	rb.mem.bufs[depth] = buf
	if pt.over {
		return out, false, false, finding.TooLarge(rules.Multipart, "", pt.max) // refused by the check already
	}
	if qpOff >= 0 {
		return out, false, false, qpRejection(finding.SafeField(field), raw, qpOff) // refused by the check already
	}
	var sub *rebuiltLevel
	if nb := pt.nestedBoundary(); nb != "" {
		if sub, rj = rb.level(content, nb, depth+1); rj != nil {
			return out, false, false, rj
		}
	}
	return rb.content(pt, depth, out, field, changed, content, !truncated, sub)
}

// write writes the parts of lv as multipart.Writer writes a body (each
// part's delimiter, its header fields sorted by name, an empty line, its
// content; then the closing delimiter), with a fresh boundary that occurs
// in no header block and no content. draw draws candidates; after a few
// that all occur, which with 128 random bits does not happen, the body is
// refused rather than written with one that does.
func (lv *rebuiltLevel) write(draw func() string) *finding.Rejection {
	return lv.writeTo(draw, nil, false)
}

// bounds returns where the preamble ends and the epilogue starts, as
// outsideParts returns them, once the body has ended: size is its
// length.
func (o *outsideScan) bounds(size int64) (first, last int64) {
	first, last = size, size
	if o.preKnown {
		first = int64(o.first)
	}
	if o.settled && !o.noEpi {
		last = o.epiOff + int64(o.skip)
	}
	return first, last
}

// checkMultipart checks a multipart body in memory (any multipart/* media
// type) as checkMultipartBody checks one that streams in. Multipart
// bodies are never repaired: under Repair an ill-formed part is rejected
// all the same.
func checkMultipart(r *http.Request, body []byte, p *compiled.Policy) *finding.Rejection {
	boundary, rj := multipartBoundary(r.Header.Get("Content-Type"))
	if rj != nil {
		return rj
	}
	src := newSpoolReader(bytes.NewReader(body), nil, -1)
	defer src.done()
	return checkStream(p, src, boundary, nil)
}
