package main

// The demo in a real browser: headless Chromium loads a page from the
// demo's app over HTTP/2 on TLS, as every browser reaches a deployment,
// and the page's script sends the requests a web form and a web app send
// (text in Hebrew, Arabic and emoji in paths, queries, forms, JSON, file
// uploads, cookies; bodies in gzip; forms submitted by <form> elements,
// as navigations), the requests a browser sends on a page's behalf
// without fetch (beacons, an EventSource, a link's ping), and a few an
// attacker would, then posts what it got back to the test. The test
// checks the answers, the protocol of every request and the log lines.
//
// It needs Chromium (Debian's package chromium) and runs only with
// -browser, which names it; CI installs it and runs:
//
//	go test ./examples/server -run Browser -browser /usr/bin/chromium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"reflect"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"
)

var browser = flag.String("browser", "", "run the demo in this Chromium or Chrome, headless (e.g. /usr/bin/chromium)")

// browserCase is one request the page sends with fetch, as the script
// reads it (the JSON fields), and what the test wants of it.
type browserCase struct {
	Name   string            `json:"name"`
	URL    string            `json:"url"` // as written: the browser encodes it
	Method string            `json:"method,omitempty"`
	Type   string            `json:"type,omitempty"`   // Content-Type
	Body   *string           `json:"body,omitempty"`   // a string body, sent in UTF-8
	Octets []int             `json:"octets,omitempty"` // a body of these octets
	Form   map[string]string `json:"form,omitempty"`   // URLSearchParams: application/x-www-form-urlencoded
	Fields map[string]string `json:"fields,omitempty"` // FormData: multipart/form-data
	File   *browserFile      `json:"file,omitempty"`   // and a file in it, field "file" (Nav: a File without a name leaves the input empty)
	Gzip   bool              `json:"gzip,omitempty"`   // the body through CompressionStream("gzip")
	Cookie string            `json:"cookie,omitempty"` // document.cookie, set before the request, a line at a time
	Nav    bool              `json:"nav,omitempty"`    // Form or Fields sent by a <form> the page submits into an iframe
	Demo   string            `json:"demo,omitempty"`   // the id of a form of the demo's index.html, submitted as it is (File: into its file input)
	// Nav's form: its method (POST unless set) and enctype (set: this
	// one; else multipart/form-data for Fields, the default for Form).
	Enctype   string `json:"enctype,omitempty"`
	Keepalive bool   `json:"keepalive,omitempty"` // fetch's keepalive
	// Send names a sender of the page's own for a request fetch cannot
	// make: "beacon" (navigator.sendBeacon of Form, of Body as a Blob of
	// Type, of Body as a string, or of nothing), "eventsource" (an
	// EventSource), "ping" (a link's ping), "csp" (the report of a page
	// whose Content Security Policy it breaks). The page cannot read their
	// answers: their status and request id are the server's, read as a
	// navigation's, so URL must be the target as the server sees it.
	Send string `json:"send,omitempty"`

	cookies []string // set: the Cookie header lines the server saw

	status int                                    // the answer's status
	check  func(t *testing.T, ans map[string]any) // the answer's JSON, on 200
	log    *logExpect                             // the request's log line; nil: none
}

type browserFile struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Content string `json:"content"`
}

// browserResult is what the page reports of one request.
type browserResult struct {
	Name      string `json:"name"`
	Status    int    `json:"status"`
	RequestID string `json:"requestID"`
	Text      string `json:"text"`
	Error     string `json:"error"`
}

// browserScript sends the cases in the page's JSON one after the other
// and posts the results to /report.
const browserScript = `
const cases = JSON.parse(document.getElementById("cases").textContent);
async function send(c) {
  const init = {method: c.method || "GET", headers: {}};
  if (c.cookie) for (const line of c.cookie.split("\n")) document.cookie = line;
  let body;
  if (c.form) body = new URLSearchParams(c.form);
  else if (c.fields) {
    body = new FormData();
    for (const [k, v] of Object.entries(c.fields)) body.append(k, v);
    if (c.file) body.append("file", new File([c.file.content], c.file.name, {type: c.file.type}));
  } else if (c.octets) body = new Uint8Array(c.octets);
  else if (c.body !== undefined) body = c.body;
  if (c.type) init.headers["Content-Type"] = c.type;
  if (c.gzip) {
    const gz = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
    body = await new Response(gz).arrayBuffer();
    init.headers["Content-Encoding"] = "gzip";
  }
  if (body !== undefined) init.body = body;
  if (c.keepalive) init.keepalive = true;
  const r = await fetch(c.url, init);
  return {name: c.name, status: r.status, requestID: r.headers.get("X-Request-Id") || "", text: await r.text()};
}
// navigate submits c's form as a web page does, from a <form> element
// into an iframe (a navigation: the browser's own encoding and headers),
// and reads the answer from the iframe. Its status stays unknown (0).
function navigate(c) {
  return new Promise((resolve, reject) => {
    const frame = document.createElement("iframe");
    frame.name = "sink-" + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const form = document.createElement("form");
    form.method = c.method || "POST";
    form.action = c.url;
    form.target = frame.name;
    form.acceptCharset = "UTF-8";
    if (c.fields) form.enctype = "multipart/form-data";
    if (c.enctype) form.enctype = c.enctype;
    for (const [k, v] of Object.entries(c.form || c.fields)) {
      // A value of several lines in a textarea, as people type them.
      const input = document.createElement(v.includes("\n") ? "textarea" : "input");
      if (input.type !== "textarea") input.type = "hidden";
      input.name = k;
      input.value = v;
      form.appendChild(input);
    }
    if (c.file) {
      const input = document.createElement("input");
      input.type = "file";
      input.name = "file";
      if (c.file.name) { // else no file chosen
        const dt = new DataTransfer();
        dt.items.add(new File([c.file.content], c.file.name, {type: c.file.type}));
        input.files = dt.files;
      }
      form.appendChild(input);
    }
    document.body.appendChild(form);
    frame.onload = () => resolve({name: c.name, status: 0, requestID: "", text: frame.contentDocument.body.innerText});
    setTimeout(() => reject(new Error("no answer in the iframe")), 20000);
    form.submit();
  });
}
// demoForm loads the demo's own page into an iframe and submits its form
// c.demo as it is (c.file into its file input), and reads the answer.
function demoForm(c) {
  return new Promise((resolve, reject) => {
    const frame = document.createElement("iframe");
    let submitted = false;
    frame.onload = () => {
      const doc = frame.contentDocument, win = frame.contentWindow;
      if (submitted) {
        resolve({name: c.name, status: 0, requestID: "", text: doc.body.innerText});
        return;
      }
      const form = doc.getElementById(c.demo);
      if (c.file) {
        const dt = new win.DataTransfer();
        dt.items.add(new win.File([c.file.content], c.file.name, {type: c.file.type}));
        form.querySelector("input[type=file]").files = dt.files;
      }
      submitted = true;
      form.requestSubmit();
    };
    setTimeout(() => reject(new Error("no answer in the iframe")), 20000);
    frame.src = "/static/index.html";
    document.body.appendChild(frame);
  });
}
// seen waits until the server has answered a request for target: the
// senders below cannot see their answer.
async function seen(c, target) {
  const r = await fetch("/seen?target=" + encodeURIComponent(target));
  if (r.status !== 204) throw new Error("the server saw no request for " + target);
  return {name: c.name, status: 0, requestID: "", text: ""};
}
const senders = {
  beacon(c) {
    let data = c.body;
    if (c.form) data = new URLSearchParams(c.form);
    else if (c.type) data = new Blob([c.body], {type: c.type});
    if (!navigator.sendBeacon(c.url, data)) throw new Error("sendBeacon refused to queue it");
    return seen(c, c.url);
  },
  eventsource(c) {
    return new Promise((resolve, reject) => {
      const es = new EventSource(c.url);
      es.onopen = es.onerror = () => { es.close(); seen(c, c.url).then(resolve, reject); };
    });
  },
  csp(c) {
    const frame = document.createElement("iframe");
    frame.src = "/csp-page?report=" + encodeURIComponent(c.url);
    document.body.appendChild(frame);
    return seen(c, c.url);
  },
  ping(c) {
    const frame = document.createElement("iframe");
    frame.name = "ping-" + Math.random().toString(36).slice(2);
    document.body.appendChild(frame);
    const a = document.createElement("a");
    a.href = "/blank";
    a.ping = c.url;
    a.target = frame.name;
    a.textContent = "link";
    document.body.appendChild(a);
    a.click();
    return seen(c, c.url);
  },
};
(async () => {
  const out = [];
  for (const c of cases) {
    try { out.push(await (c.send ? senders[c.send](c) : c.demo ? demoForm(c) : c.nav ? navigate(c) : send(c))); } catch (e) { out.push({name: c.name, error: String(e)}); }
  }
  await fetch("/report", {method: "POST", body: JSON.stringify(out)});
})();
`

// TestBrowser runs the page on each Echo major version of the demo.
func TestBrowser(t *testing.T) {
	if *browser == "" || testing.Short() {
		t.Skip("needs a browser: run with -browser /usr/bin/chromium")
	}
	for _, version := range []string{"v5", "v4"} {
		t.Run("echo="+version, func(t *testing.T) { testBrowser(t, version) })
	}
}

func testBrowser(t *testing.T, version string) {
	cases := browserCases()
	page, err := browserPage(cases)
	if err != nil {
		t.Fatal(err)
	}
	table, err := loadPolicy("")
	if err != nil {
		t.Fatal(err)
	}
	d := &demo{}
	logger := zerolog.New(&d.stdout)
	index, err := fs.ReadFile(content, "public/index.html")
	if err != nil {
		t.Fatal(err)
	}
	h, err := apps[version](table, &logger, fstest.MapFS{"page.html": {Data: page}, "index.html": {Data: index}})
	if err != nil {
		t.Fatal(err)
	}

	// The app behind a recorder of what reached the server, and the
	// report's route beside it (not through utf8guard: it is the test's).
	reports := make(chan []byte, 1)
	var rec recorder
	mux := http.NewServeMux()
	mux.HandleFunc("POST /report", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case reports <- b:
		default:
		}
	})
	// The senders that cannot read their answer wait for the server's.
	mux.HandleFunc("GET /seen", func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.Query().Get("target")
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if rec.saw(target) {
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		http.NotFound(w, r)
	})
	// A page whose Content Security Policy forbids its one image and
	// has the browser report that to the case's target.
	mux.HandleFunc("GET /csp-page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "img-src 'none'; report-uri "+r.URL.Query().Get("report"))
		_, _ = io.WriteString(w, `<!doctype html><img src="/blank">`)
	})
	// The page a ping's link leads to (not the app's: one request for
	// each case).
	mux.HandleFunc("GET /blank", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html>`)
	})
	mux.Handle("/", rec.wrap(h))
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the browser's probes end TLS handshakes early
	srv.StartTLS()
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, *browser, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--ignore-certificate-errors", "--user-data-dir="+t.TempDir(),
		srv.URL+"/static/page.html")
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", *browser, err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	var report []byte
	select {
	case report = <-reports:
	case <-ctx.Done():
		t.Fatalf("no report from the page in 60 s; requests seen: %v; browser's stderr:\n%s", rec.all(), stderr.String())
	}

	var results []browserResult
	if err := json.Unmarshal(report, &results); err != nil {
		t.Fatalf("the report: %v: %s", err, report)
	}
	if len(results) != len(cases) {
		t.Fatalf("%d results for %d cases: %s", len(results), len(cases), report)
	}

	// The page itself came over HTTP/2, through utf8guard's strict
	// preset, as a browser's navigation: 200. So did every request.
	seen := rec.all()
	requests := 1 // the page
	for _, c := range cases {
		requests++
		if c.Demo != "" {
			requests++ // and index.html
		}
	}
	if len(seen) != requests || seen[0].target != "/static/page.html" || seen[0].status != 200 {
		t.Errorf("requests seen: %v; want the page (200) and then the %d of the cases", seen, requests-1)
	}
	for _, s := range seen {
		if s.proto != "HTTP/2.0" {
			t.Errorf("%s %s came over %s, not HTTP/2", s.method, s.target, s.proto)
		}
	}
	// The cookie the page set went as it was written, raw UTF-8 and its
	// space, as browsers send it (RFC 6265's cookie-octet has neither).
	if n := len(seen); n == 0 || seen[n-1].target != "/strict/cookie" || !reflect.DeepEqual(seen[n-1].cookies, []string{"lang=" + hebrew}) {
		t.Errorf("requests seen: %v; want the last to /strict/cookie with the cookie lang=%s", seen, hebrew)
	}

	var sentList []sent
	for i, c := range cases {
		r := results[i]
		if r.Name != c.Name || r.Error != "" {
			t.Errorf("%s: result %+v", c.Name, r)
			continue
		}
		if c.Nav || c.Demo != "" || c.Send != "" {
			// A navigation's status and X-Request-Id are not the page's
			// to read: they are the server's, for the case's target,
			// which no other request has.
			for _, s := range seen {
				if s.target == c.URL {
					r.Status, r.RequestID = s.status, s.requestID
				}
			}
		}
		if c.cookies != nil {
			var got []string
			for _, s := range seen {
				if s.target == c.URL {
					got = s.cookies
				}
			}
			if !reflect.DeepEqual(got, c.cookies) {
				t.Errorf("%s: Cookie %q, want %q", c.Name, got, c.cookies)
			}
		}
		if r.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.Name, r.Status, c.status, r.Text)
			continue
		}
		sentList = append(sentList, sent{name: c.Name, requestID: r.RequestID, want: c.log})
		if c.check == nil || r.Status != 200 {
			continue
		}
		var ans map[string]any
		if err := json.Unmarshal([]byte(r.Text), &ans); err != nil {
			t.Errorf("%s: answer %v: %s", c.Name, err, r.Text)
			continue
		}
		t.Run(c.Name, func(t *testing.T) { c.check(t, ans) })
	}
	d.sent = sentList
	d.checkLog(t)
}

// browserPage is the page: the cases as JSON, and the script.
func browserPage(cases []browserCase) ([]byte, error) {
	js, err := json.Marshal(cases) // escapes <, > and &: nothing ends the script element early
	if err != nil {
		return nil, err
	}
	return []byte(`<!doctype html><html><head><meta charset="utf-8"><title>utf8guard in a browser</title><link rel="icon" href="data:,"></head><body>
<script type="application/json" id="cases">` + string(js) + `</script>
<script>` + browserScript + `</script>
<p>` + html.EscapeString(fmt.Sprintf("%d requests", len(cases))) + `</p></body></html>`), nil
}

// Text a web form sends: Hebrew and Arabic with their spaces and marks,
// emoji with their joiners and variation selectors.
const (
	hebrew = "שלום עולם"
	arabic = "مرحبا بالعالم"
	family = "👨‍👩‍👧‍👦"
	pride  = "🏳️‍🌈"
	rlmTag = "\u200fעברית" // U+200F RIGHT-TO-LEFT MARK, which right-to-left text carries
)

func browserCases() []browserCase {
	str := func(s string) *string { return &s }
	jsonBody := `{"name":"` + hebrew + `","city":"` + arabic + `","flag":"` + pride + `"}`
	wantJSON := map[string]any{"name": hebrew, "city": arabic, "flag": pride}
	fileText := "مرحبا\nשלום\n"
	sum := sha256.Sum256([]byte(fileText))
	overlong := []int{0x2F, 0xC0, 0xAE, 0x2E, 0x2F} // "/../" as RFC 3629 section 10 warns a lax decoder reads it
	search := hebrew + " " + arabic + " " + family + " 1+1=2 & 100%"
	quoted := `say "שלום" 🎉.txt`
	// uploaded is the upload handler's list of files for fileText sent
	// as the file "file" named name.
	uploaded := func(name string) []any {
		return []any{map[string]any{"field": "file", "filename": name,
			"size": float64(len(fileText)), "sha256": hex.EncodeToString(sum[:])}}
	}
	strictLog := func(method, reason, location string) *logExpect {
		return &logExpect{reason: reason, location: location, offset: -1, method: method, route: "/strict/*", mode: "enforce"}
	}
	return []browserCase{
		{Name: "Hebrew path, Arabic query, written as they are", URL: "/strict/" + hebrew + "?q=" + arabic + "&tag=" + rlmTag,
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "param", ans["param"], hebrew)
				want(t, "path", ans["path"], "/strict/"+hebrew)
				want(t, "query", ans["query"], map[string]any{"q": []any{arabic}, "tag": []any{rlmTag}})
			}},
		{Name: "emoji in the query", URL: "/strict/x?family=" + family + "&flag=" + pride,
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "query", ans["query"], map[string]any{"family": []any{family}, "flag": []any{pride}})
			}},
		{Name: "form", URL: "/strict/fetch-form", Method: "POST", Form: map[string]string{"name": hebrew, "city": arabic, "family": family},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "form", ans["form"], map[string]any{"name": []any{hebrew}, "city": []any{arabic}, "family": []any{family}})
			}},
		{Name: "JSON", URL: "/strict/json", Method: "POST", Type: "application/json", Body: str(jsonBody),
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "json", ans["json"], wantJSON) }},
		{Name: "JSON in gzip", URL: "/strict/json", Method: "POST", Type: "application/json", Body: str(jsonBody), Gzip: true,
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "json", ans["json"], wantJSON) }},
		{Name: "JSON in gzip, monitor mode", URL: "/monitor/json", Method: "POST", Type: "application/json", Body: str(jsonBody), Gzip: true,
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "json", ans["json"], wantJSON) }},
		{Name: "file upload", URL: "/upload/fetch", Method: "POST", Fields: map[string]string{"title": hebrew},
			File:   &browserFile{Name: "קובץ.txt", Type: "text/plain", Content: fileText},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "fields", ans["fields"], map[string]any{"title": []any{hebrew}})
				want(t, "files", ans["files"], uploaded("קובץ.txt"))
			}},
		{Name: "form submitted by a <form> of the page", URL: "/strict/nav-form", Method: "POST", Nav: true,
			Form:   map[string]string{"name": hebrew, "city": arabic, "family": family},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "form", ans["form"], map[string]any{"name": []any{hebrew}, "city": []any{arabic}, "family": []any{family}})
			}},
		{Name: "file uploaded by a <form> of the page", URL: "/upload/nav", Method: "POST", Nav: true,
			Fields: map[string]string{"title": hebrew}, File: &browserFile{Name: "קובץ.txt", Type: "text/plain", Content: fileText},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "fields", ans["fields"], map[string]any{"title": []any{hebrew}})
				want(t, "files", ans["files"], uploaded("קובץ.txt"))
			}},
		{Name: "NFC", URL: "/nfc/fetch?q=" + decomposed, status: 200, check: func(t *testing.T, ans map[string]any) {
			want(t, "query", ans["query"], map[string]any{"q": []any{composed}})
		}},

		// The demo's own page, its forms as they are.
		{Name: "the demo page's form", URL: "/strict/form", Demo: "strict",
			status: 200, check: func(t *testing.T, ans map[string]any) {
				// A textarea's line breaks go as CR LF (HTML's form
				// submission), which the strict preset takes in values.
				want(t, "form", ans["form"], map[string]any{"name": []any{hebrew}, "city": []any{"القاهرة"}, "note": []any{"👩‍💻 🏳️‍🌈 café"},
					"message": []any{"שורה ראשונה\r\nالسطر الثاني"}})
			}},
		{Name: "the demo page's upload", URL: "/upload/x", Demo: "upload", File: &browserFile{Name: "קובץ.txt", Type: "text/plain", Content: fileText},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "fields", ans["fields"], map[string]any{"title": []any{"מסמך"}})
				want(t, "files", ans["files"], uploaded("קובץ.txt"))
			}},
		{Name: "the demo page's NFC form", URL: "/nfc/x?q=e%CC%81", Demo: "nfc",
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "query", ans["query"], map[string]any{"q": []any{composed}})
			}},
		{Name: "the demo page's refused form", URL: "/strict/filename", Demo: "refused",
			status: 400, log: &logExpect{reason: "forbidden_char", location: "form", class: "bidi_control", offset: -1, method: "POST", route: "/strict/*", mode: "enforce"}},

		{Name: "overlong /../ in a body", URL: "/strict/x", Method: "POST", Type: "text/plain", Octets: overlong,
			status: 400, log: strictLog("POST", "overlong", "body")},
		{Name: "overlong dots in the path's escapes", URL: "/strict/%C0%AE%C0%AE/x",
			status: 400, log: strictLog("GET", "overlong", "path")},
		{Name: "a surrogate in the query's escapes", URL: "/strict/x?q=%ED%A0%80",
			status: 400, log: strictLog("GET", "surrogate", "query")},
		{Name: `a surrogate in a JSON escape ("\ud800")`, URL: "/strict/x", Method: "POST", Type: "application/json", Body: str(`{"a":"\ud800"}`),
			status: 400, log: strictLog("POST", "surrogate", "json")},
		{Name: "a bidi override in a form field (a file name that reads backwards)", URL: "/strict/x", Method: "POST",
			Form:   map[string]string{"name": "invoice\u202Efdp.exe"},
			status: 400, log: &logExpect{reason: "forbidden_char", location: "form", class: "bidi_control", offset: -1, method: "POST", route: "/strict/*", mode: "enforce"}},
		{Name: "overlong /../ in a body, monitor mode", URL: "/monitor/x", Method: "POST", Type: "text/plain", Octets: overlong,
			status: 200, log: &logExpect{reason: "overlong", location: "body", offset: -1, method: "POST", route: "/monitor/*", mode: "monitor"}},

		// What a page sends without fetch or a form: beacons (analytics,
		// a page's last words), keepalive fetches, an EventSource, a
		// link's ping. Each is text in UTF-8 under a type the strict
		// preset reads, or no body: each is accepted, and logs nothing.
		{Name: "a beacon of a string (text/plain;charset=UTF-8)", URL: "/strict/beacon-text", Send: "beacon",
			Body: str(hebrew + " " + family), status: 200},
		{Name: "a beacon of URLSearchParams (a form, charset=UTF-8)", URL: "/strict/beacon-form", Send: "beacon",
			Form: map[string]string{"name": hebrew, "city": arabic}, status: 200},
		{Name: "a beacon of a Blob of application/json", URL: "/strict/beacon-json", Send: "beacon",
			Type: "application/json", Body: str(jsonBody), status: 200},
		{Name: "a beacon of nothing (no body, no Content-Type)", URL: "/strict/beacon-empty", Send: "beacon", status: 200},
		{Name: "fetch with keepalive", URL: "/strict/keepalive", Method: "POST", Type: "application/json", Body: str(jsonBody), Keepalive: true,
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "json", ans["json"], wantJSON) }},
		// The route answers JSON, not text/event-stream, so the
		// EventSource fails: the request is what counts.
		{Name: "an EventSource (Accept: text/event-stream)", URL: "/strict/events?topic=%D7%A9%D7%9C%D7%95%D7%9D", Send: "eventsource", status: 200},
		{Name: "a link's ping (POST, text/ping, PING)", URL: "/strict/ping", Send: "ping", status: 200},
		{Name: "a CSP violation report (POST, application/csp-report, JSON)", URL: "/strict/csp-report", Send: "csp", status: 200},

		// Forms as <form> elements send them, the browser's own encoding.
		{Name: "a <form enctype=text/plain>: name=value lines ending in CR LF", URL: "/strict/text-form", Method: "POST", Nav: true,
			Enctype: "text/plain", Form: map[string]string{"name": hebrew, "note": "שורה\nسطر"},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "body", ans["body"], "name="+hebrew+"\r\nnote=שורה\r\nسطر\r\n")
			}},
		// The URL is the target the browser must make of the form: + for
		// spaces, every other octet of the UTF-8 escaped.
		{Name: "a <form method=get>: the query in form encoding, + for spaces", URL: "/strict/get-form?q=" + url.QueryEscape(search),
			Method: "GET", Nav: true, Form: map[string]string{"q": search},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "query", ans["query"], map[string]any{"q": []any{search}})
			}},
		// Chrome writes a file name's " as %22 in the part's header (HTML's
		// multipart/form-data encoding), and the handler reads that.
		{Name: "a file name with a double quote and an emoji, by a <form>", URL: "/upload/quoted-name", Method: "POST", Nav: true,
			Fields: map[string]string{"title": hebrew}, File: &browserFile{Name: quoted, Type: "text/plain", Content: fileText},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "files", ans["files"], uploaded(`say %22שלום%22 🎉.txt`))
			}},
		{Name: "a file name with a double quote and an emoji, by fetch", URL: "/upload/quoted-name-fetch", Method: "POST",
			Fields: map[string]string{"title": hebrew}, File: &browserFile{Name: quoted, Type: "text/plain", Content: fileText},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "files", ans["files"], uploaded(`say %22שלום%22 🎉.txt`))
			}},
		// No file chosen: a part with filename="" and an empty body of
		// application/octet-stream, which the strict preset takes even
		// where file contents are text (and Go's form reader takes for
		// an empty field, having no file name).
		{Name: "a <form> whose file input has no file chosen", URL: "/strict/no-file", Method: "POST", Nav: true,
			Fields: map[string]string{"title": hebrew}, File: &browserFile{},
			status: 200, check: func(t *testing.T, ans map[string]any) {
				want(t, "form", ans["form"], map[string]any{"title": []any{hebrew}, "file": []any{""}})
			}},

		// A page that declares a charset: the strict preset takes UTF-8
		// under any of its names and refuses a body declared in another
		// charset, whatever its octets (ASCII text included): it cannot
		// know which reading the handler will follow.
		{Name: "text/plain;charset=utf8, a name of UTF-8", URL: "/strict/charset-utf8", Method: "POST", Type: "text/plain;charset=utf8", Body: str(hebrew),
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "body", ans["body"], hebrew) }},
		{Name: "text/plain;charset=ISO-8859-1 on ASCII text", URL: "/strict/charset-latin1-ascii", Method: "POST", Type: "text/plain;charset=ISO-8859-1", Body: str("hello"),
			status: 400, log: &logExpect{reason: "bad_charset", location: "body", field: "ISO-8859-1", checkField: true, offset: -1, method: "POST", route: "/strict/*", mode: "enforce"}},
		{Name: "text/plain;charset=ISO-8859-1 on UTF-8 text", URL: "/strict/charset-latin1-utf8", Method: "POST", Type: "text/plain;charset=ISO-8859-1", Body: str(hebrew),
			status: 400, log: &logExpect{reason: "bad_charset", location: "body", field: "ISO-8859-1", checkField: true, offset: -1, method: "POST", route: "/strict/*", mode: "enforce"}},

		// HEAD and OPTIONS from fetch log nothing; Echo's router answers
		// them, the demo routing GET and POST only: 405 for HEAD, 204
		// for OPTIONS.
		{Name: "fetch with method HEAD", URL: "/strict/head", Method: "HEAD", status: 405},
		{Name: "fetch with method OPTIONS", URL: "/strict/options", Method: "OPTIONS", status: 204},

		// Cookies the page sets, each for its case's path only: sent as
		// written, never percent-decoded (RFC 6265 defines no decoding).
		{Name: "a cookie of emoji", URL: "/strict/cookie-emoji", Cookie: "e=" + family + pride + "; path=/strict/cookie-emoji",
			status: 200, cookies: []string{"e=" + family + pride}},
		{Name: "a cookie of percent-encoded UTF-8 and a bare %", URL: "/strict/cookie-escaped", Cookie: "p=%D7%A9%D7%9C%D7%95%D7%9D%20100%; path=/strict/cookie-escaped",
			status: 200, cookies: []string{"p=%D7%A9%D7%9C%D7%95%D7%9D%20100%"}},
		{Name: "two cookies", URL: "/strict/cookie-two", Cookie: "a=" + arabic + "; path=/strict/cookie-two\nb=" + hebrew + "; path=/strict/cookie-two",
			status: 200, cookies: []string{"a=" + arabic + "; b=" + hebrew}},

		// Last: every request after it carries the cookie.
		{Name: "a cookie set by the page", URL: "/strict/cookie", Cookie: "lang=" + hebrew + "; path=/",
			status: 200, check: func(t *testing.T, ans map[string]any) { want(t, "path", ans["path"], "/strict/cookie") }},
	}
}

func want(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %#v, want %#v", what, got, want)
	}
}

// recorder keeps the protocol, request target and status of every request
// that reaches the app.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	proto, method, target string
	cookies               []string
	status                int
	requestID             string // the answer's X-Request-Id
}

func (r *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: 200}
		target := req.URL.RequestURI()
		h.ServeHTTP(sw, req)
		r.mu.Lock()
		r.reqs = append(r.reqs, recorded{req.Proto, req.Method, target, req.Header.Values("Cookie"), sw.status, w.Header().Get("X-Request-Id")})
		r.mu.Unlock()
	})
}

// saw reports whether a request for target has been answered.
func (r *recorder) saw(target string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.reqs {
		if q.target == target {
			return true
		}
	}
	return false
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

// statusWriter keeps the status a handler writes.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
