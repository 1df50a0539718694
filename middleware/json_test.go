package middleware

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestJSONPointer: given a JSON body with one bad string, expect the
// rejection's field to be the RFC 6901 pointer of that string (keys with
// '~' and '/' escaped as ~0 and ~1, key escapes decoded, non-ASCII
// hex-escaped for the log), and the offset to point into the body.
func TestJSONPointer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body   string
		reason, ptr  string
		offset       int
		wantAccepted bool
	}{
		{name: "top-level string", body: `"\ud800"`, reason: "surrogate", ptr: "", offset: 1},
		{name: "array element", body: `["a","\ud800"]`, reason: "surrogate", ptr: "/1", offset: 6},
		{name: "nested", body: `{"a":{"b":[1,{"c":"\ud800"}]}}`, reason: "surrogate", ptr: "/a/b/1/c", offset: 19},
		{name: "after a closed container", body: `{"a":[1,{"x":2}],"b":"\udfff"}`, reason: "surrogate", ptr: "/b", offset: 22},
		{name: "tilde and slash", body: `{"a~b":{"c/d":"\ud800"}}`, reason: "surrogate", ptr: "/a~0b/c~1d", offset: 15},
		{name: "escaped slash in key", body: `{"a\/b":"\ud800"}`, reason: "surrogate", ptr: "/a~1b", offset: 9},
		{name: "escaped tilde in key", body: `{"\u007e":"\ud800"}`, reason: "surrogate", ptr: "/~0", offset: 11},
		{name: "escaped quote in key", body: `{"a\"b":"\ud800"}`, reason: "surrogate", ptr: `/a"b`, offset: 9},
		{name: "non-ASCII key", body: `{"\u00e9t\u00e9":"\ud800"}`, reason: "surrogate", ptr: `/\xc3\xa9t\xc3\xa9`, offset: 18},
		{name: "pair in key", body: `{"\ud83d\ude00":"\ud800"}`, reason: "surrogate", ptr: `/\xf0\x9f\x98\x80`, offset: 17},
		{name: "empty key", body: `{"":"\ud800"}`, reason: "surrogate", ptr: "/", offset: 5},
		{name: "structure inside strings", body: `{"x,{[":"]},\"","y":"\ud800"}`, reason: "surrogate", ptr: "/y", offset: 21},
		// A key at fault is named whole, as the body has it: cut at the
		// offending character, "/k" would name another member.
		{name: "bad key", body: `{"ok":1,"k\ud800":2}`, reason: "surrogate", ptr: `/k\x5cud800`, offset: 10},
		{name: "bad key nested", body: `{"a":[{"k\u0001":2}]}`, reason: "forbidden_char", ptr: `/a/0/k\x01`, offset: 9},
		{name: "bad key, a legitimate member's name before it", body: `{"role":1,"role\u202ex":1}`, reason: "forbidden_char",
			ptr: `/role\xe2\x80\xaex`, offset: 15},
		{name: "raw octets in value", body: `{"a":["x","` + "\xFF" + `"]}`, reason: "invalid_byte", ptr: "/a/1", offset: 11},
		{name: "raw octets in key", body: `{"a":{"k` + "\xC0\xAE" + `":1}}`, reason: "overlong", ptr: `/a/k\xc0\xae`, offset: 8},
		{name: "raw octets outside strings", body: `{"a":1` + "\xFF" + `}`, reason: "invalid_byte", ptr: "/a", offset: 6},
		{name: "earlier class violation wins", body: `{"a":"\u0000","b":"` + "\xFF" + `"}`, reason: "forbidden_char", ptr: "/a", offset: 6},
		{name: "earlier surrogate wins", body: `{"a":["\udc00"],"b":"` + "\xC0\xAE" + `"}`, reason: "surrogate", ptr: "/a/0", offset: 7},
		{name: "truncated pair at the end", body: `{"a":"\ud83d`, reason: "surrogate", ptr: "/a", offset: 6},
		{name: "pair across nothing", body: `{"a":"\ud83d\\ude00"}`, reason: "surrogate", ptr: "/a", offset: 6},
		{name: "escaped backslash before u", body: `{"a":"\\ud800"}`, wantAccepted: true},
		{name: "pairs everywhere", body: `{"\ud83d\ude00":["\ud83d\ude00",{"k":"\uD83D\uDE00"}]}`, wantAccepted: true},
		{name: "an escape JSON does not have", body: `{"a":"\uZZZZ"`, reason: "bad_escape", ptr: "/a", offset: 6},
		{name: "syntax error left to the decoder", body: `{"a":"x",}`, wantAccepted: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// given
			ev := newEnv(t, Config{Rules: ptr(rules.Strict())}, mountGlobal)
			// when
			w := ev.do(req(http.MethodPost, "/api/echo", ctJSON, strings.NewReader(tc.body)))
			// expect
			if tc.wantAccepted {
				if w.Code != 200 || string(ev.rec.seen().Body) != tc.body {
					t.Fatalf("status %d, log %v", w.Code, ev.logs.lines(t))
				}
				return
			}
			if w.Code != 400 || ev.rec.calls.Load() != 0 {
				t.Fatalf("status %d, handler calls %d", w.Code, ev.rec.calls.Load())
			}
			want := wantLog{reason: tc.reason, location: "json", field: tc.ptr, offset: tc.offset}
			l := checkOneLog(t, ev.logs, want, "enforce", "POST", rEcho)
			if l["field"] != tc.ptr { // checkOneLog skips an empty field
				t.Errorf("field = %q, want %q", l["field"], tc.ptr)
			}
		})
	}
}

// TestJSONDepth: nesting beyond the limit is too_large (400, with the
// pointer of the container that goes too deep); a negative limit is none.
func TestJSONDepth(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":[`, 300) + strings.Repeat(`]}`, 300) // depth 600
	cases := []struct {
		name   string
		depth  int
		body   string
		status int
	}{
		{"default 512 rejects 600", 0, deep, 400},
		{"limit 601 passes 600", 601, deep, 200},
		{"no limit", -1, deep, 200},
		{"limit 1", 1, `{"a":{}}`, 400},
		{"limit 1 flat", 1, `{"a":1,"b":"x"}`, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := rules.Strict()
			p.Limits.JSONDepth = tc.depth
			ev := newEnv(t, Config{Rules: &p}, mountGlobal)
			w := ev.do(req(http.MethodPost, "/api/echo", ctJSON, strings.NewReader(tc.body)))
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if tc.status == 400 {
				checkOneLog(t, ev.logs, wantLog{reason: "too_large", location: "json", offset: -1}, "enforce", "POST", rEcho)
			}
		})
	}
}

// TestJSONBind: after the middleware, c.Bind decodes the body it checked,
// with its content length right, whatever the size.
func TestJSONBind(t *testing.T) {
	t.Parallel()
	type doc struct {
		Name  string            `json:"name"`
		Tags  []string          `json:"tags"`
		Attrs map[string]string `json:"attrs"`
	}
	want := doc{Name: "Zoë 😀", Tags: []string{"été", "\u00e9", strings.Repeat("ж", 30000)}, Attrs: map[string]string{"k€y": "v"}}
	body, _ := json.Marshal(want)
	for _, m := range mounts {
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			e := echo.New()
			lb := &logBuf{}
			mw := WithConfig(Config{Rules: ptr(rules.Strict()), Logger: lb.logger()})
			var got doc
			var cl int64
			h := func(c echo.Context) error {
				cl = c.Request().ContentLength
				if err := c.Bind(&got); err != nil {
					return err
				}
				return c.NoContent(http.StatusNoContent)
			}
			switch m {
			case mountGlobal:
				e.Use(mw)
				e.POST("/d/:id", h)
			case mountGroup:
				e.Group("/d", mw).POST("/:id", h)
			case mountRoute:
				e.POST("/d/:id", h, mw)
			case mountPre:
				e.Pre(mw)
				e.POST("/d/:id", h)
			}
			w := httpDo(e, req(http.MethodPost, "/d/1", ctJSON, strings.NewReader(string(body))))
			if w.Code != http.StatusNoContent {
				t.Fatalf("status %d %s", w.Code, w.Body.String())
			}
			if got.Name != want.Name || len(got.Tags) != 3 || got.Tags[2] != want.Tags[2] || got.Attrs["k€y"] != "v" {
				t.Errorf("bound %+v", got)
			}
			if cl != int64(len(body)) {
				t.Errorf("ContentLength = %d, want %d", cl, len(body))
			}
		})
	}
}

// jsonCases: JSON bodies.
func jsonCases() []locCase {
	c := []locCase{
		{name: "clean", body: `{"q":"été","n":[1,2,{"k":"\u00e9"}]}`, status: 200},
		{name: "well-formed pair", body: `{"q":"\ud83d\ude00"}`, status: 200},
		{name: "well-formed pair upper", body: `{"q":"\uD83D\uDE00"}`, status: 200},
		{name: "lone high", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "lone low", body: `{"q":"\udc00"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high then text", body: `{"q":"\ud800x"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high then non-low escape", body: `{"q":"\ud800\u0041"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "high high", body: `{"q":"\ud800\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "low high", body: `{"q":"\ude00\ud83d"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "escaped nul", body: `{"q":"\u0000"}`, want: forb("json", "/q", 6, "nul")},
		{name: "escaped nul default", pol: deflt, body: `{"q":"\u0000"}`, want: forb("json", "/q", 6, "nul")},
		{name: "escaped bidi", body: `{"q":"\u202E"}`, want: forb("json", "/q", 6, "bidi_control")},
		{name: "escaped newline allowed", body: `{"q":"a\nb\tc"}`, status: 200},
		{name: "depth", pol: withLimits(func(l *rules.Limits) { l.JSONDepth = 3 }), body: `[[[[1]]]]`, want: rej("too_large", "json", "/0/0/0", 3)},
		{name: "depth at the limit", pol: withLimits(func(l *rules.Limits) { l.JSONDepth = 3 }), body: `[[[1]]]`, status: 200},
		{name: "body too_large", pol: withLimits(func(l *rules.Limits) { l.BodyBytes = 16 }), body: `{"q":"` + strings.Repeat("a", 20) + `"}`, status: 413, want: rej("too_large", "json", "", 0)},
		{name: "+json type", ct: "application/vnd.api+json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json type upper case", ct: "Application/Problem+JSON", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "dotted capital I in the type", ct: "applİcation/json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json under another type", ct: "model/gltf+json", body: `{"q":"\ud800"}`, want: rej("surrogate", "json", "/q", 6)},
		{name: "+json without a subtype", ct: "AppliCAtion+json", body: "{\"q\":\"\xF0\"}", want: rej("truncated", "json", "/q", 6)},
		{name: "charset latin1 strict", ct: ctJSON + "; charset=latin1", body: `{"q":"\xE9"}`, want: rej("bad_charset", "json", "latin1", 0)},
		// encoding/json and Echo's binder ignore the charset parameter.
		{name: "charset latin1 default is read as UTF-8", pol: deflt, ct: ctJSON + "; charset=latin1", body: "{\"q\":\"\xE9\"}", want: rej("truncated", "json", "/q", 6)},
	}
	for _, e := range encodingCases {
		c = append(c, locCase{name: e.reason, body: `{"q":"ab` + e.raw + `"}`, want: rej(e.reason, "json", "/q", 8)})
	}
	for _, f := range bodyForbidden {
		c = append(c, locCase{name: "forbidden " + f.class, body: `{"q":"` + f.raw + `"}`, want: forb("json", "/q", 6, f.class)})
	}
	for i := range c {
		c[i].route, c[i].target = rEcho, "/api/echo"
		if c[i].ct == "" {
			c[i].ct = ctJSON
		}
	}
	return c
}

// TestRepairBind: c.Bind after a JSON repair binds the repaired values.
func TestRepairBind(t *testing.T) {
	t.Parallel()
	pol := repairing()
	e := echo.New()
	lb := &logBuf{}
	e.Use(WithConfig(Config{Rules: &pol, Logger: lb.logger()}))
	var got struct{ Q string }
	e.POST("/x", func(c echo.Context) error {
		if err := c.Bind(&got); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	})
	w := httpDo(e, req(http.MethodPost, "/x", ctJSON, strings.NewReader(`{"q":"\udc00x"}`)))
	if w.Code != http.StatusNoContent || got.Q != fffd+"x" {
		t.Fatalf("status %d, Q %q", w.Code, got.Q)
	}
}

// jsonSamples are bodies for the comparison of checkJSONText, with its fast
// path, with the scanner alone: clean ones the fast path takes, and ones it
// must leave to the scanner.
var jsonSamples = []string{
	`{}`, `[]`, `""`, `{"a":1}`, `{"name":"Zoë","tags":["café","日本語","😀"]}`,
	"{\n\t\"a\": \"b\",\n\t\"c\": [1, 2]\n}", // TAB and LF between members
	"{\"a\":\"x\ty\"}",                       // a raw TAB in a string
	"{\"a\":\"\x00\"}", "{\"a\x01\":1}", "{\"a\":\"\u0085\"}", "{\"a\":\"\u202e\"}",
	"{\"a\":\"\u200b\"}", "{\"a\":\"\ufeff\"}", "{\"a\":\"x\ufeff\"}", "\ufeff{\"a\":1}",
	"{\"a\":\"\ue000\"}", "{\"a\":\"\ufdd0\"}", "{\"a\":\"\x7f\"}",
	`{"a":"\u0000"}`, `{"a":"\ud800"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\\"}`, `{"a":"\""}`,
	`[[[[[[[[[[1]]]]]]]]]]`, `{"a":"[[[[[[[[[["}`, `{"a":"]]]]]]]]]]","b":[[[[[[1]]]]]]}`,
	"{\"a\":\"\xff\"}", "{\"a\":\"\xc0\xae\"}", "{\"a\":\"\xed\xa0\x80\"}", `{"a":`,
	`{"a":"` + strings.Repeat("Привет мир, 你好世界. ", 40) + `"}`,
	`{"a":"` + strings.Repeat("x", 100) + "\x01" + `"}`,
	`[` + strings.Repeat(`{"k":"v"},`, 30) + `{}]`,
}

// TestJSONFastPath checks that checkJSONText, which skips the scanner when a
// few SIMD passes show the body clean, answers exactly as the scanner
// does: the same body, the same rejection (reason, offset, class, field),
// for every sample, mutations of them, every set of classes of the
// presets and others, depth limits around the nesting, with and without
// repair.
func TestJSONFastPath(t *testing.T) {
	t.Parallel()
	forbids := []sanitize.Class{
		0, sanitize.NUL, sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.Bidi,
		sanitize.NUL | sanitize.C0 | sanitize.TabNewline | sanitize.C1 | sanitize.Bidi | sanitize.BOM,
		sanitize.BOM, sanitize.DefaultIgnorable, sanitize.AllClasses,
		sanitize.PrivateUse | sanitize.Noncharacter | sanitize.DEL,
	}
	bodies := append([]string(nil), jsonSamples...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		b := []byte(jsonSamples[rng.IntN(len(jsonSamples))])
		for range 1 + rng.IntN(3) {
			if len(b) == 0 {
				break
			}
			const octets = "\\\"{}[]\x00\t\x01\x7f\xc2\x85\xe2\x80\xae\xef\xbb\xbfa"
			b[rng.IntN(len(b))] = octets[rng.IntN(len(octets))]
		}
		bodies = append(bodies, string(b))
	}
	fast := 0
	for _, body := range bodies {
		for _, forbid := range forbids {
			for _, depth := range []int{-1, 0, 1, 5, 10, 64} {
				for _, repair := range []bool{false, true} {
					c := &rules.Check{On: true, Forbid: forbid, Repair: repair}
					gotBody, gotRj := checkJSONText([]byte(body), c, depth)
					wantBody, wantRj := scanJSON([]byte(body), c, depth)
					if jsonClean([]byte(body), forbid, depth) {
						fast++
					}
					if string(gotBody) != string(wantBody) || describe(gotRj) != describe(wantRj) {
						t.Fatalf("%+q forbid %v depth %d repair %v:\n got %q %s\nwant %q %s",
							body, forbid, depth, repair, gotBody, describe(gotRj), wantBody, describe(wantRj))
					}
				}
			}
		}
	}
	t.Logf("%d bodies x %d class sets x 6 depths x 2: %d took the fast path", len(bodies), len(forbids), fast)
	if fast == 0 {
		t.Error("the fast path was never taken")
	}
}
