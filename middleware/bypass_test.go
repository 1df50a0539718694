package middleware

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Regression tests for the bypass mechanisms
// that live in the request pipeline: each runs on
// every mount where it applies. The JSON, XML and multipart mechanisms
// have their own files.

// TestCookieUnicodeSpace: only SP and HTAB are
// trimmed around a cookie; U+0085 (NEL), which strings.TrimSpace would
// drop before the check, is a C1 control the strict preset refuses.
func TestCookieUnicodeSpace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cookie string
		status int
		class  string
	}{
		{"sid=abc\xc2\x85", 400, "c1"},
		{"\xc2\x85sid=abc", 400, "c1"},
		{"sid=abc\xc2\xa0", 200, ""},                   // NBSP is no control: kept, and allowed
		{"sid=abc\u2028", 200, ""},                     // LINE SEPARATOR likewise
		{"sid=abc;\xe2\x80\x8e x=1", 400, "bidi_mark"}, // U+200E LRM before a cookie name
		{" sid=abc ;\tx=1\t", 200, ""},
		{"sid=a\tb", 400, "tab_newline"}, // inside a value: every C0 is refused in names
	}
	for _, tc := range cases {
		for _, m := range mounts {
			ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, m), &recorder{})
			r := req(http.MethodGet, "/api/echo", "", nil)
			r.Header["Cookie"] = []string{tc.cookie}
			w := ev.do(r)
			if w.Code != tc.status {
				t.Errorf("%s: Cookie %q: status %d, want %d", m, tc.cookie, w.Code, tc.status)
				continue
			}
			if tc.status != 200 {
				checkOneLog(t, ev.logs, wantLog{reason: "forbidden_char", location: "header", class: tc.class, offset: -1}, "enforce", "GET", "/api/echo")
			}
		}
		srv := newServer(t, bareSetup(rules.Strict()), onHTTP(func(http.ResponseWriter, *http.Request) {}))
		r := req(http.MethodGet, "/x", "", nil)
		r.Header["Cookie"] = []string{tc.cookie}
		w := srv.do(r)
		if w.Code != tc.status {
			t.Errorf("nethttp: Cookie %q: status %d, want %d", tc.cookie, w.Code, tc.status)
		}
	}
}

// TestPreRoutesAsEchoDispatches: under e.Pre the
// policy is that of the route Echo will dispatch to, which matches the
// decoded path once the middleware has cleared RawPath: with a lax
// default and a strict /admin/:id, /%61dmin/x%E2%80%AE is refused under
// /admin/:id's policy, not passed under the default's.
func TestPreRoutesAsEchoDispatches(t *testing.T) {
	t.Parallel()
	table := &rules.Table{
		Default: rules.Default(),
		Routes: map[string]rules.Policy{
			"/admin/:id": rules.Strict(),
			"/mon/:id":   rules.Strict().AsMonitor(),
			"/open/:id":  rules.Unchecked(),
		},
	}
	cases := []struct {
		target string
		status int
		route  string // the route the handler ran under, or the log's
		param  string // the handler's c.Param("id"), or the log's field
	}{
		{"/%61dmin/x%E2%80%AE", 400, "/admin/:id", ""},
		{"/%61dmin/%E2%80%AEx", 400, "/admin/:id", ""},
		{"/adm%69n/%c0%ae", 400, "/admin/:id", ""},
		{"/%61dmin/caf%C3%A9", 200, "/admin/:id", "café"},
		{"/admin/%EF%BB%BFx", 400, "/admin/:id", "id"}, // a leading BOM in the parameter
		// A monitored route is passed on as it came: Echo routes on the
		// raw path, as it would without the middleware, and the handler
		// reads the raw parameter where Echo routed on RawPath.
		{"/%6Don/x%E2%80%AE", 404, "", ""},
		{"/mon/x%E2%80%AE", 200, "/mon/:id", "x\u202e"}, // no RawPath: Echo routes on Path
		{"/mon/x%e2%80%ae", 200, "/mon/:id", "x%e2%80%ae"},
	}
	for _, tc := range cases {
		var ran, param string
		srv := newServer(t, setup{mount: mountPre, echo: Config{Rules: table}, routes: []string{"/admin/:id", "/mon/:id", "/open/:id"}, methods: []string{http.MethodGet}},
			onEcho(func(c echo.Context) error {
				ran, param = c.Path(), c.Param("id")
				return c.NoContent(http.StatusOK)
			}))
		logs := srv.logs
		w := srv.do(req(http.MethodGet, tc.target, "", nil))
		if w.Code != tc.status {
			t.Errorf("%s: status %d, want %d; log %s", tc.target, w.Code, tc.status, logs.buf.String())
			continue
		}
		switch {
		case tc.status == 200 && (ran != tc.route || param != tc.param):
			t.Errorf("%s: the handler ran under %q with id %q; want %q, %q", tc.target, ran, param, tc.route, tc.param)
		case tc.status == 400:
			checkOneLog(t, logs, wantLog{reason: "", location: "path", field: tc.param, offset: -1}, "enforce", "GET", tc.route)
		}
	}
}

// TestMonitorPassesAsSent: Monitor mode hands the
// request on as the client sent it, as Echo alone would: a chunked body
// stays chunked with ContentLength -1, and c.Param is raw where Echo
// routed on RawPath, for a clean request as for a flagged one.
func TestMonitorPassesAsSent(t *testing.T) {
	t.Parallel()
	mon := rules.Strict().AsMonitor()
	for _, m := range mounts {
		for _, clean := range []bool{true, false} {
			ev := newServer(t, recSetup(Config{Rules: &mon}, m), &recorder{})
			body := "hello"
			if !clean {
				body = "he\xc0\xaello"
			}
			r := req(http.MethodPost, "/api/users/%41%42", "text/plain", strings.NewReader(body))
			r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
			ev.do(r)
			s := ev.rec.seen()
			if s == nil {
				t.Fatalf("%s clean=%v: the handler did not run", m, clean)
			}
			if s.ContentLength != -1 || string(s.Body) != body {
				t.Errorf("%s clean=%v: ContentLength %d, body %q; want -1 and the body as sent", m, clean, s.ContentLength, s.Body)
			}
			// Echo alone: routed on RawPath, it hands back the raw text.
			if s.Params["id"] != "%41%42" {
				t.Errorf("%s clean=%v: c.Param(id) = %q, want the raw %q as Echo alone gives it", m, clean, s.Params["id"], "%41%42")
			}
		}
	}
}

// TestMonitorChunkedTransferEncoding checks, through a real server, that
// a monitored chunked body keeps its TransferEncoding.
func TestMonitorChunkedTransferEncoding(t *testing.T) {
	t.Parallel()
	mon := rules.Strict().AsMonitor()
	var te []string
	var cl int64
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &mon, Logger: ptrLogger()}, routes: []string{"/m"}, methods: []string{http.MethodPost}},
		handlerFunc(func(c echo.Context, _ http.ResponseWriter, r *http.Request) error {
			te, cl = r.TransferEncoding, r.ContentLength
			_, _ = io.ReadAll(r.Body)
			return c.NoContent(http.StatusOK)
		}))
	resp, _ := srv.listen(t, "http1").send(t, "POST /m HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", nil)
	if resp.StatusCode != 200 || len(te) != 1 || te[0] != "chunked" || cl != -1 {
		t.Errorf("status %d, TransferEncoding %q, ContentLength %d; want 200, [chunked], -1", resp.StatusCode, te, cl)
	}
}

// TestTrailers: a listed header sent as a chunked
// trailer is checked as the header is. Where the body is read before the
// handler, a trailer that fails is refused (400, location header, field
// "Trailer:X-Name"); where it is not (a listed binary type), a trailer
// the client announces with the Trailer header is refused at once
// (forbidden_trailer), and one it does not announce fails the handler's
// read at the end of the body and never reaches r.Trailer.
func TestTrailers(t *testing.T) {
	t.Parallel()
	pol := strictUpload()
	pol.Header.On, pol.Headers = true, []string{"X-Name"}
	const bad = "ab\xe2\x80\xaecd" // U+202E
	cases := []struct {
		name     string
		ct       string
		announce string // the Trailer header, if any
		trailer  string
		status   int
		reason   string
		readFail bool // the handler ran and its read failed
	}{
		{"text body, bad trailer", "text/plain", "", "X-Name: " + bad, 400, "forbidden_char", false},
		{"text body, announced bad trailer", "text/plain", "X-Name", "X-Name: " + bad, 400, "forbidden_char", false},
		{"text body, bad cookie trailer", "text/plain", "", "Cookie: a=" + bad, 400, "forbidden_char", false},
		{"text body, clean trailer", "text/plain", "", "X-Name: abc", 200, "", false},
		{"text body, unlisted trailer", "text/plain", "", "X-Other: " + bad, 200, "", false},
		{"binary body, announced trailer", "application/octet-stream", "X-Name", "X-Name: abc", 400, "forbidden_trailer", false},
		{"binary body, unannounced bad trailer", "application/octet-stream", "", "X-Name: " + bad, 200, "", true},
		{"binary body, unannounced clean trailer", "application/octet-stream", "", "X-Name: abc", 200, "", false},
	}
	for _, m := range []mount{mountGlobal, mountBare} {
		for _, tc := range cases {
			srv := newServer(t, setup{mount: m, echo: Config{Rules: &pol}, routes: []string{"/t"}, methods: []string{http.MethodPost}}, &targetSeen{})
			logs := srv.logs
			head := "POST /t HTTP/1.1\r\nHost: x\r\nContent-Type: " + tc.ct + "\r\nTransfer-Encoding: chunked\r\n"
			if tc.announce != "" {
				head += "Trailer: " + tc.announce + "\r\n"
			}
			resp, _ := srv.listen(t, "http1").send(t, head+"\r\n5\r\nhello\r\n0\r\n"+tc.trailer+"\r\n\r\n", nil)
			ran, readErr, trailer := srv.rec.ran, srv.rec.bodyErr, srv.rec.trailer
			name := m.String() + ": " + tc.name
			if resp.StatusCode != tc.status {
				t.Errorf("%s: status %d, want %d; log %s", name, resp.StatusCode, tc.status, logs.buf.String())
				continue
			}
			if tc.reason != "" {
				lines := logs.lines(t)
				if len(lines) != 1 || lines[0]["reason"] != tc.reason || lines[0]["location"] != "header" ||
					!strings.HasPrefix(lines[0]["field"].(string), "Trailer:") {
					t.Errorf("%s: log %v; want one %s line in header, field Trailer:...", name, lines, tc.reason)
				}
				if ran {
					t.Errorf("%s: the handler ran", name)
				}
				continue
			}
			if !ran {
				t.Errorf("%s: the handler did not run", name)
				continue
			}
			if gotFail := readErr != nil; gotFail != tc.readFail {
				t.Errorf("%s: the handler's read error %v; want a failure: %v", name, readErr, tc.readFail)
			}
			for name, vals := range trailer {
				for _, v := range vals {
					if strings.Contains(v, "\u202e") && name != "X-Other" {
						t.Errorf("%s: r.Trailer[%s] = %q reached the handler", tc.name, name, v)
					}
				}
			}
		}
	}
}

// TestLogIdentity: the log says when the request id is
// the one the client sent (Echo's RequestID adopts X-Request-Id, so it can
// be forged or replayed), and a field cut to 64 octets says so.
func TestLogIdentity(t *testing.T) {
	t.Parallel()
	for _, sent := range []string{"", "client-chosen-id"} {
		ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, mountGlobal), &recorder{}) // RequestID before utf8guard
		r := req(http.MethodGet, "/api/echo?q=%00", "", nil)
		if sent != "" {
			r.Header.Set("X-Request-Id", sent)
		}
		ev.do(r)
		l := ev.logs.lines(t)[0]
		id, _ := l["request_id"].(string)
		client, _ := l["request_id_client"].(bool)
		if id == "" || (sent != "") != client || sent != "" && id != sent {
			t.Errorf("X-Request-Id %q: request_id %q, request_id_client %v", sent, id, l["request_id_client"])
		}
	}
	srv := newServer(t, bareSetup(rules.Strict()), onHTTP(func(http.ResponseWriter, *http.Request) {}))
	r := req(http.MethodGet, "/x?"+strings.Repeat("k", 100)+"=%00", "", nil)
	r.Header.Set("X-Request-Id", "abc")
	srv.do(r)
	l := srv.logs.lines(t)[0]
	if l["request_id"] != "abc" || l["request_id_client"] != true {
		t.Errorf("nethttp: request_id %v, request_id_client %v; want abc, true", l["request_id"], l["request_id_client"])
	}
	if want := strings.Repeat("k", 64) + "..."; l["field"] != want {
		t.Errorf("field %q, want %q", l["field"], want)
	}
}

// TestPreCanonicalFormMovesRoute: under e.Pre, a canonical form (or a
// repair) that moves the request to another route runs that route's
// policy too: "/cafe%CC%81" is "/café" in NFC, and "/café" refuses what
// the catch-all lets through.
func TestPreCanonicalFormMovesRoute(t *testing.T) {
	t.Parallel()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	tight := nfc
	tight.Query.Forbid |= sanitize.DefaultIgnorable
	table := &rules.Table{Default: nfc, Routes: map[string]rules.Policy{"/café": tight}}
	for _, tc := range []struct {
		target string
		status int
		route  string
	}{
		{"/cafe%CC%81?q=a%E2%80%8Bb", 400, "/café"}, // ZWSP: refused by /café's policy
		{"/caf%C3%A9?q=a%E2%80%8Bb", 400, "/café"},
		{"/cafe%CC%81?q=ab", 200, "/café"},
		{"/other?q=a%E2%80%8Bb", 200, "/*"},
	} {
		ran := ""
		srv := newServer(t, setup{mount: mountPre, echo: Config{Rules: table}, routes: []string{"/café", "/*"}, methods: []string{http.MethodGet}},
			onEcho(func(c echo.Context) error { ran = c.Path(); return c.NoContent(http.StatusOK) }))
		logs := srv.logs
		w := srv.do(req(http.MethodGet, tc.target, "", nil))
		if w.Code != tc.status || tc.status == 200 && ran != tc.route {
			t.Errorf("%s: status %d under %q; want %d under %q; log %s", tc.target, w.Code, ran, tc.status, tc.route, logs.buf.String())
		}
		if tc.status == 400 {
			if l := logs.lines(t); len(l) != 1 || l[0]["route"] != finding.SafeField(tc.route) {
				t.Errorf("%s: log %v, want one line for route %s", tc.target, l, tc.route)
			}
		}
	}
}

// TestSegmentBOMNetHTTP: the net/http adapter wrapped around a whole
// ServeMux knows no parameter names, so a BOM at the start of any path
// segment is refused: it would lead a wildcard value the mux cuts later.
func TestSegmentBOMNetHTTP(t *testing.T) {
	t.Parallel()
	var got string
	srv := newServer(t, setup{mount: mountMux, http: HTTPConfig{Rules: ptr(rules.Strict())}, patterns: []string{"/users/{id}"}},
		onHTTP(func(w http.ResponseWriter, r *http.Request) { got = r.PathValue("id") }))
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/users/%EF%BB%BFbob", 400},
		{"/users/b%EF%BB%BFob", 200},
		{"/users/bob", 200},
	} {
		got = ""
		w := srv.do(req(http.MethodGet, tc.target, "", nil))
		if w.Code != tc.status || strings.HasPrefix(got, "\ufeff") {
			t.Errorf("%s: status %d, PathValue %q; want %d", tc.target, w.Code, got, tc.status)
		}
	}
}

// TestParamsDecodedOnce: a parameter value is decoded once, as the router
// cut it. Under e.Pre the route is found on the decoded path (where that
// moves no segment boundary), so its values are decoded already; decoding
// them again read "a%2500" as "a\x00" and refused what e.Use accepts, and
// would hand "%2541" on as "A".
func TestParamsDecodedOnce(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		ev := newServer(t, recSetup(Config{Rules: ptr(rules.Default())}, m), &recorder{})
		for target, want := range map[string]string{
			"/api/users/a%2500%7e": "a%00~",
			"/api/users/%2541":     "%41",
		} {
			w := ev.do(req(http.MethodGet, target, "", nil))
			s := ev.rec.seen()
			if w.Code != 200 || s == nil || s.Params["id"] != want {
				t.Errorf("%s %s: status %d, id %q; want 200 and %q", m, target, w.Code, s.Params["id"], want)
			}
		}
	}
}

// TestMonitorPassesAsSentNetHTTP is TestMonitorPassesAsSent for the
// net/http adapter: a monitored chunked body keeps ContentLength -1 and
// its TransferEncoding, clean or flagged, and reads as sent.
func TestMonitorPassesAsSentNetHTTP(t *testing.T) {
	t.Parallel()
	mon := rules.Strict().AsMonitor()
	for _, body := range []string{"hello", "he\xc0\xaello"} {
		var te []string
		var cl int64
		var got []byte
		srv := newServer(t, bareSetup(mon), onHTTP(func(w http.ResponseWriter, r *http.Request) {
			te, cl = r.TransferEncoding, r.ContentLength
			got, _ = io.ReadAll(r.Body)
		}))
		r := req(http.MethodPost, "/x", "text/plain", strings.NewReader(body))
		r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
		srv.do(r)
		if cl != -1 || len(te) != 1 || te[0] != "chunked" || string(got) != body {
			t.Errorf("body %q: ContentLength %d, TransferEncoding %q, read %q; want -1, [chunked], the body as sent", body, cl, te, got)
		}
	}
}

// TestBodyUnreadableHooks: a body that cannot be read is a Rejection like
// any other (reason body_unreadable, with its location): it reaches
// OnReject and the error handler on both adapters.
func TestBodyUnreadableHooks(t *testing.T) {
	t.Parallel()
	broken := func() *http.Request {
		r := req(http.MethodPost, "/api/echo", "application/json", &failingReader{data: []byte(`{"a":`), err: errBroken})
		r.ContentLength = -1
		return r
	}
	var seen []string
	ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict()),
		OnReject: func(c echo.Context, rj *Rejection) {
			seen = append(seen, "echo:"+rj.Reason.String()+":"+rj.Location.String())
		},
		ErrorHandler: func(c echo.Context, rj *Rejection) error {
			return c.JSON(http.StatusBadRequest, map[string]string{"problem": rj.Reason.String()})
		}}, mountGlobal), &recorder{})
	w := ev.do(broken())
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"problem":"body_unreadable"`) {
		t.Errorf("echo: %d %s; want the ErrorHandler's answer", w.Code, w.Body)
	}
	srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: ptr(rules.Strict()),
		OnReject: func(r *http.Request, rj *Rejection) {
			seen = append(seen, "http:"+rj.Reason.String()+":"+rj.Location.String())
		}}}, onHTTP(func(http.ResponseWriter, *http.Request) { t.Error("the handler ran") }))
	rec := srv.do(broken())
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"location":"json"`) {
		t.Errorf("nethttp: %d %s; want 400 with the location", rec.Code, rec.Body)
	}
	if want := []string{"echo:body_unreadable:json", "http:body_unreadable:json"}; !slices.Equal(seen, want) {
		t.Errorf("OnReject saw %q, want %q", seen, want)
	}
}
