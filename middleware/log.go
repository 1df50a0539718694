package middleware

import (
	"context"
	"net/http"

	"github.com/rs/zerolog"
	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// loggerFor returns the logger of the request's context when one is set
// there (zerolog.Ctx, as hlog sets it, or Logger.WithContext), so fields
// added by earlier middleware carry through, and the configured logger
// otherwise. zerolog.Ctx returns zerolog.DefaultContextLogger, a global,
// for a context that carries none: that one is not the request's and
// never replaces the configured logger. A context logger that is
// disabled (zerolog.Ctx's answer when there is neither) does not either.
func (g *guard) loggerFor(ctx context.Context) *zerolog.Logger {
	if l := zerolog.Ctx(ctx); l != zerolog.DefaultContextLogger && l.GetLevel() != zerolog.Disabled {
		return l
	}
	return &g.logger
}

// identityOf returns the identity of r for the log, from who, what the
// adapter passed (PipelineConfig.Identity), or else from r itself.
func (g *guard) identityOf(r *http.Request, who any) Identity {
	if g.identity != nil {
		return g.identity(who)
	}
	return httpIdentity(r)
}

// event adds the identity fields to e: request_id, request_id_client (only
// when true: the client chose the id, so it can be forged or replayed),
// remote_ip.
func (id Identity) event(e *zerolog.Event) *zerolog.Event {
	e = e.Str("request_id", finding.SafeField(id.RequestID))
	if id.RequestIDFromClient {
		e = e.Bool("request_id_client", true)
	}
	return e.Str("remote_ip", finding.SafeField(id.RemoteIP))
}

// logRejection writes the one log event of a rejected or flagged request.
// who is what the adapter passed for the request's identity
// (PipelineConfig.Identity).
func (g *guard) logRejection(r *http.Request, rj *Rejection, who any) {
	l := g.loggerFor(r.Context())
	msg := "utf8guard: request rejected"
	if rj.Mode == rules.Monitor {
		msg = "utf8guard: request flagged"
	}
	e := l.Warn()
	if rj.Reason == sanitize.ParsedBeforeCheck {
		// The server's mistake, not the client's: an error, that says
		// what to do.
		e = l.Error()
		msg += ": its form was parsed before utf8guard ran, so its values were never checked; mount utf8guard before the middleware that parsed it"
		if rj.Err != nil {
			e = e.Str("error", preparsedCause(rj.Err))
		}
	}
	if e == nil {
		return
	}
	if rj.Class != 0 {
		e = e.Str("class", rj.Class.String())
	}
	if rj.Limit != 0 {
		e = e.Int64("limit", rj.Limit) // too_large: the limit exceeded
	}
	if rj.Reason == sanitize.BodyUnreadable && rj.Err != nil {
		// The cause alone: the reason says the rest, and the field is
		// bounded (safeField), so a longer text would cut the cause off.
		e = e.Str("error", finding.SafeField(bodyio.ReadCause(rj.Err).Error()))
	}
	e.Str("reason", rj.Reason.String()).
		Str("location", rj.Location.String()).
		Str("field", rj.Field).
		Int("offset", rj.Offset).
		Str("sample", rj.Sample).
		Str("method", finding.SafeField(r.Method)).
		Str("route", finding.SafeField(rj.Route))
	g.identityOf(r, who).event(e).
		Str("mode", rj.Mode.String()).
		Msg(msg)
}

func (g *guard) logAccept(r *http.Request, route string) {
	if !g.logAccepted {
		return
	}
	g.loggerFor(r.Context()).Debug().
		Str("method", finding.SafeField(r.Method)).
		Str("route", finding.SafeField(route)).
		Msg("utf8guard: request accepted")
}

// preparsedCause returns what a parsed_before_check Rejection's Err says
// besides its sentinel: which Request field was set.
func preparsedCause(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != sanitize.ErrParsedBeforeCheck {
				return e.Error()
			}
		}
	}
	return err.Error()
}
