package adaptertest

// Holding a target's result to the row, and to the reference's.

import (
	"encoding/json"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// answer is the refusal's answer, octet for octet, as
// middleware.DefaultHTTPErrorHandler and Echo's HTTPErrorHandler write it.
func answer(reason, location string) string {
	b, _ := json.Marshal(map[string]string{"location": location, "reason": reason})
	return string(b) + "\n"
}

// check holds res, tg's result, to the row's expectations.
func (rw row) check(t *testing.T, tg Target, res *result) {
	t.Helper()
	if res.status != rw.status {
		t.Errorf("%s: status %d, want %d; body %q; log %v", tg.Name, res.status, rw.status, res.body, res.lines)
		return
	}
	d := rw.diffFor(tg)
	if rw.status == http.StatusOK {
		if res.readsErr != nil {
			t.Errorf("%s: %v", tg.Name, res.readsErr)
			return
		}
		want := rw.reads
		if d != nil && d.reads != nil {
			want = d.reads
		}
		rw.checkReads(t, tg, res.reads, want)
	} else {
		want := answer(rw.rej.reason, rw.rej.location)
		if tg.differs(FrameworkJSON) {
			if !sameJSON(res.body, want) || !isJSONType(res.ctype) {
				t.Errorf("%s: answer %q (%s), want the object %q (application/json)", tg.Name, res.body, res.ctype, want)
			}
		} else if res.body != want || res.ctype != "application/json" {
			t.Errorf("%s: answer %q (%s), want %q (application/json)", tg.Name, res.body, res.ctype, want)
		}
		if wantNosniff := !tg.differs(NoNosniff); (res.nosniff == "nosniff") != wantNosniff {
			t.Errorf("%s: X-Content-Type-Options %q on a refusal", tg.Name, res.nosniff)
		}
	}
	rw.checkHook(t, tg, res.rejects)
	rw.checkLog(t, tg, res.lines, d)
}

// checkHook holds the OnReject calls to the row: one for a refused or
// flagged request, with its reason and location; none for a clean one.
func (rw row) checkHook(t *testing.T, tg Target, got []seenRejection) {
	t.Helper()
	if rw.rej == nil {
		if len(got) != 0 {
			t.Errorf("%s: OnReject called with %v, want no call", tg.Name, got)
		}
		return
	}
	if want := []seenRejection{{rw.rej.reason, rw.rej.location}}; !reflect.DeepEqual(got, want) {
		t.Errorf("%s: OnReject called with %v, want once with %v", tg.Name, got, want)
	}
}

// expected fills in what the handler reads that the row implies: the
// query's first values, the body of a bodyless request, the listed
// header and the cookies as sent, the length.
func (rw row) expected(got, want *Reads) *Reads {
	w := *want
	w.First = map[string]string{}
	for k, v := range w.Query {
		w.First[k] = v[0]
	}
	h := http.Header{}
	for _, line := range rw.header {
		name, value, _ := strings.Cut(line, ": ")
		h.Add(name, value)
	}
	if v := h.Values(ListedHeader); w.Header == nil && len(v) > 0 {
		w.Header = map[string][]string{ListedHeader: v}
	}
	if w.Cookies == nil {
		w.Cookies = map[string]string{}
		for _, c := range (&http.Request{Header: h}).Cookies() {
			w.Cookies[c.Name] = c.Value
		}
	}
	if rw.body == "" && rw.method == "" {
		w.Body = ""
	} else if w.Body == "" && w.Form != nil && strings.HasPrefix(rw.ct, "multipart/") {
		w.Body = got.Body // checked through Form
	}
	w.ContentLength = int64(len(w.Body))
	if w.BodyErr != "" {
		w.ContentLength = got.ContentLength // as the client declared it
	}
	return &w
}

// checkReads compares what the handler read with want.
func (rw row) checkReads(t *testing.T, tg Target, got, want *Reads) {
	t.Helper()
	w := rw.expected(got, want)
	if !reflect.DeepEqual(flat(got), flat(w)) {
		t.Errorf("%s: the handler read\n%s\nwant\n%s", tg.Name, got, w)
	}
}

// flat returns rd with its empty maps nil, but Form, whose nil says the
// body is no form.
func flat(rd *Reads) *Reads {
	if rd == nil {
		return nil
	}
	c := *rd
	if len(c.Params) == 0 {
		c.Params = nil
	}
	if len(c.Query) == 0 {
		c.Query = nil
	}
	if len(c.First) == 0 {
		c.First = nil
	}
	if len(c.Header) == 0 {
		c.Header = nil
	}
	if len(c.Cookies) == 0 {
		c.Cookies = nil
	}
	return &c
}

// checkLog holds the log lines to the row: one line for a refused or
// flagged request, none for a clean one.
func (rw row) checkLog(t *testing.T, tg Target, lines []map[string]any, d *diff) {
	t.Helper()
	if rw.rej == nil {
		if len(lines) != 0 {
			t.Errorf("%s: log %v, want no line", tg.Name, lines)
		}
		return
	}
	if len(lines) != 1 {
		t.Errorf("%s: %d log lines, want one: %v", tg.Name, len(lines), lines)
		return
	}
	want := rw.wantLine(tg)
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
				t.Errorf("%s: log field %s %v, want a value", tg.Name, k, g)
			}
		case noValue:
			if ok {
				t.Errorf("%s: log field %s %v, want none", tg.Name, k, g)
			}
		default:
			if !ok || g != v {
				t.Errorf("%s: log field %s %#v, want %#v", tg.Name, k, g, v)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && k != "sample" && k != "error" {
			t.Errorf("%s: log field %s %v, want none", tg.Name, k, got[k])
		}
	}
}

// wantLine is the log line of the row's violation on tg.
func (rw row) wantLine(tg Target) map[string]any {
	rj := rw.rej
	mode := rj.mode
	if mode == "" {
		mode = "enforce"
	}
	route := rj.route
	if route == "" {
		route = routeOf(rw.target)
	}
	method := rw.method
	if method == "" {
		method = http.MethodGet
	}
	l := map[string]any{
		"level": "warn", "method": method, "route": tg.template(route), "mode": mode,
		"request_id": requestID, "request_id_client": true, "remote_ip": "192.0.2.1",
	}
	if rw.noRequestID {
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

// compare holds res, tg's result, to ref, the reference's: the same
// status, the same reads and the same log lines field for field (the
// sample and the error a row need not spell out included), but for the
// route, named in each adapter's syntax, and what a difference of tg's
// changes.
func (rw row) compare(t *testing.T, tg Target, res, ref *result) {
	t.Helper()
	d := rw.diffFor(tg)
	if res.status != ref.status {
		t.Errorf("%s answered %d %q; the reference answered %d %q", tg.Name, res.status, res.body, ref.status, ref.body)
		return
	}
	if (d == nil || d.reads == nil) && res.reads != nil && ref.reads != nil &&
		!reflect.DeepEqual(flat(rw.comparable(res.reads)), flat(rw.comparable(ref.reads))) {
		t.Errorf("%s read\n%s\nthe reference read\n%s", tg.Name, res.reads, ref.reads)
	}
	if len(res.lines) != len(ref.lines) {
		t.Errorf("%s wrote %d log lines, the reference %d", tg.Name, len(res.lines), len(ref.lines))
		return
	}
	for i := range res.lines {
		a, b := res.lines[i], ref.lines[i]
		for _, k := range unionKeys(a, b) {
			if k == "route" || d != nil && d.log[k] != nil {
				continue
			}
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("log field %s: %s wrote %#v, the reference %#v", k, tg.Name, a[k], b[k])
			}
		}
	}
}

// comparable returns rd as reads of it are compared between targets: a
// multipart body rewritten to its canonical form has a fresh, random
// boundary, so its parts are compared (Form), not its octets.
func (rw row) comparable(rd *Reads) *Reads {
	if rd == nil || !strings.HasPrefix(rw.ct, "multipart/") || rw.reads == nil || rw.reads.Body != "" {
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

// sameJSON reports whether a and b are JSON texts of equal objects of
// strings, and nothing else.
func sameJSON(a, b string) bool {
	var x, y map[string]string
	da, db := json.NewDecoder(strings.NewReader(a)), json.NewDecoder(strings.NewReader(b))
	if da.Decode(&x) != nil || db.Decode(&y) != nil || da.More() || db.More() {
		return false
	}
	return maps.Equal(x, y)
}

// isJSONType reports whether a Content-Type is application/json, with
// parameters or without.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}
