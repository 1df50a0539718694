package middleware

import (
	"bytes"
	"errors"
	"io"
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

// mediaPattern is a media type such as "text/plain", or "text/*".
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
// case, and its charset parameter. It reads the media type exactly as
// mime.ParseMediaType does (and so Request.ParseForm,
// Request.ParseMultipartForm and Echo's binder): strings.ToLower, which
// also maps some non-ASCII letters to ASCII ("applİcation/json" is
// application/json). A case-insensitive comparison such as
// strings.EqualFold does not, and would let such a body through unchecked.
// It does not allocate for a lower-case ASCII type.
func contentType(ct string) (typ, sub, charset string) {
	// The most common values, without the general parse below.
	switch ct {
	case "application/json":
		return "application", "json", ""
	case "application/json; charset=utf-8", "application/json;charset=utf-8":
		return "application", "json", "utf-8"
	case "application/json; charset=UTF-8":
		return "application", "json", "UTF-8"
	case "application/x-www-form-urlencoded":
		return "application", "x-www-form-urlencoded", ""
	case "text/plain; charset=utf-8":
		return "text", "plain", "utf-8"
	}
	return parseContentType(ct)
}

// parseContentType is contentType for any value.
func parseContentType(ct string) (typ, sub, charset string) {
	mt, params, _ := strings.Cut(ct, ";")
	typ, sub, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mt)), "/")
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if k = strings.TrimSpace(k); len(k) == len("charset") && strings.ToLower(k) == "charset" {
			charset = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return typ, sub, charset
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

// bodyLocation says which location a body of the given type (lower case,
// from contentType) belongs to, and whether the policy checks it.
func (p *policy) bodyLocation(typ, sub string) (rules.Location, bool) {
	var loc rules.Location
	switch {
	case typ == "application" && sub == "x-www-form-urlencoded":
		loc = rules.Form
	case typ == "application" && sub == "json", strings.HasSuffix(sub, "+json"),
		sub == "" && strings.HasSuffix(typ, "+json"):
		// application/json, and any type with the +json structured
		// syntax suffix (RFC 6839), under whatever top-level type, or
		// none: a handler that goes by the suffix decodes it as JSON.
		loc = rules.JSON
	case typ == "multipart" && sub == "form-data":
		loc = rules.Multipart
	case typ == "text" || matchMedia(p.bodyTypes, typ, sub):
		loc = rules.Body
	default:
		return 0, false
	}
	return loc, p.Location(loc).On
}

// initialBodyBuffer is the most readBody sets aside before the body's
// octets arrive.
const initialBodyBuffer = 64 << 10

// readBody reads the whole body of r, up to limit octets (negative: no
// limit). It returns the octets read and whether the body was over the
// limit; then what was read is followed in r.Body by the unread rest, so a
// monitored request loses nothing. On a read error, r.Body likewise gives
// what was read and then the same error.
//
// The octets go into buf's array if it is large enough for the declared
// length; the body returned may or may not share buf's array. When the
// body is over the limit or fails, r.Body holds on to what was read.
func readBody(r *http.Request, limit int64, buf []byte) ([]byte, bool, error) {
	if limit >= 0 && r.ContentLength > limit {
		return nil, true, nil
	}
	size := int64(512)
	if r.ContentLength >= 0 {
		size = r.ContentLength + 1 // +1 to see EOF without growing
	}
	if limit >= 0 && size > limit+1 {
		size = limit + 1
	}
	// Trust a declared length only so far: a client that claims 1 MiB and
	// sends nothing must not pin 1 MiB per connection. Past this the
	// buffer grows with what actually arrives.
	size = min(size, initialBodyBuffer)
	if int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			// Double, up to limit+1: the buffers of a body of unknown
			// length then add up to about twice the final one (append's
			// 1.25x growth for large slices made it five times).
			grow := int64(cap(buf))
			if limit >= 0 {
				grow = min(grow, limit+1-int64(cap(buf)))
			}
			buf = append(buf[:cap(buf)], make([]byte, max(grow, 1))...)[:len(buf)]
		}
		want := cap(buf)
		if limit >= 0 && int64(want) > limit+1 {
			want = int(limit + 1)
		}
		n, err := r.Body.Read(buf[len(buf):want])
		buf = buf[:len(buf)+n]
		if limit >= 0 && int64(len(buf)) > limit {
			r.Body = readCloser{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
			return nil, true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			r.Body = readCloser{io.MultiReader(bytes.NewReader(buf), errorReader{err}), r.Body}
			return nil, false, errors.Join(errBodyRead, err)
		}
	}
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
// set by an earlier middleware would give the body already read.
func setBody(r *http.Request, body []byte) *bufferedBody {
	b := &bufferedBody{}
	b.Reset(body)
	r.Body = b
	r.GetBody = nil
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	if v, ok := r.Header["Content-Length"]; ok && !(len(v) == 1 && v[0] == strconv.Itoa(len(body))) {
		r.Header["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	return b
}

// bufferedBody is a body read whole, as an io.ReadCloser: one allocation
// per request, where io.NopCloser(bytes.NewReader(body)) makes two.
type bufferedBody struct {
	bytes.Reader
	// pooled, when set, holds the body's array, which goes back to
	// bodyPool once the handler has returned (release).
	pooled *[]byte
}

// Close does nothing: the octets are released after the handler returns.
func (b *bufferedBody) Close() error { return nil }

// Request bodies are read into arrays from bodyPool, and an accepted body
// is handed to the handler from there: the array goes back to the pool
// when the handler returns, and the body reads as empty from then on. So a
// handler may keep what it read (io.ReadAll, a decoder: copies), but must
// not read the body after it returns, which net/http forbids anyway.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// maxPooledBody keeps one large body from pinning a large array.
const maxPooledBody = initialBodyBuffer

// release empties b and gives its array back to the pool; it does nothing
// for a nil b or one whose array is not pooled.
func (b *bufferedBody) release() {
	if b == nil || b.pooled == nil {
		return
	}
	b.Reset(nil)
	putBodyBuf(b.pooled)
	b.pooled = nil
}

func putBodyBuf(pb *[]byte) {
	if cap(*pb) <= maxPooledBody {
		*pb = (*pb)[:0]
		bodyPool.Put(pb)
	}
}

// checkBody reads and checks the body of r when p checks its media type.
// The handler always gets the whole body back, repaired where the policy
// repairs and unchanged otherwise.
func (s *scratch) checkBody(r *http.Request, p *policy) (*Rejection, error) {
	s.body, s.bodyLoc = nil, 0
	if !p.readsBody || r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	// r.Header.Get without canonicalizing a key that already is: net/http
	// stores the header under it.
	var ct string
	if v := r.Header["Content-Type"]; len(v) > 0 {
		ct = v[0]
	}
	typ, sub, charset := contentType(ct)
	loc, on := p.bodyLocation(typ, sub)
	if !on {
		return limitUnread(r, p), nil
	}
	if !utf8Charset(charset) {
		if p.RefuseCharsets {
			return &Rejection{Reason: sanitize.BadCharset, Location: loc, Field: safeField(charset), Err: sanitize.ErrBadCharset}, nil
		}
		return limitUnread(r, p), nil // not UTF-8: not ours to check
	}
	orig := r.Body
	pb := bodyPool.Get().(*[]byte)
	body, over, err := readBody(r, p.Limits.BodyBytes, *pb)
	if (err != nil || over) && p.Mode == rules.Enforce {
		// Refused: no handler will read what was read, so let it go now
		// rather than with the request, which outlives the response (a
		// connection closed after a refused body keeps its last request
		// for net/http's half-second RST-avoidance delay; Echo keeps it
		// in its context pool). net/http gets its own body back, to tell
		// whether to read the rest of it.
		r.Body = orig
	}
	if err != nil || over {
		// r.Body may still read from the array: it stays out of the pool.
		if err != nil {
			return nil, err
		}
		return tooLarge(loc, ""), nil
	}
	*pb = body[:0] // the array read into, which may have grown
	var rj *Rejection
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
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj != nil && p.Mode == rules.Monitor || rj == nil {
		if rj != nil {
			fixed = body // monitor: unchanged
		}
		s.lent = setBody(r, fixed)
		s.lent.pooled = pb
		s.body, s.bodyLoc = fixed, loc
	} else {
		putBodyBuf(pb) // refused: no one reads it
	}
	return rj, nil
}

// limitUnread bounds a body the policy does not read as text (a binary
// media type, none declared, another charset), on a route that checks
// bodies: a declared length over Limits.BodyBytes is refused (too_large,
// 413) before anything is read; a body of unknown length is cut off past
// the limit, and the handler's read fails with an *http.MaxBytesError. So
// a route's body limit holds whatever the body's type. The cut-off body is
// a limitedBody, which the adapters hand to the handler on a copy of the
// request (detachBody).
func limitUnread(r *http.Request, p *policy) *Rejection {
	limit := p.Limits.BodyBytes
	if limit < 0 {
		return nil
	}
	if r.ContentLength > limit {
		return tooLarge(rules.Body, "")
	}
	if r.ContentLength < 0 {
		r.Body = &limitedBody{http.MaxBytesReader(nil, r.Body, limit), r.Body}
	}
	return nil
}

// limitedBody is a body limitUnread cut off at the limit, and the body it
// wraps.
type limitedBody struct {
	io.ReadCloser               // the cut-off body
	orig          io.ReadCloser // the request's own body
}

// detachBody returns the request to hand to the handler: r itself, or,
// when limitUnread cut off its body, a shallow copy of r with the cut-off
// body, r keeping its own, as http.MaxBytesHandler does. net/http looks at
// the body of the request it made, after the handler, to tell whether the
// handler read it: a wrapper there makes it read the rest itself, and for
// a client that sent "Expect: 100-continue" and waits for an answer before
// sending, that read waits for a body never asked for, until ReadTimeout
// (or for ever), instead of answering at once and closing.
func detachBody(r *http.Request) *http.Request {
	lb, ok := r.Body.(*limitedBody)
	if !ok {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = lb.ReadCloser
	r.Body = lb.orig
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
