package middleware

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// What the canonicalization tests (canon_test.go and the other
// canon_*_test.go files, and the JSON and multipart ones that normalize)
// share: policies, a handler that records everything it reads of a
// request, on Echo and on net/http (canonRec), and their servers'
// setup on every mount of the harness (canonSetup, harness_test.go).

// canonForms are the rewriting forms under test.
var canonForms = []normalize.Form{normalize.NFC, normalize.NFKC}

// canonPolicy is the strict preset with normalization n and the edits.
func canonPolicy(n normalize.Form, edits ...func(p *rules.Policy)) rules.Policy {
	p := rules.Strict()
	p.Normalization = n
	for _, e := range edits {
		e(&p)
	}
	return p
}

func canonRejecting(p *rules.Policy)  { p.RejectUnnormalized = true }
func canonMonitoring(p *rules.Policy) { p.Mode = rules.Monitor }

// canonJSONDoc is what the JSON cases bind into.
type canonJSONDoc struct {
	Q    string `json:"q"`
	Esc1 string `json:"esc1"`
	Esc2 string `json:"esc2"`
	Same string `json:"same"`
	User struct {
		Name string `json:"name"`
	} `json:"user"`
	List []any `json:"list"`
}

// canonFormDoc is what query and form cases bind into (Echo's binder).
type canonFormDoc struct {
	User string `query:"user" form:"user"`
	Q    string `query:"q" form:"q"`
}

// canonFile is a multipart file as the handler's parser gives it.
type canonFile struct {
	Field, Name string
	Content     []byte
	Sum         [32]byte
}

// canonSeen is everything the handler looked at.
type canonSeen struct {
	Path, RawPath, EscapedPath, RawQuery string
	Params                               map[string]string // c.Param / r.PathValue
	ParamValues                          []string          // c.ParamValues (Echo)
	Query                                url.Values        // c.QueryParams / URL.Query
	QueryParam                           map[string]string // c.QueryParam of each key
	Body                                 []byte
	ContentLength                        int64
	HeaderCL                             string
	ContentType                          string
	Form                                 url.Values        // c.FormParams / r.Form
	FormValue                            map[string]string // c.FormValue of each key
	FormErr                              error
	Files                                []canonFile
	Doc                                  canonJSONDoc // bound from a JSON body
	Map                                  map[string]any
	BindErr                              error
	FormDoc                              canonFormDoc // bound from the query or a form
}

// canonRec records what its handler saw.
type canonRec struct {
	mu   sync.Mutex
	last *canonSeen
}

func (cr *canonRec) set(s *canonSeen) {
	cr.mu.Lock()
	cr.last = s
	cr.mu.Unlock()
}

func (cr *canonRec) get() *canonSeen {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	s := cr.last
	cr.last = nil
	return s
}

// collect reads the request through net/http's own API: the body once as
// octets, then (restored) through ParseForm, ParseMultipartForm or
// encoding/json by its media type.
func canonCollect(r *http.Request) *canonSeen {
	s := &canonSeen{
		Path: r.URL.Path, RawPath: r.URL.RawPath, EscapedPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
		Params: map[string]string{}, Query: r.URL.Query(), QueryParam: map[string]string{},
		ContentLength: r.ContentLength, HeaderCL: r.Header.Get("Content-Length"),
		ContentType: r.Header.Get("Content-Type"), FormValue: map[string]string{},
	}
	for k := range s.Query {
		s.QueryParam[k] = r.URL.Query().Get(k)
	}
	if r.Body != nil {
		s.Body, _ = io.ReadAll(r.Body)
	}
	canonRestore(r, s.Body)
	typ, _, _ := mime.ParseMediaType(s.ContentType)
	switch typ {
	case ctForm:
		s.FormErr = r.ParseForm()
		s.Form = r.Form
	case "multipart/form-data":
		s.FormErr = r.ParseMultipartForm(1 << 20)
		s.Form = r.Form
		s.Files = canonFiles(r)
	case ctJSON:
		s.BindErr = json.Unmarshal(s.Body, &s.Doc)
		if err := json.Unmarshal(s.Body, &s.Map); s.BindErr == nil {
			s.BindErr = err
		}
	}
	for k := range s.Form {
		s.FormValue[k] = r.FormValue(k)
	}
	return s
}

func canonRestore(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
}

func canonFiles(r *http.Request) []canonFile {
	if r.MultipartForm == nil {
		return nil
	}
	var out []canonFile
	for _, field := range slices.Sorted(maps.Keys(r.MultipartForm.File)) {
		for _, fh := range r.MultipartForm.File[field] {
			f, err := fh.Open()
			if err != nil {
				continue
			}
			data, _ := io.ReadAll(f)
			_ = f.Close()
			out = append(out, canonFile{Field: field, Name: fh.Filename, Content: data, Sum: sha256.Sum256(data)})
		}
	}
	return out
}

// serve is the handler: net/http's view, then on Echo its own accessors
// (c.Param, c.ParamValues, c.QueryParam(s), c.FormValue, c.FormParams,
// c.Bind) over it; on net/http r.PathValue.
func (cr *canonRec) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	s := canonCollect(r)
	if c == nil {
		for _, n := range []string{"id", "rest"} {
			if v := r.PathValue(n); v != "" {
				s.Params[n] = v
			}
		}
		cr.set(s)
		_, _ = io.WriteString(w, "ok")
		return nil
	}
	for _, n := range c.ParamNames() {
		s.Params[n] = c.Param(n)
	}
	s.ParamValues = slices.Clone(c.ParamValues())
	s.Query = c.QueryParams()
	for k := range s.Query {
		s.QueryParam[k] = c.QueryParam(k)
	}
	typ, _, _ := mime.ParseMediaType(s.ContentType)
	switch typ {
	case ctForm, "multipart/form-data":
		r.Form, r.PostForm, r.MultipartForm = nil, nil, nil
		canonRestore(r, s.Body)
		s.Form, s.FormErr = c.FormParams()
		for k := range s.Form {
			s.FormValue[k] = c.FormValue(k)
		}
		s.BindErr = c.Bind(&s.FormDoc)
	case ctJSON:
		s.Doc, s.Map = canonJSONDoc{}, nil
		canonRestore(r, s.Body)
		s.BindErr = c.Bind(&s.Doc)
		canonRestore(r, s.Body)
		if err := c.Bind(&s.Map); s.BindErr == nil {
			s.BindErr = err
		}
	default:
		if r.Method == http.MethodGet {
			s.BindErr = c.Bind(&s.FormDoc)
		}
	}
	cr.set(s)
	return c.String(http.StatusOK, "ok")
}

// canonRoutes are the routes of the test servers, under /api for the
// group mount. "/api/café" is registered in NFC.
var canonRoutes = []string{"/api/users/:id", "/api/files/*", "/api/echo", "/api/caf\u00E9"}

// canonSetup is the server of the canonicalization tests: pol on mount m
// (any of allMounts), serving canonRoutes, for GET and POST on Echo.
// Its handler is a canonRec.
func canonSetup(pol rules.Policy, m mount) setup {
	return setup{mount: m, echo: Config{Rules: &pol}, routes: canonRoutes, methods: []string{http.MethodGet, http.MethodPost}}
}

// canonMP builds a multipart body with boundary XBOUNDARYX from raw parts
// (multipartBody) and its request.
func canonMP(parts ...mpPart) *http.Request {
	return canonReq(http.MethodPost, "/api/echo", ctMP, multipartBody(parts...))
}

// canonReq builds a request whose Content-Length header is set, as a client
// sets it, so that the test sees it corrected.
func canonReq(method, target, ct, body string) *http.Request {
	var rd io.Reader
	if body != "" || method == http.MethodPost {
		rd = strings.NewReader(body)
	}
	r := req(method, target, ct, rd)
	if rd != nil {
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	return r
}

// canonPathEsc escapes a path segment as url.URL.EscapedPath does.
func canonPathEsc(s string) string { return (&url.URL{Path: s}).EscapedPath() }

// canonBinary is a binary file part's content: not UTF-8, and holding a
// decomposed sequence that must come through as it is.
const canonBinary = "\x00\xff\xfe\x89PNG\r\n\x1a\ne\u0301\u212B\r\n--XBOUNDARYXnot\r\n\x00"

// canonCheckBodyLen: the body the handler reads is as long as ContentLength and
// the Content-Length header say.
func canonCheckBodyLen(t *testing.T, s *canonSeen) {
	t.Helper()
	if s.ContentLength != int64(len(s.Body)) {
		t.Errorf("ContentLength = %d, body is %d octets", s.ContentLength, len(s.Body))
	}
	if s.HeaderCL != strconv.Itoa(len(s.Body)) {
		t.Errorf("Content-Length header = %q, body is %d octets", s.HeaderCL, len(s.Body))
	}
}

func canonEq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, fmt.Sprintf("%+q", any(got)), fmt.Sprintf("%+q", any(want)))
	}
}

// canonBodyOf returns the body of a request built by canonReq, and puts
// it back.
func canonBodyOf(t *testing.T, r *http.Request) string {
	t.Helper()
	if r.GetBody == nil {
		t.Fatal("no GetBody")
	}
	rc, err := r.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	return string(b)
}

// canonDiscard is a ResponseWriter that keeps only the status.
type canonDiscard struct {
	h    http.Header
	code int
}

func (d *canonDiscard) Header() http.Header         { return d.h }
func (d *canonDiscard) Write(p []byte) (int, error) { return len(p), nil }
func (d *canonDiscard) WriteHeader(code int)        { d.code = code }
