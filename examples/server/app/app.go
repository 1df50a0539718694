// Package app builds the Echo v4 instance of utf8guard's demo server
// (examples/server): its routes behind the middleware, with a handler that
// answers what it sees (Answer, which package appv5 shares for the Echo v5
// instance). The command embeds its policy file and public/ directory and
// passes them in; the load test in bench/load builds the same server in
// its own process.
package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// Routes are the route templates whose handler echoes the request, for GET
// and POST.
var Routes = []string{"/strict/*", "/nfc/*", "/monitor/*", "/open/*"}

// New returns the demo's Echo instance: Echo's RequestID middleware, then
// utf8guard with table, then Routes answered by Echo, and /static/* served
// from public. Rejections are logged to logger.
func New(table *rules.Table, logger *zerolog.Logger, public fs.FS) (*echo.Echo, error) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The demo listens directly, behind no proxy: the client's address is
	// the connection's. Without an IPExtractor, c.RealIP (and so the log's
	// remote_ip) believes any X-Forwarded-For a client sends.
	e.IPExtractor = echo.ExtractIPDirect()
	guard, err := middleware.Config{Rules: table, Logger: logger}.ToMiddleware()
	if err != nil {
		return nil, err
	}
	// RequestID first so the rejection log carries request_id; utf8guard
	// before anything that reads the request. utf8guard also bounds the
	// bodies it does not read as text, by the route's limit. Echo's
	// RequestID adopts an X-Request-Id the client sends: the demo drops
	// it first, so every id in its log is one the server chose.
	e.Pre(dropClientRequestID)
	e.Use(emw.RequestID(), guard)
	for _, route := range Routes {
		e.GET(route, Echo)
		e.POST(route, Echo)
	}
	e.GET("/static/*", func(c echo.Context) error {
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
	return func(c echo.Context) error {
		c.Request().Header.Del(echo.HeaderXRequestID)
		return next(c)
	}
}

// Echo answers 200 with what the handler sees of the request, as JSON (see
// Answer), through Echo v4's API.
func Echo(c echo.Context) error {
	out, err := Answer(c.Request(), c.Param("*"), c.QueryParams(), func() error {
		_, err := c.FormParams()
		return err
	})
	if err != nil {
		return echo.NewHTTPError(err.Status, err.Message)
	}
	return c.JSON(http.StatusOK, out)
}

// Refusal is an error answer of the demo's handler itself (not of
// utf8guard): Status, with the JSON body {"message": Message} as Echo
// writes an HTTP error.
type Refusal struct {
	Status  int
	Message string
}

// Answer is the demo handler's answer to r, for either Echo: {"path":
// URL.Path, "param": the "*" parameter, "query": the query's map of
// lists, "form": the form body's map of lists (form and multipart
// bodies), "json": the decoded JSON body (JSON bodies), "body": the raw
// body}, or a Refusal. param and query are what the framework's API gives
// the handler, and parseForm parses a form body into r.PostForm through
// it.
func Answer(r *http.Request, param string, query url.Values, parseForm func() error) (map[string]any, *Refusal) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &Refusal{http.StatusRequestEntityTooLarge, http.StatusText(http.StatusRequestEntityTooLarge)}
		}
		return nil, &Refusal{http.StatusBadRequest, "reading the body failed"}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	out := map[string]any{
		"path":  r.URL.Path,
		"param": param,
		"query": query,
		"body":  string(body),
	}
	// The media type as mime.ParseMediaType reads it, which is how
	// utf8guard reads it: a prefix match would decode
	// "application/jsonx" as JSON, a type the strict preset refuses
	// unread and the default one passes unchecked.
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "application/x-www-form-urlencoded", mt == "multipart/form-data":
		if err := parseForm(); err != nil {
			return nil, &Refusal{http.StatusBadRequest, "bad form"}
		}
		// PostForm, not Request.Form, which mixes the query in: "form"
		// is what the body holds.
		out["form"] = r.PostForm
	case mt == "application/json", strings.HasSuffix(mt, "+json"):
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, &Refusal{http.StatusBadRequest, "bad JSON"}
		}
		out["json"] = v
	}
	return out, nil
}
