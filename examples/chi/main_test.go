package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestChiKeysNameChiRoutes: the start-up check meets the table's keys
// with chi's routes walked with their methods; a key that names none, a
// method chi does not route there, and a default PRECIS path field no
// route has are errors.
func TestChiKeysNameChiRoutes(t *testing.T) {
	t.Parallel()
	if _, err := newRouter(policies(), zerolog.Nop()); err != nil {
		t.Fatalf("the example's table: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*rules.Table)
		want string
	}{
		{"a key for every method", func(tb *rules.Table) { tb.Routes["/users/{id}"] = rules.Strict() }, ""},
		{"a typo", func(tb *rules.Table) { tb.Routes["GET /user/{id}"] = rules.Strict() },
			`utf8guard: the policy table's route "GET /user/{id}" (did you mean "GET /users/{id}"?) names no registered route: its requests would get the default policy`},
		{"a method chi does not route", func(tb *rules.Table) { tb.Routes["DELETE /users/{id}"] = rules.Strict() },
			`route "DELETE /users/{id}" names no registered route`},
		{"Echo's syntax", func(tb *rules.Table) { tb.Routes["GET /users/:id"] = rules.Strict() },
			`":id" is Echo's syntax, which a ServeMux takes literally`},
		{"a default path field of an unkeyed route", func(tb *rules.Table) {
			delete(tb.Routes, "GET /users/{id}")
			tb.Default.Precis = []rules.PrecisField{{Location: rules.Path, Field: "id", Profile: normalize.Nickname}}
		}, ""},
		{"a default path field the unkeyed route lacks", func(tb *rules.Table) {
			delete(tb.Routes, "GET /users/{id}")
			tb.Default.Precis = []rules.PrecisField{{Location: rules.Path, Field: "user", Profile: normalize.Nickname}}
		}, `rules: default policy: Precis[0].Field: "user" is not a parameter of the route: its parameter is "id"`},
		{"a path field no route has", func(tb *rules.Table) {
			tb.Default.Precis = []rules.PrecisField{{Location: rules.Path, Field: "user", Profile: normalize.Nickname}}
		}, `rules: default policy: Precis[0].Field: the policy applies to no route, so the profile would never apply`}, // every route has a key
	} {
		table := policies()
		tc.edit(&table)
		_, err := newRouter(table, zerolog.Nop())
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
		var ue *middleware.UnknownRoutesError
		if tc.name == "a typo" && !errors.As(err, &ue) {
			t.Errorf("a typo: %T, want *middleware.UnknownRoutesError", err)
		}
	}
}

// TestChiRequestsGetTheirKeysPolicy: on chi, whose route pattern carries no
// method, "GET /users/{id}" holds for GET (the username comes out in its
// PRECIS form, where chi.URLParam would still see it as sent), and the
// log line carries chi's request id.
func TestChiRequestsGetTheirKeysPolicy(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h, err := newRouter(policies(), zerolog.New(&logs))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, target string
		status         int
		body           string
	}{
		{"GET", "/users/MIKE", 200, "mike"},      // PRECIS: case-mapped
		{"GET", "/users/%C0%AE", 400, ""},        // strict
		{"POST", "/users/%C0%AE/notes", 201, ""}, // monitored: passed on, logged
		{"GET", "/nowhere/%C0%AE", 404, ""},      // chi answers
		{"GET", "/users/a%E2%80%AEb", 400, ""},   // a bidi control
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, nil))
		if w.Code != tc.status || tc.body != "" && w.Body.String() != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, w.Code, w.Body.String(), tc.status, tc.body)
		}
	}
	var lines []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 3: %s", len(lines), logs.String())
	}
	for _, l := range lines {
		id, _ := l["request_id"].(string)
		if id == "" || l["request_id_client"] != nil {
			t.Errorf("request_id %q, request_id_client %v: want chi's id", id, l["request_id_client"])
		}
	}
	if lines[1]["mode"] != "monitor" || lines[1]["route"] != "/users/{id}/notes" {
		t.Errorf("the note's line: %v", lines[1])
	}
	if lines[0]["route"] != "/users/{id}" || lines[0]["mode"] != "enforce" {
		t.Errorf("the user's line: %v", lines[0])
	}
}
