package middleware_test

// Uploads through every adapter: multipart bodies checked as they stream
// in and spooled (middleware/go, spool.go), binary bodies passed
// on unread under the binary limit. Bodies are made on the fly (a ChaCha8
// stream per file), never held whole in memory by the tests either.

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestUploadByteIdentical: a file part far over the text limit and the
// spool's memory, between two fields, reaches the handler's
// MultipartReader whole and byte-identical (same SHA-256), on every
// adapter, chunked or with a Content-Length; the fields are read as sent;
// the spool's file is there while the handler runs and gone after.
func TestUploadByteIdentical(t *testing.T) {
	t.Parallel()
	n := size(12*mib, 3*mib)
	parts := []upPart{
		{field: "title", text: "Zoë's photo, été 2025"},
		{field: "file", filename: "photo.raw", ct: "application/octet-stream", seed: 1, size: n},
		{field: "note", text: "after the file: 日本語"},
	}
	want := fileHash(1, n)
	total := bodySize(parts...)
	for _, s := range upServers(t, uploadPolicy()) {
		for _, chunked := range []bool{false, true} {
			length := total
			if chunked {
				length = -1
			}
			w := s.do("POST", "/upload", upCT, uploadBody(parts...), length)
			if w.Code != 200 {
				t.Fatalf("%s chunked=%v: status %d %s; log %s", s.name, chunked, w.Code, w.Body, s.Logs())
			}
			res := decode(t, w)
			if len(res.Files) != 1 || res.Files[0].SHA256 != want || res.Files[0].Size != n || res.Files[0].Filename != "photo.raw" {
				t.Errorf("%s chunked=%v: files %+v; want one of %d octets, sha256 %s", s.name, chunked, res.Files, n, want)
			}
			if res.Fields["title"][0] != parts[0].text || res.Fields["note"][0] != parts[2].text {
				t.Errorf("%s: fields %q", s.name, res.Fields)
			}
			if s.during.Load() != 1 || countFiles(s.dir) != 0 {
				t.Errorf("%s: %d spool files while the handler ran, %d after; want 1 and 0", s.name, s.during.Load(), countFiles(s.dir))
			}
		}
		if l := s.logLines(t); len(l) != 0 {
			t.Errorf("%s: log %v", s.name, l)
		}
	}
}

// TestUploadTextAfterLargeFile: a text field after a 50 MiB file part is
// checked before the handler runs: one bad octet in it refuses the
// request, and the 50 MiB were never in memory (what the whole request
// allocates is a small part of it).
func TestUploadTextAfterLargeFile(t *testing.T) {
	for i, s := range upServers(t, uploadPolicy()) {
		// 50 MiB through one adapter, less through the others: they
		// share the code that streams.
		n := size(50*mib, 6*mib)
		if i > 0 {
			n = 6 * mib
		}
		parts := []upPart{
			{field: "file", filename: "big.bin", ct: "application/octet-stream", seed: 2, size: n},
			{field: "caption", text: "fine, then \xC0\xAE"},
		}
		total := bodySize(parts...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w := s.do("POST", "/upload", upCT, uploadBody(parts...), total)
		runtime.ReadMemStats(&after)
		if w.Code != 400 || s.runs.Load() != 0 {
			t.Fatalf("%s: status %d, handler runs %d; want 400 and none", s.name, w.Code, s.runs.Load())
		}
		l := s.oneLog(t, "overlong", "multipart")
		if l["field"] != "caption" || l["offset"] != float64(11) {
			t.Errorf("%s: log %v", s.name, l)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: a %d MiB body refused after its last field; %.1f MiB allocated in all", s.name, total/mib, float64(alloc)/mib)
		if !racetest.Enabled && alloc > 8*mib {
			t.Errorf("%s: %d octets allocated for a %d-octet body: the file was held in memory", s.name, alloc, total)
		}
		if countFiles(s.dir) != 0 {
			t.Errorf("%s: the spool is left in %s", s.name, s.dir)
		}
	}
}

// TestUploadLimits: the binary limits. A binary body declared over
// BinaryBodyBytes is refused before it is read (413); one of unknown
// length is cut off in the handler's read (an *http.MaxBytesError, which
// the handler answers 413) and a too_large line is logged. A multipart
// body whose data goes over the limit is refused before the handler runs,
// chunked too, and so is a file over FileBytes (413, its field named).
func TestUploadLimits(t *testing.T) {
	t.Parallel()
	pol := uploadPolicy()
	pol.Limits.BinaryBodyBytes = 4 * mib
	pol.Limits.FileBytes = 3 * mib
	big := func(seed uint64) io.Reader { return fileData(seed, 5*mib) }
	for _, s := range upServers(t, pol) {
		t.Run(s.name, func(t *testing.T) {
			// Declared over: refused unread.
			w := s.do("PUT", "/upload", "application/octet-stream", big(3), 5*mib)
			if w.Code != 413 || s.runs.Load() != 0 {
				t.Fatalf("declared: status %d, runs %d", w.Code, s.runs.Load())
			}
			s.oneLog(t, "too_large", "body")
			s.Logs().Reset()

			// Chunked over: cut off in the handler, and logged.
			w = s.do("PUT", "/upload", "application/octet-stream", big(3), -1)
			if w.Code != 413 || s.runs.Load() != 1 {
				t.Fatalf("chunked: status %d, runs %d; want the handler's 413", w.Code, s.runs.Load())
			}
			if e, _ := s.readErr.Load().(string); !strings.Contains(e, "too large") {
				t.Errorf("chunked: the handler's read error %q", e)
			}
			l := s.oneLog(t, "too_large", "body")
			if l["mode"] != "enforce" || l["method"] != "PUT" {
				t.Errorf("chunked: log %v", l)
			}
			s.Logs().Reset()

			// Multipart: the data of two files over the body's limit.
			two := []upPart{
				{field: "a", filename: "a.bin", ct: "application/octet-stream", seed: 4, size: 2*mib + mib/2},
				{field: "b", filename: "b.bin", ct: "application/octet-stream", seed: 5, size: 2*mib + mib/2},
			}
			w = s.do("POST", "/upload", upCT, uploadBody(two...), -1)
			if w.Code != 413 || s.runs.Load() != 1 {
				t.Fatalf("multipart chunked: status %d, runs %d", w.Code, s.runs.Load())
			}
			s.oneLog(t, "too_large", "multipart")
			s.Logs().Reset()

			// One file over FileBytes.
			one := []upPart{{field: "video", filename: "v.mp4", ct: "video/mp4", seed: 6, size: 3*mib + 1}}
			w = s.do("POST", "/upload", upCT, uploadBody(one...), bodySize(one...))
			if w.Code != 413 || s.runs.Load() != 1 {
				t.Fatalf("file over: status %d, runs %d", w.Code, s.runs.Load())
			}
			if l := s.oneLog(t, "too_large", "multipart"); l["field"] != "video" {
				t.Errorf("file over: log %v", l)
			}
			s.Logs().Reset()

			// Declared over text and data together: refused unread.
			r := &countReader{r: uploadBody(two...)}
			w = s.do("POST", "/upload", upCT, r, 5*mib+mib)
			if w.Code != 413 || r.n != 0 {
				t.Errorf("multipart declared: status %d, %d octets read", w.Code, r.n)
			}
			if countFiles(s.dir) != 0 {
				t.Errorf("the spool is left in %s", s.dir)
			}
		})
	}
}

// TestUploadSpoolRemoved: the spool's temporary file is removed when the
// handler returns, and when it panics, on every adapter; one that is
// refused leaves none either.
func TestUploadSpoolRemoved(t *testing.T) {
	parts := []upPart{
		{field: "file", filename: "a.bin", ct: "application/octet-stream", seed: 7, size: 3 * mib},
		{field: "x", text: "y"},
	}
	for _, s := range upServers(t, uploadPolicy()) {
		w := s.do("POST", "/panic", upCT, uploadBody(parts...), -1)
		if w.Code != 500 || s.runs.Load() != 1 || s.during.Load() != 1 {
			t.Errorf("%s: status %d, runs %d, files during %d; want the panic's 500, 1, 1", s.name, w.Code, s.runs.Load(), s.during.Load())
		}
		if n := countFiles(s.dir); n != 0 {
			t.Errorf("%s: %d files left in the spool directory after a panic", s.name, n)
		}
		bad := append(parts[:1:1], upPart{field: "x", text: "\x00"})
		if w := s.do("POST", "/upload", upCT, uploadBody(bad...), -1); w.Code != 400 || countFiles(s.dir) != 0 {
			t.Errorf("%s: refused: status %d, %d files left", s.name, w.Code, countFiles(s.dir))
		}
	}
}

// TestUploadFiveMiB: the uploads a user reported refused at 1 MiB pass
// on the default preset and on the strict one that lists the type: a
// 5 MiB application/octet-stream PUT (declared and chunked), and a 5 MiB
// file read with FormFile.
func TestUploadFiveMiB(t *testing.T) {
	t.Parallel()
	strict := rules.Strict()
	strict.BinaryTypes = []string{"application/octet-stream"}
	const n = 5 * mib
	want := fileHash(8, n)
	form := []upPart{{field: "f", filename: "report.pdf", ct: "application/octet-stream", seed: 8, size: n}}
	for name, pol := range map[string]rules.Policy{"default": rules.Default(), "strict": strict} {
		for _, s := range upServers(t, pol) {
			for _, length := range []int64{n, -1} {
				w := s.do("PUT", "/upload", "application/octet-stream", fileData(8, n), length)
				if w.Code != 200 || decode(t, w).Raw != want {
					t.Errorf("%s %s PUT length %d: status %d %s", name, s.name, length, w.Code, w.Body)
				}
			}
			w := s.do("POST", "/formfile", upCT, uploadBody(form...), bodySize(form...))
			if w.Code != 200 {
				t.Fatalf("%s %s FormFile: status %d %s; log %s", name, s.name, w.Code, w.Body, s.Logs())
			}
			if f := decode(t, w).Files; len(f) != 1 || f[0].SHA256 != want || f[0].Filename != "report.pdf" {
				t.Errorf("%s %s FormFile: %+v", name, s.name, f)
			}
			if countFiles(s.dir) != 0 {
				t.Errorf("%s %s: spool left", name, s.name)
			}
		}
	}
}

// The two ordinary files a user reported refused: a .txt that Windows
// Notepad saved as "Unicode" (UTF-16 LE with a byte order mark), which a
// browser sends as text/plain, and a CSV that Excel saved in
// Windows-1252, sent as text/csv. Neither is UTF-8.
var (
	notepadTxt = "\xff\xfeH\x00\xe9\x00l\x00l\x00o\x00\r\x00\n\x00"
	excelCSV   = "Name;City;Note\r\nZo\xeb;M\xfcnchen;caf\xe9 \x80 5\r\n"
)

// TestUploadFileContents: whether file contents are text is the route's
// choice. Under the strict preset (rules.TextFiles) text/* files are
// checked as UTF-8, and both are refused, naming the part; a route whose
// files are data (rules.DataFiles) takes both, byte-identical, while
// their names are checked all the same.
func TestUploadFileContents(t *testing.T) {
	files := []struct {
		upPart
		reason string // under TextFiles
	}{
		{upPart{field: "notes", filename: "notes.txt", ct: "text/plain", text: notepadTxt}, "invalid_byte"},
		{upPart{field: "table", filename: "table.csv", ct: "text/csv", text: excelCSV}, "truncated"},
	}
	for _, tc := range files {
		f := tc.upPart
		for _, s := range upServers(t, rules.Strict()) {
			w := s.do("POST", "/upload", upCT, uploadBody(f), -1)
			if w.Code != 400 || s.runs.Load() != 0 {
				t.Errorf("strict %s %s: status %d; want 400", s.name, f.filename, w.Code)
			}
			if l := s.logLines(t); len(l) != 1 || l[0]["location"] != "multipart" || l[0]["field"] != f.field || l[0]["reason"] != tc.reason {
				t.Errorf("strict %s %s: log %v; want %s in %s", s.name, f.filename, l, tc.reason, f.field)
			}
		}
		for _, s := range upServers(t, uploadPolicy()) {
			w := s.do("POST", "/upload", upCT, uploadBody(f), -1)
			sum := sha256.Sum256([]byte(f.text))
			if w.Code != 200 {
				t.Fatalf("data %s %s: status %d %s", s.name, f.filename, w.Code, w.Body)
			}
			if got := decode(t, w).Files; len(got) != 1 || got[0].SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("data %s %s: %+v", s.name, f.filename, got)
			}
			// The name is text: a bidi control in it is refused.
			bad := f
			bad.filename = "invoice\u202Etxt.exe"
			if w := s.do("POST", "/upload", upCT, uploadBody(bad), -1); w.Code != 400 {
				t.Errorf("data %s: a bidi control in the file name: status %d", s.name, w.Code)
			}
		}
	}
}

// TestUploadNormalizeSpooled: on a route that normalizes, a body spooled
// to a file is rebuilt spool to spool: an NFD file name (as macOS sends
// them) and field reach the handler in NFC, the file name still written
// filename="..." as the client wrote it, not switched to filename*=, and
// the file's octets copied through unchanged. The same in gzip, decoded
// as it streams in.
func TestUploadNormalizeSpooled(t *testing.T) {
	t.Parallel()
	pol := uploadPolicy()
	pol.Normalization = normalize.NFC
	n := size(8*mib, 2*mib)
	parts := []upPart{
		{field: "file", filename: "Cafe\u0301 cre\u0300me.jpg", ct: "image/jpeg", seed: 9, size: n},
		{field: "caption", text: "cafe\u0301"},
	}
	want := fileHash(9, n)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = io.Copy(zw, uploadBody(parts...))
	_ = zw.Close()
	for _, coding := range []string{"", "gzip"} {
		for _, s := range upServers(t, pol) {
			r := httptest.NewRequest("POST", "/upload", uploadBody(parts...))
			r.ContentLength = bodySize(parts...)
			if coding != "" {
				r = httptest.NewRequest("POST", "/upload", bytes.NewReader(gz.Bytes()))
				r.Header.Set("Content-Encoding", coding)
			}
			r.Header.Set("Content-Type", upCT)
			checkNormalized(t, s, coding, s.Do(r), want)
		}
	}
}

// checkNormalized checks the answer of TestUploadNormalizeSpooled.
func checkNormalized(t *testing.T, s *upServer, coding string, w *httptest.ResponseRecorder, want string) {
	t.Helper()
	name := s.name + " " + coding
	if w.Code != 200 {
		t.Fatalf("%s: status %d %s; log %s", name, w.Code, w.Body, s.Logs())
	}
	res := decode(t, w)
	if len(res.Files) != 1 || res.Files[0].SHA256 != want || res.Files[0].Filename != "Café crème.jpg" {
		t.Fatalf("%s: files %+v", name, res.Files)
	}
	if d := res.Files[0].Disposition; d != `form-data; name="file"; filename="Café crème.jpg"` {
		t.Errorf("%s: Content-Disposition %q; want the client's form, in NFC", name, d)
	}
	if got := res.Fields["caption"]; len(got) != 1 || got[0] != "café" {
		t.Errorf("%s: caption %q", name, got)
	}
	if countFiles(s.dir) != 0 {
		t.Errorf("%s: spool left", name)
	}
}

// TestUploadMonitorSpooled: in Monitor mode a spooled body that breaks the
// policy, or its limit, is flagged and handed on exactly as it came.
func TestUploadMonitorSpooled(t *testing.T) {
	pol := uploadPolicy().AsMonitor()
	pol.Limits.BinaryBodyBytes = 2 * mib
	parts := []upPart{
		{field: "file", filename: "a.bin", ct: "application/octet-stream", seed: 10, size: 3 * mib},
		{field: "x", text: "\u202e"},
	}
	h := sha256.New()
	_, _ = io.Copy(h, uploadBody(parts...))
	want := hex.EncodeToString(h.Sum(nil))
	for _, s := range upServers(t, pol) {
		w := s.do("PUT", "/upload", upCT, uploadBody(parts...), -1)
		if w.Code != 200 || decode(t, w).Raw != want {
			t.Errorf("%s: status %d %s; want the body as sent", s.name, w.Code, w.Body)
		}
		if l := s.oneLog(t, "too_large", "multipart"); l["mode"] != "monitor" {
			t.Errorf("%s: log %v", s.name, l)
		}
		if countFiles(s.dir) != 0 {
			t.Errorf("%s: spool left", s.name)
		}
	}
}

// TestUploadSpoolFailure: a spool that cannot be written (its directory is
// gone) is the server's failure: 500, body_unreadable, the cause logged.
func TestUploadSpoolFailure(t *testing.T) {
	parts := []upPart{{field: "file", filename: "a.bin", ct: "application/octet-stream", seed: 11, size: 2 * mib}}
	for _, s := range upServers(t, uploadPolicy()) {
		if err := os.Remove(s.dir); err != nil {
			t.Fatal(err)
		}
		w := s.do("POST", "/upload", upCT, uploadBody(parts...), -1)
		if w.Code != 500 || s.runs.Load() != 0 {
			t.Errorf("%s: status %d, runs %d; want 500 and none", s.name, w.Code, s.runs.Load())
		}
		l := s.oneLog(t, "body_unreadable", "multipart")
		if e, _ := l["error"].(string); !strings.Contains(e, "spooling the request body failed: open ") {
			t.Errorf("%s: log %v", s.name, l)
		}
	}
}

// TestUploadSmallBodiesStayInMemory: a body within the spool's memory
// never touches the disk.
func TestUploadSmallBodiesStayInMemory(t *testing.T) {
	parts := []upPart{{field: "file", filename: "a.bin", ct: "application/octet-stream", seed: 12, size: 512 << 10}}
	for _, s := range upServers(t, uploadPolicy()) {
		if w := s.do("POST", "/upload", upCT, uploadBody(parts...), -1); w.Code != 200 || s.during.Load() != 0 {
			t.Errorf("%s: status %d, %d spool files while the handler ran", s.name, w.Code, s.during.Load())
		}
	}
}

// An adapter over the pipeline releases what it holds for a request once
// the handler has returned, in a deferred call.
func ExampleVerdict_Release() {
	pl, _ := middleware.NewPipeline(middleware.PipelineConfig{Rules: rules.Strict()})
	h := func(w http.ResponseWriter, r *http.Request) {
		v := pl.Check(r, middleware.Match{Route: r.URL.Path}, nil)
		defer v.Release() // the spool of a large upload, after the handler, panic or not
		if !v.Pass {
			http.Error(w, v.Rejection.Reason.String(), v.Rejection.Status())
			return
		}
		mr, err := v.Request.MultipartReader()
		if err != nil {
			http.Error(w, "not a form", http.StatusBadRequest)
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			fmt.Fprintln(w, p.FormName())
		}
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("title", "été")
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/upload", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	w := httptest.NewRecorder()
	h(w, r)
	fmt.Print(w.Body.String())
	// Output: title
}

// TestUploadLimitsNamed: each limit an upload meets is the one its
// rejection and log line name (Rejection.Limit, "limit").
func TestUploadLimitsNamed(t *testing.T) {
	pol := uploadPolicy()
	pol.Limits.BodyBytes, pol.Limits.FileBytes, pol.Limits.BinaryBodyBytes = 64<<10, 2*mib, 3*mib
	cases := []struct {
		name  string
		parts []upPart
		limit float64
	}{
		{"text", []upPart{{field: "a", text: strings.Repeat("a", 60<<10)}, {field: "b", text: strings.Repeat("b", 8<<10)}}, 64 << 10},
		{"file", []upPart{{field: "f", filename: "f.bin", ct: "application/octet-stream", seed: 13, size: 2*mib + 1}}, 2 * mib},
		{"data", []upPart{
			{field: "f", filename: "f.bin", ct: "application/octet-stream", seed: 14, size: 2 * mib},
			{field: "g", filename: "g.bin", ct: "application/octet-stream", seed: 15, size: 2 * mib}}, 3 * mib},
	}
	for _, s := range upServers(t, pol) {
		for _, tc := range cases {
			s.Logs().Reset()
			w := s.do("POST", "/upload", upCT, uploadBody(tc.parts...), -1)
			if w.Code != 413 {
				t.Errorf("%s %s: status %d", s.name, tc.name, w.Code)
				continue
			}
			if l := s.oneLog(t, "too_large", "multipart"); l["limit"] != tc.limit {
				t.Errorf("%s %s: log %v, want limit %v", s.name, tc.name, l, tc.limit)
			}
		}
	}
}

// TestUploadCoded: a multipart body with a content coding streams as one
// without: decoded as it comes, a file far over the text limit is taken
// on the upload route (gzip and deflate), and the handler reads the
// decoded form, by MultipartReader and by FormFile, with no
// Content-Encoding. (upload_coded_test.go sends them over TCP.)
func TestUploadCoded(t *testing.T) {
	t.Parallel()
	coded := func(coding string, parts ...upPart) []byte {
		var b bytes.Buffer
		var zw io.WriteCloser = gzip.NewWriter(&b)
		if coding == "deflate" {
			zw = zlib.NewWriter(&b)
		}
		_, _ = io.Copy(zw, uploadBody(parts...))
		_ = zw.Close()
		return b.Bytes()
	}
	small := []upPart{{field: "f", filename: "a.txt", ct: "text/plain", text: notepadTxt}, {field: "x", text: "été"}}
	big := []upPart{{field: "f", filename: "a.bin", ct: "application/octet-stream", seed: 16, size: int64(middleware.BigFile())}, {field: "x", text: "été"}}
	want := fileHash(16, int64(middleware.BigFile()))
	for _, s := range upServers(t, uploadPolicy()) {
		for _, coding := range []string{"gzip", "deflate"} {
			post := func(route string, parts []upPart) *httptest.ResponseRecorder {
				r := httptest.NewRequest("POST", route, bytes.NewReader(coded(coding, parts...)))
				r.Header.Set("Content-Type", upCT)
				r.Header.Set("Content-Encoding", coding)
				return s.Do(r)
			}
			if w := post("/upload", small); w.Code != 200 || decode(t, w).Fields["x"][0] != "été" {
				t.Errorf("%s %s: status %d %s", s.name, coding, w.Code, w.Body)
			}
			w := post("/upload", big)
			if w.Code != 200 {
				t.Fatalf("%s %s: a coded body of 2 MiB: status %d %s", s.name, coding, w.Code, w.Body)
			}
			if res := decode(t, w); len(res.Files) != 1 || res.Files[0].SHA256 != want || res.Fields["x"][0] != "été" {
				t.Errorf("%s %s: a coded body of 2 MiB: %+v", s.name, coding, res)
			}
			if w := post("/formfile", big); w.Code != 200 || decode(t, w).Files[0].SHA256 != want {
				t.Errorf("%s %s: FormFile: status %d %s", s.name, coding, w.Code, w.Body)
			}
			if s.during.Load() != 1 || countFiles(s.dir) != 0 {
				t.Errorf("%s %s: %d spool files while the handler ran, %d after; want 1 and 0", s.name, coding, s.during.Load(), countFiles(s.dir))
			}
		}
	}
}
