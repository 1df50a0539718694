// Package upload checks multipart bodies as they stream in (Check), keeps
// them in a spool the handler then reads (Spool, with its disk budget,
// Store), and, on a route that canonicalizes them, rebuilds them in
// canonical form in the same step (canon). The walk over the
// parts, their headers, what lies outside them and the rewritten
// Content-Disposition are in walk.go, headers.go, outside.go and
// disposition.go.
//
// A spool lives exactly as long as its request: Check returns it, the
// pipeline releases it after the handler (Spool.Release). When the
// rebuild writes a second spool, Check releases the first and returns
// the one in force.
package upload

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"maps"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Uploads. A multipart body is checked as it streams in (checkStream),
// and kept in a spool (spool.go) that the handler then reads: the text
// of the body (names, header values, fields, the contents of text file
// parts, and what lies outside the parts) is read into memory a part at a
// time and checked as walk.go says; the contents of the file parts
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

// PeekBufferSize is how many octets multipart.Reader reads ahead of the
// part it hands out (its bufio.Reader's size).
const PeekBufferSize = 4096

// mpFlow is the state of the check of a multipart body as it streams.
// sink, when set, is where the contents of its data parts are copied as
// they pass, for a rebuild made in the same walk (mpRebuild).
type mpFlow struct {
	p    *compiled.Policy
	src  *spoolReader
	sink *Spool
}

// sinkLen is how many octets have been copied to the sink.
func (st *mpFlow) sinkLen() int64 {
	if st.sink == nil {
		return 0
	}
	return st.sink.n
}

// data reads past the content of a data file part, counting it: a part
// over Limits.FileBytes, or one that brings the body's data over
// Limits.BinaryBodyBytes, is refused (413). With keep, the content is
// copied to the sink. complete is false when the body ends inside the
// part.
func (st *mpFlow) data(pt *mimePart, field string, keep bool) (complete bool, rj *finding.Rejection) {
	r := st.src.countData(pt.raw)
	limit := st.p.Limits.FileBytes
	if limit >= 0 && limit < math.MaxInt64 {
		r = io.LimitReader(r, limit+1) // one past the limit tells it is over
	}
	var n int64
	var err error
	if keep && st.sink != nil {
		// The spool keeps a failure to write it, which the rebuild
		// reports: the part is read to its end all the same, as data.
		sb := getSpoolBuf()
		n, err = io.CopyBuffer(sinkWriter{st.sink}, r, sb.b[:])
		sb.put()
	} else {
		n, err = io.Copy(io.Discard, r) // a body that ends early, or a failed read, ends the scan
	}
	if limit >= 0 && n > limit {
		return false, finding.FileTooLarge(field, limit)
	}
	if lim := st.p.Limits.BinaryBodyBytes; lim >= 0 && st.src.dat > lim {
		return false, finding.TooLarge(rules.Multipart, "", lim)
	}
	return err == nil, nil
}

// sinkWriter writes to a spool, and never fails: the spool keeps its
// failure (spool.err).
type sinkWriter struct{ sp *Spool }

func (w sinkWriter) Write(p []byte) (int, error) {
	_, _ = w.sp.Write(p)
	return len(p), nil
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
//
// With w, the body is rebuilt in the same walk (mpRebuild): w is filled
// in, and its rejection, if any, is w.rb.rj, which canon returns
// once the body is accepted.
func checkStream(p *compiled.Policy, src *spoolReader, boundary string, w *mpRebuild) *finding.Rejection {
	st := &mpFlow{p: p, src: src}
	n := mpCounts{st: st}
	if w != nil {
		st.sink, n.mem, n.rb, n.levels[0] = w.data, w.mem, w.rb, w.lv
	} else {
		n.mem = getMPMem()
		defer n.mem.release()
	}
	o := newOutsideScan(boundary, p.Limits.BodyBytes)
	src.outside, src.textLimit = o, p.Limits.BodyBytes
	preChecked, broken := false, false
	checkPre := func() *finding.Rejection {
		if preChecked || !o.preambleKnown() {
			return nil
		}
		preChecked = true
		return o.checkPreamble(&p.Multipart)
	}
	if len(boundary) <= maxBoundary {
		if lim := p.Limits.MultipartHeaderLines; lim >= 0 {
			src.heads.start(boundary, lim)
		}
		s := newStreamScanner(src, boundary, p.Limits.BodyBytes)
		for pt := s.next(); pt != nil; pt = s.next() {
			if rj := checkPre(); rj != nil {
				return rj
			}
			if rj := checkPart(p, pt, 0, &n); rj != nil {
				return rj
			}
			if src.textOver(false) {
				return finding.TooLarge(rules.Multipart, "", p.Limits.BodyBytes)
			}
		}
		if src.headsOver() {
			// The parts before it are checked: a part header with too
			// many lines, which reading stopped at.
			return headersRejection(p.Limits.MultipartHeaderLines)
		}
		if w != nil {
			w.lv.complete = w.lv.complete && !s.broken
		}
		broken = s.broken
	}
	// The rest: the epilogue, up to the body's end.
	src.drain()
	if src.failed() {
		return nil
	}
	if src.textOver(true) {
		return finding.TooLarge(rules.Multipart, "", p.Limits.BodyBytes)
	}
	if rj := checkPre(); rj != nil {
		return rj
	}
	if rj := o.checkEpilogue(&p.Multipart); rj != nil {
		return rj
	}
	if broken {
		return brokenMultipart()
	}
	// A boundary longer than RFC 2046 allows is refused once what lies
	// outside the parts is checked, as it always was.
	return boundaryRejection(boundary, 0)
}

// multipartBoundary returns the boundary of a multipart body of
// Content-Type ct, or the rejection of one without a boundary no
// multipart reader can read: a handler that reads the body as it is
// (io.ReadAll, json.NewDecoder) would get octets no check has seen
// (FuzzOracle found "multipArt").
func multipartBoundary(ct string) (string, *finding.Rejection) {
	_, params, ok := media.Read(ct)
	boundary := params["boundary"]
	if !ok || boundary == "" {
		rj := finding.BadMediaType(rules.Multipart, ct)
		rj.Field = "boundary"
		return "", rj
	}
	return boundary, nil
}

// Check reads the multipart body of r (Content-Type ct)
// through a spool and checks it as it streams in (checkStream). A body
// whose declared length is over its limits (text and data together) is
// refused before anything is read; one that cannot be read whole is
// body_unreadable (a spool that cannot be written too, answered 500).
// Once the body has ended, the trailers are checked. The handler gets the
// spool: in Enforce mode an accepted body with a correct length; in
// Monitor mode the body as it came, the spool followed by what was not
// read, with r's length and transfer coding left as the client sent
// them. It returns the spool, which the caller releases after the
// handler (Verdict), and the lentBody the handler reads it through, if
// any; trailers is the check of the trailers.
//
// On a route that canonicalizes multipart bodies, the walk that checks
// the body also rebuilds it (mpRebuild), and Check ends with the
// canonical pass (canon): the handler gets the body rebuilt when
// something changed, or the request is refused for what the rebuild
// found. A rebuild written to a second spool replaces the first, which is
// released at once: the spool returned is the one the handler reads.
//
// A body with a content coding is decoded as it is read (codedStream,
// package bodyio): the spool holds the decoded body, which is the one
// checked, within the same limits, and, in Enforce mode, the one the
// handler gets, Content-Encoding removed. In Monitor mode the handler
// gets the body as it came, coded, from a spool of its own (spool.sent).
func Check(r *http.Request, p *compiled.Policy, ct string, store *Store,
	trailers func(*http.Request, *compiled.Policy) *finding.Rejection) (sp *Spool, lent *bodyio.LentBody, rj *finding.Rejection) {
	sp, lent, rj = check(r, p, ct, store, trailers)
	if rj == nil && sp.rebuild != nil {
		sp, rj = canon(r, p, sp, store)
	}
	return sp, lent, rj
}

// check is Check but for the canonical pass: a body that canon will
// replace is left unread by the handler's side, neither lent nor handed
// on, for canon to hand on or refuse.
func check(r *http.Request, p *compiled.Policy, ct string, store *Store,
	trailers func(*http.Request, *compiled.Policy) *finding.Rejection) (sp *Spool, lent *bodyio.LentBody, rj *finding.Rejection) {
	c := bodyio.Identity
	if len(r.Header["Content-Encoding"]) != 0 {
		if c, rj = bodyio.RequestCoding(r, rules.Multipart); rj != nil {
			return nil, nil, rj
		}
	}
	boundary, rj := multipartBoundary(ct)
	if rj != nil {
		return nil, nil, rj
	}
	total := int64(-1) // text and data together
	if t, b := p.Limits.BodyBytes, p.Limits.BinaryBodyBytes; t >= 0 && b >= 0 {
		total = t + min(b, math.MaxInt64-t)
	}
	if total >= 0 && r.ContentLength > total {
		return nil, nil, finding.TooLarge(rules.Multipart, "", total)
	}
	size := r.ContentLength
	if c != bodyio.Identity {
		size = -1 // the decoded length is not known
	}
	sp = newSpool(store, size)
	if p.CanonAt(rules.Multipart) {
		// Rebuilt as it is checked, in one walk; canon writes it.
		// The body as sent stays in pooled memory until it is known
		// whether the handler gets it.
		sp.rebuild = newMPRebuild(p, store)
		sp.pooled = true
	}
	body := io.Reader(r.Body)
	var cs *bodyio.CodedStream
	if c != bodyio.Identity && !(c == bodyio.Gzip && bodyio.DecodedBefore(r)) {
		// (A body Echo's Decompress decoded before utf8guard is read as
		// it is: decoded.)
		d := bodyio.NewDecoder()
		defer d.Release()  // after src.done: the check reads it until then
		var sent io.Writer // nil, not a nil *spool
		if p.Mode == rules.Monitor {
			sp.sent = newSpool(store, r.ContentLength)
			sent = sp.sent
		}
		cs = d.Stream(r.Body, c, total, sent)
		body = cs
	}
	src := newSpoolReader(body, sp, total)
	defer src.done()
	rj = checkStream(p, src, boundary, sp.rebuild)
	if err := sp.flush(); err != nil && src.err == nil {
		src.err = err // the spool lost octets: the body cannot be handed on
	}
	switch {
	case src.over && (rj == nil || rj.Reason != sanitize.TooLarge):
		// Over a limit of the whole body or its text; the check names the
		// limit of data or of a file it met first.
		rj = finding.TooLarge(rules.Multipart, "", src.overLimit())
	case cs != nil && cs.WireOver():
		rj = finding.TooLarge(rules.Multipart, "", total) // the octets received
	case src.err != nil:
		rj = unspooled(src.err)
		if _, ok := errors.AsType[*bodyio.CodingError](src.err); ok {
			rj.Field = "Content-Encoding" // a stream that does not decode
		}
	case rj == nil:
		// The body was read to its end: net/http has put its trailers,
		// if any, in r.Trailer.
		rj = trailers(r, p)
	}
	switch {
	case p.Mode == rules.Monitor:
		from, rest := sp, src.rest(r.Body)
		if cs != nil {
			from, rest = sp.sent, cs.Rest(r.Body) // as it came, coded
		}
		if rest != nil {
			r.Body = bodyio.ReadCloser{Reader: io.MultiReader(from.reader(), rest), Closer: r.Body}
		} else {
			r.Body = bodyio.ReadCloser{Reader: from.reader(), Closer: r.Body}
		}
	case rj == nil && sp.rebuild.replaces():
		// canon hands on the new body, or refuses the request: the
		// body as sent, in memory, is not copied out for nothing.
	case rj == nil:
		lent = handSpool(r, sp)
	}
	if rj == nil && c != bodyio.Identity && p.Mode == rules.Enforce {
		// Decoded: the header no longer says what the body is.
		delete(r.Header, "Content-Encoding")
	}
	return sp, lent, rj
}

// handSpool hands the handler the spooled body of an accepted request, as
// setSpoolBody does; one gathered in pooled memory goes through a
// lentBody, as handOn lends a body readBody read, and back to its pool
// after the handler: it returns that lentBody.
func handSpool(r *http.Request, sp *Spool) *bodyio.LentBody {
	if mem, ok := sp.inMemory(); ok {
		if m := sp.pooledMemory(); m != nil {
			lb := bodyio.NewLentBody(mem, m)
			sp.pool = nil
			bodyio.Install(r, lb, len(mem))
			return lb
		}
	}
	setSpoolBody(r, sp)
	return nil
}

// overLimit is the limit the body went over, once t.over: its text's,
// or that of the whole body.
func (t *spoolReader) overLimit() int64 {
	if t.textOver(true) {
		return t.textLimit
	}
	return t.limit
}

// unspooled is the Rejection of a multipart body that could not be read
// or spooled whole (err): spool_full when its spool would have gone past
// the store's budget, body_unreadable otherwise.
func unspooled(err error) *finding.Rejection {
	if errors.Is(err, errSpoolFull) {
		return &finding.Rejection{Reason: sanitize.SpoolFull, Location: rules.Multipart, Err: err}
	}
	return finding.Unreadable(rules.Multipart, err, errors.Is(err, ErrSpool))
}

// mpRebuild is a multipart body rebuilt in the walk that checks it, on a
// route that canonicalizes multipart bodies: each part is read once, and
// both checked and brought to its canonical form (mpCounts). Names and
// text contents are kept in memory (mem's arena: text, bounded by the
// text limit), and the contents of the top-level data parts copied, as
// they pass, to a spool of their own (data): never held in memory past
// spoolMemory. canon then writes the new body from these, without
// reading the body as sent again.
type mpRebuild struct {
	rb   *rebuilder
	lv   *rebuiltLevel
	mem  *mpMem
	data *Spool
}

// newMPRebuild returns the rebuild of a body whose data parts spill into
// dir.
func newMPRebuild(p *compiled.Policy, st *Store) *mpRebuild {
	m := getMPMem()
	return &mpRebuild{
		rb:   &rebuilder{p: p, boundary: randText, stream: true, mem: m},
		lv:   &rebuiltLevel{complete: true},
		mem:  m,
		data: newSpool(st, -1),
	}
}

// replaces reports whether canon will hand on a new body or refuse
// the request: the rebuild went through, something changed, and the body
// is complete. Not in Monitor mode, where the body as sent is handed on.
func (w *mpRebuild) replaces() bool {
	return w != nil && w.rb.rj == nil && w.lv.changed && w.lv.complete && w.rb.p.Mode == rules.Enforce
}

// release gives w's memory back and removes its spool's file. It is safe
// to call more than once, and on nil.
func (w *mpRebuild) release() {
	if w == nil {
		return
	}
	w.data.Release()
	if w.mem != nil {
		w.mem.release()
		w.mem = nil
	}
}

// canon canonicalizes a multipart body that Check read
// into a spool, from what its walk made of it (mpRebuild), by the rules of
// the comment on rebuilding in walk.go, as canonMultipart does a body
// in memory. When something changes, the body is written anew: in memory
// when the body as sent stayed in memory (as canonMultipart writes it),
// and otherwise to a second spool, the contents of its data parts copied
// from the rebuild's spool, never held in memory. The new body is then
// parsed again and compared with the parts it was built from, and checked
// again, whole, as the body as sent was. The handler gets the new body;
// a second spool replaces the first, which is released at once. It returns
// the spool the handler reads: sp, or the new one.
func canon(r *http.Request, p *compiled.Policy, sp *Spool, store *Store) (*Spool, *finding.Rejection) {
	w := sp.rebuild
	if w == nil || w.mem == nil {
		return sp, multipartSyntax("") // cannot happen: the walk rebuilds on every route that canonicalizes
	}
	defer w.release()
	rb, lv := w.rb, w.lv
	switch {
	case rb.rj != nil:
		return sp, rb.rj
	case !lv.changed:
		return sp, nil // nothing changes
	case !lv.complete && rb.first != nil:
		return sp, rb.first
	case !lv.complete:
		return sp, multipartSyntax("") // cannot happen: every change sets first
	}
	if err := w.data.flush(); err != nil {
		return sp, unspooled(err)
	}
	mt, params, ok := media.Read(r.Header.Get("Content-Type"))
	if !ok || params["boundary"] == "" {
		return sp, multipartSyntax("") // cannot happen: checked
	}
	if sp.f == nil {
		return sp, canonSpoolMemory(r, p, w, mt, params) // the body as sent is not gathered: not needed
	}
	out := newSpool(store, sp.n)
	if rj := lv.writeSpool(rb.boundary, w.data, out); rj != nil {
		out.Release()
		return sp, rj
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, ok := media.Read(ct); !ok || ps["boundary"] != lv.boundary {
		out.Release()
		return sp, multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if field, ok := lv.verifySpool(out, w.data); !ok {
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

// canonSpoolMemory is canon for a body that stayed in memory: the
// data parts' contents are in memory too (the rebuild's spool did not
// spill either), and the body is written into memory of its own, then
// verified, checked again and handed on as canonMultipart and canonBody
// do it.
func canonSpoolMemory(r *http.Request, p *compiled.Policy, w *mpRebuild, mt string, params map[string]string) *finding.Rejection {
	rb, lv := w.rb, w.lv
	data, ok := w.data.inMemory()
	if !ok {
		return multipartSyntax("") // cannot happen: it holds less than the body
	}
	for i := range lv.parts {
		if pt := &lv.parts[i]; pt.data {
			pt.content = data[pt.dataOff : pt.dataOff+pt.dataLen : pt.dataOff+pt.dataLen]
			pt.data = false
		}
	}
	if rj := lv.writeTo(rb.boundary, &w.mem.arena, false); rj != nil {
		return rj
	}
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(lv.out))-rb.data > lim {
		return finding.TooLarge(rules.Multipart, "", lim) // its text over the text limit
	}
	params["boundary"] = lv.boundary
	ct := mime.FormatMediaType(mt, params)
	if _, ps, ok := media.Read(ct); !ok || ps["boundary"] != lv.boundary {
		return multipartSyntax("") // cannot happen: mt and the keys were parsed as tokens
	}
	if rj := recheckRebuilt(p, lv, w.mem); rj != nil {
		return rj
	}
	r.Header.Set("Content-Type", ct)
	// As canonBody hands on a body canonMultipart rebuilt.
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(lv.out)) > lim {
		return finding.TooLarge(rules.Multipart, "", lim)
	}
	if p.Mode == rules.Enforce {
		bodyio.SetBody(r, lv.out)
	}
	return nil
}

// randText draws a boundary: crypto/rand.Text, 26 characters of 128 bits.
var randText = rand.Text

// writeSpool writes the parts of lv to out as write writes them to
// memory, with a fresh boundary (drawn with draw) that occurs in no header
// block and no text content; the content of a data part is copied from
// data, the rebuild's spool, and a copy that holds the new boundary
// refuses the body (canonical_syntax): with 128 random bits, drawn after
// the body arrived, it does not happen.
func (lv *rebuiltLevel) writeSpool(draw func() string, data, out *Spool) *finding.Rejection {
	lv.writeHeads()
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
	w := &boundaryWatch{w: out, pat: []byte(b)}
	put := func(parts ...string) {
		for _, s := range parts {
			_, _ = out.Write([]byte(s))
		}
	}
	sb := getSpoolBuf()
	defer sb.put()
	for i := range lv.parts {
		pt := &lv.parts[i]
		if i > 0 {
			put("\r\n")
		}
		put("--", b, "\r\n", string(pt.head))
		if !pt.data {
			_, _ = out.Write(pt.content)
			continue
		}
		if _, err := io.CopyBuffer(w, data.section(pt.dataOff, pt.dataLen), sb.b[:]); err != nil && out.err() == nil {
			return multipartSyntax(pt.name) // cannot happen: the spool was written whole
		}
		if w.found {
			return multipartSyntax(pt.name)
		}
		w.reset()
	}
	put("\r\n--", b, "--\r\n")
	if err := out.flush(); err != nil {
		return unspooled(err)
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
// contents of data parts equal, octet for octet, to those kept in data.
func (lv *rebuiltLevel) verifySpool(out, data *Spool) (field string, ok bool) {
	mr := multipart.NewReader(out.reader(), lv.boundary)
	for i := 0; ; i++ {
		got, err := mr.NextPart()
		if err == io.EOF {
			return "", i == len(lv.parts)
		}
		if err != nil || i == len(lv.parts) {
			return "", false
		}
		want := &lv.parts[i]
		if !maps.EqualFunc(got.Header, want.header, slices.Equal) {
			return want.name, false
		}
		_, params, parsed := media.Read(got.Header.Get("Content-Disposition"))
		if parsed != want.hasDisp || params["name"] != want.name || params["filename"] != want.file {
			return want.name, false
		}
		if want.data {
			if !sameStream(got, data.section(want.dataOff, want.dataLen)) {
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
	var ba, bb [bodyio.ChunkSize]byte
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
