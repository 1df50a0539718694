package middleware

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// Regression tests for canonical forms that add syntax, and for keys that become one,
// outside JSON and multipart: a canonical form (NFC, NFKC, PRECIS) is held
// to the policy its input passed, may not add syntax to the path or a
// parameter, is bounded by the same limits, and two distinct keys may not
// become one.

// strictCanon returns the strict preset with normalization n.
func strictCanon(n normalize.Form, edit ...func(*rules.Policy)) rules.Policy {
	p := rules.Strict()
	p.Normalization = n
	for _, f := range edit {
		f(&p)
	}
	return p
}

type canonBypassCase struct {
	name   string
	pol    rules.Policy
	method string
	target string
	ct     string
	body   string
	status int     // 200 when accepted
	want   wantLog // the log line of a rejection
}

func canonBypassCases() []canonBypassCase {
	nfc, nfkc := strictCanon(normalize.NFC), strictCanon(normalize.NFKC)
	queryDouble := strictCanon(normalize.NFKC, func(p *rules.Policy) { p.Query.RefuseDoubleEncoding = true })
	small := strictCanon(normalize.NFKC, func(p *rules.Policy) {
		p.Limits.BodyBytes, p.Limits.FieldBytes, p.Limits.PathBytes = 1000, 100, 600
	})
	bodyOnly := strictCanon(normalize.NFKC, func(p *rules.Policy) { p.Limits.BodyBytes, p.Limits.FieldBytes = 1000, -1 })
	fdfa := strings.Repeat("\uFDFA", 60) // 180 octets, 1080 in NFKC
	syntax := func(field string, off int) wantLog {
		return wantLog{reason: "canonical_syntax", location: "path", field: field, offset: off}
	}
	collide := func(loc, field string) wantLog {
		return wantLog{reason: "key_collision", location: loc, field: field, offset: -1}
	}
	return []canonBypassCase{
		// Point 2: syntax made by normalization, in the path.
		{name: "fullwidth percent then 2e", pol: nfkc, target: "/api/files/" + esc("％２ｅ％２ｅ"), want: syntax("", 11)},
		{name: "small percent sign", pol: nfkc, target: "/api/files/a" + esc("\uFE6A") + "2e", want: syntax("", 11)},
		{name: "fullwidth dots and solidus", pol: nfkc, target: "/api/files/" + esc("．．／．．／etc"), want: syntax("", 11)},
		{name: "one dot leader", pol: nfkc, target: "/api/files/a/" + esc("\u2024") + "/b", want: syntax("", 13)},
		{name: "two dot leader", pol: nfkc, target: "/api/files/" + esc("\u2025"), want: syntax("", 11)},
		{name: "fullwidth reverse solidus", pol: nfkc, target: "/api/files/a" + esc("＼") + "b", want: syntax("", 11)},
		{name: "greek question mark under NFC", pol: nfc, target: "/api/files/.." + esc("\u037E") + "/x", want: syntax("", 11)},
		{name: "fullwidth number sign", pol: nfkc, target: "/api/files/a" + esc("＃") + "b", want: syntax("", 11)},
		{name: "fullwidth question mark", pol: nfkc, target: "/api/files/a" + esc("？") + "b", want: syntax("", 11)},
		{name: "a parameter", pol: nfkc, target: "/api/users/" + esc("．．"), want: syntax("", 11)},
		{name: "NFC that adds nothing passes", pol: nfc, target: "/api/files/caf" + esc("e\u0301"), status: 200},
		{name: "NFKC that adds nothing passes", pol: nfkc, target: "/api/files/" + esc("ﬁle"), status: 200},
		// Point 2: the query's canonical values keep its policy.
		{name: "query double encoding made by NFKC", pol: queryDouble, target: "/api/echo?q=" + esc("％41"), want: wantLog{reason: "double_encoding", location: "query", field: "q", offset: 0}},
		{name: "query percent is text where allowed", pol: nfkc, target: "/api/echo?q=" + esc("％41"), status: 200},
		// Point 3: limits bound the canonical form.
		{name: "query value expands past the field limit", pol: small, target: "/api/echo?q=" + esc(strings.Repeat("\uFDFA", 6)), want: wantLog{reason: "too_large", location: "query", field: "q", offset: -1}},
		{name: "path expands past the path limit", pol: small, target: "/api/files/" + url.PathEscape(strings.Repeat("\uFDFA", 11)), want: wantLog{reason: "too_large", location: "path", offset: -1}},
		{name: "text body expands past the body limit", pol: small, method: "POST", target: "/api/echo", ct: "text/plain", body: fdfa, status: 413, want: wantLog{reason: "too_large", location: "body", offset: -1}},
		{name: "form field expands past the field limit", pol: small, method: "POST", target: "/api/echo", ct: "application/x-www-form-urlencoded", body: "a=" + url.QueryEscape(fdfa[:90]), want: wantLog{reason: "too_large", location: "form", field: "a", offset: -1}},
		{name: "form body expands past the body limit", pol: bodyOnly, method: "POST", target: "/api/echo", ct: "application/x-www-form-urlencoded", body: "a=" + url.QueryEscape(fdfa[:90]) + "&b=" + url.QueryEscape(fdfa[90:]), status: 413, want: wantLog{reason: "too_large", location: "form", offset: -1}},
		// Keys that become one.
		{name: "query é and e+U+0301 under NFC", pol: nfc, target: "/api/echo?%C3%A9=safe&e%CC%81=evil", want: collide("query", "e%CC%81")},
		{name: "query e+U+0301 first", pol: nfc, target: "/api/echo?e%CC%81=evil&%C3%A9=safe", want: collide("query", "%C3%A9")},
		{name: "query fullwidth q under NFKC", pol: nfkc, target: "/api/echo?q=1&%EF%BD%91=2", want: collide("query", "%EF%BD%91")},
		{name: "query same key twice is no collision", pol: nfc, target: "/api/echo?e%CC%81=1&e%CC%81=2", status: 200},
		{name: "form keys under NFC", pol: nfc, method: "POST", target: "/api/echo", ct: "application/x-www-form-urlencoded", body: "%C3%A9=safe&e%CC%81=evil", want: collide("form", "e%CC%81")},
	}
}

// TestCanonicalFormKeepsPolicy runs canonBypassCases on every mount.
func TestCanonicalFormKeepsPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range canonBypassCases() {
		for _, m := range mounts {
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				t.Parallel()
				ev := newServer(t, recSetup(Config{Rules: &tc.pol}, m), &recorder{})
				method := tc.method
				if method == "" {
					method = http.MethodGet
				}
				var body *strings.Reader
				if tc.body != "" {
					body = strings.NewReader(tc.body)
				}
				r := req(method, tc.target, tc.ct, nil)
				if body != nil {
					r = req(method, tc.target, tc.ct, body)
				}
				w := ev.do(r)
				if tc.status == 200 {
					if w.Code != 200 {
						t.Fatalf("status %d, want 200; log %s", w.Code, ev.logs.buf.String())
					}
					return
				}
				want := tc.status
				if want == 0 {
					want = 400
				}
				if w.Code != want || ev.rec.calls.Load() != 0 {
					t.Fatalf("status %d, handler calls %d; want %d and none; log %s", w.Code, ev.rec.calls.Load(), want, ev.logs.buf.String())
				}
				lines := ev.logs.lines(t)
				if len(lines) != 1 {
					t.Fatalf("%d log lines", len(lines))
				}
				l := lines[0]
				if l["reason"] != tc.want.reason || l["location"] != tc.want.location ||
					tc.want.field != "" && l["field"] != tc.want.field ||
					tc.want.offset >= 0 && l["offset"] != float64(tc.want.offset) {
					t.Errorf("log %v; want %+v", l, tc.want)
				}
			})
		}
	}
}

// TestCanonicalFormMonitorFlags: in Monitor mode the same requests pass
// on unchanged, each with one "flagged" line naming what Enforce refuses.
func TestCanonicalFormMonitorFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range canonBypassCases() {
		if tc.status == 200 {
			continue
		}
		mon := tc.pol.AsMonitor()
		ev := newServer(t, recSetup(Config{Rules: &mon}, mountGlobal), &recorder{})
		r := req(http.MethodGet, tc.target, "", nil)
		if tc.body != "" {
			r = req(tc.method, tc.target, tc.ct, strings.NewReader(tc.body))
		}
		w := ev.do(r)
		lines := ev.logs.lines(t)
		if w.Code != 200 || len(lines) != 1 || lines[0]["reason"] != tc.want.reason || lines[0]["mode"] != "monitor" {
			t.Errorf("%s: status %d, log %v; want 200 and one flagged %s line", tc.name, w.Code, lines, tc.want.reason)
			continue
		}
		if s := ev.rec.seen(); s == nil || tc.body != "" && string(s.Body) != tc.body {
			t.Errorf("%s: the handler did not get the request as sent", tc.name)
		}
	}
}

// TestCanonicalSyntaxNetHTTP: the same refusals through the net/http
// adapter wrapped around a handler a ServeMux routes, where the wildcard
// values (r.PathValue) are canonicalized too.
func TestCanonicalSyntaxNetHTTP(t *testing.T) {
	t.Parallel()
	nfkc := strictCanon(normalize.NFKC)
	var got string
	srv := newServer(t, setup{mount: mountHandler, http: HTTPConfig{Rules: &nfkc}, patterns: []string{"/f/{rest...}", "/u/{id}"}},
		onHTTP(func(w http.ResponseWriter, r *http.Request) {
			if r.Pattern == "/f/{rest...}" {
				got = r.PathValue("rest")
			} else {
				got = r.PathValue("id")
			}
		}))
	for _, tc := range []struct {
		target string
		status int
		value  string
	}{
		{"/f/" + esc("．．／．．／etc"), 400, ""},
		{"/u/" + esc("．．"), 400, ""},
		{"/f/" + esc("％２ｅ"), 400, ""},
		{"/f/" + esc("ﬁle"), 200, "file"},
		{"/u/" + esc("ｂｏｂ"), 200, "bob"},
	} {
		got = ""
		w := srv.do(httptest.NewRequest(http.MethodGet, tc.target, nil))
		if w.Code != tc.status || got != tc.value {
			t.Errorf("%s: status %d, value %q; want %d, %q", tc.target, w.Code, got, tc.status, tc.value)
		}
	}
}
