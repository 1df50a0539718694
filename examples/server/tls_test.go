package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"
)

var tlsLine = regexp.MustCompile(`listening on https://\S+ \(.*HTTP/1\.1 and HTTP/2 over TLS; self-signed certificate, SHA-256 ((?:[0-9A-F]{2}:){31}[0-9A-F]{2});`)

// testTLS: with -tls the demo speaks HTTPS, HTTP/2 and HTTP/1.1 as
// browsers do, with a certificate for 127.0.0.1 whose fingerprint its
// start-up line gives; its strict route takes Hebrew in the path and
// Arabic in the query, and refuses an overlong /../ in a body, with one
// log line, over both.
func testTLS(t *testing.T, bin string) {
	d := startDemo(t, bin, "-tls")
	m := tlsLine.FindStringSubmatch(d.stderr.String())
	if m == nil {
		t.Fatalf("no https start-up line with the certificate's fingerprint:\n%s", d.stderr.String())
	}
	verify := func(cs tls.ConnectionState) error {
		cert := cs.PeerCertificates[0]
		if got := fingerprint(cert.Raw); got != m[1] {
			return fmt.Errorf("certificate SHA-256 %s, the start-up line says %s", got, m[1])
		}
		roots := x509.NewCertPool()
		roots.AddCert(cert)
		_, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1"})
		return err
	}
	for _, proto := range []string{"HTTP/2.0", "HTTP/1.1"} {
		tr := &http.Transport{
			// The chain is checked in verify: the certificate is its own root.
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true, VerifyConnection: verify},
			Protocols:       new(http.Protocols),
		}
		if proto == "HTTP/2.0" {
			tr.Protocols.SetHTTP2(true)
		} else {
			tr.Protocols.SetHTTP1(true)
		}
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		send := func(name, method, target, ct string, body []byte, wantStatus int, want *logExpect) []byte {
			t.Helper()
			req, err := http.NewRequest(method, "https://"+d.addr+target, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s over %s: %v", name, proto, err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != wantStatus || resp.Proto != proto {
				t.Errorf("%s: %s %d, want %s %d: %s", name, resp.Proto, resp.StatusCode, proto, wantStatus, b)
			}
			d.mu.Lock()
			d.sent = append(d.sent, sent{name: name + " over " + proto, requestID: resp.Header.Get("X-Request-Id"), want: want})
			d.mu.Unlock()
			return b
		}
		b := send("Hebrew path, Arabic query", "GET", "/strict/%D7%A9%D7%9C%D7%95%D7%9D?q=%D9%85%D8%B1%D8%AD%D8%A8%D8%A7", "", nil, 200, nil)
		var ans struct {
			Param string              `json:"param"`
			Query map[string][]string `json:"query"`
		}
		if err := json.Unmarshal(b, &ans); err != nil || ans.Param != "שלום" || len(ans.Query["q"]) != 1 || ans.Query["q"][0] != "مرحبا" {
			t.Errorf("over %s: answer %s (%v); want the param שלום and the query q=مرحبا", proto, b, err)
		}
		send("overlong /../ in a body", "POST", "/strict/x", "text/plain", []byte{0x2F, 0xC0, 0xAE, 0x2E, 0x2F}, 400,
			&logExpect{reason: "overlong", location: "body", offset: 1, method: "POST", route: "/strict/*", mode: "enforce"})
		tr.CloseIdleConnections()
	}
	d.shutdown(t)
	d.checkLog(t)
}
