package middleware

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The adversarial corpus of testdata/vectors, run through the Echo
// middleware under rules.Strict() in every location each vector lists.
// testdata/vectors/README.md defines the format.

const vecDir = "../testdata/vectors"

// vecLocations is every location a vector may list, in the order the
// subtests run.
var vecLocations = []string{"path", "query", "form", "json", "multipart", "body", "header"}

// vecOutcome is what a vector expects in one location.
type vecOutcome struct {
	accept bool
	reason string // taxonomy name
	offset int    // into the decoded value, for every reason
	class  string // forbidden_char only; empty for other reasons
}

func (o vecOutcome) String() string {
	if o.accept {
		return "accept"
	}
	s := "reject " + o.reason + " " + strconv.Itoa(o.offset)
	if o.class != "" {
		s += " " + o.class
	}
	return s
}

// vecCase is one vector file.
type vecCase struct {
	name        string
	description string
	expect      map[string]vecOutcome // by location; every listed location has one
	locations   []string
	escaped     bool // payload is escaped URL/form text
	payload     []byte
}

// vecLoadAll reads every vector of testdata/vectors.
func vecLoadAll(tb testing.TB) []*vecCase {
	tb.Helper()
	entries, err := os.ReadDir(vecDir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []*vecCase
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(vecDir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		v, err := vecParse(e.Name(), data)
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		tb.Fatal("no vectors in " + vecDir)
	}
	return out
}

// vecParse parses one vector file strictly: an unknown or repeated key, a
// missing key, an unknown location, reason or class is an error.
func vecParse(name string, data []byte) (*vecCase, error) {
	head, body, ok := bytes.Cut(data, []byte("\n---\n"))
	if !ok {
		return nil, fmt.Errorf("no --- line")
	}
	v := &vecCase{name: name, expect: map[string]vecOutcome{}}
	var def *vecOutcome
	overrides := map[string]vecOutcome{}
	seen := map[string]bool{}
	for line := range strings.SplitSeq(string(head), "\n") {
		key, val, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, fmt.Errorf("header line %q is not key: value", line)
		}
		if seen[key] {
			return nil, fmt.Errorf("repeated key %q", key)
		}
		seen[key] = true
		switch {
		case key == "description":
			v.description = val
		case key == "expect":
			o, err := vecParseOutcome(val)
			if err != nil {
				return nil, err
			}
			def = &o
		case strings.HasPrefix(key, "expect-"):
			loc := strings.TrimPrefix(key, "expect-")
			if !slices.Contains(vecLocations, loc) {
				return nil, fmt.Errorf("unknown location in %q", key)
			}
			o, err := vecParseOutcome(val)
			if err != nil {
				return nil, err
			}
			overrides[loc] = o
		case key == "locations":
			for _, l := range strings.Fields(val) {
				if !slices.Contains(vecLocations, l) || slices.Contains(v.locations, l) {
					return nil, fmt.Errorf("bad or repeated location %q", l)
				}
				v.locations = append(v.locations, l)
			}
		case key == "payload":
			switch val {
			case "octets":
			case "escaped":
				v.escaped = true
			default:
				return nil, fmt.Errorf("unknown payload kind %q", val)
			}
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
	}
	if v.description == "" || def == nil || len(v.locations) == 0 {
		return nil, fmt.Errorf("description, expect and locations are required")
	}
	for _, l := range v.locations {
		v.expect[l] = *def
		if o, ok := overrides[l]; ok {
			v.expect[l] = o
		}
	}
	for l := range overrides {
		if !slices.Contains(v.locations, l) {
			return nil, fmt.Errorf("expect-%s for a location not listed", l)
		}
	}
	var hexText strings.Builder
	for line := range strings.SplitSeq(string(body), "\n") {
		line, _, _ = strings.Cut(line, "#")
		hexText.WriteString(strings.Join(strings.Fields(line), ""))
	}
	p, err := hex.DecodeString(hexText.String())
	if err != nil {
		return nil, fmt.Errorf("payload: %v", err)
	}
	v.payload = p
	return v, nil
}

func vecParseOutcome(s string) (vecOutcome, error) {
	f := strings.Fields(s)
	if len(f) == 1 && f[0] == "accept" {
		return vecOutcome{accept: true}, nil
	}
	if len(f) < 3 || len(f) > 4 || f[0] != "reject" {
		return vecOutcome{}, fmt.Errorf("bad outcome %q", s)
	}
	o := vecOutcome{reason: f[1]}
	if _, err := sanitize.ParseReason(o.reason); err != nil {
		return o, err
	}
	off, err := strconv.Atoi(f[2])
	if err != nil || off < 0 {
		return o, fmt.Errorf("bad offset in %q", s)
	}
	o.offset = off
	if len(f) == 4 {
		if o.reason != "forbidden_char" {
			return o, fmt.Errorf("a class is for forbidden_char only: %q", s)
		}
		if _, err := sanitize.ParseClass(f[3]); err != nil {
			return o, err
		}
		o.class = f[3]
	}
	return o, nil
}

const (
	vecRoute     = "/v/*"
	vecPrefix    = "/v/"
	vecParam     = "*" // the parameter the path payload is, in vecRoute
	vecHeader    = "X-Vec"
	vecBoundary  = "vecB0undary7f3a9c"
	vecJSONStart = `{"k":"`
)

// vecRequest is a request in parts, so that it can be built as an
// *http.Request or written on the wire.
type vecRequest struct {
	method, target string
	header         [][2]string
	body           []byte
}

// vecPercentAll percent-encodes every octet of p.
func vecPercentAll(p []byte) string {
	var b strings.Builder
	for _, c := range p {
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// vecValueText is the payload as the URL or form text carries it.
func (v *vecCase) vecValueText() string {
	if v.escaped {
		return string(v.payload)
	}
	return vecPercentAll(v.payload)
}

// vecBuild returns the request that carries v in loc, the outcome the log
// line must show (offset and field translated for loc), and, for an
// accepted vector, the value the handler must read back.
func (v *vecCase) vecBuild(loc string) (req vecRequest, want vecOutcome, field, value string) {
	want = v.expect[loc]
	req = vecRequest{method: http.MethodPost, target: vecPrefix + "x"}
	value = string(v.payload)
	switch loc {
	case "path":
		req.method, req.target = http.MethodGet, vecPrefix+v.vecValueText()
		want.offset += len(vecPrefix)
		if v.escaped {
			value, _ = url.PathUnescape(string(v.payload))
		}
	case "query":
		req.method, req.target = http.MethodGet, vecPrefix+"x?k="+v.vecValueText()
		field = "k"
		if v.escaped {
			value, _ = url.QueryUnescape(string(v.payload))
		}
	case "form":
		req.header = [][2]string{{"Content-Type", "application/x-www-form-urlencoded"}}
		req.body = []byte("k=" + v.vecValueText())
		field = "k"
		if v.escaped {
			value, _ = url.QueryUnescape(string(v.payload))
		}
	case "json":
		req.header = [][2]string{{"Content-Type", "application/json"}}
		req.body = append(append([]byte(vecJSONStart), v.payload...), `"}`...)
		want.offset += len(vecJSONStart)
		field = "/k"
		value = string(req.body)
	case "multipart":
		req.header = [][2]string{{"Content-Type", "multipart/form-data; boundary=" + vecBoundary}}
		var b bytes.Buffer
		b.WriteString("--" + vecBoundary + "\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\n")
		b.Write(v.payload)
		b.WriteString("\r\n--" + vecBoundary + "--\r\n")
		req.body = b.Bytes()
		field = "k"
	case "body":
		req.header = [][2]string{{"Content-Type", "text/plain; charset=utf-8"}}
		req.body = v.payload
	case "header":
		req.method = http.MethodGet
		req.header = [][2]string{{vecHeader, string(v.payload)}}
		field = vecHeader
	}
	return req, want, field, value
}

// httpRequest returns r as an *http.Request, as httptest builds one (the
// target goes through the server's request-line parser).
func (r vecRequest) httpRequest() *http.Request {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.target, body)
	for _, h := range r.header {
		req.Header[h[0]] = append(req.Header[h[0]], h[1])
	}
	return req
}

// wire returns r as HTTP/1.1 request bytes.
func (r vecRequest) wire() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: example.com\r\n", r.method, r.target)
	for _, h := range r.header {
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	if r.body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(r.body))
	}
	b.WriteString("\r\n")
	b.Write(r.body)
	return b.Bytes()
}

// vecHeaderValueOK reports whether p can be a header field value on the
// wire, as a server receives it: no control octet but HTAB, no DEL, no
// leading or trailing whitespace (which the parser would trim).
func vecHeaderValueOK(p []byte) bool {
	if len(p) > 0 && (p[0] == ' ' || p[0] == '\t' || p[len(p)-1] == ' ' || p[len(p)-1] == '\t') {
		return false
	}
	for _, c := range p {
		if c < 0x20 && c != '\t' || c == 0x7F {
			return false
		}
	}
	return true
}

// vecSeen is what the vector handler read.
type vecSeen struct {
	ran       bool
	path      string
	param     string
	query     url.Values
	postForm  url.Values
	multipart map[string][]string
	header    string
	body      []byte
	bodyErr   error
}

// vecHandler records what a handler can read: everything, the body first
// (in full, then handed back for the form parsers).
func vecHandler(s *vecSeen) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		s.ran = true
		s.path = r.URL.Path
		s.param = c.Param("*")
		s.query = c.QueryParams()
		s.header = r.Header.Get(vecHeader)
		s.body, s.bodyErr = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(s.body))
		if err := r.ParseMultipartForm(1 << 20); err == nil && r.MultipartForm != nil {
			s.multipart = r.MultipartForm.Value
		}
		s.postForm = r.PostForm
		return c.String(http.StatusOK, "ok")
	}
}

// vecKnownBugs lists the vector subtests ("file/location") that fail because
// of a known middleware bug, with the reason. Each entry is a bug to fix,
// not an expectation to loosen: remove the entry with the fix.
var vecKnownBugs = map[string]string{
	// Found by this corpus and fixed: mixed-nul-before-overlong and
	// mixed-bidi-before-invalid in path/query/form (the first encoding error
	// was reported, not the first violation), bom-leading/path (a leading
	// BOM in a path parameter was refused or not depending on how the path
	// was escaped).
}

// vecSkipBug skips t as a known bug, unless UTF8GUARD_VEC_BUGS is set (to
// check a fix: UTF8GUARD_VEC_BUGS=1 go test ./middleware -run Vectors).
func vecSkipBug(t *testing.T, why string) {
	if why != "" && os.Getenv("UTF8GUARD_VEC_BUGS") == "" {
		t.Skip("BUG: " + why)
	}
}

// vecServe runs req through an Echo instance with the middleware under pol
// and returns the response, what the handler saw and the log.
func vecServe(t testing.TB, pol rules.Policy, req *http.Request) (*httptest.ResponseRecorder, *vecSeen, *bytes.Buffer) {
	t.Helper()
	s := &vecSeen{}
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &pol}, routes: []string{vecRoute}}, onEcho(vecHandler(s)))
	rec := srv.do(req)
	return rec, s, &srv.logs.buf
}

// vecPolicy is the policy a vector runs under in loc: rules.Strict(), with
// X-Vec checked for the header location.
func vecPolicy(loc string) rules.Policy {
	pol := rules.Strict()
	if loc == "header" {
		pol.Header.On = true
		pol.Headers = []string{vecHeader}
	}
	return pol
}

// vecLogLines parses the log output: one JSON object per line.
func vecLogLines(t testing.TB, logs []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range bytes.SplitSeq(logs, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			t.Fatalf("log line is not valid JSON: %q", line)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("log line is not a JSON object: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// vecPrintable reports whether s is printable ASCII.
func vecPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7F {
			return false
		}
	}
	return true
}

func TestVectors(t *testing.T) {
	t.Parallel()
	for _, v := range vecLoadAll(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			for _, loc := range v.locations {
				t.Run(loc, func(t *testing.T) {
					t.Parallel()
					vecSkipBug(t, vecKnownBugs[v.name+"/"+loc])
					vecRun(t, v, loc)
				})
			}
		})
	}
}

func vecRun(t *testing.T, v *vecCase, loc string) {
	vr, want, field, value := v.vecBuild(loc)
	rec, seen, logs := vecServe(t, vecPolicy(loc), vr.httpRequest())
	lines := vecLogLines(t, logs.Bytes())
	t.Logf("%s: %s; expect %v", v.name, v.description, want)

	if want.accept {
		if rec.Code != http.StatusOK || !seen.ran {
			t.Fatalf("status %d, handler ran %v; want 200 and the handler; log %s", rec.Code, seen.ran, logs)
		}
		if len(lines) != 0 {
			t.Errorf("an accepted request logged %d lines: %s", len(lines), logs)
		}
		vecCheckSeen(t, loc, seen, vr, value)
		return
	}

	if rec.Code != http.StatusBadRequest {
		t.Errorf("status %d, want 400", rec.Code)
	}
	if seen.ran {
		t.Errorf("the handler ran for a rejected request")
	}
	if bytes.Contains(rec.Body.Bytes(), v.payload) && len(v.payload) > 2 {
		t.Errorf("the response echoes the payload: %q", rec.Body)
	}
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %s", len(lines), logs)
	}
	l := lines[0]
	got := vecOutcome{reason: fmt.Sprint(l["reason"]), class: ""}
	if off, ok := l["offset"].(float64); ok {
		got.offset = int(off)
	} else {
		got.offset = -1
	}
	if c, ok := l["class"]; ok && got.reason == "forbidden_char" {
		got.class = fmt.Sprint(c)
	}
	if loc == "path" && l["field"] == vecParam {
		// A violation of the path parameter the payload is, rather
		// than of the whole path: its offset is into the parameter.
		field, want.offset = vecParam, want.offset-len(vecPrefix)
	}
	if got != want || l["location"] != loc || l["field"] != field {
		t.Errorf("logged %v in %v field %q; want %v in %s field %q\nlog: %s",
			got, l["location"], l["field"], want, loc, field, logs)
	}
	for k, w := range map[string]string{"level": "warn", "mode": "enforce", "route": vecRoute,
		"method": vr.method, "message": "utf8guard: request rejected"} {
		if l[k] != w {
			t.Errorf("log %s = %v, want %q", k, l[k], w)
		}
	}
	if s, _ := l["sample"].(string); !vecPrintable(s) || len(s) > 4*17 {
		t.Errorf("sample %q is not bounded, escaped text", s)
	}
	var resp map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || resp["reason"] != want.reason || resp["location"] != loc {
		t.Errorf("response %q, want the reason and the location", rec.Body)
	}
}

// vecCheckSeen checks that the handler of an accepted vector reads the
// value that was sent, whole and decoded.
func vecCheckSeen(t *testing.T, loc string, s *vecSeen, vr vecRequest, value string) {
	t.Helper()
	if s.bodyErr != nil {
		t.Errorf("reading the body: %v", s.bodyErr)
	}
	if vr.body != nil && !bytes.Equal(s.body, vr.body) {
		t.Errorf("the handler read the body %q, want the one sent, %q", s.body, vr.body)
	}
	var got string
	switch loc {
	case "path":
		if s.path != vecPrefix+value {
			t.Errorf("URL.Path %q, want %q", s.path, vecPrefix+value)
		}
		got = s.param
	case "query":
		got = s.query.Get("k")
	case "form":
		got = s.postForm.Get("k")
	case "json", "body":
		got = string(s.body)
	case "multipart":
		if vs := s.multipart["k"]; len(vs) == 1 {
			got = vs[0]
		}
	case "header":
		got = s.header
	}
	if got != value {
		t.Errorf("the handler read %q, want %q", got, value)
	}
}

// TestVectorsCorpus checks the corpus itself: the size the issue asks for,
// each listed location can carry the payload, and every reason the corpus
// names is exercised.
func TestVectorsCorpus(t *testing.T) {
	vs := vecLoadAll(t)
	if len(vs) < 80 {
		t.Errorf("%d vectors, want at least 80", len(vs))
	}
	reasons := map[string]int{}
	for _, v := range vs {
		for _, loc := range v.locations {
			reasons[v.expect[loc].reason]++
			switch {
			case v.escaped && !slices.Contains([]string{"path", "query", "form"}, loc):
				t.Errorf("%s: an escaped payload in %s", v.name, loc)
			case loc == "header" && !vecHeaderValueOK(v.payload):
				t.Errorf("%s: %q cannot be a header value on the wire", v.name, v.payload)
			case loc == "json" && !strings.HasPrefix(v.name, "json-") && bytes.ContainsAny(v.payload, `"\`):
				t.Errorf("%s: a payload with '\"' or '\\' in a JSON string", v.name)
			case loc == "path" && v.expect[loc].reason == "bad_escape":
				t.Errorf("%s: a bad escape in the path never reaches the middleware", v.name)
			}
		}
	}
	for _, r := range []string{"", "overlong", "surrogate", "out_of_range", "invalid_byte", "truncated",
		"unexpected_continuation", "bad_escape", "double_encoding", "forbidden_char"} {
		if reasons[r] == 0 {
			t.Errorf("no vector expects %q", r)
		}
	}
}
