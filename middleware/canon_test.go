package middleware

import (
	"bytes"
	"crypto/sha256"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
)

// Canonicalization through the whole middleware: whatever the handler
// looks at (route parameters, URL.Path and RawPath, the query, form, JSON,
// multipart and text bodies), it sees the route's canonical form and only
// that; in reject mode a request that is not in it is refused with the
// first offending octet; PRECIS fields get their profile's enforced form.
//
// This file holds the rewrite at every location and mount (TestCanonRewrite)
// and its cost; canon_reject_test.go the refusals (RejectUnnormalized,
// Monitor, invalid text before normalization), canon_precis_test.go the
// PRECIS fields, canon_policy_test.go the policy a canonical form keeps, and
// canon_helpers_test.go the recording handler and servers they share.

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

// canonLoc is one place of the request: how to put a text there, and
// what the handler must see when the route's form turns in into want.
type canonLoc struct {
	name  string
	build func(in string) *http.Request
	check func(t *testing.T, s *canonSeen, in, want string, mnt mount, orig *http.Request)
}

var canonLocs = []canonLoc{
	{
		name: "path",
		build: func(in string) *http.Request {
			return canonReq(http.MethodGet, "/api/users/"+canonPathEsc("x"+in+"y"), "", "")
		},
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
			v := "x" + want + "y"
			canonEq(t, "param id", s.Params["id"], v)
			if mnt.echo() {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, orig *http.Request) {
			v := "x" + want + "y"
			canonEq(t, "param id", s.Params["id"], v)
			if mnt.echo() {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
			canonEq(t, "URL.Path", s.Path, "/api/files/"+want+"/"+want)
			raw := "/api/files/" + url.PathEscape(want) + "%2F" + url.PathEscape(want)
			canonEq(t, "URL.RawPath", s.RawPath, raw)
			canonEq(t, "EscapedPath", s.EscapedPath, raw)
			switch {
			case mnt == mountPre:
				// Before routing the encoded slash keeps RawPath, so
				// Echo hands out the raw text of the canonical path
				// (ToMiddleware documents it).
				canonEq(t, "param *", s.Params["*"], strings.TrimPrefix(raw, "/api/files/"))
			case mnt.echo():
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
			wantQ := url.Values{"q": {"x" + want + "y"}, "k" + want: {"v"}, "plain": {"1"}, "sp": {"a b"}}
			canonEq(t, "query", s.Query, wantQ)
			canonEq(t, "QueryParam(q)", s.QueryParam["q"], "x"+want+"y")
			canonEq(t, "RawQuery", s.RawQuery, "q="+url.QueryEscape("x"+want+"y")+"&k"+url.QueryEscape(want)+"=v&plain=1&sp=a+b")
			if mnt.echo() {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
			if s.FormErr != nil {
				t.Fatal(s.FormErr)
			}
			canonEq(t, "form", s.Form, url.Values{"q": {"x" + want + "y"}, "k" + want: {"v"}, "plain": {"1"}})
			canonEq(t, "FormValue(q)", s.FormValue["q"], "x"+want+"y")
			canonEq(t, "body", string(s.Body), "q="+url.QueryEscape("x"+want+"y")+"&k"+url.QueryEscape(want)+"=v&plain=1")
			if mnt.echo() {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, orig *http.Request) {
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
			if mnt.echo() {
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
		check: func(t *testing.T, s *canonSeen, in, want string, mnt mount, _ *http.Request) {
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

// TestCanonRewrite: under NFC and NFKC, at every location and every
// mount, the handler sees the canonical form and nothing else.
func TestCanonRewrite(t *testing.T) {
	t.Parallel()
	for _, mnt := range allMounts {
		t.Run(mnt.String(), func(t *testing.T) {
			t.Parallel()
			for _, form := range canonForms {
				ev := newServer(t, canonSetup(canonPolicy(form), mnt), &canonRec{})
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
