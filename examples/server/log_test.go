package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// sent is a request the log is checked against.
type sent struct {
	name      string
	requestID string     // the X-Request-Id of the response
	want      *logExpect // nil: no log line
}

// logExpect is what the log line of one request must say. Field is checked
// only with checkField, Class only when not empty, Offset only when not
// negative.
type logExpect struct {
	reason, location, field, class string
	offset                         int
	method, route, mode            string
	checkField                     bool
}

// logLine is one stdout line: every field of the README's log schema.
type logLine struct {
	Level     string `json:"level"`
	Message   string `json:"message"`
	Reason    string `json:"reason"`
	Location  string `json:"location"`
	Field     string `json:"field"`
	Offset    int    `json:"offset"`
	Sample    string `json:"sample"`
	Class     string `json:"class"`
	Method    string `json:"method"`
	Route     string `json:"route"`
	RequestID string `json:"request_id"`
	RemoteIP  string `json:"remote_ip"`
	Mode      string `json:"mode"`
}

var requiredFields = []string{"reason", "location", "field", "offset", "sample", "method", "route", "request_id", "remote_ip", "mode"}

// checkLog parses stdout, once the demo has exited, and checks that each
// request has exactly the lines it should: one for each rejected or
// flagged request, with the right fields, and none for the rest.
func (d *demo) checkLog(t *testing.T) {
	byID := map[string][]logLine{}
	total := 0
	for i, raw := range strings.Split(strings.TrimRight(d.stdout.String(), "\n"), "\n") {
		if raw == "" {
			continue
		}
		total++
		var keys map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &keys); err != nil {
			t.Errorf("stdout line %d is not JSON: %v: %q", i+1, err, raw)
			continue
		}
		for _, f := range requiredFields {
			if _, ok := keys[f]; !ok {
				t.Errorf("stdout line %d has no %q: %s", i+1, f, raw)
			}
		}
		var l logLine
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Errorf("stdout line %d: %v: %s", i+1, err, raw)
			continue
		}
		if l.Level != "warn" {
			t.Errorf("stdout line %d: level %q, want warn: %s", i+1, l.Level, raw)
		}
		for j := 0; j < len(l.Sample); j++ {
			if c := l.Sample[j]; c < 0x20 || c > 0x7e {
				t.Errorf("stdout line %d: sample holds the raw octet %#x: %s", i+1, c, raw)
				break
			}
		}
		if l.RemoteIP != "127.0.0.1" {
			t.Errorf("stdout line %d: remote_ip %q, want 127.0.0.1", i+1, l.RemoteIP)
		}
		if l.RequestID == "" {
			t.Errorf("stdout line %d: empty request_id: %s", i+1, raw)
		}
		byID[l.RequestID] = append(byID[l.RequestID], l)
	}
	want := 0
	seen := map[string]bool{}
	for _, s := range d.sent {
		if seen[s.requestID] {
			t.Errorf("%s: request id %q given twice", s.name, s.requestID)
		}
		seen[s.requestID] = true
		lines := byID[s.requestID]
		if s.want == nil {
			if len(lines) != 0 {
				t.Errorf("%s: %d log lines, want none: %+v", s.name, len(lines), lines)
			}
			continue
		}
		want++
		if len(lines) != 1 {
			t.Errorf("%s: %d log lines, want exactly one: %+v", s.name, len(lines), lines)
			if len(lines) == 0 {
				continue
			}
		}
		l, w := lines[0], s.want
		msg := "utf8guard: request rejected"
		if w.mode == "monitor" {
			msg = "utf8guard: request flagged"
		}
		var bad []string
		check := func(name, got, want string) {
			if got != want {
				bad = append(bad, fmt.Sprintf("%s %q, want %q", name, got, want))
			}
		}
		check("reason", l.Reason, w.reason)
		check("location", l.Location, w.location)
		if w.checkField {
			check("field", l.Field, w.field)
		}
		if w.offset >= 0 && l.Offset != w.offset {
			bad = append(bad, fmt.Sprintf("offset %d, want %d", l.Offset, w.offset))
		}
		if w.class != "" {
			check("class", l.Class, w.class)
		}
		check("method", l.Method, w.method)
		check("route", l.Route, w.route)
		check("mode", l.Mode, w.mode)
		check("message", l.Message, msg)
		if len(bad) > 0 {
			t.Errorf("%s: log line: %s", s.name, strings.Join(bad, "; "))
		}
	}
	if total != want {
		t.Errorf("stdout holds %d log lines, want %d (one per rejected or flagged request)", total, want)
	}
	t.Logf("%d requests reached Echo; %d log lines", len(d.sent), total)
}
