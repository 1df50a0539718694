package utf8gin

import (
	"github.com/gin-gonic/gin"

	"github.com/utf8guard/utf8guard/middleware"
)

// headerRequestID is the header a request id travels in.
const headerRequestID = "X-Request-Id"

// identity is the log's middleware.PipelineConfig.Identity for a Gin
// request: who is its *gin.Context. It returns the X-Request-Id a
// middleware mounted before set on the response (as gin-contrib/requestid
// does), or else the one the client sent, marked as the client's when it
// is the one the client sent; and c.ClientIP(), which believes the
// headers of Engine.RemoteIPHeaders (X-Forwarded-For, X-Real-IP) from
// the proxies the engine trusts: every address, unless
// Engine.SetTrustedProxies says otherwise.
func identity(who any) middleware.Identity {
	c := who.(*gin.Context)
	sent := c.Request.Header.Get(headerRequestID)
	id := c.Writer.Header().Get(headerRequestID)
	if id == "" {
		id = sent
	}
	return middleware.Identity{RequestID: id, RequestIDFromClient: id != "" && id == sent, RemoteIP: c.ClientIP()}
}
