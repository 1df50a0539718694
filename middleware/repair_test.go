package middleware

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestRepair: given a policy that repairs, when a request holds ill-formed
// UTF-8, expect the handler to see U+FFFD in its place (maximal subparts),
// and no log line; forbidden characters and limits are still rejected.
func TestRepair(t *testing.T) {
	t.Parallel()
	type tc struct {
		name             string
		target, ct, body string
		want             wantLog // rejection
		check            func(t *testing.T, s *seen)
		limitFieldBytes  int
	}
	cases := []tc{
		{name: "path", target: "/api/files/a%C0%AEb", check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/a"+fffd+fffd+"b" {
				t.Errorf("Path = %q", s.Path)
			}
			if s.Params["*"] != "a"+fffd+fffd+"b" {
				t.Errorf("param * = %q", s.Params["*"])
			}
		}},
		{name: "path param lowercase", target: "/api/users/%c0%ae", check: func(t *testing.T, s *seen) {
			if s.Params["id"] != fffd+fffd {
				t.Errorf("param id = %q", s.Params["id"])
			}
		}},
		{name: "path raw octets", target: "/api/users/x\xED\xA0\x80y", check: func(t *testing.T, s *seen) {
			if s.Params["id"] != "x"+fffd+fffd+fffd+"y" {
				t.Errorf("param id = %q", s.Params["id"])
			}
			if s.Path != "/api/users/x"+fffd+fffd+fffd+"y" {
				t.Errorf("Path = %q", s.Path)
			}
		}},
		{name: "path encoded slash kept", target: "/api/files/a%2Fb%FF", check: func(t *testing.T, s *seen) {
			if s.Path != "/api/files/a/b"+fffd {
				t.Errorf("Path = %q", s.Path)
			}
			if !strings.Contains(s.RawPath, "a%2Fb") {
				t.Errorf("RawPath = %q: the encoded slash must stay encoded", s.RawPath)
			}
		}},
		{name: "path repair exposes nul", target: "/api/files/%C0%AE%00", want: forb("path", "", 17, "nul")},
		{name: "path repair keeps double encoding refused", target: "/api/files/%C0%252e", want: rej("double_encoding", "path", "", 14)},
		{name: "query", target: "/api/echo?a=1&q=x%C0%AEy&k%FF=v", check: func(t *testing.T, s *seen) {
			if s.Query.Get("q") != "x"+fffd+fffd+"y" || s.Query.Get("k"+fffd) != "v" || s.Query.Get("a") != "1" {
				t.Errorf("query = %q (raw %q)", s.Query, s.RawQuery)
			}
		}},
		{name: "query raw octets", target: "/api/echo?q=\xC0\xAE", check: func(t *testing.T, s *seen) {
			if s.Query.Get("q") != fffd+fffd {
				t.Errorf("query = %q", s.Query)
			}
		}},
		{name: "query bad escape still rejected", target: "/api/echo?q=%C0%zz", want: rej("bad_escape", "query", "q", 3)},
		{name: "query nul still rejected", target: "/api/echo?q=%C0%00", want: forb("query", "q", 3, "nul")},
		{name: "query field length still holds", target: "/api/echo?q=%C0%C0%C0%C0%C0%C0%C0%C0%C0", limitFieldBytes: 8, want: rej("too_large", "query", "q", -1)},
		{name: "form", target: "/api/echo", ct: ctForm, body: "a=1&q=x%C0%AEy", check: func(t *testing.T, s *seen) {
			v, err := url.ParseQuery(string(s.Body))
			if err != nil || v.Get("q") != "x"+fffd+fffd+"y" || v.Get("a") != "1" {
				t.Errorf("form body = %q", s.Body)
			}
			if s.ContentLength != int64(len(s.Body)) {
				t.Errorf("ContentLength = %d, body %d", s.ContentLength, len(s.Body))
			}
		}},
		{name: "form field length still holds", target: "/api/echo", ct: ctForm, body: "q=%C0%C0%C0%C0%C0%C0%C0%C0%C0", limitFieldBytes: 8, want: rej("too_large", "form", "q", -1)},
		{name: "text body", target: "/api/echo", ct: ctText, body: "a\xC0\xAEb\xE2\x82", check: func(t *testing.T, s *seen) {
			if string(s.Body) != "a"+fffd+fffd+"b"+fffd {
				t.Errorf("body = %q", s.Body)
			}
			if s.ContentLength != int64(len(s.Body)) {
				t.Errorf("ContentLength = %d, body %d", s.ContentLength, len(s.Body))
			}
		}},
		{name: "text body nul still rejected", target: "/api/echo", ct: ctText, body: "a\xC0\x00", want: forb("body", "", 4, "nul")},
		{name: "json", target: "/api/echo", ct: ctJSON, body: `{"q":"a` + "\xC0\xAE" + `","s":"\ud800","p":"\ud83d\ude00"}`, check: func(t *testing.T, s *seen) {
			var v map[string]string
			if err := json.Unmarshal(s.Body, &v); err != nil {
				t.Fatalf("body %q: %v", s.Body, err)
			}
			if v["q"] != "a"+fffd+fffd || v["s"] != fffd || v["p"] != "😀" {
				t.Errorf("json = %q (body %q)", v, s.Body)
			}
			if !strings.Contains(string(s.Body), `\uFFFD`) {
				t.Errorf("lone surrogate escape not rewritten: %q", s.Body)
			}
		}},
		{name: "json nul still rejected", target: "/api/echo", ct: ctJSON, body: `{"q":"\ud800\u0000"}`, want: forb("json", "/q", 12, "nul")},
		{name: "multipart never repaired", target: "/api/echo", ct: ctMP, body: multipartBody(mpPart{disp: `name="q"`, data: "\xC0\xAE"}), want: rej("overlong", "multipart", "q", 0)},
	}
	for _, m := range mounts {
		for _, c := range cases {
			t.Run(m.String()+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				// given
				pol := repairing()
				if c.limitFieldBytes != 0 {
					pol.Limits.FieldBytes = c.limitFieldBytes
				}
				ev := newEnv(t, Config{Rules: &pol}, m)
				var r *http.Request
				if c.body != "" {
					r = req(http.MethodPost, c.target, c.ct, strings.NewReader(c.body))
				} else {
					r = req(http.MethodGet, c.target, "", nil)
				}
				// when
				w := ev.do(r)
				// expect
				if c.want.reason != "" {
					if w.Code != http.StatusBadRequest || ev.rec.calls.Load() != 0 {
						t.Fatalf("status %d, handler calls %d: want 400 and none", w.Code, ev.rec.calls.Load())
					}
					checkOneLog(t, ev.logs, c.want, "enforce", "", "")
					return
				}
				if w.Code != http.StatusOK {
					t.Fatalf("status = %d, body %q, log %v", w.Code, w.Body.String(), ev.logs.lines(t))
				}
				if l := ev.logs.lines(t); len(l) != 0 {
					t.Errorf("a repaired request is logged: %v", l)
				}
				c.check(t, ev.rec.seen())
			})
		}
	}
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
