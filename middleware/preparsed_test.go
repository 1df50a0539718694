package middleware_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// ppMultipart returns a multipart/form-data body with one field, and its
// Content-Type.
func ppMultipart(t *testing.T, name, value string) (string, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if err := mw.WriteField(name, value); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), b.String()
}

// TestParsedBeforeCheck: a middleware before utf8guard that parses the form
// (c.FormValue in a session, CSRF or auth middleware) would hand the
// handler values no check saw: x=%ff. On every adapter and mount, such a
// request is refused with 500 parsed_before_check through the hooks, with
// an error-level line that says to mount utf8guard earlier and which
// Request field was set; without the earlier parse, the check refuses the
// same request for what it holds.
func TestParsedBeforeCheck(t *testing.T) {
	t.Parallel()
	mpType, mpBody := ppMultipart(t, "x", "\xff")
	cases := []struct {
		name, method, target, ct, body string
		parse                          func(r *http.Request)
		location, field, unparsed      string // unparsed: the reason without the earlier parse
	}{
		{"FormValue, form body", http.MethodPost, "/r/x", "application/x-www-form-urlencoded", "x=%ff",
			func(r *http.Request) { r.FormValue("csrf") }, "form", "Request.Form, Request.PostForm", "invalid_byte"},
		{"FormValue, query", http.MethodGet, "/r/x?x=%ff", "", "",
			func(r *http.Request) { r.FormValue("session") }, "query", "Request.Form, Request.PostForm", "invalid_byte"},
		{"PostFormValue", http.MethodPost, "/r/x", "application/x-www-form-urlencoded", "x=%ff",
			func(r *http.Request) { r.PostFormValue("token") }, "form", "Request.Form, Request.PostForm", "invalid_byte"},
		{"ParseMultipartForm", http.MethodPost, "/r/x", mpType, mpBody,
			func(r *http.Request) { _ = r.ParseMultipartForm(1 << 20) }, "multipart", "Request.Form, Request.PostForm, Request.MultipartForm", "invalid_byte"},
		{"a clean form parsed before", http.MethodPost, "/r/x", "application/x-www-form-urlencoded", "x=ok",
			func(r *http.Request) { _ = r.ParseForm() }, "form", "Request.Form, Request.PostForm", ""},
	}
	for _, tc := range cases {
		for _, target := range hkTargets {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				t.Parallel()
				newReq := func() *http.Request {
					r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
					if tc.ct != "" {
						r.Header.Set("Content-Type", tc.ct)
					}
					return r
				}
				// Without the earlier parse: the check itself decides.
				rec := &hkRecorder{}
				w := newServer(t, hkMounting(target, rules.Strict(), rec, nil), rec).Do(newReq())
				if tc.unparsed == "" && w.Code != 200 || tc.unparsed != "" && (len(rec.calls) == 0 || rec.calls[0].reason != tc.unparsed) {
					t.Fatalf("without the earlier parse: %d, hooks %v; want %q", w.Code, rec.calls, tc.unparsed)
				}

				rec = &hkRecorder{}
				s := newServer(t, hkMounting(target, rules.Strict(), rec, tc.parse), rec)
				w = s.Do(newReq())
				want := []hkCall{{"OnReject", "parsed_before_check", tc.location, rules.Enforce}, {"ErrorHandler", "parsed_before_check", tc.location, rules.Enforce}}
				if !slices.Equal(rec.calls, want) || rec.ran {
					t.Errorf("hooks %v, handler ran %v; want %v and not", rec.calls, rec.ran, want)
				}
				if reason, location := hkBody(t, w.Body.Bytes()); w.Code != 500 || reason != "parsed_before_check" || location != tc.location {
					t.Errorf("answer %d %s, want 500 parsed_before_check in %s", w.Code, w.Body, tc.location)
				}
				lines := linesAt(t, s.Logs(), "error")
				if len(lines) != 1 || lines[0]["reason"] != "parsed_before_check" || lines[0]["location"] != tc.location ||
					!strings.Contains(lines[0]["message"].(string), "mount utf8guard before the middleware that parsed it") ||
					!strings.HasPrefix(lines[0]["error"].(string), tc.field+" already set when utf8guard ran") {
					t.Errorf("log %v; want one error line that says to mount utf8guard earlier and names %s", lines, tc.field)
				}
			})
		}
	}
}

// TestParsedBeforeCheckMonitor: in Monitor mode the request is logged
// (error level: it is still the server's mistake) and passed on.
func TestParsedBeforeCheckMonitor(t *testing.T) {
	t.Parallel()
	for _, target := range hkTargets {
		rec := &hkRecorder{}
		s := newServer(t, hkMounting(target, rules.Strict().AsMonitor(), rec, func(r *http.Request) { r.FormValue("x") }), rec)
		r := httptest.NewRequest(http.MethodPost, "/r/x", strings.NewReader("x=%ff"))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := s.Do(r)
		want := []hkCall{{"OnReject", "parsed_before_check", "form", rules.Monitor}}
		if w.Code != 200 || !rec.ran || !slices.Equal(rec.calls, want) {
			t.Errorf("%s: %d, handler ran %v, hooks %v; want 200, the handler, %v", target, w.Code, rec.ran, rec.calls, want)
		}
		lines := linesAt(t, s.Logs(), "error")
		if len(lines) != 1 || lines[0]["mode"] != "monitor" || !strings.HasPrefix(lines[0]["message"].(string), "utf8guard: request flagged: ") {
			t.Errorf("%s: log %v", target, lines)
		}
	}
}

// TestParsedBeforeCheckElsewhere: a route whose policy checks neither the
// query nor form or multipart bodies has nothing a parsed form could hide;
// such requests pass.
func TestParsedBeforeCheckElsewhere(t *testing.T) {
	t.Parallel()
	jsonOnly := rules.Unchecked()
	jsonOnly.JSON.On, jsonOnly.Path.On = true, true
	for name, pol := range map[string]rules.Policy{"unchecked": rules.Unchecked(), "path and JSON only": jsonOnly} {
		for _, target := range hkTargets {
			rec := &hkRecorder{}
			s := newServer(t, hkMounting(target, pol, rec, func(r *http.Request) { r.FormValue("x") }), rec)
			w := s.Do(httptest.NewRequest(http.MethodGet, "/r/x?x=1", nil))
			if w.Code != 200 || len(rec.calls) != 0 || len(linesAt(t, s.Logs(), "error")) != 0 {
				t.Errorf("%s, %s: %d, hooks %v", name, target, w.Code, rec.calls)
			}
		}
	}
}
