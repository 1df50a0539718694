package middleware

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Uploads. A multipart body is checked as it streams in (checkStream),
// and kept in a spool (spool.go) that the handler then reads: the text
// of the body (names, header values, fields, the contents of text file
// parts, and what lies outside the parts) is read into memory a part at a
// time and checked as multipart.go says; the contents of the file parts
// the route takes as data (rules.FileContents) go by without being held,
// counted against Limits.FileBytes and Limits.BinaryBodyBytes. What the
// handler reads is the spool, octet for octet: the body that was checked.
//
// The text of a body is bounded by Limits.BodyBytes as a text body is:
// all of its octets but the contents of its data file parts. It is known
// exactly once the body has ended; while it streams, the check refuses
// (413) as soon as the octets taken so far, less the data and less what
// multipart.Reader may have read ahead, are over the limit, so that no
// more than that is ever held.

// peekBufferSize is how many octets multipart.Reader reads ahead of the
// part it hands out (its bufio.Reader's size).
const peekBufferSize = 4096

// errFileTooLarge is the Err of a too_large rejection of one file part over
// Limits.FileBytes: a body too large (413), though the log names the
// part's field. It unwraps to sanitize.ErrTooLarge.
var errFileTooLarge = fmt.Errorf("utf8guard: file over its size limit: %w", sanitize.ErrTooLarge)

// mpFlow is the state of the check of a multipart body as it streams.
type mpFlow struct {
	p   *policy
	src *spoolReader
}

// data reads past the content of a data file part, counting it: a part
// over Limits.FileBytes, or one that brings the body's data over
// Limits.BinaryBodyBytes, is refused (413).
func (st *mpFlow) data(pt *mimePart, field string) *Rejection {
	r := st.src.countData(pt.raw)
	limit := st.p.Limits.FileBytes
	if limit >= 0 && limit < math.MaxInt64 {
		r = io.LimitReader(r, limit+1) // one past the limit tells it is over
	}
	n, _ := io.Copy(io.Discard, r) // a body that ends early, or a failed read, ends the scan
	if limit >= 0 && n > limit {
		return &Rejection{Reason: sanitize.TooLarge, Location: rules.Multipart, Field: field, Limit: limit, Err: errFileTooLarge}
	}
	if lim := st.p.Limits.BinaryBodyBytes; lim >= 0 && st.src.dat > lim {
		return tooLarge(rules.Multipart, "", lim)
	}
	return nil
}

// checkStream checks the multipart body that src reads, delimited by
// boundary, as it is read, and reads it to its end: what lies outside the
// parts, the parts, and the limits of text and data. A rejection found
// stops reading; the caller tells a body that could not be read (src
// failed) from one refused for what it holds.
//
// The checks are those of a body in memory, in the order its octets
// come: the preamble (as soon as the first delimiter line has come),
// each part, the epilogue.
func (p *policy) checkStream(src *spoolReader, boundary string) *Rejection {
	st := &mpFlow{p: p, src: src}
	o := newOutsideScan(boundary, p.Limits.BodyBytes)
	src.outside, src.textLimit = o, p.Limits.BodyBytes
	preChecked := false
	checkPre := func() *Rejection {
		if preChecked || !o.preambleKnown() {
			return nil
		}
		preChecked = true
		return o.checkPreamble(&p.Multipart)
	}
	if len(boundary) <= maxBoundary {
		n := mpCounts{st: st}
		s := newStreamScanner(src, boundary, p.Limits.BodyBytes)
		for pt := s.next(); pt != nil; pt = s.next() {
			if rj := checkPre(); rj != nil {
				return rj
			}
			if rj := p.checkPart(pt, 0, &n); rj != nil {
				return rj
			}
			if src.textOver(false) {
				return tooLarge(rules.Multipart, "", p.Limits.BodyBytes)
			}
		}
	}
	// The rest: the epilogue, up to the body's end.
	src.drain()
	if src.failed() {
		return nil
	}
	if src.textOver(true) {
		return tooLarge(rules.Multipart, "", p.Limits.BodyBytes)
	}
	if rj := checkPre(); rj != nil {
		return rj
	}
	if rj := o.checkEpilogue(&p.Multipart); rj != nil {
		return rj
	}
	// A boundary longer than RFC 2046 allows is refused once what lies
	// outside the parts is checked, as it always was.
	return boundaryRejection(boundary, 0)
}

// readPart reads r, a part's content, to its end into memory of its own,
// up to max octets: through pooled chunks, then into one slice of the size
// read, so that a part over the limit costs working memory, not garbage.
// over says that r holds more.
func readPart(r io.Reader, max int64) (b []byte, over bool, err error) {
	var chunks []*[chunkSize]byte
	defer func() {
		for i, c := range chunks {
			if i < maxPooledChunks {
				chunkPool.Put(c)
			}
		}
	}()
	n := 0
	for {
		off := n % chunkSize
		if off == 0 {
			chunks = append(chunks, chunkPool.Get().(*[chunkSize]byte))
		}
		buf := chunks[n/chunkSize][off:]
		if int64(len(buf))-1 > max-int64(n) {
			buf = buf[:max-int64(n)+1] // one past max tells there is more
		}
		k, rerr := r.Read(buf)
		n += k
		if int64(n) > max {
			return nil, true, nil
		}
		if rerr != nil {
			b = make([]byte, n)
			for i := 0; i*chunkSize < n; i++ {
				copy(b[i*chunkSize:], chunks[i][:])
			}
			if rerr == io.EOF {
				rerr = nil
			}
			return b, false, rerr
		}
	}
}

// multipartBoundary returns the boundary of a multipart body of
// Content-Type ct, or the rejection of one without a boundary no
// multipart reader can read: a handler that reads the body as it is
// (io.ReadAll, json.NewDecoder) would get octets no check has seen
// (FuzzOracle found "multipArt").
func multipartBoundary(ct string) (string, *Rejection) {
	_, params, err := mime.ParseMediaType(ct)
	boundary := params["boundary"]
	if err != nil || boundary == "" {
		rj := badMediaType(rules.Multipart, ct)
		rj.Field = "boundary"
		return "", rj
	}
	return boundary, nil
}

// checkMultipart checks a multipart body in memory (any multipart/* media
// type) as checkMultipartBody checks one that streams in. Multipart
// bodies are never repaired: under Repair an ill-formed part is rejected
// all the same.
func checkMultipart(r *http.Request, body []byte, p *policy) *Rejection {
	boundary, rj := multipartBoundary(r.Header.Get("Content-Type"))
	if rj != nil {
		return rj
	}
	src := newSpoolReader(bytes.NewReader(body), nil, -1)
	defer src.done()
	return p.checkStream(src, boundary)
}

// checkMultipartBody reads the multipart body of r (Content-Type ct)
// through a spool and checks it as it streams in (checkStream). A body
// whose declared length is over its limits (text and data together) is
// refused before anything is read; one that cannot be read whole is
// body_unreadable (a spool that cannot be written too, answered 500).
// Once the body has ended, the trailers are checked. The handler gets the
// spool: in Enforce mode an accepted body with a correct length; in
// Monitor mode the body as it came, the spool followed by what was not
// read, with r's length and transfer coding left as the client sent
// them. The spool is s.spool, released after the handler (Verdict).
func (s *scratch) checkMultipartBody(r *http.Request, p *policy, ct string) *Rejection {
	boundary, rj := multipartBoundary(ct)
	if rj != nil {
		return rj
	}
	total := int64(-1) // text and data together
	if t, b := p.Limits.BodyBytes, p.Limits.BinaryBodyBytes; t >= 0 && b >= 0 {
		total = t + min(b, math.MaxInt64-t)
	}
	if total >= 0 && r.ContentLength > total {
		return tooLarge(rules.Multipart, "", total)
	}
	sp := newSpool(s.spoolDir, r.ContentLength)
	s.spool = sp
	src := newSpoolReader(r.Body, sp, total)
	defer src.done()
	rj = p.checkStream(src, boundary)
	if err := sp.flush(); err != nil && src.err == nil {
		src.err = err // the spool lost octets: the body cannot be handed on
	}
	switch {
	case src.over && (rj == nil || rj.Reason != sanitize.TooLarge):
		// Over a limit of the whole body or its text; the check names the
		// limit of data or of a file it met first.
		rj = tooLarge(rules.Multipart, "", src.overLimit())
	case src.err != nil:
		rj = &Rejection{Reason: sanitize.BodyUnreadable, Location: rules.Multipart, Err: src.err}
	case rj == nil:
		// The body was read to its end: net/http has put its trailers,
		// if any, in r.Trailer.
		rj = checkTrailers(r, p)
	}
	if rj == nil {
		// For canonicalization (canonBody), in either mode.
		s.body, _ = sp.inMemory()
		s.bodyLoc = rules.Multipart
	}
	switch {
	case p.Mode == rules.Monitor:
		if rest := src.rest(r.Body); rest != nil {
			r.Body = readCloser{io.MultiReader(sp.reader(), rest), r.Body}
		} else {
			r.Body = readCloser{sp.reader(), r.Body}
		}
	case rj == nil:
		setSpoolBody(r, sp)
	}
	return rj
}

// overLimit is the limit the body went over, once t.over: its text's,
// or that of the whole body.
func (t *spoolReader) overLimit() int64 {
	if t.textOver(true) {
		return t.textLimit
	}
	return t.limit
}

// spoolStatus is the status of a rejection whose body could not be
// spooled: the server's failure.
func spoolStatus(rj *Rejection) (int, bool) {
	if rj.Reason == sanitize.BodyUnreadable && errors.Is(rj.Err, errSpool) {
		return http.StatusInternalServerError, true
	}
	return 0, false
}

// canonSpool canonicalizes a multipart body that was spooled to a file, as
// canonMultipart does one in memory (the rules are those of the comment
// on rebuilding, in multipart.go): the top-level parts are read from the
// spool, names and text contents brought to their canonical form in
// memory (they are text, bounded by the text limit), and, when something
// changes, the body is written anew to a second spool, the contents of its
// data parts copied from the first one as they are, never held in memory.
// The new body is then parsed again and compared with the parts it was
// built from (data contents with the spool's, octet for octet), and
// checked again as a body that streams in is. The handler gets the new
// spool; the first one is released at once.
func (s *scratch) canonSpool(r *http.Request, p *policy) *Rejection {
	sp := s.spool
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil
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
			return rj
		}
		lv.parts = append(lv.parts, part)
		lv.changed = lv.changed || changed
		lv.complete = lv.complete && complete
	}
	lv.complete = lv.complete && !sc.broken && !src.failed()
	src.done()
	switch {
	case !lv.changed:
		return nil // nothing changes
	case !lv.complete && rb.first != nil:
		return rb.first
	case !lv.complete:
		return multipartSyntax("") // cannot happen: every change sets first
	}
	out := newSpool(s.spoolDir, sp.n)
	if rj := lv.writeSpool(rb.boundary, sp, boundary, p, out); rj != nil {
		out.release()
		return rj
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, err := mime.ParseMediaType(ct); err != nil || ps["boundary"] != lv.boundary {
		out.release()
		return multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if field, ok := lv.verifySpool(out, sp, boundary, p); !ok {
		out.release()
		return multipartSyntax(field)
	}
	// Checked again, whole, as the body as sent was: classes, counts and
	// the limits of text and data.
	recheck := newSpoolReader(out.reader(), nil, -1)
	rj := p.checkStream(recheck, lv.boundary)
	if recheck.over {
		rj = tooLarge(rules.Multipart, "", recheck.overLimit())
	}
	recheck.done()
	if rj != nil {
		out.release()
		return rj
	}
	r.Header.Set("Content-Type", ct)
	setSpoolBody(r, out)
	s.spool = out
	sp.release()
	return nil
}

// randText draws a boundary: crypto/rand.Text, 26 characters of 128 bits.
var randText = rand.Text

// writeSpool writes the parts of lv to out as write writes them to
// memory, with a fresh boundary (drawn with draw) that occurs in no header
// block and no text content; the content of a data part is copied from
// the spool orig (its body delimited by boundary), part for part, and a
// copy that holds the new boundary refuses the body (canonical_syntax):
// with 128 random bits, drawn after the body arrived, it does not happen.
func (lv *rebuiltLevel) writeSpool(draw func() string, orig *spool, boundary string, p *policy, out *spool) *Rejection {
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
		return &Rejection{Reason: sanitize.BodyUnreadable, Location: rules.Multipart, Err: err}
	}
	lv.boundary = b
	return nil
}

// boundaryWatch passes what it is written on to w, and says whether pat
// occurred in it, across writes too.
type boundaryWatch struct {
	w     io.Writer
	pat   []byte
	carry []byte // the last len(pat)-1 octets written, at most
	found bool
}

func (bw *boundaryWatch) Write(p []byte) (int, error) {
	if !bw.found && len(bw.carry) > 0 {
		k := min(len(p), len(bw.pat)-1)
		bw.found = bytes.Contains(append(append([]byte(nil), bw.carry...), p[:k]...), bw.pat)
	}
	bw.found = bw.found || bytes.Contains(p, bw.pat)
	keep := len(bw.pat) - 1
	if len(p) >= keep {
		bw.carry = append(bw.carry[:0], p[len(p)-keep:]...)
	} else {
		bw.carry = append(bw.carry, p...)
		bw.carry = bw.carry[max(0, len(bw.carry)-keep):]
	}
	return bw.w.Write(p)
}

func (bw *boundaryWatch) reset() { bw.carry, bw.found = bw.carry[:0], false }

// verifySpool is verify for a body written by writeSpool: it parses out
// as a handler does and reports whether it gives exactly lv.parts, the
// contents of data parts equal, octet for octet, to those of the body as
// sent (orig, delimited by boundary).
func (lv *rebuiltLevel) verifySpool(out, orig *spool, boundary string, p *policy) (field string, ok bool) {
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

// sameStream reports whether a and b read the same octets to their ends,
// without error.
func sameStream(a, b io.Reader) bool {
	var ba, bb [chunkSize]byte
	for {
		na, ea := io.ReadFull(a, ba[:])
		nb, eb := io.ReadFull(b, bb[:])
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		aEnd := ea == io.EOF || ea == io.ErrUnexpectedEOF
		bEnd := eb == io.EOF || eb == io.ErrUnexpectedEOF
		switch {
		case ea != nil && !aEnd, eb != nil && !bEnd:
			return false
		case aEnd || bEnd:
			return aEnd && bEnd
		}
	}
}
