package middleware_test

// The machinery of the conformance test (conformance_test.go): building a
// case's request, running it on a target, holding the result to the case
// and to the first target's.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// confResult is what one target made of one case.
type confResult struct {
	status  int
	body    string
	ctype   string
	nosniff string
	reads   *confReads
	calls   int
	lines   []map[string]any
}

// policies returns the case's policies.
func (tc confCase) policies() *rules.Table {
	if tc.table == nil {
		return &rules.Table{Default: checked()}
	}
	return tc.table()
}

// request builds the case's request, as a server would have parsed it.
func (tc confCase) request() *http.Request {
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if tc.body != "" || method != http.MethodGet {
		body = strings.NewReader(tc.body)
	}
	if tc.bodyErr {
		body = io.MultiReader(strings.NewReader(tc.body), errReader{})
	}
	r := httptest.NewRequest(method, tc.target, body)
	if tc.bodyErr {
		r.ContentLength = int64(len(tc.body)) + 10
	}
	if tc.ct != "" {
		r.Header.Set("Content-Type", tc.ct)
	}
	if !tc.noRequestID {
		r.Header.Set("X-Request-Id", confRequestID)
	}
	for _, h := range tc.header {
		name, value, _ := strings.Cut(h, ": ")
		r.Header.Add(name, value)
	}
	if tc.declared || tc.frames {
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	}
	if tc.trailer != nil {
		if !tc.declared {
			r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
		}
		r.Trailer = http.Header{}
		for _, h := range tc.trailer {
			name, value, _ := strings.Cut(h, ":")
			r.Trailer[http.CanonicalHeaderKey(name)] = nil
			if value != "" {
				r.Trailer[http.CanonicalHeaderKey(name)] = []string{strings.TrimPrefix(value, " ")}
			}
		}
	}
	if tc.parsedFirst {
		_ = r.ParseForm() // its error is the middleware's to find
	}
	return r
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

func (tc confCase) run(t *testing.T, tg confTarget) *confResult {
	t.Helper()
	s := newConfServer(t, tg, tc.policies())
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, tc.request())
	return s.result(t, tg, w.Code, w.Body.String(), w.Header())
}

// result is what s made of the request it answered with status, body and
// header.
func (s *confServer) result(t *testing.T, tg confTarget, status int, body string, h http.Header) *confResult {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &confResult{status: status, body: body, ctype: h.Get("Content-Type"),
		nosniff: h.Get("X-Content-Type-Options"), reads: s.reads, calls: s.calls}
	for line := range strings.SplitSeq(s.logs.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: log line is not JSON: %v: %q", tg, err, line)
		}
		if tg.adapter == "nethttp" {
			if route, ok := m["route"].(string); ok && route != "" {
				if tg.mount == "strip" {
					route = "/api" + route // the pattern of the stripped path
				}
				m["route"] = echoTemplate(route)
			}
		}
		res.lines = append(res.lines, m)
	}
	return res
}

// runAll runs the case on every target it is for, with run, and holds
// each result to the case and to the first target's.
func (tc confCase) runAll(t *testing.T, run func(confTarget) *confResult) {
	t.Helper()
	var ref *confResult
	var refTarget confTarget
	for _, tg := range confTargets {
		if tc.on != "" && !tg.in(tc.on) || tg.cannotCompare(tc) != "" {
			continue
		}
		res := run(tg)
		tc.check(t, tg, res)
		if ref == nil {
			ref, refTarget = res, tg
			continue
		}
		tc.compare(t, refTarget, ref, tg, res)
	}
}

// diffFor returns the case's difference for tg, if any.
func (tc confCase) diffFor(tg confTarget) *confDiff {
	for i := range tc.diffs {
		if tg.in(tc.diffs[i].in) {
			return &tc.diffs[i]
		}
	}
	return nil
}

// check holds res to the case's expectations.
func (tc confCase) check(t *testing.T, tg confTarget, res *confResult) {
	t.Helper()
	if res.status != tc.status {
		t.Errorf("%s: status %d, want %d; body %q; log %v", tg, res.status, tc.status, res.body, res.lines)
		return
	}
	d := tc.diffFor(tg)
	if tc.status == http.StatusOK {
		if res.calls != 1 {
			t.Errorf("%s: the handler ran %d times, want once", tg, res.calls)
			return
		}
		want := tc.reads
		if d != nil && d.reads != nil {
			want = d.reads
		}
		tc.checkReads(t, tg, res.reads, want)
	} else {
		if res.calls != 0 {
			t.Errorf("%s: the handler ran on a refused request", tg)
		}
		want := map[string]string{"reason": tc.rej.reason}
		if tc.rej.location != "" {
			want["location"] = tc.rej.location
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(res.body), &got); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: answer %q, want the JSON object %v", tg, res.body, want)
		}
	}
	tc.checkLog(t, tg, res.lines, d)
}

// checkReads compares what the handler read with want. First is the
// first value of each query key; ContentLength the body's length.
func (tc confCase) checkReads(t *testing.T, tg confTarget, got, want *confReads) {
	t.Helper()
	w := *want
	if w.Query == nil {
		w.Query = url.Values{}
	}
	w.First = map[string]string{}
	for k, v := range w.Query {
		w.First[k] = v[0]
	}
	if tc.body == "" && tc.method == "" {
		w.Body = ""
	} else if w.Body == "" && w.Form != nil && strings.HasPrefix(tc.ct, "multipart/") {
		w.Body = got.Body // checked through Form
	}
	w.ContentLength = int64(len(w.Body))
	if w.BodyErr != "" {
		w.ContentLength = got.ContentLength // as the client declared it
	}
	if !reflect.DeepEqual(got, &w) {
		t.Errorf("%s: the handler read\n%s\nwant\n%s", tg, got, &w)
	}
}

func (rd *confReads) String() string {
	return fmt.Sprintf("  path %+q params %+q\n  query %+q first %+q\n  body %+q (length %d) form %+q err %q",
		rd.Path, rd.Params, rd.Query, rd.First, rd.Body, rd.ContentLength, rd.Form, rd.BodyErr)
}

// checkLog holds the log lines to the case: one line for a refused or
// flagged request, none for a clean one.
func (tc confCase) checkLog(t *testing.T, tg confTarget, lines []map[string]any, d *confDiff) {
	t.Helper()
	if tc.rej == nil {
		if len(lines) != 0 {
			t.Errorf("%s: log %v, want no line", tg, lines)
		}
		return
	}
	if len(lines) != 1 {
		t.Errorf("%s: %d log lines, want one: %v", tg, len(lines), lines)
		return
	}
	want := tc.wantLine(tg)
	if d != nil {
		for k, v := range d.log {
			want[k] = v
		}
	}
	got := lines[0]
	for k, v := range want {
		g, ok := got[k]
		switch v {
		case anyValue:
			if s, _ := g.(string); s == "" {
				t.Errorf("%s: log field %s %v, want a value", tg, k, g)
			}
		case noValue:
			if ok {
				t.Errorf("%s: log field %s %v, want none", tg, k, g)
			}
		default:
			if !ok || g != v {
				t.Errorf("%s: log field %s %#v, want %#v", tg, k, g, v)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && k != "sample" && k != "error" {
			t.Errorf("%s: log field %s %v, want none", tg, k, got[k])
		}
	}
}

// wantLine is the log line of the case's violation on tg.
func (tc confCase) wantLine(tg confTarget) map[string]any {
	rj := tc.rej
	mode := rj.mode
	if mode == "" {
		mode = "enforce"
	}
	route := rj.route
	if route == "" {
		route = routeOf(tc.target)
	}
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	l := map[string]any{
		"level": "warn", "method": method, "route": route, "mode": mode,
		"request_id": confRequestID, "request_id_client": true, "remote_ip": "192.0.2.1",
	}
	if tc.noRequestID {
		l["request_id"], l["request_id_client"] = "", noValue
	}
	if rj.reason == "body_unreadable" {
		l["error"] = errBroken.Error() // the cause
		if rj.err != "" {
			l["error"] = rj.err
		}
	}
	l["message"] = "utf8guard: request rejected"
	if mode == "monitor" {
		l["message"] = "utf8guard: request flagged"
	}
	if rj.reason == "parsed_before_check" {
		// The server's mistake: an error-level line that says what to do.
		l["level"] = "error"
		l["message"] = l["message"].(string) + ": its form was parsed before utf8guard ran, " +
			"so its values were never checked; mount utf8guard before the middleware that parsed it"
	}
	l["reason"], l["location"], l["field"], l["offset"] = rj.reason, rj.location, rj.field, float64(rj.offset)
	if rj.class != "" {
		l["class"] = rj.class
	}
	if rj.limit != 0 {
		l["limit"] = float64(rj.limit)
	}
	if rj.sample != "" {
		l["sample"] = rj.sample
	}
	return l
}

// routeOf returns the Echo template of the route a target's path falls
// under.
func routeOf(target string) string {
	path, _, _ := strings.Cut(target, "?")
	for _, r := range confRoutes {
		prefix, _, _ := strings.Cut(r.echo, ":")
		prefix = strings.TrimSuffix(prefix, "*")
		if path == r.echo || prefix != r.echo && strings.HasPrefix(path, prefix) {
			return r.echo
		}
	}
	return ""
}

// compare holds res to ref, the first target's result: same answer, same
// log lines field for field, same reads, but where the case lists a
// difference for either target.
func (tc confCase) compare(t *testing.T, refTarget confTarget, ref *confResult, tg confTarget, res *confResult) {
	t.Helper()
	dRef, d := tc.diffFor(refTarget), tc.diffFor(tg)
	if res.status != ref.status || res.status != http.StatusOK && (res.body != ref.body || res.ctype != ref.ctype) {
		t.Errorf("%s answered %d %q (%s); %s answered %d %q (%s)", tg, res.status, res.body, res.ctype,
			refTarget, ref.status, ref.body, ref.ctype)
	}
	// The net/http adapter writes its answer itself, with nosniff; Echo's
	// HTTPErrorHandler writes the Echo adapters'.
	if wantNosniff := tg.adapter == "nethttp" && res.status != http.StatusOK; (res.nosniff == "nosniff") != wantNosniff {
		t.Errorf("%s: X-Content-Type-Options %q", tg, res.nosniff)
	}
	if (dRef == nil || dRef.reads == nil) && (d == nil || d.reads == nil) && !reflect.DeepEqual(tc.comparable(res.reads), tc.comparable(ref.reads)) {
		t.Errorf("%s read\n%s\n%s read\n%s", tg, res.reads, refTarget, ref.reads)
	}
	if len(res.lines) != len(ref.lines) {
		return // checkLog has said so
	}
	for i := range res.lines {
		a, b := res.lines[i], ref.lines[i]
		for _, k := range unionKeys(a, b) {
			if d != nil && d.log[k] != nil || dRef != nil && dRef.log[k] != nil {
				continue
			}
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("log field %s: %s wrote %#v, %s wrote %#v", k, tg, a[k], refTarget, b[k])
			}
		}
	}
}

// comparable returns rd as reads of it are compared between targets: a
// multipart body rewritten to its canonical form has a fresh, random
// boundary, so its parts are compared (Form), not its octets.
func (tc confCase) comparable(rd *confReads) *confReads {
	if rd == nil || !strings.HasPrefix(tc.ct, "multipart/") || tc.reads == nil || tc.reads.Body != "" {
		return rd
	}
	c := *rd
	c.Body, c.ContentLength = "", 0
	return &c
}

func unionKeys(a, b map[string]any) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
