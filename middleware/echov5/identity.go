package echov5

import (
	"github.com/labstack/echo/v5"

	"github.com/utf8guard/utf8guard/middleware"
)

// identity is the log's middleware.IdentitySource for an Echo v5 request:
// a pointer to the request's context, converted, so that handing it to the
// pipeline allocates nothing. The pipeline asks only when it logs a line.
type identity echo.Context

// Identity returns the ID Echo's RequestID middleware set on the response,
// or else the X-Request-Id the client sent, marked as the client's when it
// is the one the client sent (RequestID adopts it); and c.RealIP(), the
// connection's address unless Echo.IPExtractor says otherwise.
func (x *identity) Identity() middleware.Identity {
	c := (*echo.Context)(x)
	sent := c.Request().Header.Get(echo.HeaderXRequestID)
	id := c.Response().Header().Get(echo.HeaderXRequestID)
	if id == "" {
		id = sent
	}
	return middleware.Identity{RequestID: id, RequestIDFromClient: id != "" && id == sent, RemoteIP: c.RealIP()}
}
