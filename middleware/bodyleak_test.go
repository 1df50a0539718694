package middleware

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	emw "github.com/labstack/echo/v4/middleware"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
)

// leakBody is the body of request id: a marker naming the request,
// repeated to size octets. No two requests' bodies share a marker, so an
// octet of another request's body shows as a marker that is not the
// reader's own.
func leakBody(id, size int) []byte {
	marker := fmt.Sprintf("SECRET-OF-VICTIM-%04d;", id)
	return []byte(strings.Repeat(marker, size/len(marker)+1)[:size])
}

// slowSink is a consumer behind a slow pipe: each Write goes through p a
// few octets at a time, pausing between them, and records what it saw.
type slowSink struct {
	got     bytes.Buffer
	started chan struct{} // closed at the first Write, if not nil
}

func (s *slowSink) Write(p []byte) (int, error) {
	if s.started != nil {
		close(s.started)
		s.started = nil
	}
	const step = 1 << 10
	for i := 0; i < len(p); i += step {
		s.got.Write(p[i:min(i+step, len(p))])
		time.Sleep(time.Millisecond)
	}
	return len(p), nil
}

// leakHandler streams the body into a slowSink, as a proxy or an upload
// handler does, long after a timeout wrapper in front of it has answered,
// and reports what it read once it is done.
type leakHandler struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []string
	// body returns the whole body request id sent, when it is not
	// leakBody (a multipart body holding it).
	body func(id int) []byte
	// goroutine: the handler hands the body to a goroutine and returns;
	// else it streams the body itself behind a timeout wrapper (Echo's
	// Timeout middleware, net/http's TimeoutHandler) of timeout.
	goroutine bool
	timeout   time.Duration
}

func (h *leakHandler) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	switch {
	case h.goroutine:
		h.goServe(r)
		if c != nil {
			return c.NoContent(http.StatusOK)
		}
		return nil
	case c == nil:
		http.TimeoutHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.stream(r, nil)
		}), h.timeout, "timeout").ServeHTTP(w, r)
		return nil
	}
	// Deprecated for its own races, but still what services mount, and
	// the wrapper that returns while its handler still runs: the case the
	// test is about. (Mounted here, after the middleware, as e.Use would.)
	//lint:ignore SA1019 the deprecated wrapper is the case under test
	return emw.TimeoutWithConfig(emw.TimeoutConfig{Timeout: h.timeout})(func(c echo.Context) error {
		h.stream(c.Request(), nil)
		return nil
	})(c)
}

// goServe streams the body in a goroutine, and returns once the goroutine
// has its first octets in hand: the handler is done, its goroutine is not.
func (h *leakHandler) goServe(r *http.Request) {
	started := make(chan struct{})
	go h.stream(r, started)
	<-started
}

func (h *leakHandler) stream(r *http.Request, started chan struct{}) {
	defer h.wg.Done()
	id, _ := strconv.Atoi(r.Header.Get("X-Id"))
	sink := slowSink{started: started}
	var err error
	if id%2 == 0 {
		_, err = io.Copy(&sink, r.Body) // the body's WriteTo: one Write of it all
	} else {
		// Small reads, so that most of the body is read after the
		// handler returned and its memory went back to the pool.
		buf := make([]byte, 700)
		for {
			n, rerr := r.Body.Read(buf)
			sink.Write(buf[:n])
			if rerr != nil {
				if rerr != io.EOF {
					err = rerr
				}
				break
			}
		}
	}
	want := leakBody(id, len(sink.got.Bytes()))
	if h.body != nil {
		want = h.body(id)[:min(len(h.body(id)), len(sink.got.Bytes()))]
	}
	if got := sink.got.Bytes(); err == nil && !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		h.mu.Lock()
		h.errs = append(h.errs, fmt.Sprintf("request %d read %q at offset %d, not its own body", id, got[i:min(i+24, len(got))], i))
		h.mu.Unlock()
	}
}

// TestBodyLeakAfterTimeout: handlers behind Echo's
// Timeout middleware and net/http's TimeoutHandler keep reading r.Body
// after the wrapper has answered at the deadline and the middleware's
// next has returned; other handlers hand r.Body to a goroutine and return
// at once. Many clients send bodies at once; no handler may ever read an
// octet of another request's body, under e.Use, e.Pre and the net/http
// adapter. It runs under -race too, but for Echo's Timeout middleware,
// which races on Echo's own pooled context (see racetest.Enabled). The bodies
// are text, and then multipart bodies holding the same text in a text
// file part, which the spool gathers in pooled memory too, and such
// bodies sent in gzip, which the handler reads decoded.
func TestBodyLeakAfterTimeout(t *testing.T) {
	t.Parallel()
	const (
		size    = 200 << 10 // the largest: bodies up to 1 MiB are read into pooled memory (lentBody), those over 64 KiB after a sixteenth has come
		timeout = 20 * time.Millisecond
	)
	clients, perClient := 8, 6
	if testing.Short() {
		clients, perClient = 4, 3
	}
	pol := rules.Strict()
	sizeOf := func(id int) int { return size - (id*7919)%size }
	mpBody := func(id int) []byte {
		return []byte("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\n" +
			string(leakBody(id, sizeOf(id))) + "\r\n--b--\r\n")
	}
	for _, way := range []string{"use", "pre", "nethttp", "use goroutine", "pre goroutine", "nethttp goroutine",
		"use multipart", "nethttp multipart", "use goroutine multipart", "nethttp goroutine multipart",
		"nethttp gzip multipart", "use goroutine gzip multipart"} {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			multipart := strings.HasSuffix(way, " multipart")
			way := strings.TrimSuffix(way, " multipart")
			gz := strings.HasSuffix(way, " gzip")
			way = strings.TrimSuffix(way, " gzip")
			goroutine := strings.HasSuffix(way, " goroutine")
			if racetest.Enabled && !goroutine && way != "nethttp" {
				t.Skip("Echo's Timeout middleware races on Echo's pooled context")
			}
			h := &leakHandler{goroutine: goroutine, timeout: timeout}
			if multipart {
				h.body = mpBody
			}
			m := map[string]mount{"use": mountGlobal, "pre": mountPre, "nethttp": mountBare}[strings.TrimSuffix(way, " goroutine")]
			srv := newServer(t, setup{mount: m, echo: Config{Rules: &pol}, routes: []string{"/up"}, methods: []string{http.MethodPost}}, h).listen(t, "http1")
			var clientsWG sync.WaitGroup
			for c := range clients {
				clientsWG.Add(1)
				go func() {
					defer clientsWG.Done()
					for k := range perClient {
						id := c*perClient + k
						h.wg.Add(1)
						// Sizes all over the pooled memory's classes, so
						// that memory goes from request to request of
						// other lengths.
						body, ct := leakBody(id, sizeOf(id)), "text/plain; charset=utf-8"
						if multipart {
							body, ct = mpBody(id), "multipart/form-data; boundary=b"
						}
						if gz {
							body = codeAs("gzip", body)
						}
						req, _ := http.NewRequest(http.MethodPost, srv.url+"/up", bytes.NewReader(body))
						req.Header.Set("Content-Type", ct)
						if gz {
							req.Header.Set("Content-Encoding", "gzip")
						}
						req.Header.Set("X-Id", strconv.Itoa(id))
						resp, err := srv.client.Do(req)
						if err != nil {
							h.wg.Done() // never reached the handler
							t.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusOK {
							t.Errorf("request %d: status %d", id, resp.StatusCode)
						}
					}
				}()
			}
			clientsWG.Wait()
			h.wg.Wait() // every handler has read its body to the end
			for _, e := range h.errs {
				t.Error(e)
			}
		})
	}
}
