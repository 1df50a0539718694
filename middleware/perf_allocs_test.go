package middleware

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
)

// allocsOf returns the allocations and the octets allocated per call of f,
// averaged over runs calls after one warm-up call.
func allocsOf(runs int, f func()) (allocs, octets float64) {
	f()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs),
		float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// bodyAllocServer is the net/http adapter under the strict preset around a
// handler that reads the body without copying it (io.Copy to io.Discard
// takes the body's WriteTo).
func bodyAllocServer(t *testing.T) http.Handler {
	t.Helper()
	pol := rules.Strict()
	nop := zerolog.Nop()
	h, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	return h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
}

// onlyReader hides every method of a reader but Read, as a network body
// does.
type onlyReader struct{ r io.Reader }

func (o *onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestBodyAllocs: a checked body costs a constant number of allocations
// and, when its length is declared, at most 1.1 times its size in octets
// allocated in all (the copy the handler gets and everything else); of
// unknown length, at most 2.1 times (the working memory it is read into
// before its size is known, and the copy).
func TestBodyAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	h := bodyAllocServer(t)
	for _, tc := range []struct {
		name     string
		size     int
		declared bool
		// at most: allocations per request, octets per octet of body
		allocs float64
		ratio  float64
	}{
		{"1KiB", 1 << 10, true, 8, 0}, // ratio: see the constant below
		{"64KiB", 64 << 10, true, 8, 1.1},
		{"100KiB", 100 << 10, true, 8, 1.1},
		{"1MiB", 1 << 20, true, 8, 1.1},
		{"1MiB-unknown", 1 << 20, false, 16, 2.1},
		{"100KiB-unknown", 100 << 10, false, 16, 2.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(strings.Repeat("héllo wörld ", tc.size/13+1)[:tc.size])
			for !utf8Valid(body) {
				body = body[:len(body)-1]
			}
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("Content-Type", "text/plain; charset=utf-8")
			w := &canonDiscard{h: http.Header{}}
			br := bytes.NewReader(body)
			or := &onlyReader{br}
			allocs, octets := allocsOf(20, func() {
				br.Reset(body)
				r.Body = io.NopCloser(or)
				r.ContentLength = -1
				if tc.declared {
					r.ContentLength = int64(len(body))
				}
				w.code = 0
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					t.Fatalf("status %d", w.code)
				}
			})
			t.Logf("%d octets: %.1f allocations, %.0f octets allocated (%.3f per octet of body)", len(body), allocs, octets, octets/float64(len(body)))
			if allocs > tc.allocs {
				t.Errorf("%.1f allocations per request, want at most %v", allocs, tc.allocs)
			}
			limit := tc.ratio * float64(len(body))
			if tc.ratio == 0 {
				limit = float64(len(body)) + 512 // a small body: the copy and a few small objects
			}
			if octets > limit {
				t.Errorf("%.0f octets allocated per request, want at most %.0f", octets, limit)
			}
		})
	}
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// TestBodyAllocsDeclaredNotSent: a client that declares a long body and
// sends a few octets costs no more than upfrontBytes: the memory held
// grows with what arrives.
func TestBodyAllocsDeclaredNotSent(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	pol := compiled.Compile(rules.Strict())
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	_, octets := allocsOf(20, func() {
		r.Body = io.NopCloser(&onlyReader{strings.NewReader("0123456789")})
		r.ContentLength = 1 << 20
		var ls lazyScratch
		body, over, err := readBody(&ls, r, pol.Limits.BodyBytes, false, make([]byte, 8))
		ls.release()
		if err != nil || over || string(body) != "0123456789" {
			t.Fatalf("%q %v %v", body, over, err)
		}
	})
	if octets > 1024 {
		t.Errorf("%.0f octets allocated for a body declared 1 MiB long that sends 10, want at most 1024", octets)
	}
	t.Logf("%.0f octets allocated", octets)
}

// TestAdapterAllocs pins what the Echo v4 and net/http adapters add to a
// clean request, against the same server without them: for the clean GET
// (three path segments, four query fields), the one closure Echo v4 asks
// every middleware for per request, and nothing on net/http; for a clean
// 1 KiB JSON POST, also the reader the handler gets its body from (the
// body itself is in pooled memory, lent: lentBody).
func TestAdapterAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	const target = "/api/users/42?name=alice&sort=desc&page=2&limit=50"
	body := []byte(`{"id":42,"name":"Zoë Ångström","tags":["café","日本語","😀"],"note":"` +
		strings.Repeat("été, straße, Привет, 你好; ", 30) + `"}`)
	pol := rules.Strict()
	nop := zerolog.Nop()
	echoServer := func(guarded bool) http.Handler {
		e := echo.New()
		if guarded {
			e.Use(WithConfig(Config{Rules: &pol, Logger: &nop}))
		}
		e.GET("/api/users/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
		e.POST("/api/items", func(c echo.Context) error {
			if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
				return err
			}
			return c.NoContent(http.StatusOK)
		})
		return e
	}
	muxServer := func(guarded bool) http.Handler {
		wrap := func(h http.Handler) http.Handler { return h }
		if guarded {
			wrap = Handler(HTTPConfig{Rules: &pol, Logger: &nop})
		}
		mux := http.NewServeMux()
		mux.Handle("GET /api/users/{id}", wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
		})))
		mux.Handle("POST /api/items", wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			w.WriteHeader(http.StatusOK)
		})))
		return mux
	}
	get := func(h http.Handler) float64 {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(500, func() {
			w.code = 0
			r.Pattern = ""
			h.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("GET: status %d", w.code)
			}
		})
	}
	post := func(h http.Handler) float64 {
		r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
		r.Header.Set("Content-Type", "application/json")
		w := &canonDiscard{h: http.Header{}}
		br := bytes.NewReader(body)
		rc := io.NopCloser(br)
		return testing.AllocsPerRun(500, func() {
			br.Reset(body)
			r.Body, r.ContentLength, r.Pattern = rc, int64(len(body)), ""
			w.code = 0
			h.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("POST: status %d", w.code)
			}
		})
	}
	for _, tc := range []struct {
		name      string
		server    func(bool) http.Handler
		get, json float64 // allocations added
	}{
		{"echo4", echoServer, 1, 2},
		{"nethttp", muxServer, 0, 1},
	} {
		bare, guarded := tc.server(false), tc.server(true)
		if n, n0 := get(guarded), get(bare); n != n0+tc.get {
			t.Errorf("%s GET: %v allocations, %v without the adapter, want %v more", tc.name, n, n0, tc.get)
		}
		if n, n0 := post(guarded), post(bare); n != n0+tc.json {
			t.Errorf("%s JSON: %v allocations, %v without the adapter, want %v more", tc.name, n, n0, tc.json)
		}
	}
}
