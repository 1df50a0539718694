package echov5

import (
	"net/http"

	"github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// refuseMove refuses, under e.Pre, a request that the policy of the route
// it moved to rewrote and moved again, to route: no third policy runs on
// a request whose canonical form keeps changing where it goes. It logs the
// line the pipeline logs for a refusal, calls OnReject and answers as for
// any other refusal.
//
// The pipeline finds every other refusal itself and logs it; this one only
// an adapter that routes before its router can find, and
// middleware.Pipeline has no way yet to log a Rejection it did not find.
// Until it has, this writes the line itself, field for field as the
// pipeline does (the conformance test compares the two).
func (m *guard) refuseMove(c *echo.Context, r *http.Request, route string, mode rules.Mode) error {
	rj := &middleware.Rejection{Reason: sanitize.CanonicalSyntax, Location: rules.Path, Route: route, Mode: mode,
		Sample: sample(r.URL.Path), Err: sanitize.ErrCanonicalSyntax}
	m.log(r, rj, (*identity)(c).Identity())
	if m.onReject != nil {
		m.onReject(c, rj)
	}
	return m.onError(c, rj)
}

// log writes the pipeline's warn-level line for rj: to the logger of the
// request's context when one is set there, else to the configured one.
func (m *guard) log(r *http.Request, rj *middleware.Rejection, id middleware.Identity) {
	l := zerolog.Ctx(r.Context())
	if l.GetLevel() == zerolog.Disabled {
		l = &m.logger
	}
	e := l.Warn()
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
	e = e.Str("reason", rj.Reason.String()).
		Str("location", rj.Location.String()).
		Str("field", rj.Field).
		Int("offset", rj.Offset).
		Str("sample", rj.Sample).
		Str("method", safeField(r.Method)).
		Str("route", safeField(rj.Route)).
		Str("request_id", safeField(id.RequestID))
	if id.RequestIDFromClient {
		e = e.Bool("request_id_client", true)
	}
	e.Str("remote_ip", safeField(id.RemoteIP)).
		Str("mode", rj.Mode.String()).
		Msg(msg)
}

// sample is the Rejection.Sample of a violation at offset 0 of s: its
// first octets, escaped.
func sample(s string) string {
	const radius = 8
	return escape(s[:min(len(s), radius)])
}

// safeField returns s if it is printable ASCII other than '\' and at most
// 64 octets long, and else its first 64 octets escaped, followed by "..."
// when cut: as the pipeline bounds the fields it logs.
func safeField(s string) string {
	const most = 64
	cut := len(s) > most
	if cut {
		s = s[:most]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '\\' {
			s = escape(s)
			break
		}
	}
	if cut {
		s += "..."
	}
	return s
}

// escape writes every octet of s outside printable ASCII, and '\', as
// \xNN.
func escape(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, 2*len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7F && c != '\\' {
			b = append(b, c)
			continue
		}
		b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
	}
	return string(b)
}
