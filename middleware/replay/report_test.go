package replay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/replay"
	"github.com/utf8guard/utf8guard/rules"
)

// write writes files into a fresh directory and returns their paths.
func write(t *testing.T, files ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func parse(t *testing.T, policy string) *rules.Table {
	t.Helper()
	tb, err := rules.Parse([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// summary is a group as a test compares it: "count route location reason class".
func summary(gs []replay.Group) []string {
	out := []string{}
	for _, g := range gs {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%d %s %s %s %s", g.Count, g.Route, g.Location, g.Reason, g.Class)))
	}
	return out
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The policies of the report tests, keyed by ServeMux pattern.
const (
	muxOld = `{"default": {"preset": "strict"}, "routes": {
		"GET /users/{id}": {"preset": "strict"},
		"/open/": {"preset": "unchecked"},
		"/mon/": {"preset": "strict", "mode": "monitor"}}}`
	muxNew = `{"default": {"preset": "strict"}, "routes": {
		"GET /users/{id}": {"preset": "strict", "query": {"allow": ["nul"]}},
		"/open/": {"preset": "strict"},
		"/mon/": {"preset": "strict", "mode": "monitor"}}}`
)

var muxPatterns = []string{"GET /users/{id}", "/open/", "/mon/"}

func TestReportGroupsAndDiff(t *testing.T) {
	long := strings.Repeat("a", 300)
	files := write(t,
		"capture.http", "GET /users/1?q=%00 HTTP/1.1\r\nHost: x\r\n\r\n"+
			"GET /users/2?q=x%00 HTTP/1.1\r\nHost: x\r\n\r\n"+
			"GET /open/x?q=%00 HTTP/1.1\r\nHost: x\r\n\r\n"+
			"GET /mon/x?q=%FF HTTP/1.1\r\nHost: x\r\n\r\n"+
			"GET /users/3 HTTP/1.1\r\nHost: x\r\n\r\n"+
			"POST /users/4 HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
		"day.har", har(
			entry(`"method": "GET", "url": "http://x/users/5?q=`+long+`%00"`),
			entry(`"method": "GET"`)),
	)
	rep, err := replay.Run(replay.Config{
		Policy: parse(t, muxNew), PolicyName: "new.json",
		Against: parse(t, muxOld), AgainstName: "old.json",
		Router: replay.MuxRoutes(muxPatterns...),
	}, files...)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 6 || rep.Unreadable != 2 || len(rep.Errors) != 2 || rep.AgainstRefused != 3 {
		t.Errorf("requests %d, unreadable %d, errors %q, refused by old %d; want 6, 2, 2, 3", rep.Requests, rep.Unreadable, rep.Errors, rep.AgainstRefused)
	}
	sameList(t, "refused", summary(rep.Refused), []string{"1 /open/ query forbidden_char nul"})
	sameList(t, "flagged", summary(rep.Flagged), []string{"1 /mon/ query invalid_byte"})
	sameList(t, "newly refused", summary(rep.NewlyRefused), []string{"1 /open/ query forbidden_char nul"})
	sameList(t, "no longer refused", summary(rep.NoLongerRefused), []string{"3 GET /users/{id} query forbidden_char nul"})
	ex := rep.NoLongerRefused[0].Example
	want := replay.Example{Source: files[0] + ":1", Method: "GET", URL: "/users/1?q=%00", Field: "q", Offset: 0, Sample: `\x00`, Status: http.StatusBadRequest}
	if ex != want {
		t.Errorf("example %+v, want %+v", ex, want)
	}

	// The same recordings, under the old policy alone: the long query of
	// the HAR's example is cut.
	rep, err = replay.Run(replay.Config{Policy: parse(t, muxOld), PolicyName: "old.json", Router: replay.MuxRoutes(muxPatterns...)}, files...)
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, "refused by old", summary(rep.Refused), []string{"3 GET /users/{id} query forbidden_char nul"})
	if rep.NewlyRefused != nil || rep.NoLongerRefused != nil {
		t.Errorf("a report without Against has differences")
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"policy old.json: 6 requests replayed from 2 files, 2 unreadable",
		"body truncated: the file ends 7 octets short (the rest of the file is not read)",
		"log.entries[1] (line 4): request.url is missing",
		"refused (enforce): 3",
		"  count  route            location  reason          class",
		"      3  GET /users/{id}  query     forbidden_char  nul",
		`         e.g. GET /users/1?q=%00 -> 400, field "q", offset 0, sample "\x00"`,
		"flagged (monitor): 1",
	} {
		if !strings.Contains(text.String(), line+"\n") {
			t.Errorf("the text report lacks the line %q:\n%s", line, text.String())
		}
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"refused":[{"route":"GET /users/{id}","location":"query","reason":"forbidden_char","class":"nul","count":3,`)) {
		t.Errorf("JSON report: %s", js)
	}
}

func TestReportExampleURLIsCutAndEscaped(t *testing.T) {
	long := strings.Repeat("b", 300)
	files := write(t, "r.http", "GET /users/\xe9?"+long+"%00 HTTP/1.1\r\nHost: x\r\n\r\n")
	rep, err := replay.Run(replay.Config{Policy: parse(t, muxOld), Router: replay.MuxRoutes(muxPatterns...)}, files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 1 {
		t.Fatalf("refused: %+v", rep.Refused)
	}
	ex := rep.Refused[0].Example
	if want := `/users/\xe9?` + long[:replay.MaxQuery] + "..."; ex.URL != want {
		t.Errorf("URL %q, want %q", ex.URL, want)
	}
}

func TestNewRefusesARouteKeyTheRouterDoesNotHave(t *testing.T) {
	typo := `{"routes": {"/opne/": {"preset": "unchecked"}}}`
	if _, err := replay.New(parse(t, typo), replay.MuxRoutes(muxPatterns...)); err == nil || !strings.Contains(err.Error(), "/opne/") {
		t.Errorf("mux: %v", err)
	}
	echoTypo := `{"routes": {"/opne/*": {"preset": "unchecked"}}}`
	if _, err := replay.New(parse(t, echoTypo), replay.EchoRoutes("/open/*")); err == nil || !strings.Contains(err.Error(), "/opne/*") {
		t.Errorf("echo: %v", err)
	}
	if _, err := replay.New(parse(t, muxOld), replay.MuxRoutes("/a", "/a")); err == nil {
		t.Errorf("a pattern registered twice: no error")
	}
	if _, err := replay.New(parse(t, muxOld), replay.Router{}); err == nil {
		t.Errorf("no router: no error")
	}
}

func TestReplayerThroughTheServicesHandler(t *testing.T) {
	mux := http.NewServeMux()
	ran := 0
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { ran++ })
	tb := parse(t, `{"default": {"preset": "default"}, "routes": {"api": {"preset": "strict"}}}`)
	rp, err := replay.New(tb, replay.Handler(mux, func(r *http.Request) string {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			return "api"
		}
		return ""
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target string
		refuse bool
	}{{"/api/x?q=%01", true}, {"/web/x?q=%01", false}, {"/api/x", false}} {
		r, _ := http.NewRequest(http.MethodGet, "http://x"+c.target, nil)
		o := rp.Replay(r)
		if o.Refused() != c.refuse {
			t.Errorf("%s: refused %v (%+v), want %v", c.target, o.Refused(), o.Rejection, c.refuse)
		}
	}
	if ran != 2 {
		t.Errorf("the handler ran %d times, want 2", ran)
	}
}
