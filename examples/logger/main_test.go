package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/rs/zerolog"
)

// TestRequestLogger: utf8guard's line goes through the request-scoped
// logger and carries its field.
func TestRequestLogger(t *testing.T) {
	var buf bytes.Buffer
	e := newServer(zerolog.New(&buf))
	r := httptest.NewRequest(http.MethodGet, "/hello?q=%FF", nil)
	r.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	if w.Code != 400 || line["reason"] != "invalid_byte" || line["trace"] != r.Header.Get("Traceparent") || line["request_id"] == "" {
		t.Errorf("%d, log line %v; want 400 and a line with the trace and the request_id", w.Code, line)
	}
}
