// Package wiretest starts test servers on 127.0.0.1 that speak one
// protocol, with a transport that speaks it too: HTTP/1.1, HTTP/2 without
// TLS (h2c) or HTTP/2 over TLS (h2). The conformance kit (adaptertest) and
// package middleware's test harness start theirs with it; no program links
// it.
package wiretest

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
)

// Start starts h on 127.0.0.1 speaking proto ("http1", "h2c" or "h2"),
// its server edited by edit first (nil: as it is), and returns it with a
// transport that speaks proto only. The h2 transport resumes TLS sessions
// and takes a classical key exchange: a full handshake (an RSA signature,
// ML-KEM) per connection would be most of the CPU a test of many
// connections takes, and TLS is not what these tests test.
func Start(h http.Handler, proto string, edit func(*http.Server)) (*httptest.Server, *http.Transport, error) {
	srv := httptest.NewUnstartedServer(h)
	if edit != nil {
		edit(srv.Config)
	}
	tr := &http.Transport{DisableCompression: true, Protocols: new(http.Protocols)}
	switch proto {
	case "http1":
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		tr.Protocols.SetHTTP1(true)
		srv.Start()
	case "h2c":
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		tr.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
	case "h2":
		srv.EnableHTTP2 = true
		srv.StartTLS()
		tr.Protocols.SetHTTP2(true)
		tr.TLSClientConfig = &tls.Config{RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
			ClientSessionCache: tls.NewLRUClientSessionCache(0), CurvePreferences: []tls.CurveID{tls.X25519}}
	default:
		return nil, nil, fmt.Errorf("wiretest: no protocol %q", proto)
	}
	return srv, tr, nil
}
