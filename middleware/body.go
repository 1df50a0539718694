package middleware

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// errBodyRead wraps a failure to read the request body (a client that went
// away, a broken chunked encoding): the request is refused with 400, since
// the handler must never see part of a body.
var errBodyRead = errors.New("utf8guard: reading the request body failed")

// chunkSize is the size of the arrays a body is read into.
const chunkSize = 8 << 10

// chunkPool holds the arrays bodies are read into. They are working
// memory only: a body is copied out of them into memory of its own before
// anything else sees it, so no handler, goroutine or timeout wrapper ever
// holds a pooled array, and a slow reader can never see another request's
// octets in one.
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// readBody reads the whole body of r, up to limit octets (negative: no
// limit), into memory of its own. It returns the body and whether it was
// over the limit. The memory it holds while it reads grows with the octets
// that arrive, one chunk at a time, never with the length a client
// declares (a declared length over the limit is refused before reading).
//
// When the body is over the limit or its read fails, readBody returns no
// body; with keep (Monitor), r.Body then gives what was read followed by
// the unread rest, or by the same error, so a monitored request loses
// nothing.
func (s *scratch) readBody(r *http.Request, limit int64, keep bool) (body []byte, over bool, err error) {
	if limit >= 0 && r.ContentLength > limit {
		return nil, true, nil
	}
	defer s.dropChunks()
	n := 0 // octets read
	for {
		off := n % chunkSize
		if off == 0 && n/chunkSize == len(s.chunks) {
			s.chunks = append(s.chunks, chunkPool.Get().(*[chunkSize]byte))
		}
		buf := s.chunks[n/chunkSize][off:]
		if limit >= 0 && int64(len(buf)) > limit+1-int64(n) {
			buf = buf[:limit+1-int64(n)] // one past the limit tells it is over
		}
		k, rerr := r.Body.Read(buf)
		n += k
		switch {
		case limit >= 0 && int64(n) > limit:
			if keep {
				r.Body = readCloser{io.MultiReader(bytes.NewReader(s.gather(n)), r.Body), r.Body}
			}
			return nil, true, nil
		case rerr == io.EOF:
			return s.gather(n), false, nil
		case rerr != nil:
			if keep {
				r.Body = readCloser{io.MultiReader(bytes.NewReader(s.gather(n)), errorReader{rerr}), r.Body}
			}
			return nil, false, errors.Join(errBodyRead, rerr)
		}
	}
}

// gather copies the first n octets of the chunks into a new slice.
func (s *scratch) gather(n int) []byte {
	out := make([]byte, n)
	for i := 0; i*chunkSize < n; i++ {
		copy(out[i*chunkSize:], s.chunks[i][:])
	}
	return out
}

// maxPooledChunks is how many chunks of one body go back to the pool: a
// large body must not leave its whole size pooled behind it.
const maxPooledChunks = 8

// dropChunks gives the chunks back to the pool, up to maxPooledChunks of
// them, and leaves the rest to the collector.
func (s *scratch) dropChunks() {
	for i, c := range s.chunks {
		if i < maxPooledChunks {
			chunkPool.Put(c)
		}
		s.chunks[i] = nil
	}
	s.chunks = s.chunks[:0]
}

// errorReader always fails with err.
type errorReader struct{ err error }

func (e errorReader) Read([]byte) (int, error) { return 0, e.err }

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// setBody hands body to the handler as r's body, complete and with a
// correct length: ContentLength, and the Content-Length header when the
// client sent one (a chunked body has none, and gets none). GetBody, a
// client-side field that a server request does not have, is cleared: one
// set by an earlier middleware would give the body already read. body is
// the handler's from then on: nothing else writes to it or reuses it.
func setBody(r *http.Request, body []byte) {
	r.Body = newBodyReader(body)
	r.GetBody = nil
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	if v, ok := r.Header["Content-Length"]; ok && !(len(v) == 1 && v[0] == strconv.Itoa(len(body))) {
		r.Header["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
}

// bodyReader is a body read whole, as an io.ReadCloser: one allocation,
// where io.NopCloser(bytes.NewReader(body)) makes two.
type bodyReader struct{ bytes.Reader }

func newBodyReader(body []byte) *bodyReader {
	b := &bodyReader{}
	b.Reset(body)
	return b
}

// Close does nothing.
func (b *bodyReader) Close() error { return nil }

// checkBody reads and checks the body of r when p checks its media type.
// The handler always gets the whole body back, repaired where the policy
// repairs and unchanged otherwise; in Monitor mode r keeps its length and
// transfer coding as the client sent them. A body that cannot be read
// whole is body_unreadable: none of it can be checked, and the handler
// must never see part of one (in Monitor mode its read fails as ours did,
// after the same octets).
func (s *scratch) checkBody(r *http.Request, p *policy) *Rejection {
	s.body, s.bodyLoc = nil, 0
	if !p.readsBody && !p.RefuseUnlistedTypes || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	ct, single := requestContentType(r)
	typ, sub, charset, parsed := parseMediaType(ct)
	if !single || !parsed {
		return badMediaType(rules.Body, ct)
	}
	loc, text, rj := p.bodyLocation(ct, typ, sub)
	if rj != nil {
		return rj
	}
	if !text {
		if p.RefuseUnlistedTypes && (ct == "" || !matchMedia(p.binaryTypes, typ, sub)) {
			return &Rejection{Reason: sanitize.UnsupportedMediaType, Location: rules.Body, Field: "Content-Type",
				Sample: sample(ct, 0), Err: sanitize.ErrUnsupportedMediaType}
		}
		return s.passUnread(r, p, p.Limits.BinaryBodyBytes)
	}
	if !p.Location(loc).On {
		return s.passText(r, p, loc) // encoding.go
	}
	if !utf8Charset(charset) {
		if p.RefuseCharsets {
			return &Rejection{Reason: sanitize.BadCharset, Location: loc, Field: safeField(charset), Err: sanitize.ErrBadCharset}
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
	if loc == rules.Multipart {
		coded := false
		if len(r.Header["Content-Encoding"]) != 0 {
			c, rj := requestCoding(r, loc)
			if rj != nil {
				return rj
			}
			coded = c != identity
		}
		if !coded {
			// Checked as it streams in, through a spool (upload.go). A
			// multipart body with a content coding (which no browser
			// sends) is decoded whole, below, within the text limit.
			return s.checkMultipartBody(r, p, ct)
		}
	}
	// Read through the limit and decoded from its content coding; sent
	// is the body as it came (encoding.go).
	body, sent, rj := s.readText(r, p, loc)
	if rj != nil {
		return rj
	}
	// The body was read to its end: net/http has put its trailers, if
	// any, in r.Trailer.
	if rj := checkTrailers(r, p); rj != nil {
		handOn(r, p, body, sent, rj)
		return rj
	}
	fixed := body
	switch loc {
	case rules.Form:
		var text string
		var changed bool
		text, changed, rj = s.checkPairs(bytesString(body), loc, &p.Form, p.formMode, &p.Limits)
		if changed {
			fixed = []byte(text)
		}
	case rules.JSON:
		fixed, rj = checkJSONBody(body, p, typ, sub) // or JSON lines: jsonlines.go
	case rules.Multipart:
		rj = checkMultipart(r, body, p) // a coded body, decoded in memory
	case rules.XML:
		rj = checkXML(body, &p.XML, p.RefuseCharsets)
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj == nil {
		// What a JSON or XML decoder would read in it, whatever its type
		// (escapes.go); a multipart body's parts are its fields, and its
		// preamble and epilogue are scanned by checkStream.
		rj = checkEscapes(fixed, loc, p.Location(loc).Forbid, 0)
	}
	if rj == nil {
		handOn(r, p, fixed, sent, nil)
		s.body, s.bodyLoc = fixed, loc
	} else {
		handOn(r, p, body, sent, rj)
	}
	return rj
}

// handOn gives the handler the body read from r: in Monitor mode the body
// as it came (sent: still in its content coding), with r's length and
// transfer coding left as the client sent them; in Enforce mode the
// accepted (perhaps repaired, decoded) body with its length set, or
// nothing for a rejected request, which no handler reads.
func handOn(r *http.Request, p *policy, body, sent []byte, rj *Rejection) {
	switch {
	case p.Mode == rules.Monitor:
		r.Body = newBodyReader(sent)
	case rj == nil:
		setBody(r, body)
	}
}

// passUnread passes on a body the policy does not read as text (a binary
// media type, none declared, another charset), on a route that checks
// bodies. It bounds it by limit (Limits.BinaryBodyBytes for a binary type,
// Limits.BodyBytes for text that is not checked): a declared length over
// it is refused (too_large, 413) before anything is read; a body of
// unknown length is cut off past the limit, the handler's read fails with
// an *http.MaxBytesError, and the pipeline logs a too_large line then
// (binaryLimit). So a route's limits hold whatever the body's type. And
// it guards the trailers of a chunked body (trailerGuard). The wrapped
// body is an unreadBody, which the adapters hand to the handler on a copy
// of the request (detachBody).
func (s *scratch) passUnread(r *http.Request, p *policy, limit int64) *Rejection {
	chunked := r.ContentLength < 0
	if chunked && p.checksTrailers() {
		// A chunked body's trailers arrive only once the handler has read
		// it. A trailer the client announces (the Trailer header) that
		// names a checked header is refused now; one it does not announce
		// fails the handler's read at the end of the body (trailerGuard).
		for name := range r.Trailer {
			if p.checksHeader(name) {
				return &Rejection{Reason: sanitize.ForbiddenTrailer, Location: rules.Header,
					Field: "Trailer:" + safeField(name), Err: sanitize.ErrForbiddenTrailer}
			}
		}
	}
	if limit >= 0 && r.ContentLength > limit {
		return tooLarge(rules.Body, "", limit)
	}
	if !chunked || p.Mode == rules.Monitor {
		// Monitor mode hands the body on as it came: a chunked body over
		// the limit is not cut, and its trailers are not guarded (what
		// Enforce would refuse there shows only when the handler reads).
		return nil
	}
	body := r.Body
	if limit >= 0 {
		s.limited = &binaryLimit{ReadCloser: body, left: limit, limit: limit}
		body = s.limited
	}
	if p.checksTrailers() {
		body = &trailerGuard{ReadCloser: body, r: r, p: p}
	}
	if body != r.Body {
		r.Body = &unreadBody{body, r.Body}
	}
	return nil
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
// (or for ever), instead of answering at once and closing.
func detachBody(r *http.Request) *http.Request {
	ub, ok := r.Body.(*unreadBody)
	if !ok {
		return r
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
	rj := reject(err, rules.Body, "", body)
	if !(c.Repair && isEncodingReason(rj.Reason)) {
		return nil, rj
	}
	fixed := sanitize.ToValid(body)
	if err := sanitize.CheckClasses(fixed, c.Forbid); err != nil {
		return nil, reject(err, rules.Body, "", fixed)
	}
	return fixed, nil
}

// canonBody canonicalizes a body that checkBody read and accepted.
func (s *scratch) canonBody(r *http.Request, p *policy) *Rejection {
	body, loc := s.body, s.bodyLoc
	if loc == rules.Multipart && body == nil && s.spool != nil && p.canonAt(loc) {
		return s.canonSpool(r, p) // spooled to a file (upload.go)
	}
	if body == nil || !p.canonAt(loc) {
		return nil // no body read: not a checked one
	}
	var out []byte
	switch loc {
	case rules.Form:
		text, rj := s.canonText(bytesString(body), loc, p)
		if rj != nil || text == "" {
			return rj
		}
		out = []byte(text)
	case rules.JSON:
		var rj *Rejection
		if out, rj = p.canonJSON(body); rj != nil {
			return jsonLinesField(r, body, rj) // the line's index, for JSON lines
		}
	case rules.Multipart:
		var rj *Rejection
		if out, rj = p.canonMultipart(r, body); rj != nil {
			return rj
		}
	case rules.XML:
		// XML is checked, not rewritten: text not in the form is refused.
		return p.canonXML(body)
	case rules.Body:
		nb, changed, rj := p.canonOf(loc, "", body, false)
		if rj != nil || !changed {
			return rj
		}
		if rj := recheck(loc, "", nb, p.Body.Forbid, -1, 0); rj != nil {
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
		return tooLarge(loc, "", lim)
	}
	// And the escapes a JSON or XML decoder would read in it: NFKC makes
	// "\u202E" of "＼ｕ２０２Ｅ", and "&#x85;" of "＆＃ｘ８５；" (escapes.go).
	if loc != rules.Multipart {
		if rj := checkEscapes(out, loc, p.Location(loc).Forbid, 0); rj != nil {
			return rj
		}
	}
	if p.Mode == rules.Enforce {
		setBody(r, out)
	}
	return nil
}
