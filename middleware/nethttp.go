package middleware

import (
	"encoding/json"
	"net"
	"net/http"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/rules"
)

// HTTPConfig configures the net/http adapter: the same policies and log
// lines as the Echo middleware, for the standard library's ServeMux, chi
// and any other net/http router.
type HTTPConfig struct {
	// Rules is the policy of every route (a rules.Policy), or a table
	// (a rules.Table) that maps routes, as Route names them, to policies,
	// with a default for the rest.
	// A *rules.Live can be given new rules while the server runs.
	// Optional. Default value rules.Default().
	Rules rules.Ruleset

	// Route names the route of a request, for the Rules table and the log.
	// Optional. Default value: the request's ServeMux pattern
	// (http.Request.Pattern), which is set when the adapter wraps a handler
	// registered on a ServeMux, and empty when it wraps the ServeMux itself;
	// the table's keys are then ServeMux patterns, met as CheckMuxRoutes
	// says (a key with a method holds for that method of a pattern
	// without one, as chi reports them). With Route set, a key is the
	// route's name exactly.
	Route func(r *http.Request) string

	// RequestID returns the request's id, for the log line's request_id:
	// the id your own middleware gave the request, such as chi's
	// middleware.GetReqID(r.Context()). It is called only for a request
	// that is logged, with the request as the adapter received it.
	// Optional. Default value: the X-Request-Id header the client sent,
	// logged with request_id_client true (the client chose it, so it can
	// be forged or replayed; net/http gives a request no id of its own).
	// When set, its answer is the request_id, empty included, and the
	// client's header is not used.
	RequestID func(r *http.Request) string

	// Logger receives the rejection log lines, unless the request's context
	// carries a zerolog logger (zerolog.Ctx), which is then used instead.
	// Optional. Default value: JSON lines on os.Stderr with a timestamp.
	Logger *zerolog.Logger

	// LogAccepted writes a debug-level event for each accepted request.
	// Optional. Default value false.
	LogAccepted bool

	// OnReject is called for every rejected or flagged request, after the
	// log line.
	// Optional.
	OnReject func(r *http.Request, rj *Rejection)

	// Observe is called once for every request the adapter checks, with
	// its verdict (accepted, rejected, flagged, unchecked), its route and
	// its rejection: for metrics (PipelineConfig.Observe).
	// Optional.
	Observe func(r *http.Request, o Observation)

	// ErrorHandler writes the response to a rejected request.
	// Optional. Default value DefaultHTTPErrorHandler.
	ErrorHandler func(w http.ResponseWriter, r *http.Request, rj *Rejection)

	// TempDir is where a multipart body larger than 1 MiB is spooled
	// while it is checked and then read by the handler: one temporary
	// file per request, removed when the handler returns.
	// Optional. Default value os.TempDir().
	TempDir string

	// SpoolBytes bounds the octets the spooled bodies of all requests hold
	// in TempDir together; a body that would go past it is refused with
	// 503 spool_full (PipelineConfig.SpoolBytes).
	// Optional. Default value DefaultSpoolBytes; -1 for no bound.
	SpoolBytes int64
}

// DefaultHTTPErrorHandler answers a rejection with status rj.Status() and
// the JSON body {"reason": ..., "location": ...}; it never echoes the
// offending bytes.
func DefaultHTTPErrorHandler(w http.ResponseWriter, r *http.Request, rj *Rejection) {
	writeJSONError(w, rj.Status(), map[string]string{
		"reason":   rj.Reason.String(),
		"location": rj.Location.String(),
	})
}

func writeJSONError(w http.ResponseWriter, status int, body map[string]string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// Handler returns the net/http adapter with cfg. It panics if cfg is
// invalid; HTTPConfig.ToHandler returns the error instead.
func Handler(cfg HTTPConfig) func(http.Handler) http.Handler {
	h, err := cfg.ToHandler()
	if err != nil {
		panic(err)
	}
	return h
}

// ToHandler returns the net/http adapter with cfg, or an error if cfg is
// invalid. The handler it wraps runs only for accepted requests (and, in
// Monitor mode, flagged ones), with the request rewritten where the policy
// repairs.
func (cfg HTTPConfig) ToHandler() (func(http.Handler) http.Handler, error) {
	g, err := newGuard(cfg.Rules, cfg.Logger, cfg.LogAccepted)
	if err != nil {
		return nil, err
	}
	if cfg.Route == nil { // the keys are ServeMux patterns (validate.go)
		if err := validateMuxPatterns(cfg.Rules); err != nil {
			return nil, err
		}
		g.require(validateMuxPatterns)
	}
	if g.store, err = newSpoolStore(cfg.TempDir, cfg.SpoolBytes); err != nil {
		return nil, err
	}
	routeOf := cfg.Route
	lookup := func(route string, _ *http.Request) *compiled.Policy { return g.lookup(route) }
	if routeOf == nil {
		routeOf = func(r *http.Request) string { return r.Pattern }
		lookup = func(route string, r *http.Request) *compiled.Policy { return g.policies().lookupMux(route, r.Method) }
	}
	g.observer = cfg.Observe
	if cfg.RequestID != nil {
		g.identity = func(who any) Identity {
			r := who.(*http.Request)
			return Identity{RequestID: cfg.RequestID(r), RemoteIP: remoteIP(r)}
		}
	}
	onError := cfg.ErrorHandler
	if onError == nil {
		onError = DefaultHTTPErrorHandler
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			route := routeOf(r)
			var v Verdict
			v.Request, v.Params, v.Rejection, v.Pass, v.held = g.run(r, route, nil, nil, false, lookup(route, r), r)
			defer v.Release() // after the handler, and after its panic
			if v.Rejection != nil {
				if cfg.OnReject != nil {
					cfg.OnReject(v.Request, v.Rejection)
				}
				if !v.Pass {
					onError(w, v.Request, v.Rejection)
					return
				}
			}
			next.ServeHTTP(w, v.Request)
		})
	}, nil
}

// httpIdentity returns the request's identity for the log: the client's
// X-Request-Id (marked as the client's: net/http sets none of its own) and
// the connection's address.
func httpIdentity(r *http.Request) Identity {
	id := r.Header.Get("X-Request-Id")
	return Identity{RequestID: id, RequestIDFromClient: id != "", RemoteIP: remoteIP(r)}
}

// remoteIP is the host of the connection's remote address. Headers such as
// X-Forwarded-For are not trusted here: behind a proxy, log them yourself.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
