package middleware

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/utf8guard/utf8guard/rules"
)

// TestSpooledUploadsShareOneDiskBudget: the spooled bodies of all the
// requests of one pipeline hold at most SpoolBytes on disk together. Of
// eight concurrent uploads of 1.5 MiB under a budget of 4 MiB, whose
// handlers hold them, two are taken and six refused with 503 spool_full
// and a log line; and the octets of an upload go back to the budget when
// it is done, when its client goes away mid-body, when its handler
// panics, and when a timeout answers before its handler returns.
func TestSpooledUploadsShareOneDiskBudget(t *testing.T) {
	const budget = 4 << 20
	dir := t.TempDir()
	p := rules.Strict()
	p.FileContents = rules.DataFiles
	hold := make(chan struct{})
	handler := onHTTP(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			_, _ = io.Copy(io.Discard, part)
		}
		switch r.Header.Get("X-Then") {
		case "hold":
			<-hold
		case "panic":
			panic(http.ErrAbortHandler) // net/http closes the connection, quietly
		case "slow":
			time.Sleep(300 * time.Millisecond)
		}
		w.WriteHeader(http.StatusOK)
	})
	// One pipeline, and so one budget, on both routes; on /timeout a
	// TimeoutHandler in front of it.
	srv := newServer(t, setup{mount: mountHandler, http: HTTPConfig{Rules: p, TempDir: dir, SpoolBytes: budget},
		patterns: []string{"/up", "/timeout"}}, handler)
	logs := srv.logs
	addr := srv.listen(t, "http1", func(s *http.Server) {
		timeout := http.TimeoutHandler(s.Handler, 50*time.Millisecond, "timeout")
		up := s.Handler
		s.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/timeout" {
				timeout.ServeHTTP(w, r)
				return
			}
			up.ServeHTTP(w, r)
		})
	}).addr

	// Eight uploads at once, each held by its handler once taken.
	type answer struct {
		status int
		reason string
	}
	answers := make(chan answer, 8)
	for range 8 {
		go func() {
			status, body := spoolUpload(t, addr, "/up", 3<<19, "hold", -1)
			var rj struct{ Reason string }
			_ = json.Unmarshal([]byte(body), &rj)
			answers <- answer{status, rj.Reason}
		}()
	}
	count := map[answer]int{}
	for range 6 {
		count[<-answers]++
	}
	close(hold)
	for range 2 {
		count[<-answers]++
	}
	if want := (map[answer]int{{200, ""}: 2, {503, "spool_full"}: 6}); fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("eight uploads of 1.5 MiB under 4 MiB: %v, want %v", count, want)
	}
	if n := strings.Count(logs.String(), `"reason":"spool_full"`); n != 6 {
		t.Errorf("%d spool_full log lines, want 6:\n%s", n, logs.String())
	}

	// Each way an upload ends gives its octets back: afterwards, an upload
	// that needs nearly the whole budget is taken.
	for _, tc := range []struct {
		name, path, then string
		cut              int // send this much of the body, then go away (-1: all of it)
	}{
		{"done", "/up", "", -1},
		{"client gone mid-body", "/up", "", 2 << 20},
		{"handler panic", "/up", "panic", -1},
		{"timeout", "/timeout", "slow", -1},
	} {
		spoolUpload(t, addr, tc.path, 3<<20, tc.then, tc.cut)
		deadline := time.Now().Add(5 * time.Second)
		for {
			status, body := spoolUpload(t, addr, "/up", budget-64<<10, "", -1)
			if status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after an upload ended by %s, the budget is not back: %d %s", tc.name, status, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d spool files left in the temporary directory", len(left))
	}
}

// spoolUpload sends a multipart upload of a file of size octets to path on a
// connection of its own, with X-Then: then, and reads the answer; with cut
// >= 0 it sends that much of the body and closes the connection instead.
func spoolUpload(t *testing.T, addr, path string, size int, then string, cut int) (int, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", "data.bin")
	_, _ = fw.Write(bytes.Repeat([]byte{0xA5}, size))
	_ = w.Close()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\nContent-Length: %d\r\nX-Then: %s\r\n\r\n",
		path, w.FormDataContentType(), body.Len(), then)
	if cut >= 0 {
		_, _ = io.WriteString(conn, head)
		_, _ = conn.Write(body.Bytes()[:cut])
		return 0, ""
	}
	// Written while the answer is read: a refusal may come before the
	// server has read the body, and then it reads no more of it.
	go func() { _, _ = conn.Write(append([]byte(head), body.Bytes()...)) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err.Error() // a handler that panicked answers nothing
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
