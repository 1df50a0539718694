// Command server is the utf8guard demo: an Echo server with one route per
// kind of policy, so that what utf8guard accepts, rejects and logs can be
// tried with curl.
//
//	go run ./examples/server [-addr 127.0.0.1:8080] [-policy file.json]
//
// Routes, for GET and POST:
//
//	/strict/*   the strict preset
//	/nfc/*      the strict preset plus NFC normalization
//	/monitor/*  the strict preset in monitor mode: logged, never rejected
//	/open/*     no checks
//	/static/*   files from public/ (hello.txt), under the strict preset
//
// The first four answer 200 with a JSON echo of what the handler sees:
// {"path", "param", "query", "form", "json", "body"}. Rejections answer 400,
// or 413 for bodies over 1 MiB. Rejection logs go to stdout as JSON lines.
//
// The policy file and public/ are embedded in the binary, so it runs the
// same from any working directory; -policy reads another policy file.
package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

//go:embed policy.json
var defaultPolicy []byte

//go:embed public
var content embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	policyFile := flag.String("policy", "", "policy file (JSON); default: the embedded policy.json")
	flag.Parse()
	if err := run(*addr, *policyFile); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run(addr, policyFile string) error {
	table, err := loadPolicy(policyFile)
	if err != nil {
		return err
	}
	logger := zerolog.New(os.Stdout).With().Timestamp().Logger()
	e, err := newServer(table, &logger)
	if err != nil {
		return err
	}
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(os.Stderr, "utf8guard demo listening on http://%s (routes /strict/ /nfc/ /monitor/ /open/ /static/)\n", ln.Addr())
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

func loadPolicy(file string) (*rules.Table, error) {
	if file == "" {
		return rules.Parse(defaultPolicy)
	}
	return rules.LoadFile(file)
}

// newServer builds the demo's Echo instance with the policy table.
func newServer(table *rules.Table, logger *zerolog.Logger) (*echo.Echo, error) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	guard, err := middleware.Config{Routes: table, Logger: logger}.ToMiddleware()
	if err != nil {
		return nil, err
	}
	// RequestID first so the rejection log carries request_id; utf8guard
	// before anything that reads the request. utf8guard also bounds the
	// bodies it does not read as text, by the route's limit.
	e.Use(emw.RequestID(), guard)
	for _, prefix := range []string{"/strict/*", "/nfc/*", "/monitor/*", "/open/*"} {
		e.GET(prefix, echoRequest)
		e.POST(prefix, echoRequest)
	}
	public, err := fs.Sub(content, "public")
	if err != nil {
		return nil, err
	}
	e.GET("/static/*", func(c echo.Context) error {
		name := c.Param("*")
		if !fs.ValidPath(name) || name == "." {
			return echo.ErrNotFound
		}
		return echo.StaticFileHandler(name, public)(c)
	})
	return e, nil
}

// echoRequest answers with what the handler sees of the request.
func echoRequest(c echo.Context) error {
	r := c.Request()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return echo.ErrStatusRequestEntityTooLarge
		}
		return echo.NewHTTPError(http.StatusBadRequest, "reading the body failed")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	out := map[string]any{
		"path":  r.URL.Path,
		"param": c.Param("*"),
		"query": c.QueryParams(),
		"body":  string(body),
	}
	ct := r.Header.Get(echo.HeaderContentType)
	switch {
	case strings.HasPrefix(ct, echo.MIMEApplicationForm), strings.HasPrefix(ct, echo.MIMEMultipartForm):
		if _, err := c.FormParams(); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, "bad form")
		}
		// PostForm, not the result of FormParams (Request.Form), which
		// mixes the query in: "form" is what the body holds.
		out["form"] = r.PostForm
	case strings.HasPrefix(ct, echo.MIMEApplicationJSON):
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return echo.NewHTTPError(http.StatusBadRequest, "bad JSON")
		}
		out["json"] = v
	}
	return c.JSON(http.StatusOK, out)
}
