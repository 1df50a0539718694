package middleware

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/rules"
)

// Multipart bodies with a content coding, end to end: sent over TCP to a
// real http.Server on 127.0.0.1, through the net/http adapter (the
// handler streams the form with Request.MultipartReader) and Echo v4's
// (the handler reads it with c.FormValue and c.FormFile). They take the
// spool as bodies without a coding do: decoded as they come, data files
// unread and bounded by the data limits, text checked within the text
// limit.

const codedBoundary = "coded-upload-boundary-41c9"

// codedPart is a part of a multipart body: a field with its text, or a
// file of data.
type codedPart struct {
	field, filename, ct, text string
	data                      []byte
}

// codedBody is a multipart body of the parts.
func codedBody(parts ...codedPart) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		b.WriteString("--" + codedBoundary + "\r\nContent-Disposition: form-data; name=\"" + p.field + "\"")
		if p.filename != "" {
			b.WriteString("; filename=\"" + p.filename + "\"")
		}
		b.WriteString("\r\n")
		if p.ct != "" {
			b.WriteString("Content-Type: " + p.ct + "\r\n")
		}
		b.WriteString("\r\n" + p.text)
		b.Write(p.data)
		b.WriteString("\r\n")
	}
	b.WriteString("--" + codedBoundary + "--\r\n")
	return b.Bytes()
}

// randomData is n octets that do not compress.
func randomData(seed uint64, n int) []byte {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed+1)
	p := make([]byte, n)
	_, _ = rand.NewChaCha8(key).Read(p)
	return p
}

// codeAs is body in the coding named: "gzip", "x-gzip", "zlib" (HTTP's
// deflate) or "raw" (a raw DEFLATE stream sent as deflate).
func codeAs(coding string, body []byte) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip", "x-gzip":
		w = gzip.NewWriter(&b)
	case "zlib":
		w = zlib.NewWriter(&b)
	case "raw":
		w, _ = flate.NewWriter(&b, flate.DefaultCompression)
	}
	_, _ = w.Write(body)
	_ = w.Close()
	return b.Bytes()
}

// header is the Content-Encoding a coding of codeAs is sent with.
func header(coding string) string {
	if coding == "zlib" || coding == "raw" {
		return "deflate"
	}
	return coding
}

// codedAnswer is what the handler read: the fields, each file's size and
// SHA-256, the request's Content-Encoding and length as it saw them, and,
// on /raw, the SHA-256 and length of the body read as it is.
type codedAnswer struct {
	Fields   map[string]string `json:"fields"`
	Files    map[string]string `json:"files"` // field: "size sha256"
	Encoding string            `json:"encoding"`
	Length   int64             `json:"length"`
	Raw      string            `json:"raw"`
	Spooled  int               `json:"spooled"` // temporary files while the handler ran
}

func hashOf(p []byte) string {
	h := sha256.Sum256(p)
	return hex.EncodeToString(h[:])
}

func sizeHash(r io.Reader) string {
	h := sha256.New()
	n, _ := io.Copy(h, r)
	return fmt.Sprintf("%d %x", n, h.Sum(nil))
}

// codedRec is the handler of the coded uploads, on /raw (the body's
// length and sha256) and /form: on net/http it streams the form with
// Request.MultipartReader, on Echo it reads it with c.FormValue and
// c.FormFile. Each answer counts the spools in dir while it ran.
type codedRec struct{ dir string }

func (h *codedRec) serve(c echo.Context, w http.ResponseWriter, r *http.Request) error {
	a := codedAnswer{Fields: map[string]string{}, Files: map[string]string{},
		Encoding: r.Header.Get("Content-Encoding"), Length: r.ContentLength, Spooled: countTemp(h.dir)}
	switch {
	case r.URL.Path == "/raw":
		a.Raw = sizeHash(r.Body)
	case c == nil:
		mr, err := r.MultipartReader()
		for err == nil {
			var p interface {
				io.Reader
				FileName() string
				FormName() string
			}
			if p, err = mr.NextPart(); err != nil {
				break
			}
			if p.FileName() != "" {
				a.Files[p.FormName()] = sizeHash(p)
			} else {
				v, _ := io.ReadAll(p)
				a.Fields[p.FormName()] = string(v)
			}
		}
		if err != io.EOF {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil
		}
	default:
		for _, k := range []string{"title", "note"} {
			if v := c.FormValue(k); v != "" {
				a.Fields[k] = v
			}
		}
		fh, err := c.FormFile("f")
		if err != nil {
			return err
		}
		f, err := fh.Open()
		if err != nil {
			return err
		}
		defer f.Close()
		a.Files["f"] = sizeHash(f)
	}
	if c != nil {
		return c.JSON(http.StatusOK, a)
	}
	return json.NewEncoder(w).Encode(a)
}

// codedServer is the net/http adapter around a ServeMux, or Echo v4's
// e.Use, on /form and /raw, over a real http.Server on 127.0.0.1, its
// spools going to a directory of its own (rec.dir).
type codedServer struct {
	*server[*codedRec]
	*listening
}

func newCodedServers(t *testing.T, pol rules.Policy) []codedServer {
	t.Helper()
	var out []codedServer
	for _, m := range []mount{mountMux, mountGlobal} {
		dir := t.TempDir()
		s := newServer(t, setup{mount: m, echo: Config{Rules: &pol, TempDir: dir}, routes: []string{"/raw", "/form"}}, &codedRec{dir: dir})
		out = append(out, codedServer{s, s.listen(t, "http1")})
	}
	return out
}

// countTemp is how many files dir holds.
func countTemp(dir string) int {
	es, _ := os.ReadDir(dir)
	return len(es)
}

// post sends body to path with the coding's Content-Encoding, with its
// length declared or chunked, and returns the status and the answer.
func (s codedServer) post(t *testing.T, path, encoding string, body []byte, chunked bool) (int, string) {
	t.Helper()
	head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
		"Content-Type: multipart/form-data; boundary=" + codedBoundary + "\r\n"
	if encoding != "" {
		head += "Content-Encoding: " + encoding + "\r\n"
	}
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		head += "Transfer-Encoding: chunked\r\n\r\n"
		rd = chunked16K(body)
	} else {
		head += fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
	}
	resp, answer := s.send(t, head, rd)
	return resp.StatusCode, answer
}

// chunked16K is body in the chunked transfer coding, in chunks of 16 KiB.
func chunked16K(body []byte) io.Reader {
	var b bytes.Buffer
	for len(body) > 0 {
		k := min(len(body), 16<<10)
		fmt.Fprintf(&b, "%x\r\n", k)
		b.Write(body[:k])
		b.WriteString("\r\n")
		body = body[k:]
	}
	b.WriteString("0\r\n\r\n")
	return &b
}

// uploadLimits is the upload route's policy: strict, file contents as
// data, 256 MiB of data (the demo's /upload/*).
func uploadLimits() rules.Policy {
	p := rules.Strict()
	p.FileContents = rules.DataFiles
	p.BinaryTypes = []string{"application/octet-stream"}
	p.Limits.BinaryBodyBytes = 256 << 20
	p.Limits.FileBytes = 256 << 20
	return p
}

// TestCodedUploadAccepted: a 2 MiB file (over the 1 MiB text limit) in a
// coded multipart body, in every coding, sent with a length and chunked,
// is accepted, and the handler reads the decoded form: the file octet for
// octet, the fields, no Content-Encoding and the decoded length. A file
// of zeros that comes as 2 KiB of gzip too. No temporary file is left.
func TestCodedUploadAccepted(t *testing.T) {
	t.Parallel()
	file := randomData(1, bigFile())
	zeros := make([]byte, 2<<20)
	plain := codedBody(codedPart{field: "title", text: "Été à Zürich"},
		codedPart{field: "f", filename: "a.bin", ct: "application/octet-stream", data: file},
		codedPart{field: "note", text: "after the file"})
	codings := []string{"gzip", "x-gzip", "zlib", "raw"}
	if racetest.Enabled && testing.Short() {
		codings = []string{"gzip", "raw"} // one of each decoder
	}
	coded := map[string][]byte{}
	for _, c := range codings {
		coded[c] = codeAs(c, plain)
	}
	for _, s := range newCodedServers(t, uploadLimits()) {
		for _, coding := range codings {
			for _, chunked := range []bool{false, true} {
				name := fmt.Sprintf("%s %s chunked=%v", s.mount, coding, chunked)
				status, body := s.post(t, "/form", header(coding), coded[coding], chunked)
				var a codedAnswer
				if status != 200 || json.Unmarshal([]byte(body), &a) != nil {
					t.Fatalf("%s: %d %s; log %s", name, status, body, s.logs.buf.String())
				}
				if want := fmt.Sprintf("%d %s", len(file), hashOf(file)); a.Files["f"] != want {
					t.Errorf("%s: file %q, want %q", name, a.Files["f"], want)
				}
				if a.Fields["title"] != "Été à Zürich" || a.Fields["note"] != "after the file" {
					t.Errorf("%s: fields %q", name, a.Fields)
				}
				if a.Encoding != "" || a.Length != int64(len(plain)) || a.Spooled != 1 {
					t.Errorf("%s: Content-Encoding %q, length %d, %d temporary files; want none, %d, 1",
						name, a.Encoding, a.Length, a.Spooled, len(plain))
				}
				if n := countTemp(s.rec.dir); n != 0 {
					t.Errorf("%s: %d temporary files left", name, n)
				}
			}
		}
		zbody := codedBody(codedPart{field: "f", filename: "z.bin", ct: "application/octet-stream", data: zeros})
		wire := codeAs("gzip", zbody)
		status, body := s.post(t, "/form", "gzip", wire, false)
		if want := fmt.Sprintf("%d %s", len(zeros), hashOf(zeros)); status != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: 2 MiB of zeros in %d octets of gzip: %d %s", s.mount, len(wire), status, body)
		}
		// The whole body as the handler reads it: the decoded one.
		if status, body := s.post(t, "/raw", "deflate", codeAs("zlib", zbody), true); status != 200 ||
			!strings.Contains(body, fmt.Sprintf(`"raw":"%d %s"`, len(zbody), hashOf(zbody))) {
			t.Errorf("%s: raw read: %d %s", s.mount, status, body)
		}
		if l := s.logs.lines(t); len(l) != 0 {
			t.Errorf("%s: log %v", s.mount, l)
		}
	}
}

// codedLog checks that s logged one line, of reason, location and field
// (and error, if not empty), and forgets it.
func (s codedServer) codedLog(t *testing.T, name, reason, location, field, errText string) map[string]any {
	t.Helper()
	l := s.logs.lines(t)
	s.logs.reset()
	if len(l) != 1 || l[0]["reason"] != reason || l[0]["location"] != location || l[0]["field"] != field ||
		errText != "" && l[0]["error"] != errText {
		t.Errorf("%s: log %v; want one %s line in %s, field %q, error %q", name, l, reason, location, field, errText)
		return nil
	}
	return l[0]
}

// TestCodedUploadRefused: what the check finds in a coded multipart body
// is refused as in one without a coding, after the decoding: a bad octet
// in a field after a 2 MiB file, a file name with a bidi control, text
// over the text limit; a stream that does not decode is body_unreadable
// (400, field Content-Encoding, the decoder's error logged); a coding
// not decoded, or two, 415. The handler never runs, and no temporary
// file is left.
func TestCodedUploadRefused(t *testing.T) {
	t.Parallel()
	file := randomData(2, bigFile())
	big := codedPart{field: "f", filename: "a.bin", ct: "application/octet-stream", data: file}
	badField := codedBody(big, codedPart{field: "note", text: "ab\xc0\xafc"})
	bidi := codedBody(codedPart{field: "f", filename: "invoice\u202etxt.exe", ct: "application/octet-stream", text: "MZ"})
	longText := codedBody(codedPart{field: "note", text: strings.Repeat("a", 1<<20+1)})
	okBody := codedBody(codedPart{field: "note", text: "fine"})
	gz := codeAs("gzip", okBody)
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-8] ^= 1
	zl := codeAs("zlib", okBody)
	badAdler := bytes.Clone(zl)
	badAdler[len(badAdler)-1] ^= 1
	raw := codeAs("raw", okBody)
	cases := []struct {
		name, encoding          string
		body                    []byte
		status                  int
		reason, location, field string
		errText                 string
	}{
		{"bad field after the file, gzip", "gzip", codeAs("gzip", badField), 400, "overlong", "multipart", "note", ""},
		{"bad field after the file, deflate", "deflate", codeAs("zlib", badField), 400, "overlong", "multipart", "note", ""},
		{"bad field after the file, raw deflate", "deflate", codeAs("raw", badField), 400, "overlong", "multipart", "note", ""},
		{"bidi file name", "gzip", codeAs("gzip", bidi), 400, "forbidden_char", "multipart", "f", ""},
		{"text over the limit", "gzip", codeAs("gzip", longText), 413, "too_large", "multipart", "", ""},
		{"gzip, bad CRC", "gzip", badCRC, 400, "body_unreadable", "multipart", "Content-Encoding", "gzip: invalid checksum"},
		{"gzip, cut off", "gzip", gz[:len(gz)-3], 400, "body_unreadable", "multipart", "Content-Encoding", "gzip: unexpected EOF"},
		{"gzip, trailing zeros", "gzip", append(bytes.Clone(gz), make([]byte, 16)...), 400, "body_unreadable", "multipart", "Content-Encoding", "gzip: invalid header"},
		{"gzip, not gzip", "gzip", okBody, 400, "body_unreadable", "multipart", "Content-Encoding", "gzip: invalid header"},
		{"deflate, bad Adler-32", "deflate", badAdler, 400, "body_unreadable", "multipart", "Content-Encoding", "deflate: invalid checksum"},
		{"deflate, trailing octets", "deflate", append(bytes.Clone(zl), 'x'), 400, "body_unreadable", "multipart", "Content-Encoding", "deflate: octets after the end of the stream"},
		{"raw deflate, trailing octets", "deflate", append(bytes.Clone(raw), 'x'), 400, "body_unreadable", "multipart", "Content-Encoding", "deflate: octets after the end of the stream"},
		{"br", "br", okBody, 415, "unsupported_encoding", "multipart", "Content-Encoding", ""},
		{"gzip twice", "gzip, gzip", codeAs("gzip", gz), 415, "unsupported_encoding", "multipart", "Content-Encoding", ""},
	}
	for _, s := range newCodedServers(t, uploadLimits()) {
		for _, tc := range cases {
			for _, chunked := range []bool{false, true} {
				name := fmt.Sprintf("%s: %s, chunked=%v", s.mount, tc.name, chunked)
				status, body := s.post(t, "/form", tc.encoding, tc.body, chunked)
				if status != tc.status || strings.Contains(body, `"files"`) {
					t.Errorf("%s: %d %s; want %d", name, status, body, tc.status)
				}
				s.codedLog(t, name, tc.reason, tc.location, tc.field, tc.errText)
				if n := countTemp(s.rec.dir); n != 0 {
					t.Errorf("%s: %d temporary files left", name, n)
				}
			}
		}
	}
}

// codedBomb returns a multipart body whose file "f" holds mib MiB of
// zeros (or whose field "f" does, with text), coded in gzip (three
// members: the head, zeroBomb's stream, the tail) or in raw DEFLATE (a
// stored block, zeroBomb's blocks, a last stored block), built without
// compressing mib MiB.
func codedBomb(t *testing.T, coding string, mib int, text bool) []byte {
	t.Helper()
	head := "--" + codedBoundary + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"z.bin\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\n"
	if text {
		head = "--" + codedBoundary + "\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n"
	}
	tail := "\r\n--" + codedBoundary + "--\r\n"
	deflate, gz := zeroBomb(t, mib)
	if coding == "gzip" {
		return append(append(codeAs("gzip", []byte(head)), gz...), codeAs("gzip", []byte(tail))...)
	}
	stored := func(final byte, s string) []byte {
		return append([]byte{final, byte(len(s)), byte(len(s) >> 8), ^byte(len(s)), ^byte(len(s) >> 8)}, s...)
	}
	// zeroBomb's stream ends, after a flush (byte-aligned), with the
	// block Close writes: cut there, the tail's stored block ends it.
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	_, _ = w.Write(make([]byte, 1<<10))
	_ = w.Flush()
	flushed := b.Len()
	_ = w.Close()
	closing := b.Bytes()[flushed:]
	if !bytes.HasSuffix(deflate, closing) {
		t.Fatal("zeroBomb's stream does not end with the block Close writes")
	}
	body := append(stored(0, head), deflate[:len(deflate)-len(closing)]...)
	return append(body, stored(1, tail)...)
}

// TestCodedUploadBomb: 512 MiB of zeros in a file part, some 520 KiB of
// gzip or raw DEFLATE on the wire, on a route that takes 1 MiB of text and
// 4 MiB of data, is refused 413 (naming the data limit) once the decoded
// body is over the two together, having read some 8 KiB of the wire; in
// a field (text), once it is over the text limit. The
// middleware allocates a bounded amount while serving it (the spool's
// first MiB, its writer, the decoder), not the decoded size; in Monitor
// mode it is flagged and the handler reads it as it came, coded. With no
// limits (-1) a smaller one is taken whole, and the handler reads it.
func TestCodedUploadBomb(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector's allocations hide the middleware's")
	}
	const mib = 512
	pol := uploadLimits()
	pol.Limits.BinaryBodyBytes, pol.Limits.FileBytes = 4<<20, -1
	data, text := float64(pol.Limits.BinaryBodyBytes), float64(pol.Limits.BodyBytes)
	enforce := newCodedServers(t, pol)
	monitor := newCodedServers(t, pol.AsMonitor())
	gzFile, gzText, rawFile := codedBomb(t, "gzip", mib, false), codedBomb(t, "gzip", mib, true), codedBomb(t, "raw", mib, false)
	t.Logf("%d MiB of zeros: %d octets of gzip, %d of raw DEFLATE", mib, len(gzFile), len(rawFile))
	cases := []struct {
		name, encoding, path string
		body                 []byte
		monitor              bool
		limit                float64
	}{
		{"gzip, file", "gzip", "/form", gzFile, false, data},
		{"deflate, file", "deflate", "/form", rawFile, false, data},
		{"gzip, field", "gzip", "/form", gzText, false, text},
		{"gzip, file, monitor", "gzip", "/raw", gzFile, true, data},
	}
	for i, s := range enforce {
		for _, tc := range cases {
			if tc.monitor {
				s = monitor[i]
			}
			name := s.mount.String() + ": " + tc.name
			serve := func() (int, string) { return s.post(t, tc.path, tc.encoding, tc.body, false) }
			serve() // the pools and the decoder, once
			s.logs.reset()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			status, body := serve()
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: status %d, %.2f MiB allocated while serving (client and server)", name, status, float64(alloc)/(1<<20))
			want, mode := 413, "enforce"
			if tc.monitor {
				want, mode = 200, "monitor"
				if w := fmt.Sprintf(`"raw":"%d %s"`, len(tc.body), hashOf(tc.body)); !strings.Contains(body, w) ||
					!strings.Contains(body, `"encoding":"gzip"`) {
					t.Errorf("%s: %s; want the body as sent, %s, and its Content-Encoding", name, body, w)
				}
			}
			if status != want {
				t.Errorf("%s: status %d %s, want %d", name, status, body, want)
			}
			if l := s.codedLog(t, name, "too_large", "multipart", "", ""); l != nil && (l["limit"] != tc.limit || l["mode"] != mode) {
				t.Errorf("%s: log limit %v mode %v, want %v %s", name, l["limit"], l["mode"], tc.limit, mode)
			}
			// The body as sent (half a MiB, and the client's copy of
			// it), the spool's first MiB, buffers, the server and client
			// themselves: far below the 17 MiB the limits let through,
			// and the 512 MiB it expands to.
			if limit := uint64(4 << 20); alloc > limit {
				t.Errorf("%s: %d octets allocated while serving, want at most %d", name, alloc, limit)
			}
			if n := countTemp(s.rec.dir); n != 0 {
				t.Errorf("%s: %d temporary files left", name, n)
			}
		}
	}
	// How much of the wire the decoder read: the decoded octets stop at
	// the two limits together (5 MiB) and one buffer, some 5 KiB of this
	// stream, and the reader's buffer (4 KiB) ahead.
	for _, tc := range cases[:3] {
		srv := newServer(t, bareSetup(pol), onHTTP(http.NotFound))
		wire := &countingReader{r: bytes.NewReader(tc.body)}
		r := req("POST", "/form", "multipart/form-data; boundary="+codedBoundary, wire)
		r.Header.Set("Content-Encoding", tc.encoding)
		w := srv.do(r)
		t.Logf("%s: status %d, %d of the %d octets sent read", tc.name, w.Code, wire.n.Load(), len(tc.body))
		if w.Code != 413 || wire.n.Load() > 64<<10 {
			t.Errorf("%s: status %d, %d octets read; want 413, at most %d", tc.name, w.Code, wire.n.Load(), 64<<10)
		}
	}
	pol.Limits.BodyBytes, pol.Limits.BinaryBodyBytes = -1, -1
	const small = 24
	body := codedBomb(t, "gzip", small, false)
	for _, s := range newCodedServers(t, pol) {
		status, answer := s.post(t, "/form", "gzip", body, true)
		if want := fmt.Sprintf(`"f":"%d %s"`, small<<20, hashOf(make([]byte, small<<20))); status != 200 || !strings.Contains(answer, want) {
			t.Errorf("%s: no limits, %d MiB of zeros: %d %s; want %s", s.mount, small, status, answer, want)
		}
	}
}

// TestCodedUploadMonitor: in Monitor mode a coded multipart body is
// handed on as it came, coded, with its Content-Encoding and length,
// whatever the check finds in its decoded form, which it flags.
func TestCodedUploadMonitor(t *testing.T) {
	t.Parallel()
	big := codedPart{field: "f", filename: "a.bin", ct: "application/octet-stream", data: randomData(3, bigFile())}
	clean := codedBody(big, codedPart{field: "note", text: "fine"})
	bad := codedBody(big, codedPart{field: "note", text: "ab\xc0\xafc"})
	corrupt := codeAs("gzip", clean)
	corrupt[len(corrupt)-8] ^= 1
	cases := []struct {
		name, encoding string
		body           []byte
		reason, field  string
	}{
		{"clean, gzip", "gzip", codeAs("gzip", clean), "", ""},
		{"clean, deflate", "deflate", codeAs("zlib", clean), "", ""},
		{"bad field, gzip", "gzip", codeAs("gzip", bad), "overlong", "note"},
		{"bad field, raw deflate", "deflate", codeAs("raw", bad), "overlong", "note"},
		{"bad CRC", "gzip", corrupt, "body_unreadable", "Content-Encoding"},
		{"br", "br", clean, "unsupported_encoding", "Content-Encoding"},
	}
	for _, s := range newCodedServers(t, uploadLimits().AsMonitor()) {
		for _, tc := range cases {
			for _, chunked := range []bool{false, true} {
				name := fmt.Sprintf("%s: %s, chunked=%v", s.mount, tc.name, chunked)
				status, body := s.post(t, "/raw", tc.encoding, tc.body, chunked)
				var a codedAnswer
				if status != 200 || json.Unmarshal([]byte(body), &a) != nil {
					t.Fatalf("%s: %d %s", name, status, body)
				}
				length := int64(len(tc.body))
				if chunked {
					length = -1
				}
				if want := fmt.Sprintf("%d %s", len(tc.body), hashOf(tc.body)); a.Raw != want || a.Encoding != tc.encoding || a.Length != length {
					t.Errorf("%s: read %q, Content-Encoding %q, length %d; want %q, %q, %d", name, a.Raw, a.Encoding, a.Length, want, tc.encoding, length)
				}
				if tc.reason == "" {
					if l := s.logs.lines(t); len(l) != 0 {
						t.Errorf("%s: log %v", name, l)
					}
				} else if l := s.codedLog(t, name, tc.reason, "multipart", tc.field, ""); l != nil && l["mode"] != "monitor" {
					t.Errorf("%s: mode %v", name, l["mode"])
				}
				if n := countTemp(s.rec.dir); n != 0 {
					t.Errorf("%s: %d temporary files left", name, n)
				}
			}
		}
	}
}

// bigFile is the size of the data file the coded upload tests send: over
// the 1 MiB text limit, which a coded multipart body was once held to,
// and over the 1 MiB the spool keeps in memory. Under the race detector
// with -short, which looks for races rather than limits and makes every
// octet costly, it is just over both.
func bigFile() int {
	if racetest.Enabled && testing.Short() {
		return 1<<20 + 64<<10
	}
	return 2 << 20
}
