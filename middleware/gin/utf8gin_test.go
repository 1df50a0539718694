package utf8gin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	utf8gin "github.com/utf8guard/utf8guard/middleware/gin"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

func nop() *zerolog.Logger { l := zerolog.Nop(); return &l }

// do serves one request on h and returns the recorder.
func do(h http.Handler, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, body)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// param answers the parameter name as c.Param gives it.
func param(name string) gin.HandlerFunc {
	return func(c *gin.Context) { c.String(http.StatusOK, "%s", c.Param(name)) }
}

// TestCanonicalValuesReachCParam: the values the pipeline hands back (NFC,
// PRECIS-enforced) are what c.Param returns, a catch-all's with its "/",
// and a PRECIS path field names a catch-all by its name.
func TestCanonicalValuesReachCParam(t *testing.T) {
	t.Parallel()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	users := rules.Strict()
	users.Precis = []rules.PrecisField{{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped}}
	tags := rules.Strict()
	tags.Precis = []rules.PrecisField{{Location: rules.Path, Field: "tag", Profile: normalize.UsernameCaseMapped}}
	table := &rules.Table{Default: nfc, Routes: map[string]rules.Policy{"/users/:id": users, "/tags/*tag": tags}}
	e := gin.New()
	e.Use(utf8gin.WithConfig(utf8gin.Config{Rules: table, Logger: nop(), Engine: e}))
	e.GET("/users/:id", param("id"))
	e.GET("/names/:name", param("name"))
	e.GET("/files/*path", param("path"))
	e.GET("/tags/*tag", param("tag"))
	if err := utf8gin.CheckRoutes(e, table); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		status int
		want   string
	}{
		{"/users/MIKE", 200, "mike"},
		{"/users/mike%20smith", 400, ""},
		{"/names/Zoe%CC%88", 200, "Zoë"},
		{"/files/a/e%CC%81", 200, "/a/é"},
		{"/files/a", 200, "/a"},
		{"/tags/RED", 200, "/red"},
		{"/files/%EF%BB%BFx", 400, ""}, // a catch-all led by a BOM, as on Echo
	} {
		w := do(e, "GET", tc.target, nil)
		if w.Code != tc.status || tc.status == 200 && w.Body.String() != tc.want {
			t.Errorf("%s: %d %q, want %d %q", tc.target, w.Code, w.Body.String(), tc.status, tc.want)
		}
	}
}

// TestEngineSettings: what c.Param returns under each of Gin's path
// settings, with the middleware told the engine (Config.Engine) and not.
// Gin cuts values from URL.Path by default, so that "%2F" splits the
// segment (no "/t/:id" route matches "/t/a%2Fb"); UseRawPath cuts them
// from RawPath and unescapes them as a query is unescaped ("+" is a
// space); with UnescapePathValues false it leaves them escaped, which the
// middleware decodes only when Config.Engine tells it so: without it, the
// handler gets the escapes raw, as the package doc warns.
func TestEngineSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                       string
		rawPath, escPath, unescape bool
		tell                       bool
		target                     string
		status                     int
		want                       string
	}{
		{"default", false, false, true, false, "/t/caf%C3%A9", 200, "café"},
		{"default: %2F splits the segment", false, false, true, false, "/t/a%2Fb", 404, ""},
		{"UseRawPath", true, false, true, false, "/t/a%2Fb", 200, "a/b"},
		{"UseRawPath: + is a space", true, false, true, false, "/t/a+b%2Fc", 200, "a b/c"},
		{"UseRawPath, raw values, told", true, false, false, true, "/t/%c3%a9%2Fx", 200, "é/x"},
		{"UseRawPath, raw values, told, overlong", true, false, false, true, "/t/%C0%AF%2Fx", 400, ""},
		{"UseEscapedPath, raw values, told", false, true, false, true, "/t/caf%C3%A9", 200, "café"},
		{"UseRawPath, raw values, not told (unsafe)", true, false, false, false, "/t/%c3%a9%2Fx", 200, "%c3%a9%2Fx"},
	} {
		e := gin.New()
		e.UseRawPath, e.UseEscapedPath, e.UnescapePathValues = tc.rawPath, tc.escPath, tc.unescape
		cfg := utf8gin.Config{Rules: rules.Strict(), Logger: nop()}
		if tc.tell {
			cfg.Engine = e
		}
		e.Use(utf8gin.WithConfig(cfg))
		e.GET("/t/:id", param("id"))
		w := do(e, "GET", tc.target, nil)
		if w.Code != tc.status || tc.status == 200 && w.Body.String() != tc.want {
			t.Errorf("%s: %s: %d %q, want %d %q", tc.name, tc.target, w.Code, w.Body.String(), tc.status, tc.want)
		}
	}
}

// TestCutOff: as on Echo, a binary body of unknown length over its limit
// that the handler's read cuts off is answered 413 too_large through
// OnReject and the ErrorHandler when the handler records the read's error
// with c.Error and has written nothing. A handler that answered first
// keeps its answer, and so does one that answers the error itself, as
// c.Bind does (400, through c.AbortWithError).
func TestCutOff(t *testing.T) {
	t.Parallel()
	const limit = 1000
	recorded := func(c *gin.Context) {
		if _, err := io.Copy(io.Discard, c.Request.Body); err != nil {
			_ = c.Error(fmt.Errorf("saving: %w", err))
			return
		}
		c.Status(http.StatusOK)
	}
	answered := func(c *gin.Context) {
		c.Status(http.StatusAccepted)
		c.Writer.WriteHeaderNow()
		if _, err := io.ReadAll(c.Request.Body); err != nil {
			_ = c.Error(err)
		}
	}
	bound := func(c *gin.Context) { // as c.Bind answers a failed read
		if _, err := io.ReadAll(c.Request.Body); err != nil {
			_ = c.AbortWithError(http.StatusBadRequest, err)
		}
	}
	for _, tc := range []struct {
		name    string
		handler gin.HandlerFunc
		status  int
	}{
		{"recorded with c.Error", recorded, 413},
		{"answered first", answered, 202},
		{"c.AbortWithError, as c.Bind", bound, 400},
	} {
		p := rules.Strict()
		p.BinaryTypes = []string{"application/octet-stream"}
		p.Limits.BinaryBodyBytes = limit
		var rejected []*middleware.Rejection
		e := gin.New()
		e.Use(utf8gin.WithConfig(utf8gin.Config{Rules: &p, Logger: nop(),
			OnReject: func(c *gin.Context, rj *middleware.Rejection) { rejected = append(rejected, rj) }}))
		e.PUT("/files/:name", tc.handler)
		r := httptest.NewRequest(http.MethodPut, "/files/a.bin", strings.NewReader(strings.Repeat("x", 3*limit)))
		r.Header.Set("Content-Type", "application/octet-stream")
		r.ContentLength = -1
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		if w.Code != tc.status {
			t.Errorf("%s: status %d %q, want %d", tc.name, w.Code, w.Body.String(), tc.status)
			continue
		}
		if tc.status != 413 {
			if len(rejected) != 0 {
				t.Errorf("%s: OnReject called for an answered request", tc.name)
			}
			continue
		}
		if w.Body.String() != `{"location":"body","reason":"too_large"}` {
			t.Errorf("%s: answer %q", tc.name, w.Body.String())
		}
		if len(rejected) != 1 || rejected[0].Limit != limit {
			t.Errorf("%s: OnReject: %v", tc.name, rejected)
		}
	}
}

// TestAnswers: DefaultErrorHandler answers as c.AbortWithStatusJSON
// writes, HTTPErrorHandler as the net/http adapter does, octet for octet;
// the handler does not run after either, nor after an ErrorHandler that
// forgets to abort.
func TestAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		handler func(*gin.Context, *middleware.Rejection)
		body    string
		ctype   string
		nosniff string
	}{
		{"default", nil, `{"location":"path","reason":"overlong"}`, "application/json; charset=utf-8", ""},
		{"HTTPErrorHandler", utf8gin.HTTPErrorHandler, `{"location":"path","reason":"overlong"}` + "\n", "application/json", "nosniff"},
		{"no abort", func(c *gin.Context, rj *middleware.Rejection) { c.String(rj.Status(), "no") }, "no", "text/plain; charset=utf-8", ""},
	} {
		ran := false
		e := gin.New()
		e.Use(utf8gin.WithConfig(utf8gin.Config{Logger: nop(), ErrorHandler: tc.handler}))
		e.GET("/*path", func(c *gin.Context) { ran = true })
		w := do(e, "GET", "/a%C0%AFb", nil)
		if w.Code != 400 || w.Body.String() != tc.body || w.Header().Get("Content-Type") != tc.ctype ||
			w.Header().Get("X-Content-Type-Options") != tc.nosniff || ran {
			t.Errorf("%s: %d %q %q %q, handler ran %v", tc.name, w.Code, w.Body.String(),
				w.Header().Get("Content-Type"), w.Header().Get("X-Content-Type-Options"), ran)
		}
	}
}

// TestCookieDecodedByGin pins a Gin trap: c.Cookie unescapes the value
// (url.QueryUnescape) after the middleware checked it as sent, so that
// "%C0%AF" passes as ASCII and reaches the handler as an overlong "/".
// c.Request.Cookie returns the value that was checked.
func TestCookieDecodedByGin(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	p.Cookies = true
	e := gin.New()
	e.Use(utf8gin.WithConfig(utf8gin.Config{Rules: &p, Logger: nop()}))
	e.GET("/", func(c *gin.Context) {
		decoded, _ := c.Cookie("sid")
		sent, _ := c.Request.Cookie("sid")
		c.String(http.StatusOK, "%q %q", decoded, sent.Value)
	})
	if w := do(e, "GET", "/", nil, "Cookie", "sid=%C0%AF"); w.Code != 200 || w.Body.String() != `"\xc0\xaf" "%C0%AF"` {
		t.Errorf("%d %s", w.Code, w.Body.String())
	}
	if w := do(e, "GET", "/", nil, "Cookie", "sid=\xc0\xaf"); w.Code != 400 {
		t.Errorf("a raw overlong cookie: %d", w.Code)
	}
}

// TestQueryCacheBeforeTheMiddleware pins a Gin trap: c.Query parses the
// query once per request and keeps it in the context, so that a
// middleware mounted before utf8guard that calls it leaves the handler the
// query as it came, not its canonical form; mounted after, c.Query gives
// the canonical form.
func TestQueryCacheBeforeTheMiddleware(t *testing.T) {
	t.Parallel()
	p := rules.Strict()
	p.Normalization = normalize.NFC
	for _, before := range []bool{false, true} {
		e := gin.New()
		if before {
			e.Use(func(c *gin.Context) { _ = c.Query("q") })
		}
		e.Use(utf8gin.WithConfig(utf8gin.Config{Rules: &p, Logger: nop()}))
		e.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "%s|%s", c.Query("q"), c.Request.URL.Query().Get("q")) })
		want := "é|é"
		if before {
			want = "e\u0301|é"
		}
		if w := do(e, "GET", "/?q=e%CC%81", nil); w.Body.String() != want {
			t.Errorf("c.Query before the middleware %v: %q, want %q", before, w.Body.String(), want)
		}
	}
}

// TestCheckRoutes: the start-up check meets the table's keys with Gin's
// routes; a typo, another router's syntax and a method prefix are errors,
// a catch-all's PRECIS field is its name. With Config.Engine, the first
// request logs the unknown keys.
func TestCheckRoutes(t *testing.T) {
	t.Parallel()
	e := gin.New()
	e.GET("/users/:id", param("id"))
	e.POST("/users/:id", param("id"))
	e.GET("/files/*path", param("path"))
	star := rules.Strict()
	star.Precis = []rules.PrecisField{{Location: rules.Path, Field: "path", Profile: normalize.Nickname}}
	for _, tc := range []struct {
		name   string
		routes map[string]rules.Policy
		want   string
	}{
		{"templates", map[string]rules.Policy{"/users/:id": rules.Strict(), "/files/*path": star}, ""},
		{"a typo", map[string]rules.Policy{"/user/:id": rules.Strict()}, `(did you mean "/users/:id"?) names no registered route`},
		{"chi's syntax", map[string]rules.Policy{"/users/{id}": rules.Strict()}, `Gin names a parameter ":id"`},
		{"a method", map[string]rules.Policy{"GET /users/:id": rules.Strict()}, `the key is the path alone, "/users/:id"`},
	} {
		err := utf8gin.CheckRoutes(e, &rules.Table{Default: rules.Strict(), Routes: tc.routes})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
		var ue *middleware.UnknownRoutesError
		if tc.name == "a typo" && !errors.As(err, &ue) {
			t.Errorf("a typo: %T, want *middleware.UnknownRoutesError", err)
		}
	}
	if _, err := (utf8gin.Config{Rules: &rules.Table{Routes: map[string]rules.Policy{"/users/{id}": rules.Strict()}}}).ToMiddleware(); err == nil {
		t.Errorf("ToMiddleware took chi's syntax")
	}

	var logs bytes.Buffer
	logger := zerolog.New(&logs)
	e.Use(utf8gin.WithConfig(utf8gin.Config{Logger: &logger, Engine: e,
		Rules: &rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/user/:id": rules.Strict()}}}))
	e.GET("/x", param("id"))
	do(e, "GET", "/x", nil)
	do(e, "GET", "/x", nil)
	if n := strings.Count(logs.String(), `"level":"error"`); n != 1 || !strings.Contains(logs.String(), "/user/:id") {
		t.Errorf("%d error lines: %s", n, logs.String())
	}
}

// TestIdentity: the log's request_id is the X-Request-Id a middleware
// mounted before set on the response, else the client's; remote_ip is
// c.ClientIP(), which believes X-Forwarded-For from the proxies Gin
// trusts (all, by default).
func TestIdentity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		setID, trustNone bool
		wantID, wantIP   string
		wantClient       bool
	}{
		{"the client's id, a trusted proxy", false, false, "client-id", "203.0.113.9", true},
		{"the server's id, no trusted proxy", true, true, "server-id", "192.0.2.1", false},
	} {
		var logs bytes.Buffer
		logger := zerolog.New(&logs)
		e := gin.New()
		if tc.trustNone {
			_ = e.SetTrustedProxies(nil)
		}
		if tc.setID {
			e.Use(func(c *gin.Context) { c.Header("X-Request-Id", "server-id") })
		}
		e.Use(utf8gin.WithConfig(utf8gin.Config{Logger: &logger}))
		e.GET("/", param("x"))
		do(e, "GET", "/?q=%00", nil, "X-Request-Id", "client-id", "X-Forwarded-For", "203.0.113.9")
		var line map[string]any
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, logs.String())
		}
		if line["request_id"] != tc.wantID || line["remote_ip"] != tc.wantIP || (line["request_id_client"] == true) != tc.wantClient {
			t.Errorf("%s: %v", tc.name, line)
		}
	}
}
