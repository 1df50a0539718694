package middleware_test

import (
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

	"github.com/utf8guard/utf8guard/middleware"
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

// upServer is one adapter with the upload routes, and its handler.
type upServer struct {
	name string
	*middleware.Server[handler]
	*upRec
}

// upRec is the handler of the upload routes: POST /upload streams the
// form (readUpload), PUT /upload hashes the raw body, POST /formfile reads
// the file "f" with FormFile, POST /panic panics half-way through a form.
// Every request's spool goes to dir.
type upRec struct {
	dir     string
	runs    atomic.Int32
	during  atomic.Int32 // files in dir while the last handler ran
	readErr atomic.Value // the handler's read error, as a string
}

// serve answers in JSON as upHandle says, the file "f" read through the
// framework's API (c.FormFile on Echo, Request.FormFile on net/http).
func (s *upRec) serve(c echoCtx, w http.ResponseWriter, r *http.Request) {
	code, v := s.upHandle(r.URL.Path, r, func() (*multipart.FileHeader, error) {
		if c != nil {
			return c.FormFile("f")
		}
		_, fh, err := r.FormFile("f")
		return fh, err
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// upHandle is the status and answer of a request on route; formFile reads
// the file "f".
func (s *upRec) upHandle(route string, r *http.Request, formFile func() (*multipart.FileHeader, error)) (int, any) {
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

// upServers are the upload server on Echo v4, Echo v5 and net/http (the
// adapter around the ServeMux), with pol on every route and its spools in
// a directory of its own.
func upServers(t testing.TB, pol rules.Policy) []*upServer {
	t.Helper()
	var out []*upServer
	for _, name := range []string{"v4", "v5", "nethttp"} {
		rec := &upRec{dir: t.TempDir()}
		m := mounting{adapter: name, how: "use", cfg: middleware.HTTPConfig{Rules: pol, TempDir: rec.dir},
			routes: upRoutes, methods: []string{http.MethodPost, http.MethodPut}}
		if name == "nethttp" {
			m.how = "mux"
		}
		out = append(out, &upServer{name, newServer(t, m, rec), rec})
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
	defer func() {
		if recover() != nil {
			w = httptest.NewRecorder()
			w.Code = 500
		}
	}()
	return s.Do(r)
}

// logLines returns the server's log, one map per line.
func (s *upServer) logLines(t testing.TB) []map[string]any {
	t.Helper()
	return s.Logs().Lines(t)
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
