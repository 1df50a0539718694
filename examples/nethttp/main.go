// Command nethttp shows utf8guard's net/http adapter on a plain
// http.ServeMux: the same policies and log lines as the Echo middleware,
// without Echo.
//
//	go run ./examples/nethttp [-addr 127.0.0.1:8081]
//
// GET or POST /strict/{rest...} is checked with the strict preset,
// /open/{rest...} is not checked; both echo what the handler sees.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "address to listen on")
	flag.Parse()
	logger := zerolog.New(os.Stdout).With().Timestamp().Logger()
	table := &rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/open/{rest...}": rules.Unchecked()},
	}
	// Wrapping each handler (not the mux) lets the adapter see the mux
	// pattern the request matched (http.Request.Pattern) as its route.
	guard := middleware.Handler(middleware.HTTPConfig{Rules: table, Logger: &logger})
	mux := http.NewServeMux()
	mux.Handle("/strict/{rest...}", guard(http.HandlerFunc(echoRequest)))
	mux.Handle("/open/{rest...}", guard(http.HandlerFunc(echoRequest)))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	// Listen before saying so: a port in use is an error, not a start-up
	// line followed by one.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nethttp:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "utf8guard net/http demo listening on http://%s\n", ln.Addr())
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "nethttp:", err)
		os.Exit(1)
	}
}

func echoRequest(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "reading the body failed", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"path":  r.URL.Path,
		"rest":  r.PathValue("rest"),
		"query": r.URL.Query(),
		"body":  string(body),
	})
}
