package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestMetrics: every request is counted by route, every rejection by
// route, location, reason and mode, and the ratio follows.
func TestMetrics(t *testing.T) {
	e := newServer()
	for _, target := range []string{"/users/a", "/users/b", "/users/%C0%AE", "/users/c?q=%00"} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	var vars struct {
		Requests   map[string]int64 `json:"utf8guard_requests"`
		Rejections map[string]int64 `json:"utf8guard_rejections"`
		Ratio      float64          `json:"utf8guard_rejection_ratio"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &vars); err != nil {
		t.Fatal(err)
	}
	if vars.Requests["/users/:id"] != 4 ||
		vars.Rejections["/users/:id path overlong enforce"] != 1 ||
		vars.Rejections["/users/:id query forbidden_char enforce"] != 1 ||
		vars.Ratio != 2.0/5 { // 4 requests to /users/:id, 1 to /debug/vars
		t.Errorf("requests %v, rejections %v, ratio %v", vars.Requests, vars.Rejections, vars.Ratio)
	}
}
