package middleware

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/utf8guard/utf8guard/middleware/internal/jsonbody/jsoncases"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestJSONCanonicalLimit: a JSON body whose canonical form (NFKC, or a
// PRECIS profile built on it) is over the body limit is refused as
// too_large with an empty field (413), as the same body sent canonical
// would have been; one whose canonical form fits passes, rewritten. U+FDFA
// is 3 octets and 33 in NFKC.
func TestJSONCanonicalLimit(t *testing.T) {
	t.Parallel()
	const limit = 1000
	fdfa := func(n int) string { return `{"a":"` + strings.Repeat("\uFDFA", n) + `","b":"x"}` }
	limited := func(edits ...func(p *rules.Policy)) rules.Policy {
		return canonPolicy(normalize.NFKC, append([]func(p *rules.Policy){func(p *rules.Policy) { p.Limits.BodyBytes = limit }}, edits...)...)
	}
	precis := func(p *rules.Policy) {
		p.Normalization = normalize.None
		p.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/a", Profile: normalize.Nickname}}
	}
	cases := []struct {
		name string
		pol  rules.Policy
		body string
		want int // status
		log  bool
	}{
		{"nfkc over", limited(), fdfa(40), http.StatusRequestEntityTooLarge, true}, // 133 octets, 1333 in NFKC
		{"nfkc fits", limited(), fdfa(25), http.StatusOK, false},                   // 88 octets, 838 in NFKC
		{"nfkc escaped over", limited(), `{"a":"` + strings.Repeat(`\ufdfa`, 40) + `"}`, http.StatusRequestEntityTooLarge, true},
		{"precis over", limited(precis), fdfa(40), http.StatusRequestEntityTooLarge, true},
		{"precis fits", limited(precis), fdfa(25), http.StatusOK, false},
		{"monitor flags", limited(canonMonitoring), fdfa(40), http.StatusOK, true},
		{"no limit", limited(func(p *rules.Policy) { p.Limits.BodyBytes = -1 }), fdfa(400), http.StatusOK, false},
		// 900,000 octets under the default 1 MiB, 9.9 MB in NFKC.
		{"default limit", canonPolicy(normalize.NFKC), `{"a":"` + strings.Repeat("\uFDFA", 300000) + `"}`, http.StatusRequestEntityTooLarge, true},
	}
	for _, mnt := range allMounts {
		for _, tc := range cases {
			t.Run(mnt.String()+"/"+tc.name, func(t *testing.T) {
				ev := newServer(t, canonSetup(tc.pol, mnt), &canonRec{})
				w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, tc.body))
				if w.Code != tc.want {
					t.Fatalf("status %d, want %d; log %v", w.Code, tc.want, ev.logs.lines(t))
				}
				s := ev.rec.get()
				if (s != nil) != (tc.want == http.StatusOK) {
					t.Fatalf("handler ran: %v", s != nil)
				}
				if !tc.log {
					if l := ev.logs.lines(t); len(l) != 0 {
						t.Fatalf("log lines: %v", l)
					}
					if !strings.Contains(string(s.Body), "صلى") {
						t.Errorf("body not rewritten: %.60q", s.Body)
					}
					canonCheckBodyLen(t, s)
					return
				}
				mode := "enforce"
				if tc.pol.Mode == rules.Monitor {
					mode = "monitor"
					if string(s.Body) != tc.body {
						t.Error("monitor changed the body")
					}
				}
				l := checkOneLog(t, ev.logs, wantLog{reason: "too_large", location: "json", offset: -1}, mode, "POST", "")
				if l["field"] != "" {
					t.Errorf("field = %q, want empty", l["field"])
				}
			})
		}
	}
}

// TestJSONDuplicateKeys: under RefuseDuplicateKeys (the strict preset) an
// object with two members of one name, after unescaping and without regard
// to case as strings.EqualFold (what encoding/json and c.Bind match struct
// fields by), is refused with duplicate_key, the pointer of the second
// member and the offset of its name; on both adapters and every mount.
func TestJSONDuplicateKeys(t *testing.T) {
	t.Parallel()
	runMemberCases(t, rules.Strict(), jsoncases.Duplicates())
}

// TestJSONDuplicateKeysAllowed: without RefuseDuplicateKeys, and on a route
// that does not normalize, duplicate names pass unchanged.
func TestJSONDuplicateKeysAllowed(t *testing.T) {
	t.Parallel()
	var cases []jsoncases.Member
	for _, c := range jsoncases.Duplicates() {
		cases = append(cases, jsoncases.Member{Name: c.Name, Body: c.Body})
	}
	p := rules.Strict()
	p.RefuseDuplicateKeys = false
	runMemberCases(t, p, cases)
	runMemberCases(t, rules.Default(), cases)
}

// runMemberCases serves each case under pol on every mount of both
// adapters.
func runMemberCases(t *testing.T, pol rules.Policy, cases []jsoncases.Member) {
	t.Helper()
	for _, mnt := range allMounts {
		ev := newServer(t, canonSetup(pol, mnt), &canonRec{})
		for _, c := range cases {
			t.Run(mnt.String()+"/"+c.Name, func(t *testing.T) {
				ev.logs.reset()
				w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, c.Body))
				s := ev.rec.get()
				wantStatus := http.StatusOK
				if c.Reason != "" && pol.Mode == rules.Enforce {
					wantStatus = http.StatusBadRequest
				}
				if w.Code != wantStatus {
					t.Fatalf("status %d, want %d; log %v", w.Code, wantStatus, ev.logs.lines(t))
				}
				rewrites := pol.Normalization != normalize.None && pol.Mode == rules.Enforce && !pol.RejectUnnormalized
				if wantStatus == http.StatusOK {
					if s == nil {
						t.Fatal("handler did not run")
					}
					if string(s.Body) != c.Body && !(rewrites && !jsoncases.IsNormal(pol.Normalization, c.Body)) {
						t.Fatalf("handler saw %q, want the body unchanged", s.Body)
					}
				} else if s != nil {
					t.Fatal("handler ran for a refused body")
				}
				if c.Reason == "" {
					if l := ev.logs.lines(t); len(l) != 0 {
						t.Fatalf("log lines: %v", l)
					}
					return
				}
				mode := "enforce"
				if pol.Mode == rules.Monitor {
					mode = "monitor"
				}
				l := checkOneLog(t, ev.logs, wantLog{reason: c.Reason, location: "json", field: c.Field, offset: c.Offset}, mode, "POST", "")
				if l["field"] != c.Field { // checkOneLog skips an empty field
					t.Errorf("field = %q, want %q", l["field"], c.Field)
				}
			})
		}
	}
}

// TestJSONKeyCollision: on a route that normalizes, two distinct names of
// one object that the canonical form (folded as encoding/json matches
// names) makes one are refused with key_collision, whether or not
// RefuseDuplicateKeys is set, in RejectUnnormalized mode, and flagged in
// Monitor mode.
func TestJSONKeyCollision(t *testing.T) {
	t.Parallel()
	for _, form := range canonForms {
		t.Run(form.Name()+"/strict", func(t *testing.T) {
			t.Parallel()
			runMemberCases(t, canonPolicy(form), jsoncases.Collisions(form, true))
		})
		t.Run(form.Name()+"/default", func(t *testing.T) {
			t.Parallel()
			p := rules.Default()
			p.Normalization = form
			runMemberCases(t, p, jsoncases.Collisions(form, false))
		})
		t.Run(form.Name()+"/reject unnormalized", func(t *testing.T) {
			t.Parallel()
			var cases []jsoncases.Member
			for _, c := range jsoncases.Collisions(form, true) {
				if c.Reason != "" || jsoncases.IsNormal(form, c.Body) {
					cases = append(cases, c)
				}
			}
			runMemberCases(t, canonPolicy(form, canonRejecting), cases)
		})
		t.Run(form.Name()+"/monitor", func(t *testing.T) {
			t.Parallel()
			var cases []jsoncases.Member
			for _, c := range jsoncases.Collisions(form, true) {
				if c.Reason != "" {
					cases = append(cases, c)
				}
			}
			runMemberCases(t, canonPolicy(form, canonMonitoring), cases)
		})
	}
}

// TestJSONMembersBind: what the check protects, seen from the handler:
// without RefuseDuplicateKeys c.Bind takes the last of two case variants,
// so a check that read the first was bypassed; with it the body is
// refused. And a normalizing route rewrites "e\u0301" to the "é" beside
// it, which would hand c.Bind the later value: refused.
func TestJSONMembersBind(t *testing.T) {
	t.Parallel()
	body := `{"q":"safe","Q":"evil"}`
	lax := rules.Strict()
	lax.RefuseDuplicateKeys = false
	ev := newServer(t, canonSetup(lax, mountGlobal), &canonRec{})
	if w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, body)); w.Code != 200 {
		t.Fatalf("lax: status %d", w.Code)
	}
	if s := ev.rec.get(); s.Doc.Q != "evil" {
		t.Fatalf("c.Bind took %q: the test no longer shows what it should", s.Doc.Q)
	}
	for _, tc := range []struct {
		pol  rules.Policy
		body string
	}{{rules.Strict(), body}, {canonPolicy(normalize.NFC), `{"q":"safe","q\u0301":"x","\u00e9":"safe","e\u0301":"evil"}`}} {
		ev := newServer(t, canonSetup(tc.pol, mountGlobal), &canonRec{})
		if w := ev.do(canonReq(http.MethodPost, "/api/echo", ctJSON, tc.body)); w.Code != 400 {
			t.Errorf("%s: status %d, want 400", tc.body, w.Code)
		}
	}
}

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
			ev := newServer(t, recSetup(Config{Rules: ptr(rules.Strict())}, mountGlobal), &recorder{})
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
			ev := newServer(t, recSetup(Config{Rules: &p}, mountGlobal), &recorder{})
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
			var got doc
			var cl int64
			srv := newServer(t, setup{mount: m, echo: Config{Rules: ptr(rules.Strict())}, routes: []string{"/d/:id"}, methods: []string{http.MethodPost}, group: "/d"},
				onEcho(func(c echo.Context) error {
					cl = c.Request().ContentLength
					if err := c.Bind(&got); err != nil {
						return err
					}
					return c.NoContent(http.StatusNoContent)
				}))
			w := srv.do(req(http.MethodPost, "/d/1", ctJSON, strings.NewReader(string(body))))
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
	var got struct{ Q string }
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &pol}, routes: []string{"/x"}, methods: []string{http.MethodPost}},
		onEcho(func(c echo.Context) error {
			if err := c.Bind(&got); err != nil {
				return err
			}
			return c.NoContent(http.StatusNoContent)
		}))
	w := srv.do(req(http.MethodPost, "/x", ctJSON, strings.NewReader(`{"q":"\udc00x"}`)))
	if w.Code != http.StatusNoContent || got.Q != fffd+"x" {
		t.Fatalf("status %d, Q %q", w.Code, got.Q)
	}
}
