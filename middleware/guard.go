package middleware

import (
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"unsafe"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// policy is a rules.Policy compiled for the request path: everything that
// can be worked out once is.
type policy struct {
	rules.Policy
	off        bool     // checks nothing
	headers    []string // canonical header names, when Header.On
	pathMode   sanitize.EscapeMode
	queryMode  sanitize.EscapeMode
	formMode   sanitize.EscapeMode
	readsBody  bool // some body location is on
	bodyTypes  []mediaPattern
	multiTypes []mediaPattern
}

func compile(p rules.Policy) *policy {
	if p.Mode == rules.Monitor {
		// Monitor passes requests on unchanged: nothing is repaired, so an
		// ill-formed value is flagged instead.
		for l := range rules.Location(rules.NumLocations) {
			p.Location(l).Repair = false
		}
	}
	c := &policy{Policy: p, off: p.Off()}
	c.Limits = p.Limits.WithDefaults()
	if p.Header.On {
		for _, h := range p.Headers {
			c.headers = append(c.headers, textproto.CanonicalMIMEHeaderKey(h))
		}
	}
	c.pathMode = escapeMode(sanitize.EscapePath, p.Path)
	c.queryMode = escapeMode(sanitize.EscapeQuery, p.Query)
	c.formMode = escapeMode(sanitize.EscapeQuery, p.Form)
	c.readsBody = p.Form.On || p.JSON.On || p.Multipart.On || p.Body.On
	c.bodyTypes = parsePatterns(p.BodyTypes)
	c.multiTypes = parsePatterns(p.MultipartTextTypes)
	return c
}

func escapeMode(m sanitize.EscapeMode, c rules.Check) sanitize.EscapeMode {
	if c.RefuseDoubleEncoding {
		m |= sanitize.RefuseDoubleEncoding
	}
	return m
}

// scratch is the per-request working memory, pooled.
type scratch struct {
	buf []byte // decoded values
}

var scratchPool = sync.Pool{New: func() any { return &scratch{buf: make([]byte, 0, 1024)} }}

// maxPooledScratch keeps one huge request from pinning a huge buffer.
const maxPooledScratch = 64 << 10

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	if cap(s.buf) <= maxPooledScratch {
		s.buf = s.buf[:0]
		scratchPool.Put(s)
	}
}

// reject builds a Rejection for a sanitize error found in text at loc.
func reject[T string | []byte](err error, loc rules.Location, field string, text T) *Rejection {
	r := &Rejection{Location: loc, Field: field, Err: err}
	if e, ok := err.(*sanitize.Error); ok {
		r.Reason, r.Offset, r.Class = e.Reason, e.Offset, e.Class
	}
	r.Sample = sample(text, r.Offset)
	return r
}

func tooLarge(loc rules.Location, field string) *Rejection {
	return &Rejection{Reason: sanitize.TooLarge, Location: loc, Field: field, Err: sanitize.ErrTooLarge}
}

// isEncodingReason reports whether r is a UTF-8 malformation, the kind a
// Repair check mends.
func isEncodingReason(r sanitize.Reason) bool {
	return r >= sanitize.Overlong && r <= sanitize.UnexpectedContinuation
}

// checkPath checks the escaped path of r, and reports whether it repaired
// (rewrote) the path.
func (s *scratch) checkPath(r *http.Request, p *policy) (rej *Rejection, repaired bool) {
	raw := r.URL.EscapedPath()
	if p.Limits.PathBytes >= 0 && len(raw) > p.Limits.PathBytes {
		return tooLarge(rules.Path, ""), false
	}
	if strings.IndexByte(raw, '%') < 0 {
		// Nothing to decode: the raw path is the value.
		err := sanitize.CheckString(raw, p.Path.Forbid)
		if err == nil {
			return nil, false
		}
		if rj := reject(err, rules.Path, "", raw); !(p.Path.Repair && isEncodingReason(rj.Reason)) {
			return rj, false
		}
		return nil, repairPath(r, raw, p)
	}
	dec, err := sanitize.AppendUnescape(s.buf[:0], raw, p.pathMode)
	s.buf = dec[:0]
	if err == nil {
		err = sanitize.CheckClasses(dec, p.Path.Forbid)
	}
	if err == nil {
		return nil, false
	}
	rj := reject(err, rules.Path, "", dec)
	if rj.Reason == sanitize.BadEscape || rj.Reason == sanitize.DoubleEncoding {
		rj.Sample = sample(raw, rj.Offset)
		return rj, false
	}
	if !(p.Path.Repair && isEncodingReason(rj.Reason)) {
		return rj, false
	}
	return nil, repairPath(r, raw, p)
}

// repairPath rewrites the path of r with each ill-formed sequence of each
// segment replaced by U+FFFD. Encoded slashes stay encoded. It reports
// whether the repaired path passes the rest of the policy; when it does not,
// the request is left as it was and the path rejected by the caller's next
// check.
func repairPath(r *http.Request, raw string, p *policy) bool {
	var dec, enc []byte
	for seg := range strings.SplitSeq(raw, "/") {
		d, err := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment)
		if err != nil {
			if e := err.(*sanitize.Error); !isEncodingReason(e.Reason) {
				return false
			}
		}
		d = sanitize.ToValid(d)
		if sanitize.CheckClasses(d, p.Path.Forbid) != nil {
			return false
		}
		dec = append(dec, d...)
		dec = append(dec, '/')
		enc = sanitize.AppendEscape(enc, string(d), sanitize.EscapePathSegment)
		enc = append(enc, '/')
	}
	r.URL.Path = string(dec[:len(dec)-1])
	r.URL.RawPath = string(enc[:len(enc)-1])
	return true
}

// checkParams decodes and validates Echo's path parameter values. When the
// router matched on URL.RawPath, Echo hands the raw escaped text of each
// parameter to the handler; this returns the decoded values instead (nil
// when nothing changes).
func (s *scratch) checkParams(r *http.Request, names, values []string, p *policy) ([]string, *Rejection) {
	if r.URL.RawPath == "" {
		return nil, nil // the router matched the decoded path: values are decoded
	}
	var out []string
	for i, v := range values {
		if strings.IndexByte(v, '%') < 0 {
			continue
		}
		dec, err := sanitize.Unescape(v, p.pathMode)
		if err == nil {
			err = sanitize.CheckClassesString(dec, p.Path.Forbid)
		}
		if err != nil {
			name := ""
			if i < len(names) {
				name = names[i]
			}
			if p.Path.Repair {
				if e := err.(*sanitize.Error); isEncodingReason(e.Reason) {
					dec = sanitize.ToValidString(dec)
					err = sanitize.CheckClassesString(dec, p.Path.Forbid)
				}
			}
			if err != nil {
				return nil, reject(err, rules.Path, name, v)
			}
		}
		if out == nil {
			out = append([]string(nil), values...)
		}
		out[i] = dec
	}
	return out, nil
}

// checkHeaders checks the values of the headers p lists.
func checkHeaders(r *http.Request, p *policy) *Rejection {
	for _, name := range p.headers {
		vals := r.Header[name]
		for i, v := range vals {
			if p.Limits.FieldBytes >= 0 && len(v) > p.Limits.FieldBytes {
				return tooLarge(rules.Header, name)
			}
			err := sanitize.CheckString(v, p.Header.Forbid)
			if err == nil {
				continue
			}
			rj := reject(err, rules.Header, name, v)
			if !(p.Header.Repair && isEncodingReason(rj.Reason)) {
				return rj
			}
			fixed := sanitize.ToValidString(v)
			if err := sanitize.CheckString(fixed, p.Header.Forbid); err != nil {
				return reject(err, rules.Header, name, fixed)
			}
			vals[i] = fixed
		}
	}
	return nil
}

// bytesString returns b as a string without copying. The caller must not
// change b while the string is in use; the middleware uses it for bodies it
// has read and never writes to again.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
