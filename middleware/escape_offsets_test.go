package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// The offsets of bad_escape and double_encoding count octets of the
// decoded value, as every other reason's do (DESIGN.md: "into the decoded
// value of the field"), while the sample shows the escaped text around
// the offending escape, as the client sent it. The escapes before the
// offending one decode to characters of two, three and four octets, so
// that an offset into the raw text (three octets an escape) would differ.

// escOffsetCase is a request refused for bad_escape or double_encoding:
// where, at which offset into the decoded value, with which sample.
type escOffsetCase struct {
	name   string
	pol    func(p *rules.Policy) // applied to rules.Strict(); nil: Strict as it is
	target string
	body   string // a form body when not empty
	want   wantLog
	sample string // the log line's sample, hex-escaped
}

func refuseDouble(p *rules.Policy) {
	p.Query.RefuseDoubleEncoding = true
	p.Form.RefuseDoubleEncoding = true
}

var escOffsetCases = []escOffsetCase{
	// The path: a bad escape never reaches the middleware (net/url refuses
	// to parse the request), so double encoding only; Strict refuses it.
	// Upper-case escapes: Go leaves RawPath empty, checkDecodedPath.
	{name: "path double after e-acute", target: "/api/files/%C3%A9%252e",
		want: rej("double_encoding", "path", "", 13), sample: "s/%C3%A9%252e"},
	// Lower-case escapes: Go keeps RawPath, checkEscapedPath.
	{name: "path double of escapes after e-acute, raw path", target: "/api/files/%c3%a9%25%32%65",
		want: rej("double_encoding", "path", "", 13), sample: "s/%c3%a9%25%32%6"},
	{name: "path double after euro and emoji", target: "/api/files/%E2%82%AC/%F0%9F%98%80/%252F",
		want: rej("double_encoding", "path", "", 20), sample: "F%98%80/%252F"},
	{name: "path double after escaped ASCII, raw path", target: "/api/files/%41%41/%252F",
		want: rej("double_encoding", "path", "", 14), sample: "/%41%41/%252F"},

	// Query values and keys.
	{name: "query value bad", target: "/api/echo?q=%C3%A9%E2%82%AC%zz",
		want: rej("bad_escape", "query", "q", 5), sample: "E2%82%AC%zz"},
	{name: "query value bad after escaped ASCII", target: "/api/echo?q=%41%41%zz",
		want: rej("bad_escape", "query", "q", 2), sample: "%41%41%zz"},
	{name: "query value truncated escape", target: "/api/echo?a=1&q=%41%41%4",
		want: rej("bad_escape", "query", "q", 2), sample: "%41%41%4"},
	{name: "query key bad", target: "/api/echo?%C3%A9k%zz=1",
		want: rej("bad_escape", "query", "%C3%A9k%zz", 3), sample: "%C3%A9k%zz"},
	{name: "query value double", pol: refuseDouble, target: "/api/echo?q=caf%C3%A9%252e",
		want: rej("double_encoding", "query", "q", 5), sample: "af%C3%A9%252e"},
	{name: "query key double", pol: refuseDouble, target: "/api/echo?%E2%82%AC%25%32%65=1",
		want: rej("double_encoding", "query", "%E2%82%AC%25%32%65", 3), sample: "E2%82%AC%25%32%6"},

	// Form values and keys.
	{name: "form value bad", target: "/api/echo", body: "a=1&q=%F0%9F%98%80+%4",
		want: rej("bad_escape", "form", "q", 5), sample: "F%98%80+%4"},
	{name: "form key bad", target: "/api/echo", body: "%C3%A9%=1",
		want: rej("bad_escape", "form", "%C3%A9%", 2), sample: "%C3%A9%"},
	{name: "form value double", pol: refuseDouble, target: "/api/echo", body: "q=%C3%A9%C3%A9%2541",
		want: rej("double_encoding", "form", "q", 4), sample: "A9%C3%A9%2541"},
	{name: "form key double", pol: refuseDouble, target: "/api/echo", body: "%C3%A9%252e=v",
		want: rej("double_encoding", "form", "%C3%A9%252e", 2), sample: "%C3%A9%252e"},
}

// TestEscapeOffsets runs escOffsetCases through the Echo middleware on
// every mount.
func TestEscapeOffsets(t *testing.T) {
	t.Parallel()
	for _, m := range mounts {
		for _, tc := range escOffsetCases {
			t.Run(m.String()+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				pol := rules.Strict()
				if tc.pol != nil {
					tc.pol(&pol)
				}
				ev := newServer(t, recSetup(Config{Rules: &pol}, m), &recorder{})
				r := req(http.MethodGet, tc.target, "", nil)
				if tc.body != "" {
					r = req(http.MethodPost, tc.target, ctForm, strings.NewReader(tc.body))
				}
				w := ev.do(r)
				if w.Code != http.StatusBadRequest {
					t.Fatalf("status = %d, want 400; log %v", w.Code, ev.logs.lines(t))
				}
				if n := ev.rec.calls.Load(); n != 0 {
					t.Errorf("handler ran %d times on a rejection", n)
				}
				l := checkOneLog(t, ev.logs, tc.want, "enforce", r.Method, "")
				if s, _ := l["sample"].(string); s != tc.sample {
					t.Errorf("sample = %q, want %q", s, tc.sample)
				}
			})
		}
	}
}

// TestEscapedPathOffsets calls checkEscapedPath on escaped paths that
// net/url would not parse (a bad escape) as well as ones it would: the
// offset counts decoded octets, the sample is the escaped path's.
func TestEscapedPathOffsets(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(rules.Strict())
	for _, tc := range []struct {
		raw    string
		reason sanitize.Reason
		off    int
		sample string
	}{
		{"/a/%zz", sanitize.BadEscape, 3, "/a/%zz"},
		{"/a/%C3%A9%zz", sanitize.BadEscape, 5, "a/%C3%A9%zz"},
		{"/strict/x/%E2%82%AC%4", sanitize.BadEscape, 13, "E2%82%AC%4"},
		{"/strict/%41%41/%252F", sanitize.DoubleEncoding, 11, "/%41%41/%252F"},
		{"/strict/%41%41/%25%32%46", sanitize.DoubleEncoding, 11, "/%41%41/%25%32%4"},
		{"/%F0%9F%98%80/%2541", sanitize.DoubleEncoding, 6, "F%98%80/%2541"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		s := getScratch()
		rj, repaired := s.checkEscapedPath(r, tc.raw, p)
		putScratch(s)
		if rj == nil || repaired || rj.Reason != tc.reason || rj.Offset != tc.off || rj.Sample != tc.sample {
			t.Errorf("checkEscapedPath(%q) = %+v, %v; want %v at %d, sample %q", tc.raw, rj, repaired, tc.reason, tc.off, tc.sample)
			continue
		}
		if e, ok := rj.Err.(*sanitize.Error); !ok || e.Offset != rj.Offset {
			t.Errorf("checkEscapedPath(%q): Err %v, its offset not the Rejection's %d", tc.raw, rj.Err, rj.Offset)
		}
	}
}
