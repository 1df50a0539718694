// Package appv5 builds the Echo v5 instance of utf8guard's demo server
// (examples/server -echo v5): the same routes, policies, handler answers
// and log lines as package app's Echo v4 instance, through
// middleware/echov5.
package appv5

import (
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v5"
	emw "github.com/labstack/echo/v5/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/server/app"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

// New returns the demo's Echo v5 instance: Echo's RequestID middleware,
// then utf8guard with table, then app.Routes answered by Echo, and
// /static/* served from public. Rejections are logged to logger.
func New(table rules.Ruleset, logger *zerolog.Logger, public fs.FS) (*echo.Echo, error) {
	e := echo.New()
	// The demo listens directly, behind no proxy: the client's address is
	// the connection's. Echo v5's c.RealIP (and so the log's remote_ip)
	// takes it without an IPExtractor too; the demo says so, as its v4
	// instance must.
	e.IPExtractor = echo.ExtractIPDirect()
	guard, err := echov5.Config{Rules: table, Logger: logger}.ToMiddleware()
	if err != nil {
		return nil, err
	}
	// RequestID first so the rejection log carries request_id; utf8guard
	// before anything that reads the request. Echo's RequestID adopts an
	// X-Request-Id the client sends: the demo drops it first, so every id
	// in its log is one the server chose. The decoders after utf8guard,
	// as in package app.
	e.Pre(dropClientRequestID)
	decompress, err := emw.DecompressConfig{MaxDecompressedSize: app.DecodedBytes}.ToMiddleware()
	if err != nil {
		return nil, err
	}
	e.Use(emw.RequestID(), guard, decompress, echo.WrapMiddleware(app.Inflate(app.DecodedBytes)))
	// Every route answers GET and POST alike (a GET with a body is
	// checked as a POST's is).
	methods := []string{http.MethodGet, http.MethodPost}
	for _, route := range app.Routes {
		e.Match(methods, route, Echo)
	}
	e.Match(methods, app.UploadRoute, func(c *echo.Context) error {
		out, err := app.Upload(c.Request())
		if err != nil {
			return echo.NewHTTPError(err.Status, err.Message)
		}
		return c.JSON(http.StatusOK, out)
	})
	e.Match(methods, "/static/*", func(c *echo.Context) error {
		name := c.Param("*")
		if !fs.ValidPath(name) || name == "." {
			return echo.ErrNotFound
		}
		return echo.StaticFileHandler(name, public)(c)
	})
	return e, nil
}

// dropClientRequestID removes the client's X-Request-Id, so that Echo's
// RequestID middleware makes one the client cannot choose or replay.
func dropClientRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		c.Request().Header.Del(echo.HeaderXRequestID)
		return next(c)
	}
}

// Echo answers 200 with what the handler sees of the request, as JSON (see
// app.Answer), through Echo v5's API.
func Echo(c *echo.Context) error {
	out, err := app.Answer(c.Request(), c.Param("*"), c.QueryParams(), func() error {
		_, err := c.FormValues()
		return err
	})
	if err != nil {
		return echo.NewHTTPError(err.Status, err.Message)
	}
	return c.JSON(http.StatusOK, out)
}
