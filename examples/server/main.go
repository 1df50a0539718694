// Command server is the utf8guard demo: an Echo server with one route per
// kind of policy, so that what utf8guard accepts, rejects and logs can be
// tried with curl.
//
//	go run ./examples/server [-addr 127.0.0.1:8080] [-policy file.json] [-echo v5|v4] [-tls]
//
// -echo chooses the Echo major version it runs on, with utf8guard's
// adapter for it (middleware/echov5 for v5, the default; middleware for
// v4): the routes, answers and log lines are the same on both. It speaks
// HTTP/1.1 and HTTP/2 with prior knowledge (h2c) on the same port:
//
//	curl --http2-prior-knowledge http://127.0.0.1:8080/strict/x
//
// With -tls it speaks HTTPS instead, HTTP/1.1 and HTTP/2 as a browser
// does, with a certificate for localhost, 127.0.0.1 and ::1 that it makes
// at start-up and signs itself: a browser warns of it, curl needs -k, and
// the start-up line gives its SHA-256 fingerprint to compare with the one
// the browser shows.
//
//	go run ./examples/server -tls    # https://127.0.0.1:8080/strict/x
//
// Routes, for GET and POST:
//
//	/strict/*   the strict preset
//	/nfc/*      the strict preset plus NFC normalization
//	/monitor/*  the strict preset in monitor mode: logged, never rejected
//	/open/*     no checks
//	/static/*   files from public/, under the strict preset: hello.txt,
//	            and index.html, forms to try the routes in a browser
//	/upload/*   the strict preset, file contents as data, 256 MiB
//
// The first four answer 200 with a JSON echo of what the handler sees:
// {"path", "param", "query", "form", "json", "body"}. Rejections answer 400,
// 413 for bodies over 1 MiB, or 415 for a media type the strict preset
// does not check as text. Rejection logs go to stdout as JSON lines.
// Bodies in gzip or deflate are decoded by utf8guard on the checked routes,
// and by the decoders mounted after it (Echo's Decompress, app.Inflate)
// on /monitor/*, where utf8guard hands them on as sent: the handler reads
// the same body in both modes.
//
// /upload/* takes multipart/form-data uploads, checked as they stream in:
// field names, file names and fields under the strict preset, file
// contents passed on as data (any encoding: a UTF-16 .txt, a Windows-1252
// CSV), up to 256 MiB of files; a body sent in gzip or deflate is
// decoded as it streams in, within the same limits. Its handler streams
// the form with Request.MultipartReader and answers 200 with
// {"fields": {name: [values]}, "files": [{"field", "filename", "size",
// "sha256"}]}.
//
//	curl -F title=été -F file=@photo.jpg http://127.0.0.1:8080/upload/x
//
// The policy file and public/ are embedded in the binary, so it runs the
// same from any working directory; -policy reads another policy file. A
// policy file with a mistake, or with a route that names none of the
// routes above, stops the demo at start-up with an error that names it.
//
// With -policy, SIGHUP reads the file again and swaps the rules of the
// running server (rules.Live): requests under way finish under the old
// rules, the next ones get the new. A file with a mistake keeps the rules
// in force, and the demo says why on stderr:
//
//	kill -HUP $(pgrep -f examples/server)
//	utf8guard demo: policy reloaded from policy.json
//	utf8guard demo: policy.json not reloaded, the rules in force stay: rules: policy.json:3:14: ...
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/server/app"
	"github.com/utf8guard/utf8guard/examples/server/app/appv5"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

//go:embed policy.json
var defaultPolicy []byte

//go:embed public
var content embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	policyFile := flag.String("policy", "", "policy file (JSON); default: the embedded policy.json")
	echoVersion := flag.String("echo", "v5", "Echo major version to serve with: v5 or v4")
	useTLS := flag.Bool("tls", false, "serve HTTPS (HTTP/1.1 and HTTP/2, as browsers speak it) with a self-signed certificate made at start-up")
	flag.Parse()
	if err := run(*addr, *policyFile, *echoVersion, *useTLS); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run(addr, policyFile, echoVersion string, useTLS bool) error {
	newApp, ok := apps[echoVersion]
	if !ok {
		return fmt.Errorf("-echo %q: want v4 or v5", echoVersion)
	}
	table, err := loadPolicy(policyFile)
	if err != nil {
		return err
	}
	live, err := rules.NewLive(table)
	if err != nil {
		return err
	}
	logger := zerolog.New(os.Stdout).With().Timestamp().Logger()
	public, err := fs.Sub(content, "public")
	if err != nil {
		return err
	}
	e, err := newApp(live, &logger, public)
	if err != nil {
		return err
	}
	// SIGHUP reloads the policy file, from before the server listens: a
	// signal sent once the start-up line is out is never the default
	// action's (which ends the process).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			fmt.Fprintln(os.Stderr, reload(live, policyFile))
		}
	}()
	// Listen before saying so: the start-up line names the address actually
	// bound (a port of 0 picks a free one), and a port in use is an error
	// before it, not after.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	// HTTP/1.1 and HTTP/2 with prior knowledge (h2c) on the same port:
	// curl --http2-prior-knowledge speaks the HTTP/2 every browser speaks
	// over TLS, without a certificate. With -tls, HTTP/1.1 and HTTP/2
	// over TLS, as browsers speak them.
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	scheme, protocols := "http", "HTTP/1.1 and h2c"
	serve := func() error { return srv.Serve(ln) }
	if useTLS {
		cert, fingerprint, err := selfSigned(ln.Addr())
		if err != nil {
			ln.Close()
			return err
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		srv.Protocols.SetHTTP2(true)
		scheme, protocols = "https", "HTTP/1.1 and HTTP/2 over TLS; self-signed certificate, SHA-256 "+fingerprint
		serve = func() error { return srv.ServeTLS(ln, "", "") }
	} else {
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	fmt.Fprintf(os.Stderr, "utf8guard demo listening on %s://%s (Echo %s; %s; routes /strict/ /nfc/ /monitor/ /open/ /static/ /upload/)\n", scheme, ln.Addr(), echoVersion, protocols)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(os.Stderr, "shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdownCtx)
}

// apps builds the demo's server on each Echo major version -echo names.
// Each checks, once its routes are registered, that every route of the
// policy file names one of them: a key with a typo ("/monitr/*") would
// otherwise give that route's requests the default policy, silently.
var apps = map[string]func(rules.Ruleset, *zerolog.Logger, fs.FS) (http.Handler, error){
	"v4": func(t rules.Ruleset, l *zerolog.Logger, public fs.FS) (http.Handler, error) {
		e, err := app.New(t, l, public)
		if err != nil {
			return nil, err
		}
		if err := echov4.CheckRoutes(e, t); err != nil {
			return nil, err
		}
		return e, nil
	},
	"v5": func(t rules.Ruleset, l *zerolog.Logger, public fs.FS) (http.Handler, error) {
		e, err := appv5.New(t, l, public)
		if err != nil {
			return nil, err
		}
		if err := echov5.CheckRoutes(e, t); err != nil {
			return nil, err
		}
		return e, nil
	},
}

// reload reads file again and makes it the rules of live, and returns
// what to tell the operator: that it did, or why the rules in force stay.
func reload(live *rules.Live, file string) string {
	if file == "" {
		return "utf8guard demo: SIGHUP: no -policy file to reload (the embedded policy stays)"
	}
	t, err := rules.LoadFile(file)
	if err == nil {
		err = live.Set(t)
	}
	if err != nil {
		return fmt.Sprintf("utf8guard demo: %s not reloaded, the rules in force stay: %v", file, err)
	}
	return "utf8guard demo: policy reloaded from " + file
}

func loadPolicy(file string) (*rules.Table, error) {
	if file == "" {
		return rules.Parse(defaultPolicy)
	}
	return rules.LoadFile(file)
}

// selfSigned makes the certificate of -tls: an ECDSA P-256 key, and a
// certificate for a day, for localhost, 127.0.0.1, ::1 and the address
// the demo listens on, signed by its own key. It returns the certificate
// and its SHA-256 fingerprint, as browsers show it (hex, colons).
func selfSigned(addr net.Addr) (tls.Certificate, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "utf8guard demo"},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    now.Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if a, ok := addr.(*net.TCPAddr); ok && !a.IP.IsUnspecified() && !a.IP.IsLoopback() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, a.IP)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key) // a nil SerialNumber: a random one
	if err != nil {
		return tls.Certificate{}, "", err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, fingerprint(der), nil
}

// fingerprint is the SHA-256 of a certificate's DER, as browsers show it:
// "AB:CD:...".
func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	var b strings.Builder
	for i, c := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02X", c)
	}
	return b.String()
}
