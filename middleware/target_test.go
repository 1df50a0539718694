package middleware

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// targetSeen is a handler that records what a handler can read of the
// request target, the body, its read error and the trailers.
type targetSeen struct {
	mu                           sync.Mutex
	ran                          bool
	host, user, requestURI, body string
	trailer                      http.Header
	bodyErr                      error
}

func (seen *targetSeen) serve(c echo.Context, _ http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(r.Body)
	seen.mu.Lock()
	seen.ran, seen.host, seen.requestURI, seen.body, seen.bodyErr = true, r.Host, r.RequestURI, string(body), err
	if r.URL.User != nil {
		seen.user = r.URL.User.String()
	}
	seen.trailer = r.Trailer.Clone()
	seen.mu.Unlock()
	if c != nil {
		return c.NoContent(http.StatusOK)
	}
	return nil
}

// bareSetup is the net/http adapter with pol around the handler alone.
func bareSetup(pol rules.Policy) setup {
	return setup{mount: mountBare, http: HTTPConfig{Rules: pol}}
}

// TestRequestTarget: the parts of the request target a handler reads
// besides the path and the query (Request.Host and URL.User from an
// absolute-form target, percent-decoded by net/url; an opaque target in
// RequestURI and URL.Opaque) are checked on a route that checks the path,
// refused in location path with the part named in the field, never
// rewritten; clean ones pass as sent. (The conformance table has the
// absolute forms on every adapter; a ServeMux redirects an opaque target
// before any handler it serves runs, so it is tested here, around a
// plain handler.)
func TestRequestTarget(t *testing.T) {
	nfcPolicy := rules.Strict()
	nfcPolicy.Normalization = normalize.NFC
	for _, tc := range []struct {
		name   string
		pol    rules.Policy
		target string
		// reason, field and offset of the refusal; "" when it passes.
		reason, field string
		offset        int
		host, user    string // what the handler reads when it passes
	}{
		{name: "origin form", target: "/ok", host: "h.example"},
		{name: "absolute form", target: "http://a.example:8080/ok", host: "a.example:8080"},
		{name: "absolute form, user information", target: "http://u:p@a.example/ok", host: "a.example", user: "u:p"},
		{name: "absolute form, IPv6 zone", target: "http://[fe80::1%25en0]/ok", host: "[fe80::1%en0]"},
		{name: "host overlong", target: "http://h%C0%AE/ok", reason: "overlong", field: "host", offset: 1},
		{name: "host raw surrogate", target: "http://h\xed\xa0\x80/ok", reason: "surrogate", field: "host", offset: 1},
		{name: "host bidi", target: "http://a%E2%80%AEb/ok", reason: "forbidden_char", field: "host", offset: 1},
		{name: "host C1 control", target: "http://a%C2%85b/ok", reason: "forbidden_char", field: "host", offset: 1},
		{name: "host double encoding", target: "http://a%2541/ok", reason: "double_encoding", field: "host", offset: 1},
		{name: "host not NFC", pol: nfcPolicy, target: "http://e%CC%81.example/ok", reason: "not_normalized", field: "host", offset: 0},
		{name: "host NFC", pol: nfcPolicy, target: "http://%C3%A9.example/ok", host: "\u00e9.example"},
		{name: "user name truncated", target: "http://u%E2%82@h/ok", reason: "truncated", field: "userinfo", offset: 1},
		{name: "password bidi", target: "http://u:p%E2%80%AE@h/ok", reason: "forbidden_char", field: "userinfo", offset: 1},
		{name: "opaque clean", target: "http:x", host: "h.example"},
		{name: "opaque raw overlong", target: "http:x\xc0\xae", reason: "overlong", offset: 1},
		{name: "opaque escaped bidi", target: "http:x%E2%80%AE", reason: "forbidden_char", offset: 1},
		{name: "opaque bad escape", target: "http:x%zz", reason: "bad_escape", offset: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := tc.pol
			if pol.Limits == (rules.Limits{}) {
				pol = rules.Strict()
			}
			srv := newServer(t, bareSetup(pol), &targetSeen{})
			seen, logs := srv.rec, srv.logs
			resp, _ := srv.listen(t, "http1").send(t, "GET "+tc.target+" HTTP/1.1\r\nHost: h.example\r\n\r\n", nil)
			status := resp.StatusCode
			if tc.reason == "" {
				if status != 200 || !seen.ran || seen.host != tc.host || seen.user != tc.user {
					t.Fatalf("status %d, ran %v, Host %q, User %q; want 200, Host %q, User %q (log %v)",
						status, seen.ran, seen.host, seen.user, tc.host, tc.user, logs.lines(t))
				}
				return
			}
			if status != 400 || seen.ran {
				t.Fatalf("status %d, handler ran %v (Host %q, RequestURI %q); want 400 and no handler", status, seen.ran, seen.host, seen.requestURI)
			}
			lines := logs.lines(t)
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1: %v", len(lines), lines)
			}
			l := lines[0]
			if l["reason"] != tc.reason || l["location"] != "path" || l["field"] != tc.field || l["offset"] != float64(tc.offset) {
				t.Errorf("logged %v in %v field %q at %v; want %s in path field %q at %d",
					l["reason"], l["location"], l["field"], l["offset"], tc.reason, tc.field, tc.offset)
			}
		})
	}
}

// TestTrailersBodyNotRead: on a route that checks a header but reads no
// body, a chunked body's trailers are the handler's to read, and are
// guarded as those of a body passed on unread: an announced checked
// trailer is refused before the handler runs (forbidden_trailer), an
// unannounced one fails the handler's read at the end of the body and is
// gone from Request.Trailer; a clean one reaches it.
func TestTrailersBodyNotRead(t *testing.T) {
	pol := rules.Strict()
	pol.Form.On, pol.JSON.On, pol.XML.On, pol.Multipart.On, pol.Body.On = false, false, false, false, false
	pol.RefuseUnlistedTypes = false
	pol.Header.On, pol.Headers, pol.Cookies = true, []string{"X-Sig"}, true
	for _, tc := range []struct {
		name, announce, trailer string
		status                  int
		refusedRead             bool
	}{
		{name: "clean", trailer: "X-Sig: ab\r\n", status: 200},
		{name: "announced", announce: "Trailer: X-Sig\r\n", trailer: "X-Sig: a\xe2\x80\xaeb\r\n", status: 400},
		{name: "announced cookie", announce: "Trailer: Cookie\r\n", trailer: "Cookie: s=\xc0\xae\r\n", status: 400},
		{name: "unannounced", trailer: "X-Sig: a\xc0\xaeb\r\n", status: 200, refusedRead: true},
		{name: "unannounced cookie", trailer: "Cookie: s=\xe2\x80\xae\r\n", status: 200, refusedRead: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, bareSetup(pol), &targetSeen{})
			seen, logs := srv.rec, srv.logs
			resp, _ := srv.listen(t, "http1").send(t, "POST /x HTTP/1.1\r\nHost: h\r\nContent-Type: application/octet-stream\r\n"+tc.announce+
				"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"+tc.trailer+"\r\n", nil)
			status := resp.StatusCode
			if status != tc.status {
				t.Fatalf("status %d, want %d (log %v)", status, tc.status, logs.lines(t))
			}
			if tc.status != 200 {
				if lines := logs.lines(t); seen.ran || len(lines) != 1 || lines[0]["reason"] != "forbidden_trailer" {
					t.Errorf("handler ran %v, log %v; want no handler, forbidden_trailer", seen.ran, lines)
				}
				return
			}
			var rj *Rejection
			if got := errors.As(seen.bodyErr, &rj); got != tc.refusedRead || seen.body != "hello" {
				t.Fatalf("body %q, read error %v; want hello, refused %v", seen.body, seen.bodyErr, tc.refusedRead)
			}
			if tc.refusedRead {
				if rj.Reason.String() != "forbidden_trailer" || len(seen.trailer["X-Sig"])+len(seen.trailer["Cookie"]) != 0 {
					t.Errorf("read refused for %s, trailers left %q", rj.Reason, seen.trailer)
				}
			} else if seen.trailer.Get("X-Sig") != "ab" {
				t.Errorf("trailers %q, want X-Sig: ab", seen.trailer)
			}
		})
	}
}
