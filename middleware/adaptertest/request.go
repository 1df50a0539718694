package adaptertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// policies returns the row's policies, keyed by tg's templates.
func (rw row) policies(tg Target) *rules.Table {
	t := &rules.Table{Default: checked()}
	if rw.table != nil {
		t = rw.table()
	}
	if len(t.Routes) == 0 {
		return t
	}
	out := &rules.Table{Default: t.Default, Routes: make(map[string]rules.Policy, len(t.Routes))}
	for route, p := range t.Routes {
		out.Routes[tg.template(route)] = p
	}
	return out
}

// request builds the row's request, as a server would have parsed it.
func (rw row) request() *http.Request {
	method := rw.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if rw.body != "" || method != http.MethodGet {
		body = strings.NewReader(rw.body)
	}
	if rw.bodyErr {
		body = io.MultiReader(strings.NewReader(rw.body), errReader{})
	}
	r := httptest.NewRequest(method, rw.target, body)
	if rw.bodyErr {
		r.ContentLength = int64(len(rw.body)) + 10
	}
	if rw.ct != "" {
		r.Header.Set("Content-Type", rw.ct)
	}
	if !rw.noRequestID {
		r.Header.Set("X-Request-Id", requestID)
	}
	for _, h := range rw.header {
		name, value, _ := strings.Cut(h, ": ")
		r.Header.Add(name, value)
	}
	if rw.declared || rw.frames {
		r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	}
	if rw.trailer != nil {
		if !rw.declared {
			r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
		}
		r.Trailer = http.Header{}
		for _, h := range rw.trailer {
			name, value, _ := strings.Cut(h, ":")
			r.Trailer[http.CanonicalHeaderKey(name)] = nil
			if value != "" {
				r.Trailer[http.CanonicalHeaderKey(name)] = []string{strings.TrimPrefix(value, " ")}
			}
		}
	}
	if rw.parsedFirst {
		_ = r.ParseForm() // its error is the middleware's to find
	}
	return r
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

// routeOf returns the kit's pattern of the route a request-target's path
// falls under.
func routeOf(target string) string {
	path, _, _ := strings.Cut(target, "?")
	if i := strings.Index(path, "://"); i >= 0 { // absolute form
		rest := path[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			path = rest[j:]
		}
	}
	for _, p := range patterns {
		prefix, _, _ := strings.Cut(p, "{")
		if path == p || prefix != p && strings.HasPrefix(path, prefix) {
			return p
		}
	}
	return ""
}

// needs returns the capabilities the row needs of a target.
func (rw row) needs() []Capability {
	var c []Capability
	if rw.needsAlso != 0 {
		c = append(c, rw.needsAlso)
	}
	if len(paramNames(routeOf(rw.target))) > 0 {
		c = append(c, PathParams)
	}
	if rw.rej != nil && rw.rej.location == "path" {
		c = append(c, WholePath)
		if f := rw.rej.field; f != "" && f != "host" && f != "userinfo" {
			c = append(c, ParamsChecked)
		}
	}
	return c
}

// diffFor returns the row's difference for tg, if any.
func (rw row) diffFor(tg Target) *diff {
	for i := range rw.diffs {
		if tg.differs(rw.diffs[i].when) {
			return &rw.diffs[i]
		}
	}
	return nil
}
