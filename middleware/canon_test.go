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
	"net/http/httptest"
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

// Canonicalization through the whole middleware: whatever the handler
// looks at (route parameters, URL.Path and RawPath, the query, form, JSON,
// multipart and text bodies), it sees the route's canonical form and only
// that; in reject mode a request that is not in it is refused with the
// first offending octet; PRECIS fields get their profile's enforced form.

// canonSample is a text and its NFC and NFKC forms.
type canonSample struct{ name, in, nfc, nfkc string }

var canonSamples = []canonSample{
	{"hangul", "\u1100\u1161", "\uAC00", "\uAC00"},                    // conjoining jamo compose
	{"reorder dot first", "a\u0323\u0302", "\u1EAD", "\u1EAD"},        // canonical order already
	{"reorder circumflex first", "a\u0302\u0323", "\u1EAD", "\u1EAD"}, // reordered, then composed
	{"angstrom sign", "\u212B", "\u00C5", "\u00C5"},                   // singleton
	{"ohm sign", "\u2126", "\u03A9", "\u03A9"},                        // singleton
	{"fi ligature", "\uFB01", "\uFB01", "fi"},                         // compatibility: NFKC only
	{"e acute", "e\u0301", "\u00E9", "\u00E9"},
	{"already normal", "caf\u00E9 \u00C5", "caf\u00E9 \u00C5", "caf\u00E9 \u00C5"},
}

func (s canonSample) want(n normalize.Form) string {
	if n == normalize.NFKC {
		return s.nfkc
	}
	return s.nfc
}

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

// echo is the Echo handler: net/http's view, then Echo's own accessors
// (c.Param, c.ParamValues, c.QueryParam(s), c.FormValue, c.FormParams,
// c.Bind) over it.
func (cr *canonRec) echo(c echo.Context) error {
	r := c.Request()
	s := canonCollect(r)
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

func (cr *canonRec) http(w http.ResponseWriter, r *http.Request) {
	s := canonCollect(r)
	for _, n := range []string{"id", "rest"} {
		if v := r.PathValue(n); v != "" {
			s.Params[n] = v
		}
	}
	cr.set(s)
	_, _ = io.WriteString(w, "ok")
}

// canonMount is where the middleware sits: one of the Echo mounts, or the
// net/http adapter around the ServeMux or around each handler on it.
type canonMount struct {
	name string
	echo bool
	m    mount // Echo
	mux  bool  // net/http: wrap the ServeMux (before routing)
}

var canonMounts = []canonMount{
	{name: "echo global", echo: true, m: mountGlobal},
	{name: "echo group", echo: true, m: mountGroup},
	{name: "echo route", echo: true, m: mountRoute},
	{name: "echo pre", echo: true, m: mountPre},
	{name: "http mux", mux: true},
	{name: "http handler"},
}

// canonRoutes are the routes of the test servers, under /api for the
// group mount. "/api/café" is registered in NFC.
var canonRoutes = []string{"/api/users/:id", "/api/files/*", "/api/echo", "/api/caf\u00E9"}

// canonEnv is a server with the middleware mounted one way.
type canonEnv struct {
	h    http.Handler
	rec  *canonRec
	logs *logBuf
	mnt  canonMount
}

func canonNewEnv(t testing.TB, pol rules.Policy, mnt canonMount) *canonEnv {
	t.Helper()
	ev := &canonEnv{rec: &canonRec{}, logs: &logBuf{}, mnt: mnt}
	if !mnt.echo {
		mw, err := HTTPConfig{Rules: &pol, Logger: ev.logs.logger()}.ToHandler()
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		h := http.Handler(http.HandlerFunc(ev.rec.http))
		for _, pat := range []string{"/api/users/{id}", "/api/files/{rest...}", "/api/echo", "/api/caf\u00E9"} {
			if mnt.mux {
				mux.Handle(pat, h)
			} else {
				mux.Handle(pat, mw(h))
			}
		}
		ev.h = mux
		if mnt.mux {
			ev.h = mw(mux)
		}
		return ev
	}
	mw, err := Config{Rules: &pol, Logger: ev.logs.logger()}.ToMiddleware()
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	var routeMW []echo.MiddlewareFunc
	add := func(r interface {
		Add(string, string, echo.HandlerFunc, ...echo.MiddlewareFunc) *echo.Route
	}, prefix string) {
		for _, path := range canonRoutes {
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				r.Add(method, strings.TrimPrefix(path, prefix), ev.rec.echo, routeMW...)
			}
		}
	}
	switch mnt.m {
	case mountGlobal:
		e.Use(mw)
		add(e, "")
	case mountGroup:
		add(e.Group("/api", mw), "/api")
	case mountRoute:
		routeMW = []echo.MiddlewareFunc{mw}
		add(e, "")
	case mountPre:
		e.Pre(mw)
		add(e, "")
	}
	ev.h = e
	return ev
}

func (ev *canonEnv) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	ev.h.ServeHTTP(w, r)
	return w
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

// canonLoc is one place of the request: how to put a text there, and
// what the handler must see when the route's form turns in into want.
type canonLoc struct {
	name  string
	build func(in string) *http.Request
	check func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, orig *http.Request)
}

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

var canonLocs = []canonLoc{
	{
		name: "path",
		build: func(in string) *http.Request {
			return canonReq(http.MethodGet, "/api/users/"+canonPathEsc("x"+in+"y"), "", "")
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			v := "x" + want + "y"
			canonEq(t, "param id", s.Params["id"], v)
			if mnt.echo {
				canonEq(t, "ParamValues", s.ParamValues, []string{v})
			}
			canonEq(t, "URL.Path", s.Path, "/api/users/"+v)
			canonEq(t, "URL.RawPath", s.RawPath, "")
			canonEq(t, "EscapedPath", s.EscapedPath, "/api/users/"+canonPathEsc(v))
		},
	},
	{
		// Lower-case escapes: Go keeps them in RawPath, and Echo then
		// routes on RawPath and hands out raw parameter text.
		name: "path lower-case escapes",
		build: func(in string) *http.Request {
			return canonReq(http.MethodGet, "/api/users/"+strings.ToLower(canonPathEsc("x"+in+"y")), "", "")
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, orig *http.Request) {
			v := "x" + want + "y"
			canonEq(t, "param id", s.Params["id"], v)
			if mnt.echo {
				canonEq(t, "ParamValues", s.ParamValues, []string{v})
			}
			canonEq(t, "URL.Path", s.Path, "/api/users/"+v)
			if in != want {
				// Rewritten: RawPath only where the default escaping
				// does not do.
				canonEq(t, "URL.RawPath", s.RawPath, "")
			}
			canonEq(t, "EscapedPath", strings.ToLower(s.EscapedPath), strings.ToLower("/api/users/"+canonPathEsc(v)))
		},
	},
	{
		// An encoded slash stays encoded, in RawPath, and the segments
		// on both sides of it are normalized.
		name: "path encoded slash",
		build: func(in string) *http.Request {
			return canonReq(http.MethodGet, "/api/files/"+url.PathEscape(in)+"%2F"+url.PathEscape(in), "", "")
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			canonEq(t, "URL.Path", s.Path, "/api/files/"+want+"/"+want)
			raw := "/api/files/" + url.PathEscape(want) + "%2F" + url.PathEscape(want)
			canonEq(t, "URL.RawPath", s.RawPath, raw)
			canonEq(t, "EscapedPath", s.EscapedPath, raw)
			switch {
			case mnt.echo && mnt.m == mountPre:
				// Before routing the encoded slash keeps RawPath, so
				// Echo hands out the raw text of the canonical path
				// (ToMiddleware documents it).
				canonEq(t, "param *", s.Params["*"], strings.TrimPrefix(raw, "/api/files/"))
			case mnt.echo:
				canonEq(t, "param *", s.Params["*"], want+"/"+want)
				canonEq(t, "ParamValues", s.ParamValues, []string{want + "/" + want})
			default:
				canonEq(t, "PathValue rest", s.Params["rest"], want+"/"+want)
			}
		},
	},
	{
		name: "query",
		build: func(in string) *http.Request {
			q := "q=" + url.QueryEscape("x"+in+"y") + "&k" + url.QueryEscape(in) + "=v&plain=1&sp=a+b"
			return canonReq(http.MethodGet, "/api/echo?"+q, "", "")
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			wantQ := url.Values{"q": {"x" + want + "y"}, "k" + want: {"v"}, "plain": {"1"}, "sp": {"a b"}}
			canonEq(t, "query", s.Query, wantQ)
			canonEq(t, "QueryParam(q)", s.QueryParam["q"], "x"+want+"y")
			canonEq(t, "RawQuery", s.RawQuery, "q="+url.QueryEscape("x"+want+"y")+"&k"+url.QueryEscape(want)+"=v&plain=1&sp=a+b")
			if mnt.echo {
				canonEq(t, "bound q", s.FormDoc.Q, "x"+want+"y")
			}
		},
	},
	{
		name: "form",
		build: func(in string) *http.Request {
			body := "q=" + url.QueryEscape("x"+in+"y") + "&k" + url.QueryEscape(in) + "=v&plain=1"
			return canonReq(http.MethodPost, "/api/echo", ctForm, body)
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			if s.FormErr != nil {
				t.Fatal(s.FormErr)
			}
			canonEq(t, "form", s.Form, url.Values{"q": {"x" + want + "y"}, "k" + want: {"v"}, "plain": {"1"}})
			canonEq(t, "FormValue(q)", s.FormValue["q"], "x"+want+"y")
			canonEq(t, "body", string(s.Body), "q="+url.QueryEscape("x"+want+"y")+"&k"+url.QueryEscape(want)+"=v&plain=1")
			if mnt.echo {
				canonEq(t, "bound q", s.FormDoc.Q, "x"+want+"y")
			}
			canonCheckBodyLen(t, s)
		},
	},
	{
		name: "json",
		build: func(in string) *http.Request {
			return canonReq(http.MethodPost, "/api/echo", ctJSON, canonJSONBody(in, `"e\u0301"`, `"\u0065\u0301"`))
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			if s.BindErr != nil {
				t.Fatal(s.BindErr)
			}
			// Only the strings that change are rewritten; the escaped
			// ones that do are written back without escapes.
			canonEq(t, "body", string(s.Body), canonJSONBody(want, "\"\u00E9\"", "\"\u00E9\""))
			d := s.Doc
			canonEq(t, "bound q", d.Q, "x"+want+"y")
			canonEq(t, "bound esc1", d.Esc1, "\u00E9")
			canonEq(t, "bound esc2", d.Esc2, "\u00E9")
			canonEq(t, "bound same", d.Same, "\u00E9 caf\u00E9 \u0065")
			canonEq(t, "bound user.name", d.User.Name, want)
			canonEq(t, "bound list", d.List, []any{want, 1.0, true, nil})
			m := s.Map
			canonEq(t, "map q", m["q"], any("x"+want+"y"))
			canonEq(t, "map key k"+want, m["k"+want], any("v"))
			if in != want {
				if _, ok := m["k"+in]; ok {
					t.Errorf("map holds the key as sent, %+q", "k"+in)
				}
			}
			canonEq(t, "map user", m["user"], any(map[string]any{"name": want}))
			canonCheckBodyLen(t, s)
		},
	},
	{
		name: "multipart",
		build: func(in string) *http.Request {
			return canonMP(
				mpPart{disp: `name="q"`, data: "x" + in + "y"},
				mpPart{disp: `name="k` + in + `"`, data: "v"},
				mpPart{disp: `name="f"; filename="x` + in + `.txt"`, ct: "text/plain; charset=utf-8", data: in},
				mpPart{disp: `name="bin"; filename="b.bin"`, ct: "application/octet-stream", data: canonBinary},
				mpPart{disp: `name="g"; filename*=UTF-8''` + url.PathEscape("g"+in) + `.dat`, ct: "application/octet-stream", data: in},
				mpPart{disp: `name="empty"; filename=""`, ct: "application/octet-stream", data: "e" + in},
			)
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, orig *http.Request) {
			if s.FormErr != nil {
				t.Fatal(s.FormErr)
			}
			if in == want {
				canonEq(t, "Content-Type", s.ContentType, ctMP)
			} else {
				// Rebuilt: a fresh boundary, which the body is delimited by.
				mt, params, err := mime.ParseMediaType(s.ContentType)
				b := params["boundary"]
				if err != nil || mt != "multipart/form-data" || b == "" || b == "XBOUNDARYX" {
					t.Errorf("Content-Type %q: want multipart/form-data with a fresh boundary", s.ContentType)
				}
				if !bytes.HasPrefix(s.Body, []byte("--"+b+"\r\n")) || !bytes.HasSuffix(s.Body, []byte("\r\n--"+b+"--\r\n")) {
					t.Errorf("body not delimited by the boundary of its Content-Type: %q", s.Body)
				}
			}
			canonEq(t, "form", s.Form, url.Values{"q": {"x" + want + "y"}, "k" + want: {"v"}, "empty": {"e" + want}})
			canonEq(t, "FormValue(q)", s.FormValue["q"], "x"+want+"y")
			sum := sha256.Sum256([]byte(canonBinary))
			wantFiles := []canonFile{
				{Field: "bin", Name: "b.bin", Content: []byte(canonBinary), Sum: sum},
				{Field: "f", Name: "x" + want + ".txt", Content: []byte(want), Sum: sha256.Sum256([]byte(want))},
				{Field: "g", Name: "g" + want + ".dat", Content: []byte(in), Sum: sha256.Sum256([]byte(in))},
			}
			canonEq(t, "files", s.Files, wantFiles)
			if mnt.echo {
				canonEq(t, "bound q", s.FormDoc.Q, "x"+want+"y")
			}
			if in == want {
				canonEq(t, "body (unchanged)", string(s.Body), canonBodyOf(t, orig))
			}
			canonCheckBodyLen(t, s)
		},
	},
	{
		name: "text",
		build: func(in string) *http.Request {
			return canonReq(http.MethodPost, "/api/echo", ctText, "x"+in+"y\n"+in)
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt canonMount, _ *http.Request) {
			canonEq(t, "body", string(s.Body), "x"+want+"y\n"+want)
			canonCheckBodyLen(t, s)
		},
	},
}

// canonJSONBody is the JSON body of the json cases, with in in several
// places, esc1 and esc2 as the literals of "esc1" and "esc2". The "same"
// string is normal once its escapes are decoded, so it must keep its
// bytes, escapes and all.
func canonJSONBody(in, esc1, esc2 string) string {
	return `{"q": "x` + in + `y", "k` + in + `": "v", "esc1": ` + esc1 + `, "esc2": ` + esc2 +
		`, "same": "\u00e9 caf\u00E9 \u0065", "user": {"name": "` + in + `"}, "list": ["` + in + `", 1, true, null]}`
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

// TestCanonRewrite: under NFC and NFKC, at every location and every
// mount, the handler sees the canonical form and nothing else.
func TestCanonRewrite(t *testing.T) {
	t.Parallel()
	for _, mnt := range canonMounts {
		t.Run(mnt.name, func(t *testing.T) {
			t.Parallel()
			for _, form := range canonForms {
				ev := canonNewEnv(t, canonPolicy(form), mnt)
				for _, loc := range canonLocs {
					for _, smp := range canonSamples {
						t.Run(form.Name()+"/"+loc.name+"/"+smp.name, func(t *testing.T) {
							r := loc.build(smp.in)
							orig := loc.build(smp.in)
							orig.GetBody = canonGetBody(loc, smp.in)
							w := ev.do(r)
							if w.Code != http.StatusOK {
								t.Fatalf("status %d %s; log %v", w.Code, w.Body, ev.logs.lines(t))
							}
							s := ev.rec.get()
							if s == nil {
								t.Fatal("handler not called")
							}
							loc.check(t, s, smp.in, smp.want(form), mnt, orig)
							if l := ev.logs.lines(t); len(l) != 0 {
								t.Errorf("log lines for an accepted request: %v", l)
							}
						})
					}
				}
			}
		})
	}
}

// canonGetBody returns the original body of loc's request for in.
func canonGetBody(loc canonLoc, in string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		r := loc.build(in)
		if r.Body == nil {
			return http.NoBody, nil
		}
		return r.Body, nil
	}
}

// TestCanonReject: with RejectUnnormalized, a text that is not in the
// route's form is refused, 400 not_normalized, naming the location, the
// field and the offset of its first octet that normalization changes;
// text in the form passes unchanged.
func TestCanonReject(t *testing.T) {
	t.Parallel()
	nfc := canonPolicy(normalize.NFC, canonRejecting)
	nfkc := canonPolicy(normalize.NFKC, canonRejecting)
	cases := []struct {
		name   string
		pol    rules.Policy
		r      func() *http.Request
		status int
		want   wantLog
	}{
		{"path", nfc, func() *http.Request { return canonReq("GET", "/api/users/abc"+canonPathEsc("e\u0301"), "", "") },
			400, rej("not_normalized", "path", "", len("/api/users/abc"))},
		{"path reordered", nfc, func() *http.Request { return canonReq("GET", "/api/users/"+canonPathEsc("a\u0302\u0323"), "", "") },
			400, rej("not_normalized", "path", "", len("/api/users/"))},
		{"path reorder only", nfc, func() *http.Request { return canonReq("GET", "/api/users/"+canonPathEsc("x\u0302\u0323"), "", "") },
			400, rej("not_normalized", "path", "", len("/api/users/x"))},
		{"path hangul raw", nfc, func() *http.Request { return canonReq("GET", "/api/users/ab\u1100\u1161", "", "") },
			400, rej("not_normalized", "path", "", len("/api/users/ab"))},
		{"path normal", nfc, func() *http.Request { return canonReq("GET", "/api/users/"+canonPathEsc("\u1EAD\uAC00\uFB01"), "", "") }, 200, wantLog{}},
		{"query value", nfc, func() *http.Request { return canonReq("GET", "/api/echo?a=1&q=abce%CC%81", "", "") },
			400, rej("not_normalized", "query", "q", 3)},
		{"query key", nfc, func() *http.Request { return canonReq("GET", "/api/echo?abce%CC%81=1", "", "") },
			400, rej("not_normalized", "query", `abce%CC%81`, 3)},
		{"query singleton", nfc, func() *http.Request { return canonReq("GET", "/api/echo?q=%E2%84%AB", "", "") },
			400, rej("not_normalized", "query", "q", 0)},
		{"query fi nfc", nfc, func() *http.Request { return canonReq("GET", "/api/echo?q=%EF%AC%81", "", "") }, 200, wantLog{}},
		{"query fi nfkc", nfkc, func() *http.Request { return canonReq("GET", "/api/echo?q=x%EF%AC%81", "", "") },
			400, rej("not_normalized", "query", "q", 1)},
		{"form", nfc, func() *http.Request {
			return canonReq("POST", "/api/echo", ctForm, "q=abc%E1%84%80%E1%85%A1")
		}, 400, rej("not_normalized", "form", "q", 3)},
		{"json raw", nfc, func() *http.Request { return canonReq("POST", "/api/echo", ctJSON, `{"q":"abc`+"\u212B"+`"}`) },
			400, rej("not_normalized", "json", "/q", len(`{"q":"abc`))},
		{"json escaped", nfc, func() *http.Request { return canonReq("POST", "/api/echo", ctJSON, `{"a":1,"q":"abc\u0065\u0301"}`) },
			400, rej("not_normalized", "json", "/q", len(`{"a":1,"q":"`))},
		{"json key", nfc, func() *http.Request { return canonReq("POST", "/api/echo", ctJSON, `{"u":{"abce`+"\u0301"+`":1}}`) },
			400, rej("not_normalized", "json", `/u/abce\xcc\x81`, len(`{"u":{"abc`))},
		{"json nested", nfc, func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"a":[{"b":"ok"},{"c":"a`+"\u0302\u0323"+`"}]}`)
		}, 400, rej("not_normalized", "json", "/a/1/c", len(`{"a":[{"b":"ok"},{"c":"`))},
		{"json normal escapes kept", nfc, func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"q":"\u00e9\uac00"}`)
		}, 200, wantLog{}},
		{"multipart field", nfc, func() *http.Request { return canonMP(mpPart{disp: `name="q"`, data: "abc\u2126"}) },
			400, rej("not_normalized", "multipart", "q", 3)},
		{"multipart file name", nfc, func() *http.Request {
			return canonMP(mpPart{disp: `name="f"; filename="abce` + "\u0301" + `.bin"`, ct: "application/octet-stream", data: "\xff"})
		}, 400, rej("not_normalized", "multipart", "f", 3)},
		{"multipart text file", nfc, func() *http.Request {
			return canonMP(mpPart{disp: `name="f"; filename="a.txt"`, ct: "text/plain", data: "ab\u1100\u1161"})
		}, 400, rej("not_normalized", "multipart", "f", 2)},
		{"multipart binary file", nfc, func() *http.Request {
			return canonMP(mpPart{disp: `name="f"; filename="a.bin"`, ct: "application/octet-stream", data: canonBinary})
		}, 200, wantLog{}},
		{"text", nfc, func() *http.Request { return canonReq("POST", "/api/echo", ctText, "abca\u0323\u0302") },
			400, rej("not_normalized", "body", "", 3)},
	}
	for _, mnt := range canonMounts {
		t.Run(mnt.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ev := canonNewEnv(t, tc.pol, mnt)
					r := tc.r()
					sent := canonBodyOf(t, canonWithGetBody(tc.r))
					w := ev.do(r)
					if w.Code != tc.status {
						t.Fatalf("status %d %s, want %d; log %v", w.Code, w.Body, tc.status, ev.logs.lines(t))
					}
					if tc.status == 200 {
						s := ev.rec.get()
						canonEq(t, "body (unchanged)", string(s.Body), sent)
						if l := ev.logs.lines(t); len(l) != 0 {
							t.Errorf("log lines: %v", l)
						}
						return
					}
					if s := ev.rec.get(); s != nil {
						t.Errorf("handler ran for a rejected request")
					}
					checkOneLog(t, ev.logs, tc.want, "enforce", "", "")
					eb := errorBody(t, w.Body.Bytes())
					if eb["reason"] != "not_normalized" || eb["location"] != tc.want.location {
						t.Errorf("error body %v", eb)
					}
				})
			}
		})
	}
}

// canonWithGetBody builds a request with mk and gives it a GetBody that builds
// the same body again.
func canonWithGetBody(mk func() *http.Request) *http.Request {
	r := mk()
	r.GetBody = func() (io.ReadCloser, error) {
		if b := mk().Body; b != nil {
			return b, nil
		}
		return http.NoBody, nil
	}
	return r
}

// canonPrecisPolicy names one PRECIS field per location.
func canonPrecisPolicy(n normalize.Form, edits ...func(p *rules.Policy)) rules.Policy {
	return canonPolicy(n, append([]func(p *rules.Policy){func(p *rules.Policy) {
		p.Precis = []rules.PrecisField{
			{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
			{Location: rules.Form, Field: "user", Profile: normalize.UsernameCaseMapped},
			{Location: rules.JSON, Field: "/user/name", Profile: normalize.Nickname},
			{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped},
			{Location: rules.Multipart, Field: "user", Profile: normalize.UsernameCaseMapped},
		}
	}}, edits...)...)
}

// TestCanonPrecis: the handler sees the enforced form of each PRECIS field
// (and nothing else changes but by the route's form), a value the profile
// disallows is refused with reason precis and the field's name, and a case
// variant of a field's name is held to the same profile: Echo's binder and
// encoding/json fill the same struct field from it.
func TestCanonPrecis(t *testing.T) {
	t.Parallel()
	type tc struct {
		name  string
		r     func() *http.Request
		want  wantLog // reason "": accepted
		check func(t *testing.T, s *canonSeen, mnt canonMount)
		noPre bool // needs the route's parameter names: not before routing
		noMux bool // needs parameter names: not around a ServeMux
	}
	q := func(name, target string, check func(t *testing.T, s *canonSeen, mnt canonMount)) tc {
		return tc{name: name, r: func() *http.Request { return canonReq("GET", target, "", "") }, check: check}
	}
	queryIs := func(key, v string) func(t *testing.T, s *canonSeen, mnt canonMount) {
		return func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "query "+key, s.Query[key], []string{v})
			canonEq(t, "QueryParam "+key, s.QueryParam[key], v)
			if mnt.echo {
				canonEq(t, "bound user", s.FormDoc.User, v)
			}
		}
	}
	precis := func(loc, field string, off int) wantLog { return rej("precis", loc, field, off) }
	cases := []tc{
		q("query case mapped", "/api/echo?user=MIKE&q=MIKE", func(t *testing.T, s *canonSeen, mnt canonMount) {
			queryIs("user", "mike")(t, s, mnt)
			canonEq(t, "query q (no profile)", s.Query["q"], []string{"MIKE"})
			canonEq(t, "RawQuery", s.RawQuery, "user=mike&q=MIKE")
		}),
		q("query dotless i stays", "/api/echo?user=m%C4%B1ke", func(t *testing.T, s *canonSeen, mnt canonMount) {
			queryIs("user", "m\u0131ke")(t, s, mnt)
			if s.Query.Get("user") == "mike" {
				t.Error(`"mıke" became "mike"`)
			}
		}),
		q("query fullwidth", "/api/echo?user=%EF%BC%AD%EF%BC%A9%EF%BC%AB%EF%BC%A5", queryIs("user", "mike")),
		q("query case variant key", "/api/echo?USER=MIKE", queryIs("USER", "mike")),
		{name: "query space", r: func() *http.Request { return canonReq("GET", "/api/echo?user=mike+smith", "", "") },
			want: precis("query", "user", 4)},
		{name: "query empty", r: func() *http.Request { return canonReq("GET", "/api/echo?user=", "", "") },
			want: precis("query", "user", 0)},
		{name: "query no value", r: func() *http.Request { return canonReq("GET", "/api/echo?a=1&user", "", "") },
			want: precis("query", "user", 0)},
		{name: "query case variant disallowed", r: func() *http.Request { return canonReq("GET", "/api/echo?User=mike+smith", "", "") },
			want: precis("query", "User", 4)},
		{name: "query long s key", r: func() *http.Request {
			// The long s U+017F folds with "s" (strings.EqualFold):
			// Echo's binder fills query:"user" from "uſer".
			return canonReq("GET", "/api/echo?u%C5%BFer=mike+smith", "", "")
		}, want: precis("query", `u\xc5\xbfer`, 4)},
		{name: "form case mapped", r: func() *http.Request { return canonReq("POST", "/api/echo", ctForm, "user=MIKE&q=MIKE") },
			check: func(t *testing.T, s *canonSeen, mnt canonMount) {
				canonEq(t, "form", s.Form, url.Values{"user": {"mike"}, "q": {"MIKE"}})
				canonEq(t, "FormValue(user)", s.FormValue["user"], "mike")
				canonEq(t, "body", string(s.Body), "user=mike&q=MIKE")
				if mnt.echo {
					canonEq(t, "bound user", s.FormDoc.User, "mike")
				}
				canonCheckBodyLen(t, s)
			}},
		{name: "form disallowed", r: func() *http.Request { return canonReq("POST", "/api/echo", ctForm, "q=1&user=mike%20smith") },
			want: precis("form", "user", 4)},
		{name: "json nickname", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"user": {"name": "ᴮᴵᴳᴮᴵᴿᴰ", "bio": "ᴮᴵᴳ"}}`)
		}, check: func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "bound user.name", s.Doc.User.Name, "BIGBIRD")
			canonEq(t, "map user", s.Map["user"], any(map[string]any{"name": "BIGBIRD", "bio": "ᴮᴵᴳ"}))
			canonEq(t, "body", string(s.Body), `{"user": {"name": "BIGBIRD", "bio": "ᴮᴵᴳ"}}`)
			canonCheckBodyLen(t, s)
		}},
		{name: "json nickname spaces", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"user": {"name": "  Big\u3000  Bird "}}`)
		}, check: func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "bound user.name", s.Doc.User.Name, "Big Bird")
		}},
		{name: "json escaped key", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"user": {"n\u0061me": "ᴮᴵᴳᴮᴵᴿᴰ"}}`)
		}, check: func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "bound user.name", s.Doc.User.Name, "BIGBIRD")
			canonEq(t, "body", string(s.Body), `{"user": {"n\u0061me": "BIGBIRD"}}`)
		}},
		{name: "json case variant key", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"USER": {"NAME": "ᴮᴵᴳᴮᴵᴿᴰ"}}`)
		}, check: func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "bound user.name", s.Doc.User.Name, "BIGBIRD")
			canonEq(t, "map", s.Map, map[string]any{"USER": map[string]any{"NAME": "BIGBIRD"}})
		}},
		{name: "json empty", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"user": {"bio": "x", "name": "   "}}`)
		}, want: precis("json", "/user/name", len(`{"user": {"bio": "x", "name": "`))},
		{name: "json case variant disallowed", r: func() *http.Request {
			return canonReq("POST", "/api/echo", ctJSON, `{"user": {"Name": ""}}`)
		}, want: precis("json", "/user/Name", len(`{"user": {"Name": "`))},
		{name: "path case mapped", noPre: true, r: func() *http.Request { return canonReq("GET", "/api/users/MIKE", "", "") },
			check: func(t *testing.T, s *canonSeen, mnt canonMount) {
				canonEq(t, "param id", s.Params["id"], "mike")
				if mnt.echo {
					canonEq(t, "ParamValues", s.ParamValues, []string{"mike"})
				}
			}},
		{name: "path disallowed", noMux: true, r: func() *http.Request { return canonReq("GET", "/api/users/mike%20smith", "", "") },
			want: precis("path", "id", 4)},
		{name: "multipart case mapped", r: func() *http.Request {
			return canonMP(mpPart{disp: `name="user"`, data: "MIKE"}, mpPart{disp: `name="q"`, data: "MIKE"})
		}, check: func(t *testing.T, s *canonSeen, mnt canonMount) {
			canonEq(t, "form", s.Form, url.Values{"user": {"mike"}, "q": {"MIKE"}})
			if mnt.echo {
				canonEq(t, "bound user", s.FormDoc.User, "mike")
			}
			canonCheckBodyLen(t, s)
		}},
		{name: "multipart disallowed", r: func() *http.Request {
			return canonMP(mpPart{disp: `name="q"`, data: "x"}, mpPart{disp: `name="user"`, data: "mike smith"})
		}, want: precis("multipart", "user", 4)},
	}
	for _, n := range []normalize.Form{normalize.None, normalize.NFC} {
		for _, mnt := range canonMounts {
			t.Run(n.Name()+"/"+mnt.name, func(t *testing.T) {
				t.Parallel()
				ev := canonNewEnv(t, canonPrecisPolicy(n), mnt)
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						if c.noPre && (mnt.echo && mnt.m == mountPre || mnt.mux) || c.noMux && mnt.mux {
							t.Skip("documented: before routing the enforced form of a PRECIS path parameter cannot be handed on (Echo routes again after e.Pre), and around a ServeMux there are no parameter names")
						}
						ev.logs.reset()
						w := ev.do(c.r())
						if c.want.reason == "" {
							if w.Code != 200 {
								t.Fatalf("status %d %s; log %v", w.Code, w.Body, ev.logs.lines(t))
							}
							s := ev.rec.get()
							if s.BindErr != nil {
								t.Errorf("bind: %v", s.BindErr)
							}
							c.check(t, s, mnt)
							return
						}
						if w.Code != 400 {
							t.Fatalf("status %d, want 400", w.Code)
						}
						if ev.rec.get() != nil {
							t.Error("handler ran for a rejected request")
						}
						checkOneLog(t, ev.logs, c.want, "enforce", "", "")
					})
				}
			})
		}
	}
}

// TestCanonPrecisNFKCKey: under NFKC a JSON key is normalized before it is
// matched, so "ｎａｍｅ" is the field "name" (as the handler then sees it).
func TestCanonPrecisNFKCKey(t *testing.T) {
	t.Parallel()
	ev := canonNewEnv(t, canonPrecisPolicy(normalize.NFKC), canonMounts[0])
	w := ev.do(canonReq("POST", "/api/echo", ctJSON, `{"user": {"ｎａｍｅ": "mike\u3000 smith"}}`))
	if w.Code != 200 {
		t.Fatalf("status %d %s", w.Code, w.Body)
	}
	s := ev.rec.get()
	canonEq(t, "bound user.name", s.Doc.User.Name, "mike smith") // Nickname: spaces mapped and collapsed
	canonEq(t, "body", string(s.Body), `{"user": {"name": "mike smith"}}`)

	ev = canonNewEnv(t, canonPrecisPolicy(normalize.NFKC), canonMounts[0])
	w = ev.do(canonReq("POST", "/api/echo", ctJSON, `{"user": {"ｎａｍｅ": ""}}`))
	if w.Code != 400 {
		t.Fatalf("status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("precis", "json", "/user/name", len(`{"user": {"ｎａｍｅ": "`)), "enforce", "", "")
}

// TestCanonMonitor: in Monitor mode nothing is rewritten (not even a
// PRECIS field), and what RejectUnnormalized or a profile would refuse is
// flagged: 200 and one log line in mode monitor.
func TestCanonMonitor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		pol  rules.Policy
		r    func() *http.Request
		want wantLog // reason "": no log line
	}{
		{"rewrite query", canonPolicy(normalize.NFC, canonMonitoring),
			func() *http.Request { return canonReq("GET", "/api/users/e%CC%81?q=e%CC%81", "", "") }, wantLog{}},
		{"rewrite json", canonPolicy(normalize.NFKC, canonMonitoring),
			func() *http.Request {
				return canonReq("POST", "/api/echo", ctJSON, `{"q":"\uFB01e\u0301","e\u0301":1}`)
			}, wantLog{}},
		{"rewrite multipart", canonPolicy(normalize.NFC, canonMonitoring),
			func() *http.Request {
				return canonMP(mpPart{disp: "name=\"e\u0301\"; filename=\"\u212B.txt\"", ct: "text/plain", data: "e\u0301"})
			}, wantLog{}},
		{"reject path", canonPolicy(normalize.NFC, canonMonitoring, canonRejecting),
			func() *http.Request { return canonReq("GET", "/api/users/ae%CC%81", "", "") }, rej("not_normalized", "path", "", len("/api/users/a"))},
		{"reject query", canonPolicy(normalize.NFC, canonMonitoring, canonRejecting),
			func() *http.Request { return canonReq("GET", "/api/echo?q=e%CC%81", "", "") }, rej("not_normalized", "query", "q", 0)},
		{"reject form", canonPolicy(normalize.NFC, canonMonitoring, canonRejecting),
			func() *http.Request { return canonReq("POST", "/api/echo", ctForm, "q=%E2%84%A6") }, rej("not_normalized", "form", "q", 0)},
		{"reject text", canonPolicy(normalize.NFKC, canonMonitoring, canonRejecting),
			func() *http.Request { return canonReq("POST", "/api/echo", ctText, "ab\uFB01") }, rej("not_normalized", "body", "", 2)},
		{"precis enforced form", canonPrecisPolicy(normalize.NFC, canonMonitoring),
			func() *http.Request { return canonReq("GET", "/api/echo?user=MIKE", "", "") }, wantLog{}},
		{"precis disallowed", canonPrecisPolicy(normalize.NFC, canonMonitoring),
			func() *http.Request { return canonReq("GET", "/api/echo?user=mike+smith", "", "") }, rej("precis", "query", "user", 4)},
	}
	for _, mnt := range canonMounts {
		t.Run(mnt.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ev := canonNewEnv(t, tc.pol, mnt)
					sent := canonWithGetBody(tc.r)
					w := ev.do(tc.r())
					if w.Code != 200 {
						t.Fatalf("status %d %s", w.Code, w.Body)
					}
					s := ev.rec.get()
					// Unchanged: what the handler sees is what was sent.
					canonEq(t, "URL.Path", s.Path, sent.URL.Path)
					canonEq(t, "URL.RawQuery", s.RawQuery, sent.URL.RawQuery)
					canonEq(t, "body", string(s.Body), canonBodyOf(t, sent))
					if tc.want.reason == "" {
						if l := ev.logs.lines(t); len(l) != 0 {
							t.Errorf("log lines: %v", l)
						}
						return
					}
					checkOneLog(t, ev.logs, tc.want, "monitor", "", "")
				})
			}
		})
	}
}

// TestCanonInvalidFirst: normalization never runs on text that fails
// validation: a value holding a decomposed character and an overlong
// sequence is refused for the overlong, even where the decomposed
// character comes first, and under Repair the repaired text is what gets
// normalized.
func TestCanonInvalidFirst(t *testing.T) {
	t.Parallel()
	repairing := func(p *rules.Policy) {
		for l := range rules.Location(rules.NumLocations) {
			p.Location(l).Repair = true
		}
	}
	cases := []struct {
		name string
		r    func() *http.Request
		want wantLog
	}{
		{"path", func() *http.Request { return canonReq("GET", "/api/users/e%CC%81%C0%AF", "", "") }, rej("overlong", "path", "", len("/api/users/e\u0301"))},
		{"query", func() *http.Request { return canonReq("GET", "/api/echo?q=e%CC%81%C0%AF", "", "") }, rej("overlong", "query", "q", 3)},
		{"query later field", func() *http.Request { return canonReq("GET", "/api/echo?a=e%CC%81&q=%C0%AF", "", "") }, rej("overlong", "query", "q", 0)},
		{"form", func() *http.Request { return canonReq("POST", "/api/echo", ctForm, "q=e%CC%81%C0%AF") }, rej("overlong", "form", "q", 3)},
		{"json", func() *http.Request { return canonReq("POST", "/api/echo", ctJSON, "{\"q\":\"e\u0301\xC0\xAF\"}") }, rej("overlong", "json", "/q", 9)},
		{"multipart", func() *http.Request { return canonMP(mpPart{disp: `name="q"`, data: "e\u0301\xC0\xAF"}) }, rej("overlong", "multipart", "q", 3)},
		{"text", func() *http.Request { return canonReq("POST", "/api/echo", ctText, "e\u0301\xC0\xAF") }, rej("overlong", "body", "", 3)},
	}
	for _, pol := range []struct {
		name string
		p    rules.Policy
	}{
		{"rewrite", canonPolicy(normalize.NFC)},
		{"reject", canonPolicy(normalize.NFC, canonRejecting)},
	} {
		for _, tc := range cases {
			t.Run(pol.name+"/"+tc.name, func(t *testing.T) {
				ev := canonNewEnv(t, pol.p, canonMounts[0])
				w := ev.do(tc.r())
				if w.Code != 400 {
					t.Fatalf("status %d, want 400", w.Code)
				}
				checkOneLog(t, ev.logs, tc.want, "enforce", "", "")
			})
		}
	}
	// Repair: the overlong becomes U+FFFD, then the text is normalized.
	ev := canonNewEnv(t, canonPolicy(normalize.NFC, repairing), canonMounts[0])
	w := ev.do(canonReq("GET", "/api/echo?q=e%CC%81%C0%AFa%CC%8A", "", ""))
	if w.Code != 200 {
		t.Fatalf("repair: status %d %s", w.Code, w.Body)
	}
	canonEq(t, "repaired and normalized", ev.rec.get().Query.Get("q"), "\u00E9\uFFFD\uFFFD\u00E5")
}

// TestCanonAllocs reports the allocations of a clean ASCII GET served
// through Echo on a strict route with and without NFC, and pins those of
// the middleware's own work: none, with or without NFC, for a clean ASCII
// request or one already in NFC.
func TestCanonAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	serve := func(pol rules.Policy) float64 {
		e := echo.New()
		if !pol.Off() {
			e.Use(WithConfig(Config{Rules: &pol}))
		}
		e.GET("/api/users/:id", func(c echo.Context) error {
			_ = c.Param("id")
			_ = c.QueryParam("name")
			return c.NoContent(http.StatusOK)
		})
		r := httptest.NewRequest("GET", "/api/users/42?name=alice&sort=desc&page=2", nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(500, func() {
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("status %d", w.code)
			}
		})
	}
	bare := serve(rules.Unchecked()) // no middleware
	strict := serve(rules.Strict())
	nfc := serve(canonPolicy(normalize.NFC))
	nfkcPrecis := serve(canonPrecisPolicy(normalize.NFKC))
	t.Logf("allocs per clean ASCII GET through Echo: no middleware %v, strict %v, strict+NFC %v, strict+NFKC+PRECIS fields %v",
		bare, strict, nfc, nfkcPrecis)
	if nfc != strict {
		t.Errorf("NFC costs %v allocations on a clean ASCII request, want none", nfc-strict)
	}

	for _, pol := range []rules.Policy{rules.Strict(), canonPolicy(normalize.NFC), canonPolicy(normalize.NFKC, canonRejecting)} {
		g, err := newGuard(pol, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"/api/users/42?name=alice&sort=desc", "/api/users/%C3%A9t%C3%A9?q=caf%C3%A9&r=a+b%EA%B0%80"} {
			r := httptest.NewRequest("GET", target, nil)
			names, values := []string{"id"}, []string{"42"}
			n := testing.AllocsPerRun(200, func() {
				s := getScratch()
				_, rj := g.inspect(s, r, g.def, names, values, r.URL.RawPath != "")
				putScratch(s)
				if rj != nil {
					t.Fatal(rj)
				}
			})
			if n != 0 {
				t.Errorf("%s %s: inspect allocates %v times, want 0", pol.Normalization.Name(), target, n)
			}
		}
	}
}

// canonDiscard is a ResponseWriter that keeps only the status.
type canonDiscard struct {
	h    http.Header
	code int
}

func (d *canonDiscard) Header() http.Header         { return d.h }
func (d *canonDiscard) Write(p []byte) (int, error) { return len(p), nil }
func (d *canonDiscard) WriteHeader(code int)        { d.code = code }

// TestCanonMultipartBoundary: the body is rebuilt with a fresh boundary,
// whatever the client's was (here one that multipart.Writer.SetBoundary
// refuses but Go's reader takes); a body broken after a part that would
// change is refused rather than passed on with that part as it came.
func TestCanonMultipartBoundary(t *testing.T) {
	t.Parallel()
	const b = "we#ird@bound"
	body := "--" + b + "\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\ne\u0301\r\n--" + b + "--\r\n"
	ev := canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
	r := canonReq("POST", "/api/echo", `multipart/form-data; boundary="`+b+`"`, body)
	w := ev.do(r)
	if w.Code != 200 {
		t.Fatalf("status %d %s", w.Code, w.Body)
	}
	s := ev.rec.get()
	canonEq(t, "FormValue(q)", s.FormValue["q"], "\u00E9")
	_, params, _ := mime.ParseMediaType(s.ContentType)
	nb := params["boundary"]
	if nb == "" || nb == b {
		t.Errorf("Content-Type %q: want a fresh boundary", s.ContentType)
	}
	canonEq(t, "body", string(s.Body), strings.ReplaceAll(strings.Replace(body, "e\u0301", "\u00E9", 1), b, nb))

	// Broken: no closing delimiter.
	broken := "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\ne\u0301\r\n--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"r\"\r\n\r\nabc"
	ev = canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
	w = ev.do(canonReq("POST", "/api/echo", ctMP, broken))
	if w.Code != 400 {
		t.Fatalf("broken body: status %d, want 400", w.Code)
	}
	checkOneLog(t, ev.logs, rej("not_normalized", "multipart", "q", 0), "enforce", "", "")

	// Broken but nothing to change: passed on as it came, for the
	// handler's parser to fail on.
	ev = canonNewEnv(t, canonPolicy(normalize.NFC), canonMounts[0])
	clean := strings.Replace(broken, "e\u0301", "\u00E9", 1)
	w = ev.do(canonReq("POST", "/api/echo", ctMP, clean))
	if w.Code != 200 {
		t.Fatalf("broken clean body: status %d", w.Code)
	}
	canonEq(t, "body", string(ev.rec.get().Body), clean)
}
