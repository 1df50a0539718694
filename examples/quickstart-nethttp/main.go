// Command quickstart-nethttp is the README's quick start on net/http.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	h, err := newHandler()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}

// README:begin
func newHandler() (http.Handler, error) {
	logger := zerolog.New(os.Stderr).With().Timestamp().Logger()
	policies := rules.Table{
		Default: rules.Strict(),
		Routes:  map[string]rules.Policy{"/proxy/": rules.Unchecked()},
	}
	// The keys are ServeMux patterns: wrapping each handler registered
	// on the mux lets the adapter see the pattern a request matched.
	guard, err := middleware.HTTPConfig{Rules: policies, Logger: &logger}.ToHandler()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	var patterns []string
	handle := func(pattern string, h http.HandlerFunc) {
		patterns = append(patterns, pattern)
		mux.Handle(pattern, guard(h))
	}
	handle("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.PathValue("id"))) // decoded and validated
	})
	handle("/proxy/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("passed on as sent")) // a reverse proxy, say
	})
	// Every key of the table must name a registered pattern: a typo
	// ("/proxi/") is an error here, not a route that silently gets the
	// default.
	return mux, middleware.CheckMuxRoutes(policies, patterns)
}

// README:end
