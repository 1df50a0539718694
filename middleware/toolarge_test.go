package middleware

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestTooLargeNamesLimit: every too_large rejection, whatever it counts or
// measures, carries the limit it exceeded (Rejection.Limit), and its log
// line names it ("limit"): a path, a query's fields and a field's octets,
// a form's, a multipart body's parts, fields, field octets and nesting, a
// header value, a cookie, a body of every checked kind (declared length,
// chunked, read), a JSON nesting, and the canonical forms that grow past
// a limit.
func TestTooLargeNamesLimit(t *testing.T) {
	t.Parallel()
	small := func(edit func(l *rules.Limits)) func(*rules.Policy) {
		return func(p *rules.Policy) { edit(&p.Limits) }
	}
	nfkc := func(edit func(l *rules.Limits)) func(*rules.Policy) {
		return func(p *rules.Policy) { p.Normalization = normalize.NFKC; edit(&p.Limits) }
	}
	mp := func(build func(w *multipart.Writer)) (string, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		build(w)
		_ = w.Close()
		return w.FormDataContentType(), b.String()
	}
	fields := func(n int) func(w *multipart.Writer) {
		return func(w *multipart.Writer) {
			for i := range n {
				_ = w.WriteField(fmt.Sprint("f", i), "v")
			}
		}
	}
	files := func(n int) func(w *multipart.Writer) {
		return func(w *multipart.Writer) {
			for i := range n {
				fw, _ := w.CreateFormFile(fmt.Sprint("f", i), "a.txt")
				_, _ = io.WriteString(fw, "x")
			}
		}
	}
	nested := func(depth int) (string, string) {
		ct, body := "text/plain", "x"
		for i := range depth {
			var b bytes.Buffer
			w := multipart.NewWriter(&b)
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="n%d"`, i))
			h.Set("Content-Type", ct)
			pw, _ := w.CreatePart(h)
			_, _ = io.WriteString(pw, body)
			_ = w.Close()
			ct, body = "multipart/mixed; boundary="+w.Boundary(), b.String()
		}
		return strings.Replace(ct, "multipart/mixed", "multipart/form-data", 1), body
	}
	mpFieldsCT, mpFields := mp(fields(4))
	mpPartsCT, mpParts := mp(files(4))
	mpLongCT, mpLong := mp(func(w *multipart.Writer) { _ = w.WriteField("f", strings.Repeat("v", 20)) })
	nestCT, nestBody := nested(upload.MaxDepth + 2)

	type limitCase struct {
		name     string
		edit     func(*rules.Policy)
		method   string
		target   string
		ct, body string
		header   []string
		chunked  bool
		status   int
		loc      rules.Location
		limit    int64
	}
	cases := []limitCase{
		{name: "path", edit: small(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/" + strings.Repeat("a", 16),
			status: 400, loc: rules.Path, limit: 16},
		{name: "path, decoded", edit: small(func(l *rules.Limits) { l.PathBytes = 16 }), target: "/%C3%A9" + strings.Repeat("a", 12),
			status: 400, loc: rules.Path, limit: 16},
		{name: "query fields", edit: small(func(l *rules.Limits) { l.Fields = 3 }), target: "/?a=1&b=2&c=3&d=4",
			status: 400, loc: rules.Query, limit: 3},
		{name: "query field octets", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/?q=" + strings.Repeat("x", 9),
			status: 400, loc: rules.Query, limit: 8},
		{name: "query field octets, decoded", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/?q=" + strings.Repeat("%C3%A9", 5),
			status: 400, loc: rules.Query, limit: 8},
		{name: "query key octets", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/?" + strings.Repeat("k", 9) + "=1",
			status: 400, loc: rules.Query, limit: 8},
		{name: "query canonical form", edit: nfkc(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/?q=%EF%B7%BA",
			status: 400, loc: rules.Query, limit: 8},
		{name: "form fields", edit: small(func(l *rules.Limits) { l.Fields = 3 }), method: "POST", target: "/",
			ct: "application/x-www-form-urlencoded", body: "a=1&b=2&c=3&d=4", status: 400, loc: rules.Form, limit: 3},
		{name: "form field octets", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), method: "POST", target: "/",
			ct: "application/x-www-form-urlencoded", body: "q=" + strings.Repeat("x", 9), status: 400, loc: rules.Form, limit: 8},
		{name: "multipart fields", edit: small(func(l *rules.Limits) { l.Fields = 3 }), method: "POST", target: "/",
			ct: mpFieldsCT, body: mpFields, status: 400, loc: rules.Multipart, limit: 3},
		{name: "multipart parts", edit: small(func(l *rules.Limits) { l.MultipartParts = 3 }), method: "POST", target: "/",
			ct: mpPartsCT, body: mpParts, status: 400, loc: rules.Multipart, limit: 3},
		{name: "multipart field octets", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), method: "POST", target: "/",
			ct: mpLongCT, body: mpLong, status: 400, loc: rules.Multipart, limit: 8},
		{name: "multipart nesting", method: "POST", target: "/", ct: nestCT, body: nestBody,
			status: 400, loc: rules.Multipart, limit: upload.MaxDepth},
		{name: "header value", edit: func(p *rules.Policy) {
			p.Header.On, p.Headers, p.Limits.FieldBytes = true, []string{"X-Name"}, 8
		}, target: "/", header: []string{"X-Name", strings.Repeat("h", 9)}, status: 400, loc: rules.Header, limit: 8},
		{name: "cookie", edit: small(func(l *rules.Limits) { l.FieldBytes = 8 }), target: "/",
			header: []string{"Cookie", "sid=" + strings.Repeat("c", 9)}, status: 400, loc: rules.Header, limit: 8},
		{name: "text body, declared", edit: small(func(l *rules.Limits) { l.BodyBytes = 16 }), method: "POST", target: "/",
			ct: "text/plain", body: strings.Repeat("x", 17), status: 413, loc: rules.Body, limit: 16},
		{name: "text body, chunked", edit: small(func(l *rules.Limits) { l.BodyBytes = 16 }), method: "POST", target: "/",
			ct: "text/plain", body: strings.Repeat("x", 17), chunked: true, status: 413, loc: rules.Body, limit: 16},
		{name: "JSON body", edit: small(func(l *rules.Limits) { l.BodyBytes = 16 }), method: "POST", target: "/",
			ct: "application/json", body: `"` + strings.Repeat("x", 16) + `"`, chunked: true, status: 413, loc: rules.JSON, limit: 16},
		{name: "JSON depth", edit: small(func(l *rules.Limits) { l.JSONDepth = 3 }), method: "POST", target: "/",
			ct: "application/json", body: `[[[[1]]]]`, status: 400, loc: rules.JSON, limit: 3},
		{name: "JSON canonical form", edit: nfkc(func(l *rules.Limits) { l.BodyBytes = 16 }), method: "POST", target: "/",
			ct: "application/json", body: `"` + "\uFDFA" + `"`, status: 413, loc: rules.JSON, limit: 16},
		{name: "text canonical form", edit: nfkc(func(l *rules.Limits) { l.BodyBytes = 16 }), method: "POST", target: "/",
			ct: "text/plain", body: "\uFDFA", status: 413, loc: rules.Body, limit: 16},
		{name: "binary body, declared", edit: func(p *rules.Policy) {
			p.BinaryTypes, p.Limits.BinaryBodyBytes = []string{"application/octet-stream"}, 16 // the binary limit
		}, method: "POST", target: "/", ct: "application/octet-stream", body: strings.Repeat("\x00", 17),
			status: 413, loc: rules.Body, limit: 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := rules.Strict()
			if tc.edit != nil {
				tc.edit(&p)
			}
			var got *Rejection
			ran := false
			srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: p,
				OnReject: func(_ *http.Request, rj *Rejection) { got = rj }}},
				onHTTP(func(http.ResponseWriter, *http.Request) { ran = true }))
			logs := srv.logs
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			r := req(method, tc.target, tc.ct, body)
			if tc.chunked {
				r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
			}
			for i := 0; i+1 < len(tc.header); i += 2 {
				r.Header.Add(tc.header[i], tc.header[i+1])
			}
			w := srv.do(r)
			if w.Code != tc.status || ran {
				t.Fatalf("status %d (handler ran: %v), want %d; log %v", w.Code, ran, tc.status, logs.lines(t))
			}
			if got == nil || got.Reason != sanitize.TooLarge || got.Location != tc.loc || got.Limit != tc.limit {
				t.Fatalf("rejection %+v, want too_large in %v with limit %d", got, tc.loc, tc.limit)
			}
			l := checkOneLog(t, logs, wantLog{reason: "too_large", location: tc.loc.String(), offset: -1, field: got.Field}, "enforce", method, "")
			if lim, _ := l["limit"].(float64); int64(lim) != tc.limit {
				t.Errorf("log limit %v, want %d: %v", l["limit"], tc.limit, l)
			}
		})
	}
}

// TestLimitOnlyForTooLarge: a rejection of any other reason logs no limit.
func TestLimitOnlyForTooLarge(t *testing.T) {
	t.Parallel()
	srv := newServer(t, bareSetup(rules.Strict()), onHTTP(func(http.ResponseWriter, *http.Request) {}))
	logs := srv.logs
	w := srv.do(req("GET", "/?q=%00", "", nil))
	if w.Code != 400 {
		t.Fatalf("status %d", w.Code)
	}
	if l := checkOneLog(t, logs, wantLog{reason: "forbidden_char", offset: -1}, "enforce", "GET", ""); l["limit"] != nil {
		t.Errorf("forbidden_char logs limit %v", l["limit"])
	}
}
