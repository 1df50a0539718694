package middleware

import (
	"io"
	"net/http"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

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
	for _, mnt := range allMounts {
		t.Run(mnt.String(), func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ev := newServer(t, canonSetup(tc.pol, mnt), &canonRec{})
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
	for _, mnt := range allMounts {
		t.Run(mnt.String(), func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					ev := newServer(t, canonSetup(tc.pol, mnt), &canonRec{})
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
				ev := newServer(t, canonSetup(pol.p, mountGlobal), &canonRec{})
				w := ev.do(tc.r())
				if w.Code != 400 {
					t.Fatalf("status %d, want 400", w.Code)
				}
				checkOneLog(t, ev.logs, tc.want, "enforce", "", "")
			})
		}
	}
	// Repair: the overlong becomes U+FFFD, then the text is normalized.
	ev := newServer(t, canonSetup(canonPolicy(normalize.NFC, repairing), mountGlobal), &canonRec{})
	w := ev.do(canonReq("GET", "/api/echo?q=e%CC%81%C0%AFa%CC%8A", "", ""))
	if w.Code != 200 {
		t.Fatalf("repair: status %d %s", w.Code, w.Body)
	}
	canonEq(t, "repaired and normalized", ev.rec.get().Query.Get("q"), "\u00E9\uFFFD\uFFFD\u00E5")
}
