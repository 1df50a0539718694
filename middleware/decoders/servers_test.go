package decoders

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// serve is the handler of every server: it runs the oracle on the request
// and answers 200 with the findings, marked X-Oracle: ran so that the test
// knows the handler ran.
func serve(w http.ResponseWriter, r *http.Request) {
	findings := inspect(r)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Oracle", "ran")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(findings)
}

// A server is one adapter mounted with the strict preset, and the client
// that reaches it.
type server struct {
	name   string
	url    string
	client *http.Client
	proto  int // the HTTP major version the client must have spoken
}

// startServers starts the Echo v4, Echo v5 and net/http servers over
// HTTP/1.1, and the net/http one again over HTTP/2 without TLS (h2c),
// each with rules.Strict().
func startServers(t *testing.T) []server {
	t.Helper()
	p := rules.Strict()
	nop := zerolog.Nop()

	e4 := echo4.New()
	e4.HideBanner = true
	e4.Use(echov4.WithConfig(echov4.Config{Rules: p, Logger: &nop}))
	e4.Any("/*", func(c echo4.Context) error {
		serve(c.Response(), c.Request())
		return nil
	})

	e5 := echo5.New()
	e5.Use(echov5.WithConfig(echov5.Config{Rules: p, Logger: &nop}))
	e5.Any("/*", func(c *echo5.Context) error {
		serve(c.Response(), c.Request())
		return nil
	})

	mux := http.NewServeMux()
	mux.HandleFunc("/", serve)
	nh := middleware.Handler(middleware.HTTPConfig{Rules: p, Logger: &nop})(mux)

	var out []server
	for _, s := range []struct {
		name string
		h    http.Handler
	}{{"echo-v4", e4}, {"echo-v5", e5}, {"net/http", nh}} {
		srv := httptest.NewServer(s.h)
		t.Cleanup(srv.Close)
		out = append(out, server{name: s.name, url: srv.URL, client: srv.Client(), proto: 1})
	}

	h2 := httptest.NewUnstartedServer(nh)
	h2.Config.Protocols = new(http.Protocols)
	h2.Config.Protocols.SetHTTP1(true)
	h2.Config.Protocols.SetUnencryptedHTTP2(true)
	h2.Start()
	t.Cleanup(h2.Close)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(tr.CloseIdleConnections)
	out = append(out, server{name: "net/http-h2c", url: h2.URL, client: &http.Client{Transport: tr}, proto: 2})
	return out
}

// result is what one request came to.
type result struct {
	status   int
	ran      bool // the handler ran: the middleware accepted the request
	findings []finding
	answer   string // the response body, for a refusal's reason
}

func post(t *testing.T, s server, contentType string, body []byte) result {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+"/upload", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != s.proto {
		t.Fatalf("%s: answered over HTTP/%d, want HTTP/%d", s.name, resp.ProtoMajor, s.proto)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", s.name, err)
	}
	res := result{status: resp.StatusCode, ran: resp.Header.Get("X-Oracle") == "ran", answer: string(b)}
	if res.ran {
		if err := json.Unmarshal(b, &res.findings); err != nil {
			t.Fatalf("%s: the handler's answer %q: %v", s.name, b, err)
		}
	}
	return res
}
