package middleware

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The multipart tests serve each request through the real middleware, on
// Echo (WithConfig, e.ServeHTTP) and through the net/http adapter
// (Handler), in front of a handler that reads the body every way a handler
// can: the octets, the form (c.FormParams and c.MultipartForm on Echo,
// Request.ParseMultipartForm on net/http) and the stream of parts
// (Request.MultipartReader), nested multipart bodies included, read by the
// most trusting of handlers: one that ignores every read error and calls
// NextPart again after a failed one. An oracle then checks everything the
// handler read against the route's policy, with the sanitize package and
// golang.org/x/text/unicode/norm directly.

// mpRead is one part as the handler's stream read it.
type mpRead struct {
	Depth      int    // 0 for a part of the body, 1 for a part of a part's nested body, ...
	Name, File string // the name and filename parameters, as mime.ParseMediaType decodes them
	FormName   string // Part.FormName
	FileName   string // Part.FileName
	Header     textproto.MIMEHeader
	Content    []byte
}

// mpFile is a file of the parsed form.
type mpFile struct {
	Field, Filename string
	Header          textproto.MIMEHeader
	Content         []byte
}

// mpSeen is what the handler read.
type mpSeen struct {
	ContentType string
	Body        []byte
	Stream      []mpRead
	Form        map[string][]string // the form's multipart values (c.FormParams holds them)
	Files       []mpFile
	FormErr     error
}

// mpServer is one adapter with the middleware in front of the reading
// handler.
type mpServer struct {
	name string
	h    http.Handler
	logs *logBuf
	mu   sync.Mutex
	last *mpSeen
}

func (s *mpServer) set(v *mpSeen) {
	s.mu.Lock()
	s.last = v
	s.mu.Unlock()
}

// take returns what the handler read of the last request, nil when it did
// not run, and forgets it.
func (s *mpServer) take() *mpSeen {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.last
	s.last = nil
	return v
}

// mpServers returns the Echo and net/http servers of pol.
func mpServers(t testing.TB, pol rules.Policy) []*mpServer {
	t.Helper()
	es := &mpServer{name: "echo", logs: &logBuf{}}
	e := echo.New()
	e.Use(WithConfig(Config{Rules: &pol, Logger: es.logs.logger()}))
	e.POST("/up", func(c echo.Context) error {
		es.set(mpCollect(c.Request(), func(r *http.Request) (map[string][]string, *multipart.Form, error) {
			vals, err := c.FormParams()
			if err != nil {
				return nil, nil, err
			}
			mf, err := c.MultipartForm()
			if err != nil {
				return nil, nil, err
			}
			form := map[string][]string{}
			for k := range mf.Value {
				form[k] = vals[k]
			}
			return form, mf, nil
		}))
		return c.String(http.StatusOK, "ok")
	})
	es.h = e

	hs := &mpServer{name: "net/http", logs: &logBuf{}}
	mw, err := HTTPConfig{Rules: &pol, Logger: hs.logs.logger()}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	hs.h = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.set(mpCollect(r, func(r *http.Request) (map[string][]string, *multipart.Form, error) {
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				return nil, nil, err
			}
			return r.MultipartForm.Value, r.MultipartForm, nil
		}))
		_, _ = io.WriteString(w, "ok")
	}))
	return []*mpServer{es, hs}
}

// do serves a POST of body with Content-Type ct.
func (s *mpServer) do(ct, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/up", strings.NewReader(body))
	r.Header.Set("Content-Type", ct)
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, r)
	return w
}

// mpCollect reads r as the handler does: the octets, then the form with
// parseForm (for multipart/form-data, the one type the form parsers take),
// then the stream of parts.
func mpCollect(r *http.Request, parseForm func(*http.Request) (map[string][]string, *multipart.Form, error)) *mpSeen {
	s := &mpSeen{ContentType: r.Header.Get("Content-Type")}
	s.Body, _ = io.ReadAll(r.Body)
	mt, _, _ := mime.ParseMediaType(s.ContentType)
	if mt == "multipart/form-data" {
		r.Body = io.NopCloser(bytes.NewReader(s.Body))
		var mf *multipart.Form
		s.Form, mf, s.FormErr = parseForm(r)
		if mf != nil {
			for field, fhs := range mf.File {
				for _, fh := range fhs {
					f := mpFile{Field: field, Filename: fh.Filename, Header: fh.Header}
					if rc, err := fh.Open(); err == nil {
						f.Content, _ = io.ReadAll(rc)
						_ = rc.Close()
					}
					s.Files = append(s.Files, f)
				}
			}
			_ = mf.RemoveAll()
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(s.Body))
	r.MultipartForm, r.Form, r.PostForm = nil, nil, nil
	if mr, err := r.MultipartReader(); err == nil {
		s.Stream = mpStream(mr, 0, nil)
	}
	return s
}

// mpStream reads every part mr hands out, as a handler that ignores read
// errors and calls NextPart again after one that fails (up to 50 times in
// a row), and the parts of every nested multipart body it finds.
func mpStream(mr *multipart.Reader, depth int, out []mpRead) []mpRead {
	for fails := 0; fails < 50; {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			fails++
			continue
		}
		fails = 0
		rd := mpRead{Depth: depth, FormName: part.FormName(), FileName: part.FileName(), Header: part.Header}
		if _, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition")); err == nil {
			rd.Name, rd.File = params["name"], params["filename"]
		}
		rd.Content, _ = io.ReadAll(part) // errors ignored: the content so far is read
		out = append(out, rd)
		if mt, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" && depth < 10 {
			out = mpStream(multipart.NewReader(bytes.NewReader(rd.Content), params["boundary"]), depth+1, out)
		}
	}
	return out
}

// mpIsText is the oracle's own reading of RFC 7578 and the policy: a part
// without a file name is a field, text; a file part is text when it has no
// Content-Type (text/plain, section 4.4) or one whose media type the
// policy lists as text, with no charset or a UTF-8 one. A Content-Type
// without a readable media type is taken as text (fail closed).
func mpIsText(pol rules.Policy, file string, hdr textproto.MIMEHeader) bool {
	if file == "" {
		return true
	}
	ct := strings.TrimSpace(hdr.Get("Content-Type"))
	if ct == "" {
		return true
	}
	mt, params, _ := mime.ParseMediaType(ct)
	if mt == "" {
		return true
	}
	types := pol.MultipartTextTypes
	if types == nil {
		types = []string{"text/*"}
	}
	listed := false
	for _, pat := range types {
		typ, sub, _ := strings.Cut(strings.ToLower(pat), "/")
		if t, s, _ := strings.Cut(mt, "/"); t == typ && (sub == "*" || sub == s) {
			listed = true
		}
	}
	switch strings.ToLower(params["charset"]) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		return listed
	}
	return false
}

// mpOracle reports every value the handler read that the policy refuses:
// names (field names, file names, header values) under the multipart and
// header classes, text contents under the multipart classes, and, on a
// route that normalizes, every name and text content not in the route's
// form.
func mpOracle(pol rules.Policy, s *mpSeen) []string {
	var bad []string
	names := pol.Multipart.Forbid | pol.Header.Forbid
	var form norm.Form
	normal := pol.Normalization != normalize.None && pol.Mode == rules.Enforce
	if pol.Normalization == normalize.NFKC {
		form = norm.NFKC
	}
	decoded := func(what, v string) {
		for _, d := range mpDecoded(v) {
			if err := sanitize.CheckString(d, names); err != nil {
				bad = append(bad, fmt.Sprintf("%s %+q, decoded %+q: %v", what, v, d, err))
			}
		}
	}
	name := func(what, v string) {
		if err := sanitize.CheckString(v, names); err != nil {
			bad = append(bad, fmt.Sprintf("%s %+q: %v", what, v, err))
		}
		decoded(what, v)
		if normal && !form.IsNormalString(v) {
			bad = append(bad, fmt.Sprintf("%s %+q: not in %v", what, v, pol.Normalization))
		}
	}
	text := func(what string, v []byte) {
		if err := sanitize.Check(v, pol.Multipart.Forbid); err != nil {
			bad = append(bad, fmt.Sprintf("%s %+q: %v", what, v, err))
		}
		if normal && !form.IsNormal(v) {
			bad = append(bad, fmt.Sprintf("%s %+q: not in %v", what, v, pol.Normalization))
		}
	}
	header := func(what string, hdr textproto.MIMEHeader) {
		for k, vs := range hdr {
			if len(vs) > 1 && pol.RefuseAmbiguousParts {
				bad = append(bad, fmt.Sprintf("%s header %s given %d times", what, k, len(vs)))
			}
			for _, v := range vs {
				if err := sanitize.CheckString(v, names); err != nil {
					bad = append(bad, fmt.Sprintf("%s header %s %+q: %v", what, k, v, err))
				}
				decoded(what+" header "+k, v)
			}
		}
	}
	for i, p := range s.Stream {
		what := fmt.Sprintf("stream part %d", i)
		name(what+" name", p.Name)
		name(what+" filename", p.File)
		name(what+" FileName", p.FileName)
		header(what, p.Header)
		if mpIsText(pol, p.File, p.Header) {
			text(what+" content", p.Content)
		}
	}
	for k, vs := range s.Form {
		name("form key", k)
		for _, v := range vs {
			text("form value of "+k, []byte(v))
		}
	}
	for _, f := range s.Files {
		name("file field", f.Field)
		name("file name", f.Filename)
		header("file "+f.Field, f.Header)
		if mpIsText(pol, f.Filename, f.Header) {
			text("file content of "+f.Field, f.Content)
		}
	}
	return bad
}

// mpDecoded returns the texts that decoders a handler may hand a name or
// header value to read in it: encoding/xml's, lenient and with HTML's
// entities, reading it as an element's text; and encoding/json's reading
// it as a string, where every escape in it is \uXXXX or \\ (the
// one-letter escapes, "\b" in a Windows path, are no escape the check
// counts).
func mpDecoded(v string) []string {
	var out []string
	d := xml.NewDecoder(strings.NewReader("<x>" + v + "</x>"))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
	out = append(out, b.String())
	// A JSON decoder reads escapes inside a string: each double-quoted
	// run of v (name="a\u202e"), where the escape scan looks for them.
	for i := 0; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(v) && v[j] != '"' {
			if v[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(v) {
			break // no closing quote on the line
		}
		var s string
		if json.Unmarshal([]byte(v[i:j+1]), &s) == nil {
			out = append(out, s)
		}
		i = j
	}
	return out
}

// mpNames lists the field names of a stream, in order.
func mpNames(parts []mpRead) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p.Name)
	}
	return out
}

// mpSpec is a part to build a body from: raw header lines (each without
// its CRLF) and content, written as they are.
type mpSpec struct {
	header []string
	data   string
}

// mpField is a form-data field named name.
func mpField(name, data string, header ...string) mpSpec {
	return mpSpec{append([]string{`Content-Disposition: form-data; name="` + name + `"`}, header...), data}
}

// mpBuild writes a multipart body delimited by boundary, with nl as line
// break ("\r\n", or "\n" as some clients send).
func mpBuild(boundary, nl string, parts ...mpSpec) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--" + boundary + nl)
		for _, h := range p.header {
			b.WriteString(h + nl)
		}
		b.WriteString(nl + p.data + nl)
	}
	b.WriteString("--" + boundary + "--" + nl)
	return b.String()
}

// mpCase is one request and what must come of it.
type mpCase struct {
	name string
	pol  func() rules.Policy // nil: the strict preset
	ct   string              // "": multipart/form-data with boundary BB
	body string
	// status is the status wanted; for a rejection, want is its log
	// line (want.reason "" is not checked).
	status int
	want   wantLog
	// check, for an accepted request, asserts more of what the handler
	// read.
	check func(t *testing.T, s *mpSeen)
}

// mpRun serves every case on both adapters, and asserts the status, the
// log line of a rejection (and that the handler did not run), and, for an
// accepted request, that the oracle finds nothing and check passes.
func mpRun(t *testing.T, cases []mpCase) {
	t.Helper()
	for _, tc := range cases {
		pol := rules.Strict()
		if tc.pol != nil {
			pol = tc.pol()
		}
		ct := tc.ct
		if ct == "" {
			ct = "multipart/form-data; boundary=BB"
		}
		for _, srv := range mpServers(t, pol) {
			t.Run(tc.name+"/"+srv.name, func(t *testing.T) {
				w := srv.do(ct, tc.body)
				s := srv.take()
				if w.Code != tc.status {
					var read []string
					if s != nil {
						read = mpOracle(pol, s)
					}
					t.Fatalf("status %d, want %d; body %s; log %v; the handler read %q", w.Code, tc.status, w.Body, srv.logs.lines(t), read)
				}
				if tc.status != http.StatusOK {
					if s != nil {
						t.Error("the handler ran for a rejected request")
					}
					if tc.want.reason != "" {
						checkOneLog(t, srv.logs, tc.want, pol.Mode.String(), "", "")
					}
					return
				}
				if s == nil {
					t.Fatal("the handler did not run")
				}
				for _, b := range mpOracle(pol, s) {
					t.Errorf("the handler read %s", b)
				}
				if tc.check != nil {
					tc.check(t, s)
				}
			})
		}
	}
}
