package middleware

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/middleware/internal/xmlbody"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// readBody reads the whole body of r, up to limit octets (negative: no
// limit), into memory of its own: in Enforce mode, one declared at most
// maxLentBytes long into pooled memory it records as the scratch's
// (lend), which handOn lends to the handler. It returns the body and
// whether it was over the limit; it reads at most limit+1 octets. A
// declared length over the limit is refused before reading.
//
// The memory it allocates is the body itself, plus, for a body whose
// length is not declared or declared over upfrontBytes, what it reads
// into before it knows the size: a body of declared length at most
// upfrontBytes is read into one buffer of that length, which the handler
// gets; a longer one into pooled chunks until a commitShare-th of it has
// arrived, then into one buffer of the declared length; a body of unknown
// length into pooled chunks and then segments that double the room, and
// is copied into one buffer of its length at the end. So the memory held
// grows with the octets that arrive, not with the length a client
// declares, beyond upfrontBytes and a commitShare-th.
//
// When the body is over the limit or its read fails, readBody returns no
// body; with keep (Monitor), r.Body then gives what was read followed by
// the unread rest, or by the same error, so a monitored request loses
// nothing.
//
// probe is working memory, a few octets, that the read telling the end of
// a body of declared length goes into.
func readBody(ls *lazyScratch, r *http.Request, limit int64, keep bool, probe []byte) (body []byte, over bool, err error) {
	cl := r.ContentLength
	if limit >= 0 && cl > limit {
		return nil, true, nil
	}
	if cl < 0 || cl > bodyio.UpfrontBytes {
		return ls.readGrowing(r, limit, keep, nil, nil, nil)
	}
	// In Enforce mode the body is read into pooled memory (bodyMem), which
	// the handler gets through a lentBody and the pipeline takes back once
	// the handler has returned. In Monitor mode, where what the handler
	// gets may be a reader of what was read followed by the error the read
	// failed with, it is memory of the body's own.
	var mem []byte
	var out []byte
	if keep || cl == 0 {
		out = make([]byte, cl)
	} else {
		mem = bodyio.TakeMem(int(cl))
		out = mem[:cl:cl]
	}
	for k := 0; ; {
		if k < len(out) {
			m, rerr := r.Body.Read(out[k:])
			k += m
			switch {
			case rerr == io.EOF:
				ls.lend(mem)
				return out[:k], false, nil
			case rerr != nil:
				return nil, false, bodyio.ReadFailed(r, out[:k], rerr, keep)
			}
			continue
		}
		// out holds the declared length: the read that tells the end
		// (net/http's body says io.EOF with the last octets, other
		// readers with none after them), at most up to one past the
		// limit.
		probe := probe[:min(len(probe), bodyio.Room(limit, k))]
		m, rerr := r.Body.Read(probe)
		switch {
		case m == 0 && rerr == io.EOF:
			ls.lend(mem)
			return out, false, nil
		case m == 0 && rerr == nil:
			continue
		}
		// More than declared, or a failure: on with what the probe read.
		return ls.readGrowing(r, limit, keep, out, probe[:m], rerr)
	}
}

// lend records mem, the pooled memory (takeBodyMem) a body was read whole
// into, as the scratch's: handOn lends it to the handler (lentBody), and
// whatever does not go that way is left to the collector.
func (ls *lazyScratch) lend(mem []byte) {
	if mem != nil {
		ls.get().mem = mem
	}
}

// readGrowing is work.readGrowing in the scratch's working memory, the
// pooled memory it returns recorded as the scratch's (lend).
func (ls *lazyScratch) readGrowing(r *http.Request, limit int64, keep bool, out, pre []byte, perr error) ([]byte, bool, error) {
	body, mem, over, err := ls.get().work.ReadGrowing(r, limit, keep, out, pre, perr)
	ls.lend(mem)
	return body, over, err
}

// reclaim puts back in its pool the memory the body of r, refused in
// Enforce mode with rj, was read into: no handler reads it. rj, which the
// log, OnReject and the ErrorHandler get, is first made to refer to
// memory of its own: its Field may be a member or field name in the body.
// A Rejection whose Err is not one known to refer to no request memory
// leaves the body's memory to the collector.
func (s *scratch) reclaim(r *http.Request, rj *Rejection) {
	lb := s.lent
	if lb != nil && r.Body != io.ReadCloser(lb) {
		lb = nil // replaced, and so not ours to take back
	}
	var spooled []byte // a multipart body's, gathered in pooled memory
	if sp := s.spool; sp != nil {
		spooled = sp.PooledBody()
	}
	if s.mem == nil && lb == nil && spooled == nil {
		return
	}
	switch err := rj.Err; {
	case err == nil, err == finding.ErrTooMany, err == finding.ErrFileTooLarge, err == rj.Reason.Sentinel():
	default:
		if _, ok := err.(*sanitize.Error); !ok {
			return
		}
	}
	rj.Field, rj.Sample = strings.Clone(rj.Field), strings.Clone(rj.Sample)
	if lb != nil {
		lb.Revoke()
	}
	if m := s.mem; m != nil {
		s.mem = nil
		bodyio.PutMem(m)
	}
	if spooled != nil {
		s.spool.DropPooled()
		bodyio.PutMem(spooled)
	}
}

// readBody is readBody with s as the scratch, and its probe.
func (s *scratch) readBody(r *http.Request, limit int64, keep bool) (body []byte, over bool, err error) {
	ls := lazyScratch{s: s, lent: true}
	return readBody(&ls, r, limit, keep, s.work.Probe[:])
}

// checkBody reads and checks the body of r when p checks its media type.
// The handler always gets the whole body back, repaired where the policy
// repairs and unchanged otherwise; in Monitor mode r keeps its length and
// transfer coding as the client sent them. A body that cannot be read
// whole is body_unreadable: none of it can be checked, and the handler
// must never see part of one (in Monitor mode its read fails as ours did,
// after the same octets).
func (s *scratch) checkBody(r *http.Request, p *compiled.Policy) *Rejection {
	s.body, s.bodyLoc = nil, 0
	if !checksBody(r, p) {
		return nil
	}
	ct, single := requestContentType(r)
	typ, sub, charset, parsed := media.Parse(ct)
	if !single || !parsed {
		return refused(r, p, finding.BadMediaType(rules.Body, ct))
	}
	loc, text, rj := bodyLocation(p, ct, typ, sub)
	if rj != nil {
		return refused(r, p, rj)
	}
	if !text {
		if p.RefuseUnlistedTypes && (ct == "" || !compiled.MatchMedia(p.BinaryPatterns, typ, sub)) {
			return refused(r, p, &Rejection{Reason: sanitize.UnsupportedMediaType, Location: rules.Body,
				Field: "Content-Type", Sample: finding.Sample(ct, 0), Err: sanitize.ErrUnsupportedMediaType})
		}
		return s.passUnread(r, p, p.Limits.BinaryBodyBytes)
	}
	if !p.Location(loc).On {
		return s.passText(r, p, loc) // read.go
	}
	if !media.UTF8Charset(charset) {
		if p.RefuseCharsets {
			return refused(r, p, &Rejection{Reason: sanitize.BadCharset, Location: loc, Field: finding.SafeField(charset),
				Err: sanitize.ErrBadCharset})
		}
		// Go's readers of forms (ParseForm, ParseMultipartForm), of JSON
		// (encoding/json, Echo's binder) and of multipart bodies ignore
		// the charset parameter and read the octets as UTF-8: those are
		// checked as UTF-8 all the same. A text or XML body in another
		// charset is left to a decoder for it: not ours to check.
		if loc == rules.Body || loc == rules.XML {
			return s.passText(r, p, loc)
		}
	}
	if !bodyio.HasBody(r) {
		return checkTrailers(r, p) // no text to check
	}
	if loc == rules.Multipart {
		// Checked as it streams in, through a spool (package upload), decoded
		// from its content coding as it comes (package bodyio), and on a
		// route that canonicalizes it, rebuilt in the same step: canonBody
		// has nothing left to do for it.
		sp, lent, rj := upload.Check(r, p, ct, s.store, checkTrailers)
		s.spool, s.body = sp, nil
		if lent != nil {
			s.lent = lent
		}
		return rj
	}
	// Read through the limit and decoded from its content coding; sent
	// is the body as it came (read.go).
	body, sent, rj := s.readText(r, p, loc)
	if rj != nil {
		return rj
	}
	// The body was read to its end: net/http has put its trailers, if
	// any, in r.Trailer.
	if rj := checkTrailers(r, p); rj != nil {
		s.handOn(r, p, body, sent, rj)
		return rj
	}
	fixed, noRefs := body, false
	switch loc {
	case rules.Form:
		var text string
		var changed bool
		text, changed, rj = s.pairs.CheckPairs(octets.BytesString(body), loc, &p.Form, p.FormMode, &p.Limits)
		if changed {
			// The repaired text is memory of its own, which nothing
			// else references (rebuildPairs): the handler gets it.
			fixed = octets.StringBytes(text)
		}
		if rj == nil {
			// The escapes of each decoded key and value (package escape);
			// the whole text's come below.
			rj = s.pairs.CheckFormEscapes(octets.BytesString(fixed), p.FormMode, &p.Form)
		}
	case rules.JSON:
		if jsonbody.IsLines(typ, sub) {
			fixed, rj = jsonbody.CheckLines(body, p)
		} else {
			fixed, noRefs, rj = jsonbody.Check(body, p)
		}
	case rules.XML:
		rj = xmlbody.Check(body, &p.XML, p.RefuseCharsets)
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj == nil && !noRefs {
		// What any decoder of a text type would read in it, whatever its type
		// (package escape); a multipart body's text parts are scanned one by
		// one (checkPartText), and its preamble and epilogue by
		// checkStream. (In a JSON body jsonbody.Check has decoded every
		// escape: one without an '&' or a '<' has nothing more for it.)
		rj = escape.Check(fixed, loc, p.Location(loc).Forbid, 0)
	}
	if rj == nil {
		s.handOn(r, p, fixed, sent, nil)
		s.body, s.bodyLoc = fixed, loc
	} else {
		s.handOn(r, p, body, sent, rj)
	}
	return rj
}

// checksBody reports whether checkBody has anything to do for r: a body
// that may hold octets, on a route that reads bodies or refuses unlisted
// media types. A body of declared length 0 that is not http.NoBody (Go's
// HTTP/2 server gives one to a request whose HEADERS frame ended the
// stream: every bodyless GET a browser sends over TLS) is read once to
// tell (hasBody); one of unknown length only where its check needs to
// know (refused, and before it is read as text).
func checksBody(r *http.Request, p *compiled.Policy) bool {
	return (p.ReadsBody || p.RefuseUnlistedTypes) && r.Body != nil && r.Body != http.NoBody &&
		(r.ContentLength != 0 || bodyio.HasBody(r))
}

// refused returns rj, the refusal of r's body for what its headers say of
// it, when the body holds an octet (hasBody). One that holds none is no
// body: only its trailers are checked. So the body of unknown length of a
// request refused for its headers is read once, as it would be if it were
// checked; one passed on unread is not read before the handler, whose
// client may be waiting for an answer to "Expect: 100-continue".
func refused(r *http.Request, p *compiled.Policy, rj *Rejection) *Rejection {
	if bodyio.HasBody(r) {
		return rj
	}
	return checkTrailers(r, p)
}

// handOn gives the handler the body read from r: in Monitor mode the body
// as it came (sent: still in its content coding), with r's length and
// transfer coding left as the client sent them; in Enforce mode the
// accepted (perhaps repaired, decoded) body with its length set, or
// nothing for a rejected request, which no handler reads.
//
// An accepted body the handler gets in the pooled memory it was read into
// (readBody) goes through a lentBody, which run hands the adapter to give
// back after the handler.
func (s *scratch) handOn(r *http.Request, p *compiled.Policy, body, sent []byte, rj *Rejection) {
	switch {
	case p.Mode == rules.Monitor:
		r.Body = bodyio.NewReader(sent)
	case rj == nil:
		if m := s.mem; m != nil && len(body) != 0 && &body[0] == &m[0] {
			lb := bodyio.NewLentBody(body, m)
			s.mem, s.lent = nil, lb
			bodyio.Install(r, lb, len(body))
			return
		}
		bodyio.SetBody(r, body)
	}
}

// passUnread passes on a body the policy does not read as text (a binary
// media type, none declared, another charset), on a route that checks
// bodies. It bounds it by limit (Limits.BinaryBodyBytes for a binary type,
// Limits.BodyBytes for text that is not checked): a declared length over
// it is refused (too_large, 413) before anything is read; a body of
// unknown length is cut off past the limit, the handler's read fails with
// an *http.MaxBytesError, and the pipeline logs a too_large line then
// (binaryLimit; the Echo adapters answer 413 when the handler returns
// the error: CutOff). So a route's limits hold whatever the body's type. And
// it guards the trailers of a chunked or HTTP/2 body (mayTrail,
// trailerGuard). The wrapped
// body is an unreadBody, which the adapters hand to the handler on a copy
// of the request (detachBody).
func (s *scratch) passUnread(r *http.Request, p *compiled.Policy, limit int64) *Rejection {
	chunked := r.ContentLength < 0
	trailers := mayTrail(r) && p.ChecksTrailers()
	if trailers {
		// A chunked body's trailers arrive only once the handler has read
		// it. A trailer the client announces (the Trailer header) that
		// names a checked header is refused now; one it does not announce
		// fails the handler's read at the end of the body (trailerGuard).
		for name := range r.Trailer {
			if p.ChecksHeader(name) {
				return &Rejection{Reason: sanitize.ForbiddenTrailer, Location: rules.Header,
					Field: "Trailer:" + finding.SafeField(name), Err: sanitize.ErrForbiddenTrailer}
			}
		}
	}
	if limit >= 0 && r.ContentLength > limit {
		return finding.TooLarge(rules.Body, "", limit)
	}
	if !chunked && !trailers || p.Mode == rules.Monitor {
		// Monitor mode hands the body on as it came: a chunked body over
		// the limit is not cut, and its trailers are not guarded (what
		// Enforce would refuse there shows only when the handler reads).
		return nil
	}
	body := r.Body
	if chunked && limit >= 0 {
		s.limited = &binaryLimit{ReadCloser: body, left: limit, limit: limit}
		body = s.limited
	}
	if trailers {
		body = &trailerGuard{ReadCloser: body, r: r, p: p}
	}
	if body != r.Body {
		r.Body = &unreadBody{body, r.Body}
	}
	return nil
}

// mayTrail reports whether r's body may end with trailers: a chunked
// HTTP/1.1 body, or the body of any HTTP/2 request, which may send a
// HEADERS frame of trailers after its DATA frames whatever its
// content-length says.
func mayTrail(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && (r.ContentLength < 0 || r.ProtoMajor >= 2)
}

// unreadBody is a body passUnread wrapped, and the body it wraps.
type unreadBody struct {
	io.ReadCloser               // the wrapped body, for the handler
	orig          io.ReadCloser // the request's own body
}

// detachBody returns the request to hand to the handler: r itself, or,
// when passUnread wrapped its body, a shallow copy of r with the wrapped
// body, r keeping its own, as http.MaxBytesHandler does. net/http looks at
// the body of the request it made, after the handler, to tell whether the
// handler read it: a wrapper there makes it read the rest itself, and for
// a client that sent "Expect: 100-continue" and waits for an answer before
// sending, that read waits for a body never asked for, until ReadTimeout
// (or for ever), instead of answering at once and closing. The two share
// one Trailer map, which net/http fills once the body is read.
func detachBody(r *http.Request) *http.Request {
	ub, ok := r.Body.(*unreadBody)
	if !ok {
		return r
	}
	if r.Trailer == nil {
		// net/http puts trailers it was not told of in a map it makes
		// then, in r's field: one made now is the copy's too.
		r.Trailer = http.Header{}
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = ub.ReadCloser
	r.Body = ub.orig
	return r2
}

// checkText checks a text body, repairing it if the check says so.
func checkText(body []byte, c *rules.Check) ([]byte, *Rejection) {
	err := sanitize.Check(body, c.Forbid)
	if err == nil {
		return body, nil
	}
	rj := finding.Reject(err, rules.Body, "", body)
	if !(c.Repair && finding.IsEncodingReason(rj.Reason)) {
		return nil, rj
	}
	fixed := sanitize.ToValid(body)
	if err := sanitize.CheckClasses(fixed, c.Forbid); err != nil {
		return nil, finding.Reject(err, rules.Body, "", fixed)
	}
	return fixed, nil
}

// canonBody canonicalizes a body that checkBody read and accepted; a
// multipart body was canonicalized as it was checked (upload.Check).
func (s *scratch) canonBody(r *http.Request, p *compiled.Policy) *Rejection {
	body, loc := s.body, s.bodyLoc
	if body == nil || !p.CanonAt(loc) {
		return nil // no body read: not a checked one
	}
	var out []byte
	switch loc {
	case rules.Form:
		// The canonical text is memory of its own, which nothing else
		// references (canonText): the handler gets it as it is.
		var rj *Rejection
		if out, rj = s.pairs.CanonText(octets.BytesString(body), loc, p); rj != nil {
			return rj
		}
	case rules.JSON:
		var rj *Rejection
		if out, rj = jsonbody.Canon(p, body); rj != nil {
			ct, _ := requestContentType(r)
			if typ, sub, _ := media.ContentType(ct); jsonbody.IsLines(typ, sub) {
				return jsonbody.NameLine(body, rj) // the line's index
			}
			return rj
		}
	case rules.XML:
		// XML is checked, not rewritten: text not in the form is refused.
		return xmlbody.Canon(p, body)
	case rules.Body:
		nb, changed, rj := compiled.CanonOf(p, loc, "", body, false)
		if rj != nil || !changed {
			return rj
		}
		if rj := compiled.Recheck(loc, "", nb, p.Body.Forbid, -1, 0); rj != nil {
			return rj
		}
		out = nb
	}
	if out == nil {
		return nil
	}
	// The body limit bounds the canonical form too: NFKC expands U+FDFA
	// eighteen times.
	if lim := p.Limits.BodyBytes; lim >= 0 && int64(len(out)) > lim {
		return finding.TooLarge(loc, "", lim)
	}
	// And the escapes any decoder of a text type would read in it: NFKC makes
	// "\u202E" of "＼ｕ２０２Ｅ", and "&#x85;" of "＆＃ｘ８５；" (package escape).
	if rj := escape.Check(out, loc, p.Location(loc).Forbid, 0); rj != nil {
		return rj
	}
	if p.Mode == rules.Enforce {
		if lb := s.lent; lb != nil && r.Body == io.ReadCloser(lb) {
			// The body lent a moment ago, which no handler has seen: its
			// reader reads the canonical form instead, memory of its own.
			// The pooled memory goes back after the handler (giveBack)
			// if the canonical form is not in it; nothing else of an
			// accepted request refers to it.
			lb.Swap(out)
			bodyio.Install(r, lb, len(out))
			return nil
		}
		bodyio.SetBody(r, out)
	}
	return nil
}

// binaryLimit bounds a binary body that is passed on unread and whose
// length is unknown (chunked): past limit octets, the handler's read fails
// with a *cutOffError, an *http.MaxBytesError to errors.As, and report
// (set by the pipeline: it logs a too_large line and returns its
// Rejection) runs, once.
type binaryLimit struct {
	io.ReadCloser
	left   int64
	limit  int64
	report func() *Rejection
	err    error
}

// cutOffError is the error of a read past a binaryLimit. It unwraps to
// the *http.MaxBytesError that net/http's own limit would give, and
// carries the too_large Rejection logged for it, so that an adapter can
// answer it as its own refusal when the handler returns the error
// (CutOff).
type cutOffError struct {
	mbe *http.MaxBytesError
	rj  *Rejection
}

func (e *cutOffError) Error() string { return e.mbe.Error() }

func (e *cutOffError) Unwrap() error { return e.mbe }

// CutOff returns the Rejection of a body the handler's read cut off past
// its limit, if err (what the handler returned) carries one and the
// route enforces its policy; nil otherwise.
//
// A route that checks bodies bounds the binary bodies it passes on
// unread too (Limits.BinaryBodyBytes). A body that declares its length is
// refused before the handler runs; a body of unknown length (chunked) can
// only be cut off when the handler reads past the limit: its read then
// fails with an error that errors.As finds to be an *http.MaxBytesError,
// and a too_large line is logged. A handler that returns that error, as
// Echo handlers do, gets the refusal the limit would have given before
// it ran: the Echo adapters answer it with OnReject and ErrorHandler
// (413) when nothing has been written yet, and a framework adapter over
// the Pipeline should do the same. A handler that swallows the error
// answers what it chooses; the log line is written either way.
func CutOff(err error) *Rejection {
	if err == nil {
		return nil // without a call: errors.As's target would be allocated
	}
	return cutOff(err)
}

func cutOff(err error) *Rejection {
	var ce *cutOffError
	if !errors.As(err, &ce) || ce.rj == nil || ce.rj.Mode != rules.Enforce {
		return nil
	}
	return ce.rj
}

func (l *binaryLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if int64(len(p))-1 > l.left {
		p = p[:l.left+1] // one past the limit tells it is over
	}
	n, err := l.ReadCloser.Read(p)
	if int64(n) <= l.left {
		l.left -= int64(n)
		return n, err
	}
	n = int(l.left)
	l.left = 0
	ce := &cutOffError{mbe: &http.MaxBytesError{Limit: l.limit}}
	if l.report != nil {
		ce.rj = l.report()
		l.report = nil
	}
	l.err = ce
	return n, l.err
}
