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
// Echo's e.Use and through the net/http adapter around the handler (the
// harness's servers, mpSetup), in front of a handler that reads the body every way a handler
// can: the octets, the form (c.FormParams and c.MultipartForm on Echo,
// Request.ParseMultipartForm on net/http) and the stream of parts
// (Request.MultipartReader), nested multipart bodies included, read by the
// most trusting of handlers: one that ignores every read error and calls
// NextPart again after a failed one. An oracle then checks everything the
// handler read against the route's policy, with the sanitize package and
// golang.org/x/text/unicode/norm directly.

// mpRec is the reading handler: on Echo it reads the form through
// c.FormParams and c.MultipartForm, on net/http through
// Request.ParseMultipartForm.
type mpRec struct {
	mu   sync.Mutex
	last *mptest.Seen
}

func (s *mpRec) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	if c == nil {
		s.set(mptest.Collect(r, func(r *http.Request) (map[string][]string, *multipart.Form, error) {
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				return nil, nil, err
			}
			return r.MultipartForm.Value, r.MultipartForm, nil
		}))
		_, _ = io.WriteString(w, "ok")
		return nil
	}
	s.set(mptest.Collect(r, func(r *http.Request) (map[string][]string, *multipart.Form, error) {
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
}

func (s *mpRec) set(v *mptest.Seen) {
	s.mu.Lock()
	s.last = v
	s.mu.Unlock()
}

// take returns what the handler read of the last request, nil when it did
// not run, and forgets it.
func (s *mpRec) take() *mptest.Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.last
	s.last = nil
	return v
}

// mpMounts are the mounts of the multipart tests: Echo's e.Use, and the
// net/http adapter around the handler.
var mpMounts = []mount{mountGlobal, mountBare}

// mpSetup is pol on m, serving POST /up.
func mpSetup(pol rules.Policy, m mount) setup {
	return setup{mount: m, echo: Config{Rules: &pol}, routes: []string{"/up"}, methods: []string{http.MethodPost}}
}

// mpPost is a POST of body to /up with Content-Type ct.
func mpPost(ct string, body io.Reader) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/up", body)
	r.Header.Set("Content-Type", ct)
	return r
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
		for _, m := range mpMounts {
			srv := newServer(t, mpSetup(pol, m), &mpRec{})
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				w := srv.do(mpPost(ct, strings.NewReader(tc.body)))
				s := srv.rec.take()
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
