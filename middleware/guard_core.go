package middleware

import (
	"context"
	"errors"
	"net/http"
	"os"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// guard is the compiled configuration shared by the Echo middleware and
// the net/http adapter.
type guard struct {
	def         *policy
	routes      map[string]*policy
	logger      zerolog.Logger
	logAccepted bool
}

func newGuard(pol *rules.Policy, table *rules.Table, logger *zerolog.Logger, logAccepted bool) (*guard, error) {
	if pol != nil && table != nil {
		return nil, errors.New("utf8guard: set Policy or Routes, not both")
	}
	g := &guard{logAccepted: logAccepted}
	switch {
	case table != nil:
		g.def = compile(table.Default)
		g.routes = make(map[string]*policy, len(table.Routes))
		for route, p := range table.Routes {
			g.routes[route] = compile(p)
		}
	case pol != nil:
		g.def = compile(*pol)
	default:
		g.def = compile(rules.Default())
	}
	if logger != nil {
		g.logger = *logger
	} else {
		g.logger = zerolog.New(os.Stderr).With().Timestamp().Logger()
	}
	return g, nil
}

func (g *guard) lookup(route string) *policy {
	if p, ok := g.routes[route]; ok {
		return p
	}
	return g.def
}

// inspect checks r under p: path, path parameters (names and values, from
// Echo, escaped or not as Match.Escaped says; nil otherwise), query,
// headers, body, in that order, and stops at the first violation. On
// acceptance r may have been rewritten (repairs) and params holds the
// decoded parameter values when they differ from values. A body that could
// not be read is a Rejection too (body_unreadable).
func (g *guard) inspect(s *scratch, r *http.Request, p *policy, names, values []string, escaped bool) (params []string, rj *Rejection) {
	if p.Path.On {
		routedRaw := escaped // as the router saw it
		var repaired bool
		if rj, repaired = s.checkPath(r, p); rj != nil {
			return nil, rj
		}
		if params, rj = s.checkParams(names, values, p, routedRaw, repaired); rj != nil {
			return nil, rj
		}
		if names == nil && r.Pattern != "" {
			if rj = checkPathValues(r, p); rj != nil {
				return nil, rj
			}
		}
		// The parameters a router has not cut yet (the net/http adapter
		// wrapped around a ServeMux) or that no one named.
		if rj = segmentBOM(r, p); rj != nil {
			return nil, rj
		}
	}
	if p.Query.On && r.URL.RawQuery != "" {
		fixed, changed, rj := s.checkPairs(r.URL.RawQuery, rules.Query, &p.Query, p.queryMode, &p.Limits)
		if rj != nil {
			return nil, rj
		}
		if changed {
			r.URL.RawQuery = fixed
		}
	}
	if p.Header.On {
		if rj = checkHeaders(r, p); rj != nil {
			return nil, rj
		}
	}
	if p.Cookies && len(r.Header["Cookie"]) > 0 {
		if rj = checkCookies(r, p); rj != nil {
			return nil, rj
		}
	}
	if rj = s.checkBody(r, p); rj != nil {
		return params, rj
	}
	if p.canon {
		params, rj = s.canonicalize(r, p, names, values, params)
	}
	return params, rj
}

// loggerFor returns the logger of the request's context when one is set
// there (zerolog.Ctx, as hlog sets it), so fields added by earlier
// middleware carry through, and the configured logger otherwise.
func (g *guard) loggerFor(ctx context.Context) *zerolog.Logger {
	if l := zerolog.Ctx(ctx); l.GetLevel() != zerolog.Disabled {
		return l
	}
	return &g.logger
}

// requestIdentity is what the log says of who sent a request: its id and
// whether the client chose that id, and the client's address.
type requestIdentity struct {
	id       string
	idClient bool // the id is the X-Request-Id the client sent
	remoteIP string
}

// event adds the identity fields to e: request_id, request_id_client (only
// when true: the client chose the id, so it can be forged or replayed),
// remote_ip.
func (id requestIdentity) event(e *zerolog.Event) *zerolog.Event {
	e = e.Str("request_id", safeField(id.id))
	if id.idClient {
		e = e.Bool("request_id_client", true)
	}
	return e.Str("remote_ip", safeField(id.remoteIP))
}

// logRejection writes the one log event of a rejected or flagged request.
func (g *guard) logRejection(r *http.Request, rj *Rejection, who requestIdentity) {
	e := g.loggerFor(r.Context()).Warn()
	if e == nil {
		return
	}
	if rj.Class != 0 {
		e = e.Str("class", rj.Class.String())
	}
	msg := "utf8guard: request rejected"
	if rj.Mode == rules.Monitor {
		msg = "utf8guard: request flagged"
	}
	if rj.Reason == sanitize.BodyUnreadable && rj.Err != nil {
		// The cause alone: the reason says the rest, and the field is
		// bounded (safeField), so a longer text would cut the cause off.
		e = e.Str("error", safeField(readCause(rj.Err).Error()))
	}
	e.Str("reason", rj.Reason.String()).
		Str("location", rj.Location.String()).
		Str("field", rj.Field).
		Int("offset", rj.Offset).
		Str("sample", rj.Sample).
		Str("method", safeField(r.Method)).
		Str("route", safeField(rj.Route))
	who.event(e).
		Str("mode", rj.Mode.String()).
		Msg(msg)
}

// readCause returns what made a body read fail: err without the
// errBodyRead that readBody joins to it.
func readCause(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != errBodyRead {
				return e
			}
		}
	}
	return err
}

func (g *guard) logAccept(r *http.Request, route string) {
	if !g.logAccepted {
		return
	}
	g.loggerFor(r.Context()).Debug().
		Str("method", safeField(r.Method)).
		Str("route", safeField(route)).
		Msg("utf8guard: request accepted")
}
