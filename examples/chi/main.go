// Command chi is the chi recipe: utf8guard's net/http adapter
// mounted where chi has routed, the table's keys checked against chi's
// routes at start-up, and the log line's request_id from chi's RequestID.
//
// It is a module of its own, so that utf8guard does not depend on chi:
// run it with (cd examples/chi && go run .).
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

func main() {
	h, err := newRouter(policies(), zerolog.New(os.Stderr).With().Timestamp().Logger())
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", h))
}

// policies is the table: the strict preset, usernames in PRECIS form on
// GET /users/{id}, and notes taken in monitor mode while clients are
// fixed.
func policies() rules.Table {
	users := rules.Strict()
	users.Precis = []rules.PrecisField{{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped}}
	return rules.Table{
		Default: rules.Strict(),
		Routes: map[string]rules.Policy{
			"GET /users/{id}":        users,
			"POST /users/{id}/notes": rules.Strict().AsMonitor(),
		},
	}
}

func newRouter(table rules.Table, logger zerolog.Logger) (http.Handler, error) {
	guard, err := middleware.HTTPConfig{
		Rules:     table,
		Logger:    &logger,
		RequestID: func(r *http.Request) string { return chimw.GetReqID(r.Context()) },
	}.ToHandler()
	if err != nil {
		return nil, err
	}
	r := chi.NewRouter()
	r.Use(chimw.RequestID) // before routing: fine for what does not read the request
	r.With(guard).Get("/users/{id}", showUser)
	r.Group(func(r chi.Router) {
		r.Use(guard) // in a group: after routing
		r.Post("/users/{id}/notes", addNote)
	})

	// Every key must name a route chi has: "GET /users/{id}" names chi's
	// "/users/{id}" walked with GET.
	var routes []string
	err = chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		routes = append(routes, method+" "+route)
		return nil
	})
	if err == nil {
		err = middleware.CheckMuxRoutes(table, routes)
	}
	return r, err
}

func showUser(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id") // checked, and PRECIS-enforced: not chi.URLParam
	_, _ = w.Write([]byte(id))
}

func addNote(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusCreated)
}
