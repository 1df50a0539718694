package middleware

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// FuzzOracle builds whole requests from its input, serves each through
// the middleware with the oracle (oracle_test.go) as the handler, and fails
// on anything the oracle finds in an accepted request. The input chooses:
//
//   - sel: the mount (bits 0-2, modulo 5: e.Use, a group, the route, e.Pre,
//     the net/http adapter), a chunked body (bit 3), the method (bits 4-5:
//     POST, GET, PUT, PATCH);
//   - target: the request-target; the routes (orcRouteDefs) are below /t/:
//     strict, NFC, NFKC, default, PRECIS, upload and tight (NFKC, small
//     limits) policies, with wildcard and parameter routes;
//   - hdrs: further header lines, "\n"-separated (cookies, X-Name, part of
//     the framing); after an empty line, trailers (sent when chunked);
//   - ctype: the Content-Type, none when empty;
//   - body: the body, whose Content-Length is always right.
//
// It is seeded with every request of TestOracleMechanisms and
// TestOracleClients on every mount, and with testdata/fuzz/FuzzOracle. One
// iteration is a parse and a ServeHTTP: no socket. For a longer run:
//
//	go test ./middleware -run '^$' -fuzz '^FuzzOracle$' -fuzztime 10m -parallel 1
//
// Fuzzing stops at the first seed that fails. While some mechanisms are
// still open, UTF8GUARD_ORACLE_SEEDS, a regular expression, keeps only the
// seeds of the mechanism groups it matches ("cookies|key-collisions"), and of
// the clients when it matches "clients"; UTF8GUARD_ORACLE_IGNORE, a
// regular expression, drops the oracle's findings it matches ("unlisted
// media type|charset"), to look past open mechanisms while triaging. Both
// are for local runs only: unset, nothing is skipped.
func FuzzOracle(f *testing.F) {
	keep := func(string) bool { return true }
	if re := os.Getenv("UTF8GUARD_ORACLE_SEEDS"); re != "" {
		keep = regexp.MustCompile(re).MatchString
	}
	ignore := func(string) bool { return false }
	if re := os.Getenv("UTF8GUARD_ORACLE_IGNORE"); re != "" {
		ignore = regexp.MustCompile(re).MatchString
	}
	for _, g := range orcMechanisms() {
		for _, tc := range g.cases {
			if keep(g.name) {
				orcSeed(f, tc.req, tc.mounts)
			}
		}
	}
	for _, tc := range orcClients() {
		if q, ok := orcReqOf(tc.wire); ok && keep("clients") {
			orcSeed(f, q, nil)
		}
	}
	f.Fuzz(func(t *testing.T, sel uint8, target, hdrs, ctype string, body []byte) {
		q, m := orcFuzzReq(sel, target, hdrs, ctype, body)
		res, ok := orcServe(t, m, q.wire())
		if !ok {
			return // net/http refuses it: nothing reaches a handler
		}
		wire := q.wire()
		if len(wire) > 2048 {
			wire = append(wire[:2048:2048], "..."...)
		}
		ran, problems := res.rep.result()
		problems = slices.DeleteFunc(problems, ignore)
		if ran && len(problems) > 0 {
			t.Fatalf("%s: accepted (%d) with what the policy refuses:\n\t%s\nrequest %q",
				m, res.status, strings.Join(problems, "\n\t"), wire)
		}
		if ran && res.status != http.StatusOK || !ran && (res.status < 300 || res.status >= 500) {
			t.Fatalf("%s: status %d, handler ran %v\nrequest %q", m, res.status, ran, wire)
		}
	})
}

var orcMethods = [4]string{http.MethodPost, http.MethodGet, http.MethodPut, http.MethodPatch}

// orcFuzzReq is the request and the mount FuzzOracle's input describes.
func orcFuzzReq(sel uint8, target, hdrs, ctype string, body []byte) (orcReq, mount) {
	return orcReq{
		method:  orcMethods[sel>>4&3],
		target:  target,
		ctype:   ctype,
		hdrs:    hdrs,
		body:    string(body),
		chunked: sel&8 != 0,
	}, orcAllMounts[int(sel&7)%len(orcAllMounts)]
}

// orcSeed adds q on each of mounts (nil: all) to f, unless it is too large
// for a fuzz input.
func orcSeed(f *testing.F, q orcReq, mounts []mount) {
	if len(q.body) > 16<<10 || len(q.target) > 4<<10 {
		return
	}
	if mounts == nil {
		mounts = orcAllMounts
	}
	mi := slices.Index(orcMethods[:], q.method)
	if mi < 0 {
		return
	}
	for _, m := range mounts {
		sel := uint8(mi)<<4 | uint8(m)
		if q.chunked {
			sel |= 8
		}
		f.Add(sel, q.target, q.hdrs, q.ctype, []byte(q.body))
	}
}

// orcAllMounts are the mounts of the oracle servers, in the order a
// fuzz input selects them: Echo's e.Use, group (under /t), route and
// e.Pre, and the net/http adapter around each ServeMux handler.
var orcAllMounts = []mount{mountGlobal, mountGroup, mountRoute, mountPre, mountHandler}

// orcRouteDefs are the routes of every oracle server: an Echo template, a
// ServeMux pattern, and a policy name (orcPolicy; "" is the table's lax
// default).
var orcRouteDefs = []struct{ echo, mux, pol string }{
	{"/t/strict/*", "/t/strict/{rest...}", "strict"},
	{"/t/strict/p/:id", "/t/strict/p/{id}", "strict"},
	{"/t/nfc/*", "/t/nfc/{rest...}", "nfc"},
	{"/t/nfc/p/:id", "/t/nfc/p/{id}", "nfc"},
	{"/t/nfkc/*", "/t/nfkc/{rest...}", "nfkc"},
	{"/t/nfkc/p/:id", "/t/nfkc/p/{id}", "nfkc"},
	{"/t/default/*", "/t/default/{rest...}", "default"},
	{"/t/default/p/:id", "/t/default/p/{id}", "default"},
	{"/t/precis/:user", "/t/precis/{user}", "precis"},
	{"/t/upload/*", "/t/upload/{rest...}", "upload"},
	{"/t/tight/*", "/t/tight/{rest...}", "tight"},
	{"/t/tight/p/:id", "/t/tight/p/{id}", "tight"},
	{"/t/admin/:id", "/t/admin/{id}", "strict"},
	{"/t/*", "/t/{rest...}", ""},
}

// orcPolicy returns the policy of a route. The strict ones check the
// header X-Name too, so that trailers have a header to carry.
func orcPolicy(name string) rules.Policy {
	p := rules.Strict()
	p.Header.On, p.Headers = true, []string{"X-Name"}
	switch name {
	case "", "default":
		return rules.Default()
	case "nfc":
		p.Normalization = normalize.NFC
	case "nfkc":
		p.Normalization = normalize.NFKC
	case "precis":
		p.Precis = []rules.PrecisField{
			{Location: rules.Path, Field: "user", Profile: normalize.UsernameCaseMapped},
			{Location: rules.Query, Field: "nick", Profile: normalize.Nickname},
			{Location: rules.Form, Field: "user", Profile: normalize.UsernameCasePreserved},
			{Location: rules.JSON, Field: "/name", Profile: normalize.Nickname},
			{Location: rules.Multipart, Field: "user", Profile: normalize.UsernameCaseMapped},
		}
	case "upload":
		p.BinaryTypes = []string{"application/octet-stream", "image/*"}
	case "tight": // NFKC with limits small inputs reach
		p.Normalization = normalize.NFKC
		p.Limits = rules.Limits{BodyBytes: 8192, FieldBytes: 1024, PathBytes: 1024, QueryBytes: 512, Fields: 100, MultipartParts: 10, JSONDepth: 16}.WithDefaults()
	}
	return p
}

// orcTable is the routes' policy table, keyed by Echo template or ServeMux
// pattern.
func orcTable(key func(i int) string) *rules.Table {
	t := &rules.Table{Default: orcPolicy(""), Routes: map[string]rules.Policy{}}
	for i, d := range orcRouteDefs {
		if d.pol != "" {
			t.Routes[key(i)] = orcPolicy(d.pol)
		}
	}
	return t
}

// orcSetup is the oracle server on m: the routes of orcRouteDefs, each
// with its policy, no log.
func orcSetup(m mount) setup {
	nop := zerolog.Nop()
	st := setup{mount: m, group: "/t",
		echo: Config{Rules: orcTable(func(i int) string { return orcRouteDefs[i].echo }), Logger: &nop},
		http: HTTPConfig{Rules: orcTable(func(i int) string { return orcRouteDefs[i].mux }), Logger: &nop}}
	for _, d := range orcRouteDefs {
		st.routes, st.patterns = append(st.routes, d.echo), append(st.patterns, d.mux)
	}
	return st
}

var (
	orcServersOnce sync.Once
	orcServersOn   map[mount]*server[orcHandler]
)

// orcServer is the oracle server on m, built once for the test binary
// (by the first test to ask) and safe for concurrent use: each request
// carries its own report.
func orcServer(t testing.TB, m mount) *server[orcHandler] {
	orcServersOnce.Do(func() {
		orcServersOn = map[mount]*server[orcHandler]{}
		for _, m := range orcAllMounts {
			orcServersOn[m] = newServer(t, orcSetup(m), orcHandler{})
		}
	})
	return orcServersOn[m]
}

// orcBound is a struct a handler binds a request into (c.Bind, or
// encoding/json and encoding/xml on the body).
type orcBound struct {
	ID   string         `param:"id" query:"id" form:"id" json:"id" xml:"id"`
	Rest string         `param:"*"`
	User string         `param:"user" query:"user" form:"user" json:"user" xml:"user"`
	Q    []string       `query:"q" form:"q" json:"q" xml:"q"`
	Name string         `query:"name" form:"name" json:"name" xml:"name"`
	E    string         `query:"é" form:"é" json:"é" xml:"é"`
	Evil string         `query:"evil" form:"evil" json:"evil" xml:"evil"`
	Attr string         `xml:"b,attr"`
	Text string         `xml:",chardata"`
	Any  []string       `xml:",any"`
	M    map[string]any `json:"m"`
}

// orcRestore gives r its body back for one more reader, nothing parsed.
func orcRestore(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Form, r.PostForm, r.MultipartForm = nil, nil, nil
}

// orcRun is the oracle in a handler: it reads the body to its end (which
// fills r.Trailer: a handler whose read fails never gets to it), checks
// all that net/http hands out, then calls more, with the body restored,
// for what the framework adds.
func orcRun(rep *orcReport, pol *rules.Policy, r *http.Request, route string, names, values []string, wild string,
	more func(k *orcCheck, body []byte, mt string, loc rules.Location)) {
	k, orig := newOrcCheck(rep, pol), rep.orig
	var body []byte
	var bodyErr error
	if r.Body != nil {
		body, bodyErr = io.ReadAll(r.Body)
	}
	rep.mu.Lock()
	rep.ran, rep.route, rep.path, rep.rawQuery, rep.body = true, route, r.URL.Path, r.URL.RawQuery, body
	rep.mu.Unlock()
	ct := r.Header.Get("Content-Type")
	mt, _, _ := orcMediaType(ct)
	omt, _, _ := orcMediaType(orig.ctype)
	loc, _ := k.bodyLoc(mt)
	k.path(r.URL, names, values, func(n string) bool { return n == wild })
	k.pairs("URL.Query()", rules.Query, r.URL.Query())
	k.rawPairs("URL.RawQuery", rules.Query, r.URL.RawQuery)
	if k.pol.Query.On {
		k.limit("URL.RawQuery", len(r.URL.RawQuery), int64(k.pol.Limits.QueryBytes))
	}
	k.collisions("query", orcRawKeys(orig.rawQuery))
	k.headers("header", r.Header)
	if bodyErr == nil {
		k.headers("trailer", r.Trailer)
	}
	k.cookies(r)
	k.body(ct, body)
	if loc == rules.Form {
		k.rawPairs("form body", rules.Form, string(body))
	}
	if omt == "application/x-www-form-urlencoded" {
		k.collisions("form", orcRawKeys(string(orig.body)))
	}
	if orcIsJSON(omt) && pol.JSON.On {
		orcJSONWalk(orig.body, func(string, string, bool) {}, func(names []string) { k.collisions("JSON member", names) })
	}
	k.multipart(r, body, mt)
	orcRestore(r, body)
	more(k, body, mt, loc)
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// forms checks what ParseMultipartForm (and so ParseForm, c.FormParams,
// r.FormValue) gives: r.Form, r.PostForm, r.MultipartForm and the files.
func (k *orcCheck) forms(r *http.Request, loc rules.Location, fileHeader func(string) *multipart.FileHeader) {
	if forbid, ok := k.bindClasses(rules.Query, loc); ok && (loc == rules.Form || loc == rules.Multipart) {
		k.bound("r.Form", reflect.ValueOf(r.Form), forbid, k.pol.Precis == nil)
	}
	if loc == rules.Form {
		k.pairs("r.PostForm", rules.Form, r.PostForm)
	}
	k.multipartForm(r.MultipartForm, fileHeader)
}

// orcHandler is the oracle in the handler of every route, with the
// route's policy (orcRouteDefs): on Echo by its template, reading the
// request through Echo's API too; on net/http by its ServeMux pattern.
type orcHandler struct{}

func (orcHandler) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	for _, d := range orcRouteDefs {
		if c != nil && c.Path() == d.echo {
			return orcEcho(c, orcPolicy(d.pol))
		}
		if c == nil && r.Pattern == d.mux {
			orcHTTP(w, r, orcPolicy(d.pol), d.mux)
			return nil
		}
	}
	panic("oracle: no route " + r.Pattern)
}

// orcEcho is the oracle for an Echo route of policy pol.
func orcEcho(c echo.Context, pol rules.Policy) error {
	r := c.Request()
	rep := orcReportOf(r.Context())
	if rep == nil {
		return c.NoContent(http.StatusOK)
	}
	names := c.ParamNames()
	values := make([]string, len(names))
	for i, n := range names {
		values[i] = c.Param(n)
	}
	orcRun(rep, &pol, r, c.Path(), names, values, "*", func(k *orcCheck, body []byte, mt string, loc rules.Location) {
		k.pairs("c.QueryParams()", rules.Query, c.QueryParams())
		if _, err := c.FormParams(); err == nil {
			k.forms(r, loc, func(name string) *multipart.FileHeader { fh, _ := c.FormFile(name); return fh })
		}
		orcRestore(r, body)
		var s orcBound
		_ = c.Bind(&s)
		if forbid, ok := k.bindClasses(rules.Path, rules.Query, loc); ok {
			k.bound("c.Bind struct", reflect.ValueOf(s), forbid, pol.Precis == nil)
		}
		orcRestore(r, body)
		m := map[string]any{}
		_ = (&echo.DefaultBinder{}).BindBody(c, &m)
		if forbid, ok := k.bindClasses(loc); ok {
			k.bound("BindBody map", reflect.ValueOf(m), forbid, pol.Precis == nil)
		}
	})
	return c.NoContent(http.StatusOK)
}

// orcHTTP is the oracle for a ServeMux route of policy pol and pattern
// pattern.
func orcHTTP(w http.ResponseWriter, r *http.Request, pol rules.Policy, pattern string) {
	var names []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, "{") {
			names = append(names, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	if rep := orcReportOf(r.Context()); rep != nil {
		values := make([]string, len(names))
		for i, n := range names {
			values[i] = r.PathValue(n)
		}
		orcRun(rep, &pol, r, r.Pattern, names, values, "rest", func(k *orcCheck, body []byte, mt string, loc rules.Location) {
			_ = r.ParseMultipartForm(32 << 20)
			k.forms(r, loc, func(name string) *multipart.FileHeader {
				if f, fh, err := r.FormFile(name); err == nil {
					f.Close()
					return fh
				}
				return nil
			})
			if forbid, ok := k.bindClasses(loc); ok {
				var s orcBound
				var m any
				if orcIsJSON(mt) {
					_, _ = json.Unmarshal(body, &s), json.Unmarshal(body, &m)
				} else if orcIsXML(mt) {
					_ = xml.Unmarshal(body, &s)
				}
				k.bound("decoded struct", reflect.ValueOf(s), forbid, pol.Precis == nil)
				k.bound("decoded value", reflect.ValueOf(&m), forbid, pol.Precis == nil)
			}
		})
	}
	w.WriteHeader(http.StatusOK)
}

// orcReq is a request, written on the wire by wire.
type orcReq struct {
	method, target string
	ctype          string // the Content-Type; none when empty
	hdrs           string // header lines, "\n"-separated; after an empty line, trailers
	body           string
	chunked        bool
}

// wire returns the request as a client writes it: Host first, the
// Content-Type, the header lines, and a Content-Length (when there is a
// body or the method has one) or the chunked framing with the trailers.
func (q orcReq) wire() []byte {
	var b bytes.Buffer
	b.WriteString(q.method + " " + q.target + " HTTP/1.1\r\nHost: example.com\r\n")
	if q.ctype != "" {
		b.WriteString("Content-Type: " + q.ctype + "\r\n")
	}
	lines := strings.Split(q.hdrs, "\n")
	head, trailers := lines, []string(nil)
	if i := slices.Index(lines, ""); i >= 0 {
		head, trailers = lines[:i], lines[i+1:]
	}
	for _, line := range head {
		b.WriteString(line + "\r\n")
	}
	if !q.chunked {
		if q.body != "" || q.method != http.MethodGet {
			b.WriteString("Content-Length: " + strconv.Itoa(len(q.body)) + "\r\n")
		}
		b.WriteString("\r\n" + q.body)
		return b.Bytes()
	}
	b.WriteString("Transfer-Encoding: chunked\r\n\r\n")
	size := min(max((len(q.body)+1)/2, 1), 32<<10)
	for rest := q.body; rest != ""; {
		n := min(size, len(rest))
		b.WriteString(strconv.FormatInt(int64(n), 16) + "\r\n" + rest[:n] + "\r\n")
		rest = rest[n:]
	}
	b.WriteString("0\r\n")
	for _, line := range trailers {
		if line != "" {
			b.WriteString(line + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// orcReqOf reads a request written with a Content-Length (or none) back
// into an orcReq, for seeding; ok is false for a chunked one.
func orcReqOf(wire string) (orcReq, bool) {
	head, body, _ := strings.Cut(wire, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	method, target, _ := strings.Cut(lines[0], " ")
	target, _, _ = strings.Cut(target, " ")
	q := orcReq{method: method, target: target, body: body}
	for _, l := range lines[1:] {
		name, value, _ := strings.Cut(l, ":")
		switch strings.ToLower(name) {
		case "host", "content-length":
		case "transfer-encoding":
			return q, false
		case "content-type":
			q.ctype = strings.TrimSpace(value)
		default:
			q.hdrs += l + "\n"
		}
	}
	return q, true
}

// orcParse parses a request as http.Server does.
func orcParse(wire []byte) (*http.Request, error) {
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(wire)))
	if err != nil {
		return nil, err
	}
	r.RemoteAddr = "192.0.2.1:40000"
	return r, nil
}

// orcResult is the outcome of one request.
type orcResult struct {
	status int
	reason string
	rep    *orcReport
}

// orcOrigOf is the request wire as the client sent it, parsed by
// net/http alone.
func orcOrigOf(wire []byte) (*orcOrig, error) {
	ref, err := orcParse(wire)
	if err != nil {
		return nil, err
	}
	orig := &orcOrig{path: ref.URL.Path, rawPath: ref.URL.RawPath, rawQuery: ref.URL.RawQuery, ctype: ref.Header.Get("Content-Type")}
	orig.body, _ = io.ReadAll(ref.Body)
	return orig, nil
}

// orcServe serves the request wire on mount m; ok is false when net/http
// refuses it before any handler.
func orcServe(t testing.TB, m mount, wire []byte) (orcResult, bool) {
	orig, err := orcOrigOf(wire)
	if err != nil {
		return orcResult{}, false
	}
	r, err := orcParse(wire)
	if err != nil {
		return orcResult{}, false
	}
	rep := &orcReport{mount: m, orig: orig}
	r = r.WithContext(context.WithValue(r.Context(), orcKey{}, rep))
	w := orcServer(t, m).do(r)
	return orcResultOf(w.Code, w.Body.Bytes(), rep), true
}

func orcResultOf(status int, body []byte, rep *orcReport) orcResult {
	res := orcResult{status: status, rep: rep}
	if status >= 400 {
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		res.reason, _ = m["reason"].(string)
	}
	return res
}

// orcWant is what a request must come to. Whatever the want, an accepted
// request on which the oracle finds anything fails.
type orcWant struct {
	// status is 200 (accepted); a 4xx status (rejected with it, and with
	// one of reasons when there are any); -1, rejected with any 4xx status
	// and one of reasons; or 0: rejected with a 4xx (or, on net/http,
	// redirected) before the handler, or accepted, whichever.
	status  int
	reasons []string
}

var (
	orcOK   = orcWant{status: http.StatusOK}
	orcSafe = orcWant{}
)

func orcRej(status int, reasons ...string) orcWant { return orcWant{status: status, reasons: reasons} }

// check asserts that res is what w wants.
func (w orcWant) check(t *testing.T, res orcResult) {
	t.Helper()
	ran, problems := res.rep.result()
	if ran && len(problems) > 0 {
		t.Errorf("accepted (status %d) on route %s, and the handler read what the policy refuses:\n\t%s",
			res.status, res.rep.route, strings.Join(problems, "\n\t"))
	}
	switch {
	case ran && res.status != http.StatusOK:
		t.Errorf("the handler ran, and the status is %d", res.status)
	case w.status == http.StatusOK:
		if !ran || res.status != http.StatusOK {
			t.Errorf("status %d (reason %q), handler ran %v; want accepted", res.status, res.reason, ran)
		}
	case w.status < 0:
		if ran || res.status < 400 || res.status >= 500 || !slices.Contains(w.reasons, res.reason) {
			t.Errorf("status %d, reason %q, handler ran %v; want a 4xx with reason in %q", res.status, res.reason, ran, w.reasons)
		}
	case w.status != 0:
		if ran || res.status != w.status || len(w.reasons) > 0 && !slices.Contains(w.reasons, res.reason) {
			t.Errorf("status %d, reason %q, handler ran %v; want %d with reason in %q",
				res.status, res.reason, ran, w.status, w.reasons)
		}
	default:
		if !ran && (res.status < 300 || res.status >= 500) {
			t.Errorf("status %d (reason %q) without the handler; want a refusal or acceptance", res.status, res.reason)
		}
	}
}
