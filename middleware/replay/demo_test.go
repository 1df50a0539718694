package replay_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/server/app"
	"github.com/utf8guard/utf8guard/examples/server/app/appv5"
	"github.com/utf8guard/utf8guard/middleware/replay"
	"github.com/utf8guard/utf8guard/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.har from the demo's answers")

// demoPolicy is the demo's own policy file.
const demoPolicy = "../../examples/server/policy.json"

// demoAddr is the address the recorded HAR names: the demo's default.
// The server of the recording listens on a free port of 127.0.0.1, which
// the recording replaces with it, so that the file does not change from
// one run to the next.
const demoAddr = "127.0.0.1:8080"

// demoRequests are the requests the demo HAR records: clean ones, and
// malformed ones of the kinds utf8guard exists for.
func demoRequests(t *testing.T, base string) []*http.Request {
	t.Helper()
	get := func(target string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, base+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	post := func(target, ctype, body string) *http.Request {
		r, err := http.NewRequest(http.MethodPost, base+target, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", ctype)
		return r
	}
	var upload bytes.Buffer
	mw := multipart.NewWriter(&upload)
	if err := mw.SetBoundary("replay-demo-boundary"); err != nil {
		t.Fatal(err)
	}
	_ = mw.WriteField("title", "notes d'été")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="notes.txt"`)
	h.Set("Content-Type", "text/plain")
	part, _ := mw.CreatePart(h)
	// What Windows Notepad saves as "Unicode": UTF-16LE with a BOM.
	part.Write([]byte{0xFF, 0xFE, 'h', 0, 'i', 0, 0xE9, 0})
	mw.Close()
	return []*http.Request{
		get("/strict/hello?q=caf%C3%A9"),
		get("/static/hello.txt"),
		get("/strict/%C0%AE%C0%AE/secret.txt"),                                         // an overlong "..": path traversal
		get("/strict/search?q=a%00b"),                                                  // NUL in the query
		get("/strict/" + strings.Repeat("long/", 2000)),                                // a path over 8 KiB
		post("/strict/comment", "application/json", "{\"text\":\"ok \u202egnp.exe\"}"), // Trojan Source: a raw RLO
		post("/nfc/profile", "application/json", `{"name":"Jose`+"\u0301"+`"}`),        // NFD
		post("/nfc/profile", "application/x-www-form-urlencoded", "name=Rene%CC%81e"),  // NFD, escaped
		get("/monitor/search?q=%FF"),
		get("/open/anything?q=%00"),
		post("/upload/notes", mw.FormDataContentType(), upload.String()),
	}
}

// harTransport records each request it sends, and the answer, as a HAR
// 1.2 entry, as a browser's network panel does.
type harTransport struct {
	base    http.RoundTripper
	entries []map[string]any
	start   time.Time
}

func pairs(h map[string][]string) []map[string]string {
	out := []map[string]string{}
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			out = append(out, map[string]string{"name": k, "value": v})
		}
	}
	return out
}

func sortedKeys(h map[string][]string) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	for i := range keys { // insertion sort: a handful of keys
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func (ht *harTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := ht.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	rbody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(rbody))

	headers := r.Header.Clone()
	headers.Set("Host", r.URL.Host)
	if len(body) > 0 {
		headers.Set("Content-Length", fmt.Sprint(len(body)))
	}
	req := map[string]any{
		"method":      r.Method,
		"url":         r.URL.String(),
		"httpVersion": "HTTP/1.1",
		"cookies":     []any{},
		"headers":     pairs(headers),
		"queryString": pairs(r.URL.Query()),
		"headersSize": -1,
		"bodySize":    len(body),
	}
	if len(body) > 0 {
		pd := map[string]any{"mimeType": r.Header.Get("Content-Type")}
		if utf8.Valid(body) && !bytes.ContainsRune(body, 0) {
			pd["text"] = string(body)
		} else {
			pd["text"], pd["encoding"] = base64.StdEncoding.EncodeToString(body), "base64"
		}
		req["postData"] = pd
	}
	// The answer, without the fields that change from run to run.
	rh := resp.Header.Clone()
	rh.Del("Date")
	rh.Del("Last-Modified") // the checkout time of the static file
	rh.Del("X-Request-Id")
	ht.entries = append(ht.entries, map[string]any{
		"startedDateTime": ht.start.Add(time.Duration(len(ht.entries)) * time.Second).Format(time.RFC3339Nano),
		"time":            0,
		"request":         req,
		"response": map[string]any{
			"status":      resp.StatusCode,
			"statusText":  http.StatusText(resp.StatusCode),
			"httpVersion": "HTTP/1.1",
			"cookies":     []any{},
			"headers":     pairs(rh),
			"content":     map[string]any{"size": len(rbody), "mimeType": resp.Header.Get("Content-Type"), "text": string(rbody)},
			"redirectURL": "",
			"headersSize": -1,
			"bodySize":    len(rbody),
		},
		"cache":   map[string]any{},
		"timings": map[string]any{"send": 0, "wait": 0, "receive": 0},
	})
	return resp, nil
}

// recordDemo runs the demo's Echo v5 server with its policy on a free
// port of 127.0.0.1, sends it demoRequests through a recording client, and
// returns the HAR.
func recordDemo(t *testing.T) []byte {
	t.Helper()
	table, err := rules.LoadFile(demoPolicy)
	if err != nil {
		t.Fatal(err)
	}
	nop := zerolog.Nop()
	e, err := appv5.New(table, &nop, os.DirFS("../../examples/server/public"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	addr := ln.Addr().String()
	ht := &harTransport{
		base:  &http.Transport{DisableCompression: true},
		start: time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC),
	}
	client := &http.Client{Transport: ht}
	for _, r := range demoRequests(t, "http://"+addr) {
		r.Header.Set("User-Agent", "utf8guard-replay-test")
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	har := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]any{"name": "utf8guard replay test (demo_test.go)", "version": "1"},
		"entries": ht.entries,
	}}
	out, err := json.MarshalIndent(har, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = bytes.ReplaceAll(out, []byte(addr), []byte(demoAddr))
	// The same JSON string, with the bidi control escaped: a raw one
	// would reorder the committed file in an editor and a review.
	out = bytes.ReplaceAll(out, []byte("\u202e"), []byte(`\u202e`))
	return append(out, '\n')
}

// TestDemoHARIsWhatTheDemoAnswers records the demo's traffic again and
// compares it with testdata/demo.har, which -update rewrites.
func TestDemoHARIsWhatTheDemoAnswers(t *testing.T) {
	got := recordDemo(t)
	if *update {
		if err := os.WriteFile("testdata/demo.har", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("testdata/demo.har")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the demo's traffic differs from testdata/demo.har: run go test -run TestDemoHAR -update and review the diff")
	}
}

// demoRouter is the demo's router: testdata/demo.routes, which must list
// the routes the demo registers.
func demoRouter(t *testing.T) replay.Router {
	t.Helper()
	routes, err := replay.LoadRoutes("testdata/demo.routes")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range append(append([]string{}, app.Routes...), app.UploadRoute, "/static/*") {
		want = append(want, "GET,POST "+r)
	}
	sameList(t, "testdata/demo.routes", routes, want)
	return replay.EchoRoutes(routes...)
}

// The replay of the demo's traffic through the demo's policy answers
// each request with the status the demo answered it with.
func TestDemoReplayAnswersAsTheDemoDid(t *testing.T) {
	data, err := os.ReadFile("testdata/demo.har")
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct {
		Log struct {
			Entries []struct {
				Response struct{ Status int }
			}
		}
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	rp, err := replay.New(loadPolicy(t, demoPolicy), demoRouter(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := replay.NewHAR(bytes.NewReader(data), "demo.har")
	for _, e := range recorded.Log.Entries {
		req, err := rec.Next()
		if err != nil {
			t.Fatal(err)
		}
		if o := rp.Replay(req.HTTP); o.Status != e.Response.Status {
			t.Errorf("%s %s: replayed %d (%v), the demo answered %d", req.Source, req.HTTP.RequestURI[:min(60, len(req.HTTP.RequestURI))], o.Status, o.Rejection, e.Response.Status)
		}
	}
	if _, err := rec.Next(); err != io.EOF {
		t.Errorf("after the last entry: %v", err)
	}
}

func loadPolicy(t *testing.T, name string) *rules.Table {
	t.Helper()
	tb, err := rules.LoadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestDemoReport(t *testing.T) {
	demo, stricter := loadPolicy(t, demoPolicy), loadPolicy(t, "testdata/stricter.json")
	rep, err := replay.Run(replay.Config{Policy: demo, PolicyName: "policy.json", Router: demoRouter(t)}, "testdata/demo.har")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requests != 11 || rep.Unreadable != 0 {
		t.Errorf("%d requests, %d unreadable (%q); want 11, 0", rep.Requests, rep.Unreadable, rep.Errors)
	}
	sameList(t, "refused by the demo's policy", summary(rep.Refused), []string{
		"1 /strict/* json forbidden_char bidi_control",
		"1 /strict/* path overlong",
		"1 /strict/* path too_large",
		"1 /strict/* query forbidden_char nul",
	})
	sameList(t, "flagged by the demo's policy", summary(rep.Flagged), []string{"1 /monitor/* query invalid_byte"})
	ex := rep.Refused[1].Example
	want := replay.Example{Source: "testdata/demo.har: log.entries[2]", Time: ex.Time, Method: "GET", URL: "/strict/%C0%AE%C0%AE/secret.txt",
		Offset: 8, Sample: `/strict/\xc0\xae\xc0\xae/sec`, Status: 400}
	if ex != want || ex.Time.Format(time.RFC3339) != "2025-06-02T09:00:02Z" {
		t.Errorf("example %+v, want %+v", ex, want)
	}

	rep, err = replay.Run(replay.Config{Policy: stricter, PolicyName: "stricter.json", Against: demo, AgainstName: "policy.json", Router: demoRouter(t)}, "testdata/demo.har")
	if err != nil {
		t.Fatal(err)
	}
	sameList(t, "refused by the stricter policy, not by the demo's", summary(rep.NewlyRefused), []string{
		"1 /monitor/* query invalid_byte",
		"1 /nfc/* form not_normalized",
		"1 /nfc/* json not_normalized",
		"1 /open/* query forbidden_char nul",
		"1 /upload/* multipart invalid_byte",
	})
	sameList(t, "refused by the demo's policy, not by the stricter one", summary(rep.NoLongerRefused), []string{
		"1 /strict/* query forbidden_char nul",
	})
	if rep.AgainstRefused != 4 || len(rep.Flagged) != 0 {
		t.Errorf("refused by the demo's policy %d, flagged %v; want 4, none", rep.AgainstRefused, rep.Flagged)
	}
}
