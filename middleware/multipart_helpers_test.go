package middleware

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/rules"
)

// The multipart tests serve each request through the real middleware, on
// Echo (WithConfig, e.ServeHTTP) and through the net/http adapter
// (Handler), in front of a handler that reads the body every way a handler
// can: the octets, the form (c.FormParams and c.MultipartForm on Echo,
// Request.ParseMultipartForm on net/http) and the stream of parts
// (Request.MultipartReader), nested multipart bodies included, read by the
// most trusting of handlers: one that ignores every read error and calls
// NextPart again after a failed one. An oracle then checks everything the
// handler read against the route's policy, with the sanitize package and
// golang.org/x/text/unicode/norm directly.

// mpServer is one adapter with the middleware in front of the reading
// handler.
type mpServer struct {
	name string
	h    http.Handler
	logs *logBuf
	mu   sync.Mutex
	last *mptest.Seen
}

func (s *mpServer) set(v *mptest.Seen) {
	s.mu.Lock()
	s.last = v
	s.mu.Unlock()
}

// take returns what the handler read of the last request, nil when it did
// not run, and forgets it.
func (s *mpServer) take() *mptest.Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.last
	s.last = nil
	return v
}

// mpServers returns the Echo and net/http servers of pol.
func mpServers(t testing.TB, pol rules.Policy) []*mpServer {
	t.Helper()
	es := &mpServer{name: "echo", logs: &logBuf{}}
	e := echo.New()
	e.Use(WithConfig(Config{Rules: &pol, Logger: es.logs.logger()}))
	e.POST("/up", func(c echo.Context) error {
		es.set(mptest.Collect(c.Request(), func(r *http.Request) (map[string][]string, *multipart.Form, error) {
			vals, err := c.FormParams()
			if err != nil {
				return nil, nil, err
			}
			mf, err := c.MultipartForm()
			if err != nil {
				return nil, nil, err
			}
			form := map[string][]string{}
			for k := range mf.Value {
				form[k] = vals[k]
			}
			return form, mf, nil
		}))
		return c.String(http.StatusOK, "ok")
	})
	es.h = e

	hs := &mpServer{name: "net/http", logs: &logBuf{}}
	mw, err := HTTPConfig{Rules: &pol, Logger: hs.logs.logger()}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	hs.h = mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.set(mptest.Collect(r, func(r *http.Request) (map[string][]string, *multipart.Form, error) {
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				return nil, nil, err
			}
			return r.MultipartForm.Value, r.MultipartForm, nil
		}))
		_, _ = io.WriteString(w, "ok")
	}))
	return []*mpServer{es, hs}
}

// do serves a POST of body with Content-Type ct.
func (s *mpServer) do(ct, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/up", strings.NewReader(body))
	r.Header.Set("Content-Type", ct)
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, r)
	return w
}

// mpCase is one request and what must come of it.
type mpCase struct {
	name string
	pol  func() rules.Policy // nil: the strict preset
	ct   string              // "": multipart/form-data with boundary BB
	body string
	// status is the status wanted; for a rejection, want is its log
	// line (want.reason "" is not checked).
	status int
	want   wantLog
	// check, for an accepted request, asserts more of what the handler
	// read.
	check func(t *testing.T, s *mptest.Seen)
}

// mpRun serves every case on both adapters, and asserts the status, the
// log line of a rejection (and that the handler did not run), and, for an
// accepted request, that the oracle finds nothing and check passes.
func mpRun(t *testing.T, cases []mpCase) {
	t.Helper()
	for _, tc := range cases {
		pol := rules.Strict()
		if tc.pol != nil {
			pol = tc.pol()
		}
		ct := tc.ct
		if ct == "" {
			ct = "multipart/form-data; boundary=BB"
		}
		for _, srv := range mpServers(t, pol) {
			t.Run(tc.name+"/"+srv.name, func(t *testing.T) {
				w := srv.do(ct, tc.body)
				s := srv.take()
				if w.Code != tc.status {
					var read []string
					if s != nil {
						read = mptest.Oracle(pol, s)
					}
					t.Fatalf("status %d, want %d; body %s; log %v; the handler read %q", w.Code, tc.status, w.Body, srv.logs.lines(t), read)
				}
				if tc.status != http.StatusOK {
					if s != nil {
						t.Error("the handler ran for a rejected request")
					}
					if tc.want.reason != "" {
						checkOneLog(t, srv.logs, tc.want, pol.Mode.String(), "", "")
					}
					return
				}
				if s == nil {
					t.Fatal("the handler did not run")
				}
				for _, b := range mptest.Oracle(pol, s) {
					t.Errorf("the handler read %s", b)
				}
				if tc.check != nil {
					tc.check(t, s)
				}
			})
		}
	}
}
