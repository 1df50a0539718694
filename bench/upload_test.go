package bench

// Uploads: what utf8guard costs a 100 MiB multipart upload, in
// memory and in time, against the same upload to the same handler without
// it.
//
// TestUploadRSS measures it the way an operator would see it: it builds
// the demo server (examples/server) with go build, and for each round
// starts it afresh as a process of its own, warms it up, reads its peak
// resident set (VmHWM in /proc/PID/status), sends one upload from a file
// on disk with net/http's client (which sends a file with sendfile), times
// it to the last octet of the answer, and reads VmHWM again. The upload
// is one binary file part of -upload.size MiB (100 by default) and a text
// field after it, to /upload/x: with the demo's policy (the strict
// preset, file contents as data: utf8guard checks the names and the
// field, spools the body, and the handler reads the spool), and with a
// policy file that makes /upload/* unchecked (the same binary and
// handler, utf8guard mounted but off for the route: the handler streams
// the body from the connection). Both handlers stream the form with
// Request.MultipartReader and hash the file (SHA-256). Rounds alternate
// the two servers, so that noise on a shared machine hits both alike; the
// figures are medians. It runs only with -upload, on Linux:
//
//	go test -run TestUploadRSS -v ./bench/ -upload [-upload.size 100] [-upload.rounds 7]
//
// and fails when the goals are missed: the peak RSS rises by at most
// 32 MiB over the warmed-up server's, and the checked upload takes at most
// 1.2 times as long as the unchecked one.
//
// BenchmarkUpload serves the same body (made on the fly) through Echo's
// ServeHTTP in process, with and without the middleware, for the time and
// the allocations per upload:
//
//	go test -run '^$' -bench Upload -benchmem ./bench/

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/examples/server/app"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/rules"
)

var (
	uploadRun    = flag.Bool("upload", false, "run TestUploadRSS, which builds and starts the demo server")
	uploadSize   = flag.Int("upload.size", 100, "the size of the upload's file, in MiB")
	uploadRounds = flag.Int("upload.rounds", 7, "rounds of TestUploadRSS, each one upload to each server")
)

// The goals for uploads.
const (
	uploadRSSGoal  = 32 << 20 // octets the peak RSS may rise by
	uploadTimeGoal = 1.2      // checked time over unchecked time
)

const upBenchBoundary = "bench-upload-boundary-4d1c9e"

// upBenchBody returns a multipart body of one binary file of size octets
// (a fixed pseudo-random stream) and a text field after it, made as it is
// read, and the SHA-256 of the file.
func upBenchBody(size int64) (io.Reader, string) {
	h := sha256.New()
	_, _ = io.Copy(h, upBenchFile(size))
	return upBenchStream(size), hex.EncodeToString(h.Sum(nil))
}

// upBenchFile is the file of the upload: size octets of ChaCha8.
func upBenchFile(size int64) io.Reader {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], 16)
	return io.LimitReader(rand.NewChaCha8(key), size)
}

// upBenchStream is the body of upBenchBody, without hashing the file.
func upBenchStream(size int64) io.Reader {
	return io.MultiReader(
		strings.NewReader("--"+upBenchBoundary+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"+
			"Content-Type: application/octet-stream\r\n\r\n"),
		upBenchFile(size),
		strings.NewReader("\r\n--"+upBenchBoundary+"\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\n"+
			"Été à Zürich, naïve café\r\n--"+upBenchBoundary+"--\r\n"),
	)
}

// upServer is a demo server process.
type upServer struct {
	cmd    *exec.Cmd
	addr   string
	stderr bytes.Buffer
}

var upStartLine = regexp.MustCompile(`listening on http://(\S+)`)

func startUpServer(t *testing.T, bin string, args ...string) *upServer {
	t.Helper()
	s := &upServer{cmd: exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)}
	s.cmd.Dir = t.TempDir()
	s.cmd.Stdout = io.Discard
	pr, pw := io.Pipe()
	s.cmd.Stderr = pw
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.stderr.WriteString(sc.Text() + "\n")
			if m := upStartLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.addr = <-found:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Fatalf("no start-up line: %s", s.stderr.String())
	}
	return s
}

func (s *upServer) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// hwm returns the process's peak resident set, VmHWM, in octets.
func (s *upServer) hwm(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// cpu returns the CPU time the process's threads have run, from
// /proc/PID/task/*/schedstat: less disturbed than the wall time by other
// processes on a shared machine.
func (s *upServer) cpu(t *testing.T) time.Duration {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no tasks: %v", err)
	}
	var sum int64
	for _, name := range tasks {
		data, err := os.ReadFile(name)
		if err != nil {
			continue // a thread that ended
		}
		ns, err := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += ns
	}
	return time.Duration(sum)
}

// send posts the file of the upload body, of size octets, and returns the
// time to the answer's last octet and the answer.
func (s *upServer) send(t *testing.T, name string, size int64) (time.Duration, []byte) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := http.NewRequest(http.MethodPost, "http://"+s.addr+"/upload/x", f)
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = size
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+upBenchBoundary)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Minute}
	start := time.Now()
	resp, err := client.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	return took, body
}

// TestUploadRSS: see the comment at the top of the file.
func TestUploadRSS(t *testing.T) {
	if !*uploadRun {
		t.Skip("measures a 100 MiB upload to a server process: run with -upload")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/PID/status")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "server")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "../examples/server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The unchecked server: the same binary and handler, the route's
	// policy off.
	unchecked := filepath.Join(dir, "unchecked.json")
	if err := os.WriteFile(unchecked, []byte(`{"default": {"preset": "strict"}, "routes": {"/upload/*": {"preset": "unchecked"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	size := int64(*uploadSize) << 20
	body, sum := upBenchBody(size)
	bodyFile := filepath.Join(dir, "upload.body")
	f, err := os.Create(bodyFile)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(f, body)
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	small, _ := upBenchBody(64 << 10)
	smallFile := filepath.Join(dir, "small.body")
	var buf bytes.Buffer
	_, _ = io.Copy(&buf, small)
	if err := os.WriteFile(smallFile, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	type run struct {
		took, cpu time.Duration
		rise      int64
	}
	runs := map[string][]run{}
	for round := range *uploadRounds {
		for _, kind := range []string{"utf8guard", "unchecked"} {
			var args []string
			if kind == "unchecked" {
				args = []string{"-policy", unchecked}
			}
			s := startUpServer(t, bin, args...)
			s.send(t, smallFile, int64(buf.Len())) // warm up: the first request's costs
			before, cpu0 := s.hwm(t), s.cpu(t)
			took, answer := s.send(t, bodyFile, n)
			after, cpu := s.hwm(t), s.cpu(t)-cpu0
			s.stop()
			var got struct {
				Files []struct {
					Size   int64  `json:"size"`
					SHA256 string `json:"sha256"`
				} `json:"files"`
				Fields map[string][]string `json:"fields"`
			}
			if err := json.Unmarshal(answer, &got); err != nil || len(got.Files) != 1 || got.Files[0].SHA256 != sum || got.Files[0].Size != size {
				t.Fatalf("%s: answer %s", kind, answer)
			}
			runs[kind] = append(runs[kind], run{took, cpu, after - before})
			t.Logf("round %d %-9s %7.1f ms (server CPU %6.1f ms), peak RSS %6.1f MiB -> %6.1f MiB (+%.1f MiB)",
				round+1, kind, took.Seconds()*1000, cpu.Seconds()*1000, float64(before)/(1<<20), float64(after)/(1<<20), float64(after-before)/(1<<20))
		}
	}
	median := func(kind string, f func(run) float64) float64 {
		var v []float64
		for _, r := range runs[kind] {
			v = append(v, f(r))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	ms := func(r run) float64 { return r.took.Seconds() * 1000 }
	cpuMS := func(r run) float64 { return r.cpu.Seconds() * 1000 }
	rise := func(r run) float64 { return float64(r.rise) }
	tg, tu := median("utf8guard", ms), median("unchecked", ms)
	cg, cu := median("utf8guard", cpuMS), median("unchecked", cpuMS)
	rg, ru := median("utf8guard", rise), median("unchecked", rise)
	t.Logf("%d MiB upload, medians of %d rounds: utf8guard %.1f ms (server CPU %.1f ms), +%.1f MiB peak RSS; "+
		"unchecked %.1f ms (CPU %.1f ms), +%.1f MiB; time ratio %.2f, CPU ratio %.2f",
		size>>20, *uploadRounds, tg, cg, rg/(1<<20), tu, cu, ru/(1<<20), tg/tu, cg/cu)
	var worst float64
	for _, r := range runs["utf8guard"] {
		worst = max(worst, rise(r))
	}
	if worst > uploadRSSGoal {
		t.Errorf("the peak RSS rose by up to %.1f MiB with utf8guard; the goal is %d MiB", worst/(1<<20), uploadRSSGoal>>20)
	}
	if tg/tu > uploadTimeGoal {
		t.Errorf("the checked upload took %.2f times as long as the unchecked one; the goal is %.1f", tg/tu, uploadTimeGoal)
	}
}

// BenchmarkUpload serves a multipart upload of one binary file and a text
// field through Echo v4's ServeHTTP, with the demo's upload handler
// (app.Upload: MultipartReader, SHA-256 of the file), without utf8guard
// (impl=none) and with it under the demo's upload policy
// (impl=utf8guard: strict, file contents as data), for a file of 1 MiB
// and 64 MiB. The body is made on the fly for every upload.
func BenchmarkUpload(b *testing.B) {
	pol := rules.Strict()
	pol.FileContents = rules.DataFiles
	pol.Limits.BinaryBodyBytes, pol.Limits.FileBytes = 256<<20, 256<<20
	for _, size := range []int64{1 << 20, 64 << 20} {
		for _, impl := range []string{"none", "utf8guard"} {
			b.Run(fmt.Sprintf("size=%dMiB/impl=%s", size>>20, impl), func(b *testing.B) {
				e := echo.New()
				if impl == "utf8guard" {
					nop := zerolog.Nop()
					e.Use(echov4.WithConfig(echov4.Config{Rules: pol, Logger: &nop, TempDir: b.TempDir()}))
				}
				e.POST("/upload/*", func(c echo.Context) error {
					out, rf := app.Upload(c.Request())
					if rf != nil {
						return errors.New(rf.Message)
					}
					return c.JSON(http.StatusOK, out)
				})
				_, sum := upBenchBody(size)
				b.SetBytes(size)
				b.ReportAllocs()
				reportCPU(b, func() {
					for b.Loop() {
						r := httptest.NewRequest(http.MethodPost, "/upload/x", upBenchStream(size))
						r.Header.Set("Content-Type", "multipart/form-data; boundary="+upBenchBoundary)
						w := httptest.NewRecorder()
						e.ServeHTTP(w, r)
						if w.Code != 200 || !strings.Contains(w.Body.String(), sum) {
							b.Fatalf("status %d: %s", w.Code, w.Body)
						}
					}
				})
			})
		}
	}
}
