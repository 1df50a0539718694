package middleware_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	echo4 "github.com/labstack/echo/v4"
	emw4 "github.com/labstack/echo/v4/middleware"
	echo5 "github.com/labstack/echo/v5"
	emw5 "github.com/labstack/echo/v5/middleware"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// TestRecommendedStackReadsAlikeInBothModes: under the README's
// recommended mounting (Recover, RequestID, RequestLogger, utf8guard,
// then Decompress), a clean request's handler reads the same body, form
// in Monitor mode as in Enforce mode, plain and in gzip, on
// Echo v4 and v5: the roll-out the README describes changes nothing for a
// clean client.
func TestRecommendedStackReadsAlikeInBothModes(t *testing.T) {
	t.Parallel()
	jsonDoc := `{"title":"פגישה ` + "\u200f" + `ב-10:00` + "\u200f" + `","n":[1,2]}`
	mp := mpBody("title", "été", "note", "اجتماع \u061c٣ مساءً")
	bodies := []struct{ name, ct, body string }{
		{"json", "application/json", jsonDoc},
		{"form", "application/x-www-form-urlencoded", "title=%C3%A9t%C3%A9&n=1"},
		{"multipart", ctMP, mp},
		{"text", "text/plain; charset=utf-8", "line\r\nZoë"},
	}
	// What the handler reads: the body and the form. (Content-Encoding
	// differs: utf8guard removes it from a body it decoded, Echo's
	// Decompress leaves it on one it decodes.)
	type read struct {
		body, form string
	}
	record := func(r *http.Request) read {
		var rd read
		b, err := io.ReadAll(r.Body)
		if err != nil {
			rd.body = "error: " + err.Error()
			return rd
		}
		rd.body = string(b)
		r.Body = io.NopCloser(bytes.NewReader(b))
		if err := r.ParseMultipartForm(1 << 20); err != nil && err != http.ErrNotMultipart {
			rd.form = "error: " + err.Error()
		} else {
			rd.form = r.PostForm.Encode()
			if r.MultipartForm != nil {
				rd.form = "multipart " + strings.Join(r.MultipartForm.Value["note"], ",")
			}
		}
		return rd
	}
	// The README's stack before utf8guard.
	stack := func() []echoMW {
		return []echoMW{{emw4.Recover(), emw5.Recover()}, {emw4.RequestID(), emw5.RequestID()}, {
			emw4.RequestLoggerWithConfig(emw4.RequestLoggerConfig{
				LogValuesFunc: func(echo4.Context, emw4.RequestLoggerValues) error { return nil },
			}),
			emw5.RequestLoggerWithConfig(emw5.RequestLoggerConfig{
				LogValuesFunc: func(*echo5.Context, emw5.RequestLoggerValues) error { return nil },
			}),
		}}
	}
	for _, adapter := range []string{"v4", "v5"} {
		for _, b := range bodies {
			for _, coding := range []string{"", "gzip"} {
				name := adapter + "/" + b.name + "/" + coding
				var reads [2]read
				for i, p := range []rules.Policy{rules.Strict(), rules.Strict().AsMonitor()} {
					body := b.body
					if coding == "gzip" {
						body = gzipOf(body)
					}
					r := httptest.NewRequest(http.MethodPost, "/e", strings.NewReader(body))
					r.Header.Set("Content-Type", b.ct)
					if coding != "" {
						r.Header.Set("Content-Encoding", coding)
					}
					seen := &reads[i]
					w := newServer(t, mounting{adapter: adapter, how: "use", cfg: middleware.HTTPConfig{Rules: p}, before: stack(), after: []echoMW{decompress()},
						routes: []string{"/e"}, methods: []string{http.MethodPost}},
						handlerFunc(func(_ echoCtx, w http.ResponseWriter, r *http.Request) { *seen = record(r); w.WriteHeader(200) })).Do(r)
					if w.Code != http.StatusOK {
						t.Errorf("%s, %s mode: %d %s", name, p.Mode, w.Code, w.Body)
					}
				}
				if reads[0] != reads[1] || reads[0].body != b.body {
					t.Errorf("%s: Enforce read %+q, Monitor read %+q; sent %+q", name, reads[0], reads[1], b.body)
				}
			}
		}
	}
}
