package middleware

import (
	"net/http"
	"net/textproto"
	"strings"
	"sync"
	"unsafe"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// policy is a rules.Policy compiled for the request path: everything that
// can be worked out once is.
type policy struct {
	rules.Policy
	off         bool     // checks nothing
	headers     []string // canonical header names, when Header.On
	pathMode    sanitize.EscapeMode
	queryMode   sanitize.EscapeMode
	formMode    sanitize.EscapeMode
	readsBody   bool // some body location is on
	bodyTypes   []mediaPattern
	binaryTypes []mediaPattern
	multiTypes  []mediaPattern

	// Canonicalization (canon.go).
	canon      bool           // something to canonicalize
	form       normalize.Form // the route's normalization, or None
	precis     map[precisKey]normalize.Profile
	precisLocs uint16      // bit l set when a PRECIS field is in location l
	jsonPrecis *precisNode // the JSON PRECIS pointers, as a trie (json_canon.go)
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
	c.readsBody = p.Form.On || p.JSON.On || p.XML.On || p.Multipart.On || p.Body.On
	c.bodyTypes = parsePatterns(p.BodyTypes)
	c.binaryTypes = parsePatterns(p.BinaryTypes)
	c.multiTypes = parsePatterns(p.MultipartTextTypes)
	c.compileCanon()
	return c
}

func escapeMode(m sanitize.EscapeMode, c rules.Check) sanitize.EscapeMode {
	if c.RefuseDoubleEncoding {
		m |= sanitize.RefuseDoubleEncoding
	}
	return m
}

// scratch is the per-request working memory, pooled. Nothing in it is
// ever handed to a handler: what a handler reads is memory of its own
// (readBody, setBody), so no handler, goroutine or timeout wrapper that
// outlives the middleware can see another request's octets.
type scratch struct {
	buf []byte // decoded values
	// The body checkBody accepted and handed to the handler, and its
	// location, for canonicalization; nil when no body was read. Cleared
	// before the scratch goes back to the pool.
	body    []byte
	bodyLoc rules.Location
	// chunks holds the pooled arrays readBody reads a body into.
	chunks []*[chunkSize]byte
}

var scratchPool = sync.Pool{New: func() any { return &scratch{buf: make([]byte, 0, 1024)} }}

// maxPooledScratch keeps one huge request from pinning a huge buffer.
const maxPooledScratch = 64 << 10

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	s.body = nil
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

// firstViolation returns err, or, when err is a UTF-8 error at offset k of
// the decoded text dec, the first character of dec[:k] that forbid
// refuses: the violation at the lowest offset, as sanitize.Check reports
// it for text without escapes.
func firstViolation(err error, dec []byte, forbid sanitize.Class) error {
	if e, ok := err.(*sanitize.Error); ok && forbid != 0 && isEncodingReason(e.Reason) && e.Offset <= len(dec) {
		if cerr := sanitize.CheckClasses(dec[:e.Offset], forbid); cerr != nil {
			return cerr
		}
	}
	return err
}

// isEncodingReason reports whether r is a UTF-8 malformation, the kind a
// Repair check mends.
func isEncodingReason(r sanitize.Reason) bool {
	return r >= sanitize.Overlong && r <= sanitize.UnexpectedContinuation
}

// checkPath checks the escaped path of r, and reports whether it repaired
// (rewrote) the path.
func (s *scratch) checkPath(r *http.Request, p *policy) (rej *Rejection, repaired bool) {
	if r.URL.RawPath == "" {
		return checkDecodedPath(r, p)
	}
	return s.checkEscapedPath(r, r.URL.EscapedPath(), p)
}

// checkDecodedPath checks a path without a RawPath, the common case (Go
// leaves RawPath empty when escaping Path gives back what the client
// sent, upper-case escapes included). URL.Path is then the decoded value,
// checked as it is, and the escaped path is the escaping of URL.Path,
// which is only built (URL.EscapedPath allocates) when a rejection or a
// repair needs it. The result is checkEscapedPath's for that escaped path:
// its length is the one limited, and a '%' followed by two hexadecimal
// digits in Path is, escaped, a "%25" followed by them: double encoding.
func checkDecodedPath(r *http.Request, p *policy) (*Rejection, bool) {
	path := r.URL.Path
	if p.Limits.PathBytes >= 0 && len(path) > p.Limits.PathBytes/3 && escapedPathLen(path) > p.Limits.PathBytes {
		return tooLarge(rules.Path, ""), false
	}
	if p.Path.RefuseDoubleEncoding {
		for i := strings.IndexByte(path, '%'); i >= 0; {
			if i+2 < len(path) && isHex(path[i+1]) && isHex(path[i+2]) {
				off := escapedLen(path[:i])
				return &Rejection{Reason: sanitize.DoubleEncoding, Location: rules.Path, Offset: off,
					Sample: sample(r.URL.EscapedPath(), off),
					Err:    &sanitize.Error{Reason: sanitize.DoubleEncoding, Offset: off}}, false
			}
			j := strings.IndexByte(path[i+1:], '%')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	err := sanitize.CheckString(path, p.Path.Forbid)
	if err == nil {
		return nil, false
	}
	rj := reject(err, rules.Path, "", path)
	if !(p.Path.Repair && isEncodingReason(rj.Reason)) {
		return rj, false
	}
	if rj := repairPath(r, r.URL.EscapedPath(), p); rj != nil {
		return rj, false
	}
	return nil, true
}

// escapedPathLen is len(u.EscapedPath()) for a URL u with Path path and no
// RawPath.
func escapedPathLen(path string) int {
	if path == "*" {
		return 1 // not escaped (net/url, Go issue 11202)
	}
	return escapedLen(path)
}

// escapedLen is the length of s escaped as net/url escapes a path: the
// octets it escapes count three.
func escapedLen(path string) int {
	n := len(path)
	for i := 0; i < len(path); i++ {
		if c := path[i]; pathKeep[c>>6]&(1<<(c&63)) == 0 {
			n += 2
		}
	}
	return n
}

// pathKeep is the set of octets net/url leaves unescaped in a path
// (shouldEscape with encodePath): ALPHA, DIGIT, "-._~", "$&+,/:;=@".
var pathKeep = func() (s [4]uint64) {
	const keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~$&+,/:;=@"
	for i := 0; i < len(keep); i++ {
		s[keep[i]>>6] |= 1 << (keep[i] & 63)
	}
	return s
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// checkEscapedPath checks the escaped path raw of r.
func (s *scratch) checkEscapedPath(r *http.Request, raw string, p *policy) (rej *Rejection, repaired bool) {
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
		if rj := repairPath(r, raw, p); rj != nil {
			return rj, false
		}
		return nil, true
	}
	dec, err := sanitize.AppendUnescape(s.buf[:0], raw, p.pathMode)
	s.buf = dec[:0]
	if err == nil {
		err = sanitize.CheckClasses(dec, p.Path.Forbid)
	} else {
		err = firstViolation(err, dec, p.Path.Forbid)
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
	if rj := repairPath(r, raw, p); rj != nil {
		return rj, false
	}
	return nil, true
}

// repairPath rewrites the path of r with each ill-formed sequence of each
// segment replaced by U+FFFD; encoded slashes stay encoded. raw has passed
// the strict decoding but for UTF-8 errors (no bad or double escapes). The
// repaired path must still pass the policy's character classes: when it
// does not, repairPath leaves r alone and returns the rejection.
func repairPath(r *http.Request, raw string, p *policy) *Rejection {
	var dec, enc []byte
	for seg := range strings.SplitSeq(raw, "/") {
		d, err := sanitize.AppendUnescape(nil, seg, sanitize.EscapePathSegment)
		if err != nil {
			if e := err.(*sanitize.Error); !isEncodingReason(e.Reason) {
				return reject(err, rules.Path, "", seg) // cannot happen: raw decoded
			}
		}
		d = sanitize.ToValid(d)
		dec = append(dec, d...)
		dec = append(dec, '/')
		enc = sanitize.AppendEscape(enc, bytesString(d), sanitize.EscapePathSegment)
		enc = append(enc, '/')
	}
	dec, enc = dec[:len(dec)-1], enc[:len(enc)-1]
	if err := sanitize.CheckClasses(dec, p.Path.Forbid); err != nil {
		return reject(err, rules.Path, "", dec)
	}
	r.URL.Path = string(dec)
	r.URL.RawPath = string(enc)
	return nil
}

// checkParams decodes and validates Echo's path parameter values, which
// the router cut from URL.RawPath when that was set (routedRaw) and from
// the decoded URL.Path otherwise. From RawPath, Echo hands the handler the
// raw escaped text of each parameter; this decodes it. When the path was
// repaired after routing, the values are repaired as the path was. It
// returns the new values, or nil when nothing changes.
//
// The classes apply as they did to the whole path, which has passed
// them, but for BOM, which counts at the start of a value: a parameter is
// a value of its own to the handler, so a leading U+FEFF is refused at the
// start of each parameter (paramBOM), as at the start of each query value.
func (s *scratch) checkParams(names, values []string, p *policy, routedRaw, repaired bool) ([]string, *Rejection) {
	if !routedRaw && !repaired {
		// Cut from the decoded path, which has passed.
		for i, v := range values {
			if rj := paramBOM(names, i, v, p); rj != nil {
				return nil, rj
			}
		}
		return nil, nil
	}
	forbid := p.Path.Forbid &^ sanitize.BOM
	var out []string
	for i, v := range values {
		decode := routedRaw && strings.IndexByte(v, '%') >= 0
		if !decode && !repaired {
			if rj := paramBOM(names, i, v, p); rj != nil {
				return nil, rj
			}
			continue
		}
		dec, err := v, error(nil)
		if decode {
			dec, err = sanitize.Unescape(v, p.pathMode)
		} else {
			err = sanitize.ValidateString(v)
		}
		if err == nil {
			err = sanitize.CheckClassesString(dec, forbid)
		}
		if err != nil {
			if p.Path.Repair {
				if e := err.(*sanitize.Error); isEncodingReason(e.Reason) {
					dec = sanitize.ToValidString(dec)
					err = sanitize.CheckClassesString(dec, forbid)
				}
			}
			if err != nil {
				return nil, reject(err, rules.Path, paramName(names, i), v)
			}
		}
		if rj := paramBOM(names, i, dec, p); rj != nil {
			return nil, rj
		}
		if dec == v {
			continue
		}
		if out == nil {
			out = append([]string(nil), values...)
		}
		out[i] = dec
	}
	return out, nil
}

// paramName is the name of the i-th path parameter, or "".
func paramName(names []string, i int) string {
	if i < len(names) {
		return safeField(names[i])
	}
	return ""
}

// paramBOM refuses a decoded path parameter value that starts with U+FEFF
// where the path's classes refuse a leading BOM.
func paramBOM(names []string, i int, v string, p *policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 || !strings.HasPrefix(v, bom) {
		return nil
	}
	return reject(&sanitize.Error{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM}, rules.Path, paramName(names, i), v)
}

// segmentBOM refuses a U+FEFF at the start of a segment of the decoded
// path where the path's classes refuse a leading BOM: every path parameter
// a router cuts at a segment boundary is a value of its own to the
// handler, and an adapter wrapped around a whole router (a ServeMux) does
// not know which segments those are.
func segmentBOM(r *http.Request, p *policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 {
		return nil
	}
	path := r.URL.Path
	if strings.IndexByte(path, bom[0]) < 0 {
		return nil // the common case: no octet EF at all
	}
	i := strings.Index(path, "/"+bom)
	if i < 0 {
		return nil
	}
	return &Rejection{Reason: sanitize.ForbiddenChar, Class: sanitize.BOM, Location: rules.Path, Offset: i + 1,
		Sample: sample(path, i+1), Err: &sanitize.Error{Reason: sanitize.ForbiddenChar, Offset: i + 1, Class: sanitize.BOM}}
}

// checkPathValues checks, for a request a net/http ServeMux has routed
// (r.Pattern set), the wildcard values r.PathValue returns, as checkParams
// checks Echo's parameters: the mux cut them from the decoded path, which
// has passed, so what is left is a leading BOM.
func checkPathValues(r *http.Request, p *policy) *Rejection {
	if p.Path.Forbid&sanitize.BOM == 0 {
		return nil
	}
	for name := range patternWildcards(r.Pattern) {
		if rj := paramBOM([]string{name}, 0, r.PathValue(name), p); rj != nil {
			return rj
		}
	}
	return nil
}

// patternWildcards yields the wildcard names of a ServeMux pattern
// ("GET /users/{id}", "/files/{rest...}"), "{$}" left out.
func patternWildcards(pat string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for {
			i := strings.IndexByte(pat, '{')
			if i < 0 {
				return
			}
			j := strings.IndexByte(pat[i:], '}')
			if j < 0 {
				return
			}
			name := strings.TrimSuffix(pat[i+1:i+j], "...")
			pat = pat[i+j+1:]
			if name != "" && name != "$" && !yield(name) {
				return
			}
		}
	}
}

// checkCookies checks the name and value of every cookie in the Cookie
// headers of r, as text: no percent-decoding (RFC 6265 defines none). A
// repaired cookie rewrites its Cookie header.
func checkCookies(r *http.Request, p *policy) *Rejection {
	return checkCookieLines(r.Header["Cookie"], p)
}

// checkCookieLines checks the cookies of Cookie header lines, repairing
// vals in place where the check repairs. Only SP and HTAB around a cookie
// are trimmed, as RFC 6265 (section 5.2) trims them: strings.TrimSpace
// would also drop Unicode white space such as U+0085 (NEL, a C1 control)
// before the check, and a handler reading the header sees it.
func checkCookieLines(vals []string, p *policy) *Rejection {
	for i, line := range vals {
		var fixed []string // the line's cookies, when one is repaired
		n := 0
		for rest := line; rest != ""; n++ {
			var c string
			c, rest, _ = strings.Cut(rest, ";")
			name, value, _ := strings.Cut(strings.Trim(c, " \t"), "=")
			goodName, rj := headerText(name, "Cookie:", name, p)
			if rj != nil {
				return rj
			}
			goodValue, rj := headerText(value, "Cookie:", name, p)
			if rj != nil {
				return rj
			}
			if goodName != name || goodValue != value {
				if fixed == nil {
					fixed = strings.Split(line, ";")
				}
				fixed[n] = " " + goodName + "=" + goodValue
			}
		}
		if fixed != nil {
			vals[i] = strings.Trim(strings.Join(fixed, ";"), " \t")
		}
	}
	return nil
}

// checkHeaders checks the values of the headers p lists.
func checkHeaders(r *http.Request, p *policy) *Rejection {
	for _, name := range p.headers {
		if rj := checkHeaderValues(name, r.Header[name], p); rj != nil {
			return rj
		}
	}
	return nil
}

// checkHeaderValues checks the values of the header name, repairing vals
// in place where the check repairs.
func checkHeaderValues(name string, vals []string, p *policy) *Rejection {
	for i, v := range vals {
		good, rj := headerText(v, "", name, p)
		if rj != nil {
			return rj
		}
		vals[i] = good
	}
	return nil
}

// headerText checks one header value, or one cookie's name or value, under
// the Header check and the field length limit. It returns text itself when
// it passes, its repair when the check repairs, or the rejection, whose
// field is prefix+name (built only then: a clean request allocates
// nothing here).
func headerText(text, prefix, name string, p *policy) (string, *Rejection) {
	field := func() string { return prefix + safeField(name) }
	if p.Limits.FieldBytes >= 0 && len(text) > p.Limits.FieldBytes {
		return "", tooLarge(rules.Header, field())
	}
	err := sanitize.CheckString(text, p.Header.Forbid)
	if err == nil {
		return text, nil
	}
	if e, ok := err.(*sanitize.Error); !ok || !p.Header.Repair || !isEncodingReason(e.Reason) {
		return "", reject(err, rules.Header, field(), text)
	}
	good := sanitize.ToValidString(text)
	if p.Limits.FieldBytes >= 0 && len(good) > p.Limits.FieldBytes {
		return "", tooLarge(rules.Header, field())
	}
	if err := sanitize.CheckString(good, p.Header.Forbid); err != nil {
		return "", reject(err, rules.Header, field(), good)
	}
	return good, nil
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

// stringBytes returns s as a byte slice without copying, for reading only:
// the bytes of a string must never be written.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
