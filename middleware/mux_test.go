package middleware

import (
	"net/http"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
)

// TestMuxKeysHoldAsCheckMuxRoutesMeetsThem: the net/http adapter applies a
// key with a method to that method of a pattern without one (chi's
// patterns carry no method), a key without a method to every method of a
// pattern with one (a ServeMux's), and the most specific key first.
func TestMuxKeysHoldAsCheckMuxRoutesMeetsThem(t *testing.T) {
	t.Parallel()
	srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{
		Rules: rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{
			"GET /users/{id}": rules.Unchecked(),
			"/users/{id}":     rules.Strict().AsMonitor(),
			"/notes/{id}":     rules.Unchecked(),
		}},
	}}, &recorder{})
	lb := srv.logs
	for _, tc := range []struct {
		method, pattern string
		status, lines   int
	}{
		{"GET", "/users/{id}", 200, 0},       // chi: GET's own key, unchecked
		{"HEAD", "/users/{id}", 200, 0},      // GET's key holds for HEAD, as on a ServeMux
		{"POST", "/users/{id}", 200, 1},      // every method's key: monitored
		{"GET", "GET /users/{id}", 200, 0},   // a ServeMux pattern, as registered
		{"POST", "POST /notes/{id}", 200, 0}, // a key for every method of it
		{"POST", "POST /other/{id}", 400, 1}, // no key: the default refuses
	} {
		lb.reset()
		r := req(tc.method, "/x/%C0%AE", "", nil)
		r.Pattern = tc.pattern // as the router sets it
		w := srv.do(r)
		if w.Code != tc.status || len(lb.lines(t)) != tc.lines {
			t.Errorf("%s %q: status %d, log %v; want %d and %d lines", tc.method, tc.pattern, w.Code, lb.lines(t), tc.status, tc.lines)
		}
	}
}

// TestHTTPRequestIDFromTheConfiguredFunc: with HTTPConfig.RequestID the log
// line's request_id is the server's own; without it, the client's
// X-Request-Id, marked as the client's.
func TestHTTPRequestIDFromTheConfiguredFunc(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		requestID  func(*http.Request) string
		wantID     any
		wantClient any
	}{
		{"configured", func(r *http.Request) string { return "srv-" + r.Method }, "srv-GET", nil},
		{"configured, empty", func(*http.Request) string { return "" }, "", nil},
		{"the client's header", nil, "client-1", true},
	} {
		srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: rules.Strict(), RequestID: tc.requestID}}, &recorder{})
		lb := srv.logs
		r := req("GET", "/x/%C0%AE", "", nil)
		r.Header.Set("X-Request-Id", "client-1")
		if w := srv.do(r); w.Code != 400 {
			t.Fatalf("%s: status %d", tc.name, w.Code)
		}
		l := lb.lines(t)
		if len(l) != 1 || l[0]["request_id"] != tc.wantID || l[0]["request_id_client"] != tc.wantClient {
			t.Errorf("%s: log %v; want request_id %v, request_id_client %v", tc.name, l, tc.wantID, tc.wantClient)
		}
	}
}
