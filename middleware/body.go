package middleware

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

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

func matchMedia(pats []mediaPattern, typ, sub string) bool {
	for _, p := range pats {
		if strings.EqualFold(p.typ, typ) && (p.sub == "*" || strings.EqualFold(p.sub, sub)) {
			return true
		}
	}
	return false
}

// contentType splits a Content-Type value into its type, subtype and
// charset parameter, without allocating.
func contentType(ct string) (typ, sub, charset string) {
	mt, params, _ := strings.Cut(ct, ";")
	typ, sub, _ = strings.Cut(strings.TrimSpace(mt), "/")
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "charset") {
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

// bodyLocation says which location a body of the given type belongs to,
// and whether the policy checks it.
func (p *policy) bodyLocation(typ, sub string) (rules.Location, bool) {
	var loc rules.Location
	switch {
	case strings.EqualFold(typ, "application") && strings.EqualFold(sub, "x-www-form-urlencoded"):
		loc = rules.Form
	case strings.EqualFold(typ, "application") && (strings.EqualFold(sub, "json") || hasSuffixFold(sub, "+json")):
		loc = rules.JSON
	case strings.EqualFold(typ, "multipart") && strings.EqualFold(sub, "form-data"):
		loc = rules.Multipart
	case strings.EqualFold(typ, "text") || matchMedia(p.bodyTypes, typ, sub):
		loc = rules.Body
	default:
		return 0, false
	}
	return loc, p.Location(loc).On
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// readBody reads the whole body of r, up to limit octets (negative: no
// limit). It returns the octets read and whether the body was over the
// limit; then what was read is followed in r.Body by the unread rest, so a
// monitored request loses nothing.
func readBody(r *http.Request, limit int64) ([]byte, bool, error) {
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
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
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
			return nil, false, errors.Join(errBodyRead, err)
		}
	}
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// setBody hands body to the handler as r's body, complete and with a
// correct length.
func setBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	if r.Header.Get("Content-Length") != "" || len(body) > 0 {
		// Keep what the handler reads and what the header says in step.
		r.Header.Del("Content-Length")
	}
}

// checkBody reads and checks the body of r when p checks its media type.
// The handler always gets the whole body back, repaired where the policy
// repairs and unchanged otherwise.
func (s *scratch) checkBody(r *http.Request, p *policy) (*Rejection, error) {
	if !p.readsBody || r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	typ, sub, charset := contentType(r.Header.Get("Content-Type"))
	loc, on := p.bodyLocation(typ, sub)
	if !on {
		return nil, nil
	}
	if !utf8Charset(charset) {
		if p.RefuseCharsets {
			return &Rejection{Reason: sanitize.BadCharset, Location: loc, Field: safeField(charset), Err: sanitize.ErrBadCharset}, nil
		}
		return nil, nil // not UTF-8: not ours to check
	}
	body, over, err := readBody(r, p.Limits.BodyBytes)
	if err != nil {
		return nil, err
	}
	if over {
		return tooLarge(loc, ""), nil
	}
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
		fixed, rj = checkJSON(body, &p.JSON, p.Limits.JSONDepth)
	case rules.Multipart:
		rj = checkMultipart(r, body, p)
	case rules.Body:
		fixed, rj = checkText(body, &p.Body)
	}
	if rj != nil && p.Mode == rules.Monitor || rj == nil {
		if rj != nil {
			fixed = body // monitor: unchanged
		}
		setBody(r, fixed)
	}
	return rj, nil
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
