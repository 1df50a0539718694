package middleware

// Limits: every limit of a policy, at its value (accepted, the handler sees
// the request whole) and one past it (too_large, at its location, 413 for a
// body and 400 for a count, a length or a depth; the handler does not run),
// under the Echo middleware and the net/http adapter; a body declared over
// the limit is refused before any of it is read. body_limits_test.go holds
// the tests of the body limit alone: even when the client waits for 100
// Continue, a body the route does not read is cut off at the limit, and a
// 100 MiB body of unknown length, through a real server, is refused after
// the limit and one octet, with heap growth a small multiple of the limit.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// limBody is the body limit of the table tests.
const limBody = 1000

// limMultipart returns a multipart/form-data body (boundary XBOUNDARYX)
// with one field q whose value fills it to exactly n octets.
func limMultipart(n int) string {
	const head = "--XBOUNDARYX\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n"
	const tail = "\r\n--XBOUNDARYX--\r\n"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// limFill returns s followed by as many 'a' as make it n octets long.
func limFill(s string, n int) string { return s + strings.Repeat("a", n-len(s)) }

// limReq is a request of a limit case, its target relative to the
// adapter's prefix.
type limReq struct {
	method, target, ct, body string
	header                   [][2]string
	chunked                  bool // the body's length is unknown
}

// limCase is one limit: set sets it, build returns the request at the
// limit (over false) or one past it (over true).
type limCase struct {
	name  string
	set   func(p *rules.Policy)
	build func(over bool) limReq
	// Expected of the request over the limit.
	status     int
	loc, field string
	// The body is declared over the limit: refused before any octet of it
	// is read.
	readsNone bool
	// A binary body of unknown length is not refused by utf8guard but cut
	// off: the handler's read fails with *http.MaxBytesError after the
	// limit.
	cutOff bool
}

func limCases() []limCase {
	var cases []limCase
	// Body bytes, per location, declared and chunked.
	bodies := []struct {
		loc, ct string
		body    func(n int) string
	}{
		{"body", ctText, func(n int) string { return strings.Repeat("a", n) }},
		{"json", ctJSON, func(n int) string { return `{"q":"` + strings.Repeat("a", n-8) + `"}` }},
		{"form", ctForm, func(n int) string { return limFill("q=", n) }},
		{"multipart", ctMP, limMultipart},
	}
	for _, b := range bodies {
		for _, chunked := range []bool{false, true} {
			cases = append(cases, limCase{
				name: fmt.Sprintf("body bytes/%s/chunked=%v", b.loc, chunked),
				set:  func(p *rules.Policy) { p.Limits.BodyBytes = limBody },
				build: func(over bool) limReq {
					return limReq{method: "POST", target: "/echo", ct: b.ct, body: b.body(limBody + limOne(over)), chunked: chunked}
				},
				// A multipart body may hold data as well as text: its
				// declared length is refused only over both limits.
				status: 413, loc: b.loc, readsNone: !chunked && b.loc != "multipart",
			})
		}
	}
	binary := func(chunked bool) func(bool) limReq {
		return func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: "application/octet-stream", body: strings.Repeat("\xFF", limBody+limOne(over)), chunked: chunked}
		}
	}
	cases = append(cases,
		limCase{name: "body bytes/binary, not read/declared", set: func(p *rules.Policy) { p.Limits.BinaryBodyBytes = limBody },
			build: binary(false), status: 413, loc: "body", readsNone: true},
		limCase{name: "body bytes/binary, not read/chunked", set: func(p *rules.Policy) { p.Limits.BinaryBodyBytes = limBody },
			build: binary(true), status: 200, cutOff: true},
	)

	fields := func(p *rules.Policy) { p.Limits.Fields = 3 }
	length := func(p *rules.Policy) { p.Limits.FieldBytes = 8 }
	eAcute4 := strings.Repeat("%C3%A9", 4) // 8 octets decoded, 24 escaped
	cases = append(cases,
		// Field counts.
		limCase{name: "fields/query", set: fields, status: 400, loc: "query", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?a=1&b=2&c=3" + limIf(over, "&d=4")}
		}},
		limCase{name: "fields/form", set: fields, status: 400, loc: "form", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctForm, body: "a=1&b=2&c=3" + limIf(over, "&d=4")}
		}},
		limCase{name: "fields/multipart", set: fields, status: 400, loc: "multipart", build: func(over bool) limReq {
			parts := []mpPart{{disp: `name="a"`, data: "1"}, {disp: `name="b"`, data: "2"}, {disp: `name="c"`, data: "3"}}
			if over {
				parts = append(parts, mpPart{disp: `name="d"`, data: "4"})
			}
			return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(parts...)}
		}},
		// Field lengths, in decoded octets.
		limCase{name: "field bytes/query value", set: length, status: 400, loc: "query", field: "q", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?q=" + eAcute4 + limIf(over, "a")}
		}},
		limCase{name: "field bytes/query key", set: length, status: 400, loc: "query", field: "123456789", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo?12345678" + limIf(over, "9") + "=1"}
		}},
		limCase{name: "field bytes/form value", set: length, status: 400, loc: "form", field: "q", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctForm, body: "q=" + eAcute4 + limIf(over, "a")}
		}},
		limCase{name: "field bytes/multipart value", set: length, status: 400, loc: "multipart", field: "q", build: func(over bool) limReq {
			return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(mpPart{disp: `name="q"`, data: "12345678" + limIf(over, "9")})}
		}},
		limCase{name: "field bytes/header", status: 400, loc: "header", field: "X-Name",
			set: func(p *rules.Policy) {
				p.Header.On, p.Headers, p.Limits.FieldBytes = true, []string{"x-name"}, 8
			},
			build: func(over bool) limReq {
				return limReq{method: "GET", target: "/echo", header: [][2]string{{"X-Name", "12345678" + limIf(over, "9")}}}
			}},
		limCase{name: "field bytes/cookie value", set: length, status: 400, loc: "header", field: "Cookie:n", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo", header: [][2]string{{"Cookie", "a=1; n=12345678" + limIf(over, "9")}}}
		}},
		limCase{name: "field bytes/cookie name", set: length, status: 400, loc: "header", field: "Cookie:123456789", build: func(over bool) limReq {
			return limReq{method: "GET", target: "/echo", header: [][2]string{{"Cookie", "12345678" + limIf(over, "9") + "=1"}}}
		}},
		// JSON depth.
		limCase{name: "json depth/arrays", set: func(p *rules.Policy) { p.Limits.JSONDepth = 3 }, status: 400, loc: "json", field: "/0/0/0",
			build: func(over bool) limReq {
				d := 3 + limOne(over)
				return limReq{method: "POST", target: "/echo", ct: ctJSON, body: strings.Repeat("[", d) + "1" + strings.Repeat("]", d)}
			}},
		limCase{name: "json depth/objects", set: func(p *rules.Policy) { p.Limits.JSONDepth = 3 }, status: 400, loc: "json", field: "/a/b/c",
			build: func(over bool) limReq {
				body := `{"a":{"b":{"c":1}}}`
				if over {
					body = `{"a":{"b":{"c":{"d":1}}}}`
				}
				return limReq{method: "POST", target: "/echo", ct: ctJSON, body: body}
			}},
		// Multipart parts (binary files, so that no field count is met).
		limCase{name: "multipart parts", set: func(p *rules.Policy) { p.Limits.MultipartParts = 3 }, status: 400, loc: "multipart",
			build: func(over bool) limReq {
				var parts []mpPart
				for i := range 3 + limOne(over) {
					parts = append(parts, mpPart{disp: fmt.Sprintf(`name="f%d"; filename="%d.png"`, i, i), ct: "image/png", data: "\x89PNG"})
				}
				return limReq{method: "POST", target: "/echo", ct: ctMP, body: multipartBody(parts...)}
			}},
	)
	// Path length: the escaped path, whichever way Go keeps it: plain,
	// upper-case escapes (no RawPath: the limit counts URL.Path escaped),
	// lower-case escapes (RawPath as sent).
	for _, p := range []struct{ name, start string }{
		{"plain", "/files/"},
		{"upper-case escapes", "/files/%C3%A9%E2%82%AC"},
		{"lower-case escapes", "/files/%c3%a9%e2%82%ac"},
	} {
		cases = append(cases, limCase{name: "path bytes/" + p.name, status: 400, loc: "path",
			set: func(pol *rules.Policy) { pol.Limits.PathBytes = 40 },
			build: func(over bool) limReq {
				// 40 octets with the adapter's prefix: limRun adds it and
				// trims the fill to fit.
				return limReq{method: "GET", target: p.start + strings.Repeat("a", 40+limOne(over))}
			}})
	}
	return cases
}

func limOne(over bool) int {
	if over {
		return 1
	}
	return 0
}

func limIf(over bool, s string) string {
	if over {
		return s
	}
	return ""
}

// TestLimits: for every limit, given a request at the limit, expect it
// accepted whole; given one past it, expect too_large at the limit's
// location (413 for a body, 400 otherwise), one log line, an answer that
// names the reason and location, and a handler that does not run.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range limCases() {
		for _, a := range fltAdapters {
			for _, over := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%v/over=%v", tc.name, a, over), func(t *testing.T) {
					t.Parallel()
					limRun(t, tc, a, over)
				})
			}
		}
	}
}

func limRun(t *testing.T, tc limCase, a mount, over bool) {
	// given
	pol := strictUpload()
	tc.set(&pol)
	ev := newServer(t, fltEnvSetup(a, pol, false), &recorder{})
	lr := tc.build(over)
	target := fltPrefix(a) + lr.target
	if tc.loc == "path" {
		// Trim the fill so that the escaped path is exactly the limit
		// (plus one when over).
		target = target[:pol.Limits.PathBytes+limOne(over)]
	}
	var body *countingReader
	var r *http.Request
	if lr.body != "" {
		body = &countingReader{r: strings.NewReader(lr.body)}
		r = req(lr.method, target, lr.ct, body)
		r.ContentLength = int64(len(lr.body))
		if lr.chunked {
			r.ContentLength = -1
		}
	} else {
		r = req(lr.method, target, lr.ct, nil)
	}
	for _, h := range lr.header {
		r.Header.Add(h[0], h[1])
	}
	// when
	w := ev.do(r)
	// expect
	s := ev.rec.seen()
	if !over || tc.cutOff {
		if w.Code != 200 || ev.rec.calls.Load() != 1 {
			t.Fatalf("status %d, handler calls %d; want 200 and 1: %s; log %v", w.Code, ev.rec.calls.Load(), w.Body.String(), ev.logs.lines(t))
		}
		if tc.cutOff && over {
			// Cut off as the handler reads: logged then (spool.go).
			checkOneLog(t, ev.logs, rej("too_large", "body", "", -1), "enforce", lr.method, "")
		} else if l := ev.logs.lines(t); len(l) != 0 {
			t.Errorf("log lines %v", l)
		}
		if tc.cutOff && over {
			var mbe *http.MaxBytesError
			if !errors.As(s.BodyErr, &mbe) || mbe.Limit != limBody || len(s.Body) != limBody {
				t.Errorf("the handler read %d octets and %v; want %d and an *http.MaxBytesError", len(s.Body), s.BodyErr, limBody)
			}
			return
		}
		if s.Body == nil {
			s.Body = []byte{}
		}
		if string(s.Body) != lr.body || s.BodyErr != nil {
			t.Errorf("the handler read %d octets (%v), want %d", len(s.Body), s.BodyErr, len(lr.body))
		}
		return
	}
	if w.Code != tc.status || ev.rec.calls.Load() != 0 {
		t.Fatalf("status %d, handler calls %d; want %d and none", w.Code, ev.rec.calls.Load(), tc.status)
	}
	if got := errorBody(t, w.Body.Bytes()); got["reason"] != "too_large" || got["location"] != tc.loc {
		t.Errorf("answer %v, want too_large in %s", got, tc.loc)
	}
	l := checkOneLog(t, ev.logs, rej("too_large", tc.loc, tc.field, -1), "enforce", lr.method, "")
	if l["field"] != tc.field {
		t.Errorf("log field %q, want %q", l["field"], tc.field)
	}
	if tc.readsNone && body.n.Load() != 0 {
		t.Errorf("read %d octets of a body declared over the limit", body.n.Load())
	}
}
