// Package app builds the Echo v4 instance of utf8guard's demo server
// (examples/server): its routes behind the middleware, with a handler that
// answers what it sees (Answer, which package appv5 shares for the Echo v5
// instance). The command embeds its policy file and public/ directory and
// passes them in; the load test in bench/load builds the same server in
// its own process.
package app

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

// Routes are the route templates whose handler echoes the request, for GET
// and POST.
var Routes = []string{"/strict/*", "/nfc/*", "/monitor/*", "/open/*"}

// DecodedBytes bounds what the demo's decoders after utf8guard (Echo's
// Decompress, Inflate) decode of a compressed body that utf8guard passed
// on as sent, in Monitor mode: the largest body the demo takes.
const DecodedBytes = 256 << 20

// UploadRoute is the route template of the upload handler (Upload), for
// GET and POST.
const UploadRoute = "/upload/*"

// New returns the demo's Echo instance: Echo's RequestID middleware, then
// utf8guard with table, then Routes answered by Echo, and /static/* served
// from public. Rejections are logged to logger.
func New(table rules.Ruleset, logger *zerolog.Logger, public fs.FS) (*echo.Echo, error) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The demo listens directly, behind no proxy: the client's address is
	// the connection's. Without an IPExtractor, c.RealIP (and so the log's
	// remote_ip) believes any X-Forwarded-For a client sends.
	e.IPExtractor = echo.ExtractIPDirect()
	guard, err := echov4.Config{Rules: table, Logger: logger}.ToMiddleware()
	if err != nil {
		return nil, err
	}
	// RequestID first so the rejection log carries request_id; utf8guard
	// before anything that reads the request. utf8guard also bounds the
	// bodies it does not read as text, by the route's limit. Echo's
	// RequestID adopts an X-Request-Id the client sends: the demo drops
	// it first, so every id in its log is one the server chose. The
	// decoders of the content codings the demo takes go after utf8guard,
	// so that a route in Monitor mode, whose body utf8guard hands on as
	// sent, reads what a route in Enforce mode reads (Inflate).
	e.Pre(dropClientRequestID)
	e.Use(emw.RequestID(), guard, emw.Decompress(), echo.WrapMiddleware(Inflate(DecodedBytes)))
	// Every route answers GET and POST alike (a GET with a body is
	// checked as a POST's is).
	methods := []string{http.MethodGet, http.MethodPost}
	for _, route := range Routes {
		e.Match(methods, route, Echo)
	}
	e.Match(methods, UploadRoute, func(c echo.Context) error {
		out, err := Upload(c.Request())
		if err != nil {
			return echo.NewHTTPError(err.Status, err.Message)
		}
		return c.JSON(http.StatusOK, out)
	})
	e.Match(methods, "/static/*", func(c echo.Context) error {
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
	// The media type as utf8guard reads it (a body it checks as a form
	// or as JSON is decoded as one here): as mime.ParseMediaType reads
	// it, which is how net/http's form readers take it, or by a prefix
	// of the raw value, which is how Echo's binder takes it
	// ("application/jsonx" is JSON to the binder, and so checked as
	// JSON by utf8guard, though net/http's readers ignore it).
	ct := r.Header.Get("Content-Type")
	mt, params, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "application/x-www-form-urlencoded", mt == "multipart/form-data":
		if err := parseForm(); err != nil {
			return nil, &Refusal{http.StatusBadRequest, "bad form"}
		}
		// PostForm, not Request.Form, which mixes the query in: "form"
		// is what the body holds.
		out["form"] = r.PostForm
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &Refusal{http.StatusBadRequest, "bad form"}
		}
		out["form"] = form
	case strings.HasPrefix(ct, "multipart/form-data"):
		form, err := multipart.NewReader(bytes.NewReader(body), params["boundary"]).ReadForm(32 << 20)
		if err != nil || params["boundary"] == "" {
			return nil, &Refusal{http.StatusBadRequest, "bad form"}
		}
		out["form"] = form.Value
		_ = form.RemoveAll()
	case mt == "application/json", strings.HasSuffix(mt, "+json"), strings.HasPrefix(ct, "application/json"):
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, &Refusal{http.StatusBadRequest, "bad JSON"}
		}
		out["json"] = v
	}
	return out, nil
}

// Uploaded is the upload handler's answer: the form's fields, and for each
// file its field, file name, size and SHA-256.
type Uploaded struct {
	Fields map[string][]string `json:"fields"`
	Files  []File              `json:"files"`
}

// File is one file of an upload.
type File struct {
	Field    string `json:"field"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
}

// MaxFieldBytes bounds what Upload holds of one field. utf8guard bounds
// fields on a checked route already (64 KiB by default); the handler
// bounds its own memory whatever route it is mounted on.
const MaxFieldBytes = 1 << 20

// Upload is the upload handler, for either Echo: it streams the form of r
// with Request.MultipartReader, as a service that stores files does,
// reading each field into memory and hashing each file as it passes
// (nothing of a file is held), and answers what it read, or a Refusal:
// 400 for a body that is not a form or does not parse, 413 for a field
// over MaxFieldBytes or a body cut off at its limit.
func Upload(r *http.Request) (*Uploaded, *Refusal) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, &Refusal{http.StatusBadRequest, "want a multipart/form-data body"}
	}
	out := &Uploaded{Fields: map[string][]string{}, Files: []File{}}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, readRefusal(err)
		}
		if part.FileName() == "" {
			v, err := io.ReadAll(io.LimitReader(part, MaxFieldBytes+1))
			switch {
			case err != nil:
				return nil, readRefusal(err)
			case len(v) > MaxFieldBytes:
				return nil, &Refusal{http.StatusRequestEntityTooLarge, "field too large"}
			}
			out.Fields[part.FormName()] = append(out.Fields[part.FormName()], string(v))
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, part)
		if err != nil {
			return nil, readRefusal(err)
		}
		out.Files = append(out.Files, File{Field: part.FormName(), Filename: part.FileName(), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
}

// readRefusal is the answer to a body whose read failed: 413 when it was
// cut off at its limit, 400 otherwise.
func readRefusal(err error) *Refusal {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return &Refusal{http.StatusRequestEntityTooLarge, http.StatusText(http.StatusRequestEntityTooLarge)}
	}
	return &Refusal{http.StatusBadRequest, "bad form"}
}
