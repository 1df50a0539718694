package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/utf8guard/utf8guard/sanitize"
)

// NewHAR returns a Recording of the HAR 1.2 file read from r, name being
// what its errors call it. It decodes the JSON token by token down to
// log.entries and then one entry at a time: an entry (its request body
// included) is in memory while it is replayed, the file never is.
func NewHAR(r io.Reader, name string) *Recording {
	lr := &lineReader{r: r}
	h := &harReader{name: name, lines: lr, dec: json.NewDecoder(lr), entry: -1}
	return &Recording{name: name, next: h.next}
}

// harReader is the state of a HAR Recording.
type harReader struct {
	name  string
	lines *lineReader
	dec   *json.Decoder
	// entry is the index of the next entry; -1 before log.entries.
	entry int
	done  bool
	// depth is the number of objects open around log.entries (2: the
	// file's and log's), to close once the entries end.
	depth int
}

func (h *harReader) next() (*Request, error) {
	if h.done {
		return nil, io.EOF
	}
	if h.entry < 0 {
		if err := h.findEntries(); err != nil {
			h.done = true
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, err
		}
		h.entry = 0
	}
	if !h.dec.More() {
		h.done = true
		if err := h.finish(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	i := h.entry
	h.entry++
	var raw json.RawMessage
	if err := h.dec.Decode(&raw); err != nil {
		h.done = true
		return nil, h.fatal(i, err)
	}
	// The entry's first octet: raw holds it without the comma and the
	// white space before it, and ends where the decoder stands.
	line := h.lines.line(h.dec.InputOffset() - int64(len(raw)))
	req, err := parseEntry(raw)
	if err != nil {
		return nil, &ReadError{File: h.name, Entry: i, Line: line, Err: err}
	}
	req.Source = fmt.Sprintf("%s: log.entries[%d]", h.name, i)
	return req, nil
}

// findEntries reads tokens up to the '[' that opens log.entries,
// skipping the other members of the file's object and of log.
func (h *harReader) findEntries() error {
	if err := h.open(""); err != nil {
		return err
	}
	if err := h.member("log"); err != nil {
		return err
	}
	if err := h.open("log"); err != nil {
		return err
	}
	if err := h.member("entries"); err != nil {
		return err
	}
	t, err := h.dec.Token()
	if err != nil {
		return h.fatal(-1, err)
	}
	if t != json.Delim('[') {
		return h.fatal(-1, fmt.Errorf("log.entries is %s, not an array", kind(t)))
	}
	return nil
}

// open reads the '{' that opens the object at path.
func (h *harReader) open(path string) error {
	t, err := h.dec.Token()
	if err != nil {
		if err == io.EOF && path == "" {
			return h.fatal(-1, errors.New("empty file"))
		}
		return h.fatal(-1, err)
	}
	if t != json.Delim('{') {
		if path == "" {
			return h.fatal(-1, fmt.Errorf("the file holds %s, not a HAR object", kind(t)))
		}
		return h.fatal(-1, fmt.Errorf("%s is %s, not an object", path, kind(t)))
	}
	h.depth++
	return nil
}

// member skips the members of the open object up to the one named key,
// whose value is next.
func (h *harReader) member(key string) error {
	for h.dec.More() {
		t, err := h.dec.Token()
		if err != nil {
			return h.fatal(-1, err)
		}
		if t == key {
			return nil
		}
		var skip json.RawMessage
		if err := h.dec.Decode(&skip); err != nil {
			return h.fatal(-1, err)
		}
	}
	if key == "log" {
		return h.fatal(-1, errors.New("no log object: not a HAR file"))
	}
	return h.fatal(-1, errors.New("log has no entries"))
}

// finish reads what follows log.entries, so that a file cut off or
// malformed after its last entry is an error too.
func (h *harReader) finish() error {
	if _, err := h.dec.Token(); err != nil { // ']'
		return h.fatal(-1, err)
	}
	for ; h.depth > 0; h.depth-- {
		for h.dec.More() {
			if _, err := h.dec.Token(); err != nil {
				return h.fatal(-1, err)
			}
			var skip json.RawMessage
			if err := h.dec.Decode(&skip); err != nil {
				return h.fatal(-1, err)
			}
		}
		if _, err := h.dec.Token(); err != nil {
			return h.fatal(-1, err)
		}
	}
	if _, err := h.dec.Token(); err != io.EOF {
		return h.fatal(-1, errors.New("data after the HAR object"))
	}
	return nil
}

// fatal returns err, an error in the structure of the file, as a
// ReadError with Rest set and the line of the decoder's position.
func (h *harReader) fatal(entry int, err error) *ReadError {
	// The decoder stands where the value or token it failed on starts,
	// or before the white space that precedes it.
	off := h.dec.InputOffset()
	if rest, rerr := io.ReadAll(h.dec.Buffered()); rerr == nil {
		off += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")))
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errors.New("unexpected end of file")
	}
	return &ReadError{File: h.name, Entry: entry, Line: h.lines.line(off), Rest: true, Err: err}
}

// kind names the JSON kind of a token, for errors.
func kind(t json.Token) string {
	switch t := t.(type) {
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// harEntry is the part of a HAR 1.2 entry that a replay reads. Pointers
// tell a member that is missing from one that is empty.
type harEntry struct {
	StartedDateTime *string     `json:"startedDateTime"`
	Request         *harRequest `json:"request"`
}

type harRequest struct {
	Method      *string     `json:"method"`
	URL         *string     `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Headers     []harPair   `json:"headers"`
	QueryString []harPair   `json:"queryString"`
	Cookies     []harPair   `json:"cookies"`
	PostData    *harPost    `json:"postData"`
	BodySize    json.Number `json:"bodySize"`
}

type harPair struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
}

type harPost struct {
	MimeType string     `json:"mimeType"`
	Text     *string    `json:"text"`
	Params   []harParam `json:"params"`
	Encoding string     `json:"encoding"`
}

type harParam struct {
	Name        *string `json:"name"`
	Value       string  `json:"value"`
	FileName    string  `json:"fileName"`
	ContentType string  `json:"contentType"`
}

// parseEntry makes a Request of one HAR entry, raw being its JSON.
func parseEntry(raw []byte) (*Request, error) {
	// encoding/json turns invalid UTF-8 and lone surrogate escapes into
	// U+FFFD without a word: the body replayed would not be the one
	// recorded. Refuse both, so that a recording that cannot say what
	// was sent is not taken for one that can.
	if err := sanitize.Validate(raw); err != nil {
		return nil, fmt.Errorf("the entry is not valid UTF-8 (%v): a HAR carries such octets only base64-encoded", err)
	}
	if err := loneSurrogate(raw); err != nil {
		return nil, err
	}
	var e harEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return nil, err
	}
	if e.Request == nil {
		return nil, errors.New("request is missing")
	}
	hr := e.Request
	switch {
	case hr.Method == nil || *hr.Method == "":
		return nil, errors.New("request.method is missing")
	case hr.URL == nil || *hr.URL == "":
		return nil, errors.New("request.url is missing")
	}
	req := &Request{}
	if e.StartedDateTime != nil {
		t, err := time.Parse(time.RFC3339Nano, *e.StartedDateTime)
		if err != nil {
			return nil, fmt.Errorf("startedDateTime: %v", err)
		}
		req.Time = t
	}
	authority, target, err := splitURL(*hr.URL)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(target, "?") && len(hr.QueryString) > 0 {
		q, err := encodePairs("request.queryString", hr.QueryString)
		if err != nil {
			return nil, err
		}
		target += "?" + q
	}
	body, ctype, err := postBody(hr.PostData)
	if err != nil {
		return nil, err
	}
	if body == nil {
		// A body the recording does not hold cannot be replayed as
		// sent; an empty one would pass where the real one may not.
		if n := hr.BodySize.String(); n != "" && n != "0" && n != "-1" {
			return nil, fmt.Errorf("request.bodySize is %s but the entry has no postData: the body was not recorded", n)
		}
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\n", *hr.Method, target)
	hasHost, hasCookie, hasType := false, false, false
	for i, p := range hr.Headers {
		if p.Name == nil || p.Value == nil {
			return nil, fmt.Errorf("request.headers[%d]: name or value is missing", i)
		}
		name, value := *p.Name, *p.Value
		if strings.HasPrefix(name, ":") {
			continue // HTTP/2 and HTTP/3 pseudo-headers, as Chrome records them
		}
		if !isToken(name) || strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("request.headers[%d]: %s: %s: not a header field", i, quote(name), quote(value))
		}
		switch textproto.CanonicalMIMEHeaderKey(name) {
		case "Content-Length", "Transfer-Encoding":
			continue // the body is the one recorded, of the length it has
		case "Host":
			hasHost = true
		case "Cookie":
			hasCookie = true
		case "Content-Type":
			if ctype != "" {
				continue // that of the body rebuilt from params
			}
			hasType = true
		}
		fmt.Fprintf(&head, "%s: %s\r\n", name, value)
	}
	if !hasHost {
		fmt.Fprintf(&head, "Host: %s\r\n", authority)
	}
	if !hasCookie && len(hr.Cookies) > 0 {
		var cs []string
		for i, c := range hr.Cookies {
			if c.Name == nil || c.Value == nil {
				return nil, fmt.Errorf("request.cookies[%d]: name or value is missing", i)
			}
			cs = append(cs, *c.Name+"="+*c.Value)
		}
		fmt.Fprintf(&head, "Cookie: %s\r\n", strings.Join(cs, "; "))
	}
	if ctype != "" {
		fmt.Fprintf(&head, "Content-Type: %s\r\n", ctype)
	} else if !hasType && hr.PostData != nil && hr.PostData.MimeType != "" && body != nil {
		fmt.Fprintf(&head, "Content-Type: %s\r\n", hr.PostData.MimeType)
	}
	if body != nil {
		fmt.Fprintf(&head, "Content-Length: %d\r\n", len(body))
	}
	head.WriteString("\r\n")
	r, err := parseHead(head.Bytes(), io.NopCloser(bytes.NewReader(body)))
	if err != nil {
		return nil, err
	}
	if body == nil {
		r.Body = http.NoBody
	}
	setProto(r, hr.HTTPVersion)
	req.HTTP = r
	return req, nil
}

// setProto gives r the protocol version the entry names ("HTTP/1.1",
// "http/2.0", "h2", "h3"); an unknown or missing one leaves HTTP/1.1.
func setProto(r *http.Request, v string) {
	switch strings.ToLower(v) {
	case "http/1.0":
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.0", 1, 0
	case "http/2", "http/2.0", "h2", "h2c":
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	case "http/3", "http/3.0", "h3":
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/3.0", 3, 0
	}
}

// splitURL splits a HAR request URL into its authority and the request
// target a client sends for it (the path and query as recorded, escapes
// untouched; "/" for an empty path), without its fragment.
func splitURL(u string) (authority, target string, err error) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" {
		return "", "", fmt.Errorf("request.url %s is not an absolute URL", quote(u))
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, target = rest[:i], rest[i:]
	} else {
		authority = rest
	}
	if i := strings.IndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:] // userinfo is not sent in the request line
	}
	if authority == "" {
		return "", "", fmt.Errorf("request.url %s has no host", quote(u))
	}
	target, _, _ = strings.Cut(target, "#")
	if target == "" || target[0] == '?' {
		target = "/" + target
	}
	return authority, target, nil
}

// postBody returns the body of postData: its text, base64-decoded when
// its encoding says so, or one rebuilt from its params; and, for a body
// rebuilt as multipart, its Content-Type. nil means no postData.
func postBody(pd *harPost) (body []byte, ctype string, err error) {
	if pd == nil {
		return nil, "", nil
	}
	if pd.Text != nil {
		switch strings.ToLower(pd.Encoding) {
		case "":
			return []byte(*pd.Text), "", nil
		case "base64":
			b, err := base64.StdEncoding.DecodeString(*pd.Text)
			if err != nil {
				return nil, "", fmt.Errorf("request.postData.text: base64: %v", err)
			}
			return b, "", nil
		default:
			return nil, "", fmt.Errorf("request.postData.encoding %s: want base64 or none", quote(pd.Encoding))
		}
	}
	if pd.Params == nil {
		return nil, "", errors.New("request.postData has neither text nor params")
	}
	mt, mp, _ := mime.ParseMediaType(pd.MimeType)
	switch mt {
	case "application/x-www-form-urlencoded":
		pairs := make([]harPair, len(pd.Params))
		for i, p := range pd.Params {
			if p.FileName != "" {
				return nil, "", fmt.Errorf("request.postData.params[%d]: a file in a form-urlencoded body", i)
			}
			pairs[i] = harPair{Name: p.Name, Value: &p.Value}
		}
		q, err := encodePairs("request.postData.params", pairs)
		return []byte(q), "", err
	case "multipart/form-data":
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if bd := mp["boundary"]; bd != "" {
			if err := w.SetBoundary(bd); err != nil {
				return nil, "", fmt.Errorf("request.postData.mimeType: %v", err)
			}
		}
		for i, p := range pd.Params {
			if p.Name == nil {
				return nil, "", fmt.Errorf("request.postData.params[%d]: name is missing", i)
			}
			h := textproto.MIMEHeader{}
			disp := mime.FormatMediaType("form-data", map[string]string{"name": *p.Name})
			if p.FileName != "" {
				disp = mime.FormatMediaType("form-data", map[string]string{"name": *p.Name, "filename": p.FileName})
				ct := p.ContentType
				if ct == "" {
					ct = "application/octet-stream"
				}
				h.Set("Content-Type", ct)
			}
			h.Set("Content-Disposition", disp)
			part, err := w.CreatePart(h)
			if err != nil {
				return nil, "", err
			}
			io.WriteString(part, p.Value)
		}
		if err := w.Close(); err != nil {
			return nil, "", err
		}
		return b.Bytes(), w.FormDataContentType(), nil
	default:
		return nil, "", fmt.Errorf("request.postData has params but no text, and its mimeType %s is no form", quote(pd.MimeType))
	}
}

// encodePairs encodes HAR name/value pairs as a query or form body,
// percent-encoding each name and value (HAR records them decoded).
func encodePairs(what string, pairs []harPair) (string, error) {
	var b strings.Builder
	for i, p := range pairs {
		if p.Name == nil || p.Value == nil {
			return "", fmt.Errorf("%s[%d]: name or value is missing", what, i)
		}
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(*p.Name))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(*p.Value))
	}
	return b.String(), nil
}

// loneSurrogate returns an error for a \u escape of a surrogate in raw
// JSON that is not part of a high and low pair: no UTF-8 text holds one.
func loneSurrogate(raw []byte) error {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue // \\, \", \n ...: one escaped character
		}
		v, ok := hex4(raw[i+1:])
		if !ok {
			continue // malformed: json.Unmarshal reports it
		}
		i += 4
		switch {
		case v >= 0xDC00 && v <= 0xDFFF:
			return fmt.Errorf("a JSON string holds \\u%04x, a lone surrogate, which JSON decoders turn into U+FFFD: encode such a body in base64", v)
		case v >= 0xD800 && v <= 0xDBFF:
			if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw[i+3:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return fmt.Errorf("a JSON string holds \\u%04x, a lone surrogate, which JSON decoders turn into U+FFFD: encode such a body in base64", v)
		}
	}
	return nil
}

// hex4 reads four hex digits.
func hex4(p []byte) (rune, bool) {
	if len(p) < 4 {
		return 0, false
	}
	var v rune
	for _, c := range p[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// lineReader counts the lines of what it reads, so that an offset the
// JSON decoder gives (InputOffset, SyntaxError.Offset) becomes a line.
// It keeps the offsets of the newlines past the last offset asked about
// only: the lines of what the decoder has buffered.
type lineReader struct {
	r        io.Reader
	read     int64   // octets read
	newlines []int64 // offsets of the newlines not yet counted in before
	before   int     // newlines before base
	base     int64   // the last offset asked about
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.newlines = append(l.newlines, l.read+int64(i))
		}
	}
	l.read += int64(n)
	return n, err
}

// line returns the line, counting from 1, of the octet at off. off must
// not be below an offset asked about before.
func (l *lineReader) line(off int64) int {
	if off < l.base {
		off = l.base
	}
	i := 0
	for i < len(l.newlines) && l.newlines[i] < off {
		i++
	}
	l.before += i
	l.newlines = l.newlines[i:]
	l.base = off
	return l.before + 1
}
