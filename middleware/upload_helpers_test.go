package middleware_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	echo5 "github.com/labstack/echo/v5"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/rules"
)

const (
	mib        = 1 << 20
	upBoundary = "upload-test-boundary-7f3a"
	upCT       = "multipart/form-data; boundary=" + upBoundary
)

// uploadPolicy is the policy of an upload route: strict, file contents are
// data, octet-stream bodies taken, 256 MiB of data.
func uploadPolicy() rules.Policy {
	p := rules.Strict()
	p.FileContents = rules.DataFiles
	p.BinaryTypes = []string{"application/octet-stream"}
	p.Limits.BinaryBodyBytes = 256 * mib
	p.Limits.FileBytes = 256 * mib
	return p
}

// upPart is one part of a body made on the fly: a field with its text, or
// a file of size octets drawn from the ChaCha8 stream of seed.
type upPart struct {
	field, filename, ct string
	text                string
	seed                uint64
	size                int64
	disp                string // the whole Content-Disposition, when set
}

// fileData is the content of a file part: size octets of a deterministic
// stream.
func fileData(seed uint64, size int64) io.Reader {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed+1)
	return io.LimitReader(rand.NewChaCha8(key), size)
}

// fileHash is the SHA-256 of fileData(seed, size), hex.
func fileHash(seed uint64, size int64) string {
	h := sha256.New()
	_, _ = io.Copy(h, fileData(seed, size))
	return hex.EncodeToString(h.Sum(nil))
}

// uploadBody returns a multipart body of the parts, made as it is read.
func uploadBody(parts ...upPart) io.Reader {
	var rs []io.Reader
	for _, p := range parts {
		disp := p.disp
		if disp == "" {
			disp = `form-data; name="` + p.field + `"`
			if p.filename != "" {
				disp += `; filename="` + p.filename + `"`
			}
		}
		head := "--" + upBoundary + "\r\nContent-Disposition: " + disp + "\r\n"
		if p.ct != "" {
			head += "Content-Type: " + p.ct + "\r\n"
		}
		rs = append(rs, strings.NewReader(head+"\r\n"))
		if p.size > 0 {
			rs = append(rs, fileData(p.seed, p.size))
		} else {
			rs = append(rs, strings.NewReader(p.text))
		}
		rs = append(rs, strings.NewReader("\r\n"))
	}
	rs = append(rs, strings.NewReader("--"+upBoundary+"--\r\n"))
	return io.MultiReader(rs...)
}

// bodySize is the length of uploadBody(parts...), counted as it is read.
func bodySize(parts ...upPart) int64 {
	n, _ := io.Copy(io.Discard, uploadBody(parts...))
	return n
}

// upResult is what an upload handler read: as the demo's /upload/*
// answers.
type upResult struct {
	Fields map[string][]string `json:"fields"`
	Files  []upFile            `json:"files"`
	// Raw is the SHA-256 of the raw body, for handlers that read it so.
	Raw string `json:"raw,omitempty"`
}

type upFile struct {
	Field    string `json:"field"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
	// Disposition is the part's Content-Disposition as it came.
	Disposition string `json:"disposition"`
}

// readUpload streams the form of r with Request.MultipartReader, as a
// handler that stores files does.
func readUpload(r *http.Request) (*upResult, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	res := &upResult{Fields: map[string][]string{}}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return res, nil
		}
		if err != nil {
			return nil, err
		}
		if p.FileName() == "" {
			v, err := io.ReadAll(io.LimitReader(p, mib))
			if err != nil {
				return nil, err
			}
			res.Fields[p.FormName()] = append(res.Fields[p.FormName()], string(v))
			continue
		}
		h := sha256.New()
		n, err := io.Copy(h, p)
		if err != nil {
			return nil, err
		}
		res.Files = append(res.Files, upFile{Field: p.FormName(), Filename: p.FileName(), Size: n,
			SHA256: hex.EncodeToString(h.Sum(nil)), Disposition: p.Header.Get("Content-Disposition")})
	}
}

// upServer is one adapter with the upload routes: POST /upload streams the
// form (readUpload), PUT /upload hashes the raw body, POST /formfile reads
// the file "f" with FormFile, POST /panic panics half-way through a form.
// Every request's spool goes to dir.
type upServer struct {
	name    string
	h       http.Handler
	logs    *bytes.Buffer
	dir     string
	runs    atomic.Int32
	during  atomic.Int32 // files in dir while the last handler ran
	readErr atomic.Value // the handler's read error, as a string
}

// upHandle is the framework-neutral handler of the routes; formFile reads
// the file "f" through the framework's API (c.FormFile on Echo,
// Request.FormFile on net/http).
func (s *upServer) upHandle(route string, r *http.Request, formFile func() (*multipart.FileHeader, error)) (int, any) {
	s.runs.Add(1)
	s.during.Store(int32(countFiles(s.dir)))
	switch route {
	case "/panic":
		mr, _ := r.MultipartReader()
		_, _ = mr.NextPart()
		panic("the handler fails")
	case "/formfile":
		fh, err := formFile()
		if err != nil {
			return 400, map[string]string{"error": err.Error()}
		}
		f, err := fh.Open()
		if err != nil {
			return 400, map[string]string{"error": err.Error()}
		}
		defer f.Close()
		h := sha256.New()
		n, _ := io.Copy(h, f)
		return 200, &upResult{Files: []upFile{{Field: "f", Filename: fh.Filename, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}}}
	}
	if r.Method == http.MethodPut {
		h := sha256.New()
		_, err := io.Copy(h, r.Body)
		if err != nil {
			s.readErr.Store(err.Error())
			if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
				return 413, map[string]string{"error": "too large"}
			}
			return 400, map[string]string{"error": err.Error()}
		}
		return 200, &upResult{Raw: hex.EncodeToString(h.Sum(nil))}
	}
	res, err := readUpload(r)
	if err != nil {
		return 400, map[string]string{"error": err.Error()}
	}
	return 200, res
}

func countFiles(dir string) int {
	es, _ := os.ReadDir(dir)
	return len(es)
}

var upRoutes = []string{"/upload", "/formfile", "/panic"}

// upServers builds the upload server on Echo v4, Echo v5 and net/http,
// with pol on every route and its spools in a directory of its own.
func upServers(t testing.TB, pol rules.Policy) []*upServer {
	t.Helper()
	var out []*upServer
	for _, name := range []string{"v4", "v5", "nethttp"} {
		s := &upServer{name: name, logs: &bytes.Buffer{}, dir: t.TempDir()}
		logger := zerolog.New(s.logs)
		switch name {
		case "v4":
			e := echo4.New()
			e.Use(echov4.WithConfig(echov4.Config{Rules: pol, Logger: &logger, TempDir: s.dir}))
			for _, route := range upRoutes {
				h := func(c echo4.Context) error {
					code, v := s.upHandle(route, c.Request(), func() (*multipart.FileHeader, error) { return c.FormFile("f") })
					return c.JSON(code, v)
				}
				e.POST(route, h)
				e.PUT(route, h)
			}
			s.h = e
		case "v5":
			e := echo5.New()
			e.Use(echov5.WithConfig(echov5.Config{Rules: pol, Logger: &logger, TempDir: s.dir}))
			for _, route := range upRoutes {
				h := func(c *echo5.Context) error {
					code, v := s.upHandle(route, c.Request(), func() (*multipart.FileHeader, error) { return c.FormFile("f") })
					return c.JSON(code, v)
				}
				e.POST(route, h)
				e.PUT(route, h)
			}
			s.h = e
		case "nethttp":
			mux := http.NewServeMux()
			for _, route := range upRoutes {
				mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
					code, v := s.upHandle(route, r, func() (*multipart.FileHeader, error) {
						_, fh, err := r.FormFile("f")
						return fh, err
					})
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(code)
					_ = json.NewEncoder(w).Encode(v)
				})
			}
			s.h = middleware.Handler(middleware.HTTPConfig{Rules: pol, Logger: &logger, TempDir: s.dir})(mux)
		}
		out = append(out, s)
	}
	return out
}

// do sends a request made on the fly; size is its Content-Length, or -1
// for a chunked body. A panic in the handler is the answer 500.
func (s *upServer) do(method, target, ct string, body io.Reader, size int64) (w *httptest.ResponseRecorder) {
	r := httptest.NewRequest(method, target, body)
	r.ContentLength = size
	if size >= 0 {
		r.Header.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	if ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	w = httptest.NewRecorder()
	defer func() {
		if recover() != nil {
			w.Code = 500
		}
	}()
	s.h.ServeHTTP(w, r)
	return w
}

// logLines returns the server's log, one map per line.
func (s *upServer) logLines(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s.logs.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// oneLog checks that the log holds one line, of reason and location.
func (s *upServer) oneLog(t testing.TB, reason, location string) map[string]any {
	t.Helper()
	l := s.logLines(t)
	if len(l) != 1 || l[0]["reason"] != reason || l[0]["location"] != location {
		t.Fatalf("%s: log %v; want one %s line in %s", s.name, l, reason, location)
	}
	return l[0]
}

func decode(t testing.TB, w *httptest.ResponseRecorder) *upResult {
	t.Helper()
	var res upResult
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return &res
}

// size picks the size of a large upload: full, or small under -short.
func size(full, short int64) int64 {
	if testing.Short() {
		return short
	}
	return full
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
