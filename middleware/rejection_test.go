package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestRejectionFieldStable: a Rejection kept by OnReject must not change
// when later requests reuse the middleware's pooled buffers.
func TestRejectionFieldStable(t *testing.T) {
	t.Parallel()
	var kept []*Rejection
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: ptr(rules.Strict()), OnReject: func(c echo.Context, rj *Rejection) {
		kept = append(kept, rj)
	}}, routes: []string{"/x"}, methods: []string{http.MethodGet, http.MethodPost}}, &recorder{})
	srv.do(req("GET", "/x?k%41y=%FF", "", nil))
	srv.do(req("POST", "/x", ctForm, strings.NewReader("f%41=%FF")))
	for range 50 {
		srv.do(req("GET", "/x?ZZZZZZZZ%5A=1&k=v", "", nil))
		srv.do(req("POST", "/x", ctForm, strings.NewReader("ZZZZZZ%5A=1")))
	}
	if kept[0].Field != "kAy" || kept[1].Field != "fA" {
		t.Errorf("fields changed under a kept Rejection: %q %q", kept[0].Field, kept[1].Field)
	}
	for i, l := range srv.logs.lines(t)[:2] {
		if l["field"] != []string{"kAy", "fA"}[i] {
			t.Errorf("log field %v", l["field"])
		}
	}
}

// TestCanonRejectionField: the Field of a rejection found while
// canonicalizing does not alias the pooled scratch buffer that the next
// request reuses.
func TestCanonRejectionField(t *testing.T) {
	t.Parallel()
	var kept []*Rejection
	var mu sync.Mutex
	pol := canonPrecisPolicy(normalize.NFC)
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &pol, OnReject: func(c echo.Context, rj *Rejection) {
		mu.Lock()
		kept = append(kept, rj)
		mu.Unlock()
	}}, routes: []string{"/api/echo"}, methods: []string{http.MethodGet}}, onEcho(func(c echo.Context) error { return c.NoContent(200) }))
	// The key is escaped, so it is decoded into the scratch buffer.
	w := srv.do(httptest.NewRequest("GET", "/api/echo?%75ser=mike+smith", nil))
	if w.Code != 400 || len(kept) != 1 {
		t.Fatalf("status %d, %d rejections", w.Code, len(kept))
	}
	for range 50 {
		srv.do(httptest.NewRequest("GET", "/api/echo?%7A%7A%7A%7A=x&%79%79=%79", nil))
	}
	if kept[0].Field != "user" {
		t.Errorf("Field = %q after later requests, want %q", kept[0].Field, "user")
	}
}
