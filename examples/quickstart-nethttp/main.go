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

func newHandler() (http.Handler, error) {
	logger := zerolog.New(os.Stderr).With().Timestamp().Logger()
	// The keys are ServeMux patterns: wrapping each handler registered
	// on the mux lets the adapter see the pattern a request matched.
	guard, err := middleware.HTTPConfig{
		Rules: rules.Table{
			Default: rules.Strict(),
			Routes:  map[string]rules.Policy{"/proxy/": rules.Unchecked()},
		},
		Logger: &logger,
	}.ToHandler()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /users/{id}", guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(r.PathValue("id"))) // decoded and validated
	})))
	mux.Handle("/proxy/", guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("passed on as sent")) // a reverse proxy, say
	})))
	return mux, nil
}
