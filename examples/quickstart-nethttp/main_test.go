package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestQuickstart: the README's net/http quick start does what the README
// says.
func TestQuickstart(t *testing.T) {
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	for target, want := range map[string]string{
		"/users/caf%C3%A9":      `200 café`,
		"/users/..%C0%AFetc":    `400 {"location":"path","reason":"overlong"}`,
		"/users/x?q=a%E2%80%AE": `400 {"location":"query","reason":"forbidden_char"}`,
		"/proxy/%C0%AF":         `200 passed on as sent`,
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		if got := fmt.Sprintf("%d %s", w.Code, strings.TrimSpace(w.Body.String())); got != want {
			t.Errorf("GET %s: %s, want %s", target, got, want)
		}
	}
}
