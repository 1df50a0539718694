package echov4

import (
	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware"
)

// identity is the log's middleware.PipelineConfig.Identity for an Echo v4
// request: who is its echo.Context. It returns the ID Echo's RequestID
// middleware set on the response, or else the X-Request-Id the client
// sent, marked as the client's when it is the one the client sent
// (RequestID adopts it); and c.RealIP(), which trusts X-Forwarded-For and
// X-Real-Ip as sent unless e.IPExtractor is set.
func identity(who any) middleware.Identity {
	c := who.(echo.Context)
	sent := c.Request().Header.Get(echo.HeaderXRequestID)
	id := c.Response().Header().Get(echo.HeaderXRequestID)
	if id == "" {
		id = sent
	}
	return middleware.Identity{RequestID: id, RequestIDFromClient: id != "" && id == sent, RemoteIP: c.RealIP()}
}
