package middleware

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// errBodyRead wraps a failure to read the request body (a client that went
// away, a broken chunked encoding): the request is refused with 400, since
// the handler must never see part of a body.
var errBodyRead = errors.New("utf8guard: reading the request body failed")

// mediaPattern is a media type such as "text/plain", or a pattern:
// "text/*" matches every subtype of text.
type mediaPattern struct{ typ, sub string }

func parsePatterns(list []string) []mediaPattern {
	var out []mediaPattern
	for _, m := range list {
		typ, sub, _ := strings.Cut(strings.ToLower(strings.TrimSpace(m)), "/")
		out = append(out, mediaPattern{typ, sub})
	}
	return out
}

// matchMedia reports whether typ/sub, lower case as contentType returns
// them, matches one of pats.
func matchMedia(pats []mediaPattern, typ, sub string) bool {
	for _, p := range pats {
		if p.typ == typ && (p.sub == "*" || p.sub == sub) {
			return true
		}
	}
	return false
}

// contentType splits a Content-Type value into its type and subtype, lower
// case, and its charset parameter, exactly as mime.ParseMediaType reads
// them (and so Request.ParseForm, Request.MultipartReader and the handlers
// that call it): quoted strings, RFC 2231 continuations and "charset*"
// included. A value mime.ParseMediaType refuses gives three empty strings.
// It does not allocate for the most common values.
func contentType(ct string) (typ, sub, charset string) {
	typ, sub, charset, _ = parseMediaType(ct)
	return typ, sub, charset
}

// parseMediaType is contentType that also reports whether ct parses: an
// empty ct does (no media type), a value mime.ParseMediaType refuses does
// not.
func parseMediaType(ct string) (typ, sub, charset string, ok bool) {
	// The most common values, without the general parse below.
	switch ct {
	case "":
		return "", "", "", true
	case "application/json":
		return "application", "json", "", true
	case "application/json; charset=utf-8", "application/json;charset=utf-8":
		return "application", "json", "utf-8", true
	case "application/json; charset=UTF-8":
		return "application", "json", "UTF-8", true
	case "application/x-www-form-urlencoded":
		return "application", "x-www-form-urlencoded", "", true
	case "text/plain; charset=utf-8":
		return "text", "plain", "utf-8", true
	}
	if typ, sub, charset, ok := simpleMediaType(ct); ok {
		return typ, sub, charset, true
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", "", "", false
	}
	typ, sub, _ = strings.Cut(mt, "/")
	return typ, sub, params["charset"], true
}

// simpleMediaType parses, without allocating, the Content-Type values
// whose reading by mime.ParseMediaType is plain: a lower-case type/subtype
// of token characters, optionally followed by one parameter
// "charset=token" (the name in any case), with spaces and tabs around the
// parts. It reports false for every other value, which parseMediaType
// leaves to mime.ParseMediaType itself (TestSimpleMediaType and
// FuzzMediaType hold the two to the same answers).
func simpleMediaType(ct string) (typ, sub, charset string, ok bool) {
	mt, param, hasParam := strings.Cut(ct, ";")
	typ, sub, slash := strings.Cut(trimSpaceTab(mt), "/")
	if !slash || !isLowerToken(typ) || !isLowerToken(sub) {
		return "", "", "", false
	}
	if !hasParam {
		return typ, sub, "", true
	}
	k, v, eq := strings.Cut(param, "=")
	k, v = trimSpaceTab(k), trimSpaceTab(v)
	if !eq || len(k) != len("charset") || !strings.EqualFold(k, "charset") || !isToken(v) {
		return "", "", "", false
	}
	return typ, sub, v, true
}

// trimSpaceTab trims the white space mime.ParseMediaType trims around the
// parts of a media type that matter here: SP and HTAB. (It trims any
// Unicode white space; a value holding other white space is not simple.)
func trimSpaceTab(s string) string { return strings.Trim(s, " \t") }

// isToken reports whether s is a non-empty RFC 2045 token: ASCII
// printable characters but SP and tspecials.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// isLowerToken is isToken without upper-case letters, which
// mime.ParseMediaType would lower-case.
func isLowerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return isToken(s)
}

// utf8Charset reports whether a declared charset leaves the body UTF-8:
// none declared, UTF-8 or US-ASCII (a subset), under their common names.
func utf8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return true
	}
	return false
}

// mediaLocation says which location a body of media type typ/sub (lower
// case, from contentType) belongs to, and false for a type no location
// reads as text.
func (p *policy) mediaLocation(typ, sub string) (rules.Location, bool) {
	switch {
	case typ == "application" && sub == "x-www-form-urlencoded":
		return rules.Form, true
	case typ == "application" && sub == "json", strings.HasSuffix(sub, "+json"),
		sub == "" && strings.HasSuffix(typ, "+json"):
		// application/json, and any type with the +json structured
		// syntax suffix (RFC 6839), under whatever top-level type, or
		// none (mime.ParseMediaType takes "application+json"): a handler
		// that goes by the suffix decodes it as JSON.
		return rules.JSON, true
	case typ == "application" && sub == "xml", typ == "text" && sub == "xml", strings.HasSuffix(sub, "+xml"),
		sub == "" && strings.HasSuffix(typ, "+xml"):
		return rules.XML, true
	case typ == "multipart" && sub != "":
		// form-data and mixed, which Request.MultipartReader reads, and
		// every other subtype, which a handler's own multipart.Reader
		// reads as well.
		return rules.Multipart, true
	case typ == "text" || matchMedia(p.bodyTypes, typ, sub):
		return rules.Body, true
	}
	return 0, false
}

// binderLocation is the location Echo's DefaultBinder decodes a body of
// Content-Type ct as: it matches the raw header value by prefix, case
// and parameters included ("application/jsonx" is JSON to it), where
// mime.ParseMediaType reads "application/jsonx" as a type of its own.
func binderLocation(ct string) (rules.Location, bool) {
	switch {
	case strings.HasPrefix(ct, "application/json"):
		return rules.JSON, true
	case strings.HasPrefix(ct, "application/xml"), strings.HasPrefix(ct, "text/xml"):
		return rules.XML, true
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		return rules.Form, true
	case strings.HasPrefix(ct, "multipart/form-data"):
		return rules.Multipart, true
	}
	return 0, false
}

// bodyLocation says which location the body of Content-Type ct (and
// typ/sub, its parse) is checked as, and false for a body no location
// reads as text. Two readers decide how a handler decodes a body:
// mime.ParseMediaType (net/http's form and multipart readers, most
// handlers) and Echo's binder (a prefix of the raw value). Where only one
// of them sees a structured body, it is checked as that; where they see
// two different structured bodies ("application/xml+json" is XML to the
// binder and JSON by its suffix), no single check covers both readers,
// and the body is refused (bad_media_type).
func (p *policy) bodyLocation(ct, typ, sub string) (rules.Location, bool, *Rejection) {
	loc, ok := p.mediaLocation(typ, sub)
	bloc, bok := binderLocation(ct)
	switch {
	case !bok || ok && loc == bloc:
		return loc, ok, nil
	case !ok || loc == rules.Body:
		return bloc, true, nil
	}
	return 0, false, badMediaType(rules.Body, ct)
}

// badMediaType is the Rejection of a Content-Type value that cannot be
// read as one media type.
func badMediaType(loc rules.Location, ct string) *Rejection {
	return &Rejection{Reason: sanitize.BadMediaType, Location: loc, Field: "Content-Type",
		Sample: sample(ct, 0), Err: sanitize.ErrBadMediaType}
}

// requestContentType returns the request's Content-Type value, and false
// when it has several different ones: net/http's readers and Echo's
// binder take the first, a proxy or another framework may take the last.
func requestContentType(r *http.Request) (string, bool) {
	// r.Header["Content-Type"], not r.Header.Get: the key is canonical
	// already, as net/http stores it.
	v := r.Header["Content-Type"]
	if len(v) == 0 {
		return "", true
	}
	for _, o := range v[1:] {
		if o != v[0] {
			return v[0], false
		}
	}
	return v[0], true
}

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
		return s.passUnread(r, p)
	}
	if !p.Location(loc).On {
		return s.passUnread(r, p)
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
			return s.passUnread(r, p)
		}
	}
	body, over, err := s.readBody(r, p.Limits.BodyBytes, p.Mode == rules.Monitor)
	if err != nil {
		return &Rejection{Reason: sanitize.BodyUnreadable, Location: loc, Err: err}
	}
	if over {
		return tooLarge(loc, "")
	}
	// The body was read to its end: net/http has put its trailers, if
	// any, in r.Trailer.
	if rj := checkTrailers(r, p); rj != nil {
		handOn(r, p, body, rj)
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
		fixed, rj = checkJSON(body, p)
	case rules.Multipart:
		rj = checkMultipart(r, body, p)
	case rules.XML:
		rj = checkXML(body, &p.XML, p.RefuseCharsets)
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj == nil && loc != rules.Multipart {
		// What a JSON or XML decoder would read in it, whatever its type
		// (escapes.go); a multipart body's parts are its fields, and its
		// preamble and epilogue are scanned by checkOutsideParts.
		rj = checkEscapes(fixed, loc, p.Location(loc).Forbid, 0)
	}
	if rj == nil {
		handOn(r, p, fixed, nil)
		s.body, s.bodyLoc = fixed, loc
	} else {
		handOn(r, p, body, rj)
	}
	return rj
}

// handOn gives the handler the body read from r: in Monitor mode the body
// as it came, with r's length and transfer coding left as the client sent
// them; in Enforce mode the accepted (perhaps repaired) body with its
// length set, or nothing for a rejected request, which no handler reads.
func handOn(r *http.Request, p *policy, body []byte, rj *Rejection) {
	switch {
	case p.Mode == rules.Monitor:
		r.Body = newBodyReader(body)
	case rj == nil:
		setBody(r, body)
	}
}

// passUnread passes on a body the policy does not read as text (a binary
// media type, none declared, another charset), on a route that checks
// bodies. It bounds it: a declared length over Limits.BodyBytes is
// refused (too_large, 413) before anything is read; a body of unknown
// length is cut off past the limit, and the handler's read fails with an
// *http.MaxBytesError. So a route's body limit holds whatever the body's
// type. And it guards the trailers of a chunked body (trailerGuard). The
// wrapped body is an unreadBody, which the adapters hand to the handler
// on a copy of the request (detachBody).
func (s *scratch) passUnread(r *http.Request, p *policy) *Rejection {
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
	limit := p.Limits.BodyBytes
	if limit >= 0 && r.ContentLength > limit {
		return tooLarge(rules.Body, "")
	}
	if !chunked || p.Mode == rules.Monitor {
		// Monitor mode hands the body on as it came: a chunked body over
		// the limit is not cut, and its trailers are not guarded (what
		// Enforce would refuse there shows only when the handler reads).
		return nil
	}
	body := r.Body
	if limit >= 0 {
		body = http.MaxBytesReader(nil, body, limit)
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

// trailerGuard is the body of a chunked request whose body is passed on
// unread on a route that checks headers or cookies. net/http reads the
// trailers when the body reaches its end, and puts them in r.Trailer,
// announced or not. At that end, a trailer that names a checked header
// and fails the header check is removed from r.Trailer (the map the
// handler's copy of the request shares, once net/http has made it) and
// the read fails with a *Rejection of reason forbidden_trailer instead of
// io.EOF: the handler never reads an unchecked value there.
type trailerGuard struct {
	io.ReadCloser
	r *http.Request // the request net/http reads the body for
	p *policy
}

func (t *trailerGuard) Read(b []byte) (int, error) {
	n, err := t.ReadCloser.Read(b)
	if err == io.EOF {
		if rj := checkTrailers(t.r, t.p); rj != nil {
			for name := range t.r.Trailer {
				if t.p.checksHeader(name) {
					delete(t.r.Trailer, name)
				}
			}
			rj.Reason, rj.Err = sanitize.ForbiddenTrailer, errors.Join(sanitize.ErrForbiddenTrailer, rj.Err)
			return n, rj
		}
	}
	return n, err
}

// checksTrailers reports whether p checks any header a trailer could
// carry: listed headers, or cookies.
func (p *policy) checksTrailers() bool { return len(p.headers) > 0 || p.Cookies }

// checksHeader reports whether p checks the header name (canonical, as
// net/http stores header and trailer names).
func (p *policy) checksHeader(name string) bool {
	if p.Cookies && name == "Cookie" {
		return true
	}
	for _, h := range p.headers {
		if h == name {
			return true
		}
	}
	return false
}

// checkTrailers checks the trailers of r, once its body has been read to
// its end, as the headers of the same names are checked: listed headers
// and cookies. The Field of a Rejection names the trailer ("Trailer:X-Name").
func checkTrailers(r *http.Request, p *policy) *Rejection {
	if len(r.Trailer) == 0 || !p.checksTrailers() {
		return nil
	}
	for name, vals := range r.Trailer {
		if !p.checksHeader(name) {
			continue
		}
		var rj *Rejection
		if name == "Cookie" {
			rj = checkCookieLines(vals, p)
		} else {
			rj = checkHeaderValues(name, vals, p)
		}
		if rj != nil {
			rj.Field = "Trailer:" + rj.Field
			return rj
		}
	}
	return nil
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
