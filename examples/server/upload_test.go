package main

// The end-to-end test of the demo's /upload/* route: uploads
// larger than the text limit, files that are not UTF-8, streamed through
// the built binary on Echo v4 and v5 by net/http's client, bodies made on
// the fly.

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

const upBoundary = "demo-upload-boundary"

// upPart is a part of a body made on the fly: text, or size octets of the
// ChaCha8 stream of seed.
type upPart struct {
	disp, ct string
	text     string
	seed     uint64
	size     int64
}

func upData(seed uint64, size int64) io.Reader {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed+1)
	return io.LimitReader(rand.NewChaCha8(key), size)
}

func (p upPart) reader() io.Reader {
	if p.size > 0 {
		return upData(p.seed, p.size)
	}
	return strings.NewReader(p.text)
}

func (p upPart) sha256() string {
	h := sha256.New()
	_, _ = io.Copy(h, p.reader())
	return hex.EncodeToString(h.Sum(nil))
}

func upBody(parts ...upPart) io.Reader {
	var rs []io.Reader
	for _, p := range parts {
		head := "--" + upBoundary + "\r\nContent-Disposition: form-data; " + p.disp + "\r\n"
		if p.ct != "" {
			head += "Content-Type: " + p.ct + "\r\n"
		}
		rs = append(rs, strings.NewReader(head+"\r\n"), p.reader(), strings.NewReader("\r\n"))
	}
	return io.MultiReader(append(rs, strings.NewReader("--"+upBoundary+"--\r\n"))...)
}

// upload posts the parts to target, chunked, and records the log line the
// answer implies.
func (d *demo) upload(t *testing.T, name, target string, want *logExpect, parts ...upPart) (int, []byte) {
	t.Helper()
	return d.uploadAs(t, name, target, "", want, parts...)
}

// uploadAs is upload with a content coding: "gzip" or "deflate" (zlib),
// or "" for none.
func (d *demo) uploadAs(t *testing.T, name, target, coding string, want *logExpect, parts ...upPart) (int, []byte) {
	t.Helper()
	rd := upBody(parts...)
	if coding != "" {
		var b bytes.Buffer
		var zw io.WriteCloser = gzip.NewWriter(&b)
		if coding == "deflate" {
			zw = zlib.NewWriter(&b)
		}
		if _, err := io.Copy(zw, rd); err != nil || zw.Close() != nil {
			t.Fatalf("%s: compressing: %v", name, err)
		}
		rd = &b
	}
	r, err := http.NewRequest(http.MethodPost, "http://"+d.addr+target, rd)
	if err != nil {
		t.Fatal(err)
	}
	r.ContentLength = -1 // chunked, as a body made on the fly is sent
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+upBoundary)
	if coding != "" {
		r.Header.Set("Content-Encoding", coding)
	}
	client := &http.Client{Timeout: 60 * time.Second}
	if d.h2c != nil {
		client = d.h2c // DATA frames without a content-length
	}
	resp, err := client.Do(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if want != nil {
		want.method, want.mode = http.MethodPost, "enforce"
		if want.route == "" {
			want.route = "/upload/*"
		}
	}
	d.mu.Lock()
	d.sent = append(d.sent, sent{name: name, requestID: resp.Header.Get("X-Request-Id"), want: want})
	d.mu.Unlock()
	return resp.StatusCode, body
}

// uploaded is the answer of /upload/*.
type uploaded struct {
	Fields map[string][]string `json:"fields"`
	Files  []struct {
		Field, Filename, SHA256 string
		Size                    int64
	} `json:"files"`
}

// TestDemoUpload: /upload/* takes a form with a file far over the text
// limit and the files a user reported refused (a Notepad UTF-16 .txt,
// an Excel Windows-1252 CSV), and answers each file's size and SHA-256 as
// sent, the fields as sent; it refuses a bad octet in a field after the
// large file, and a bidi control in a file name. /strict/* keeps checking
// text files. On Echo v4 and v5, with one log line per refusal.
func TestDemoUpload(t *testing.T) {
	bin := buildDemo(t)
	big := upPart{disp: `name="video"; filename="clip.mp4"`, ct: "video/mp4", seed: 1, size: 16 << 20}
	notepad := upPart{disp: `name="notes"; filename="notes.txt"`, ct: "text/plain", text: "\xff\xfeH\x00\xe9\x00\r\x00\n\x00"}
	excel := upPart{disp: `name="sheet"; filename="table.csv"`, ct: "text/csv", text: "Name;City\r\nZo\xeb;M\xfcnchen\r\n"}
	for _, version := range []string{"v4", "v5"} {
		t.Run("echo="+version, func(t *testing.T) {
			d := startDemo(t, bin, "-echo", version)

			status, body := d.upload(t, "upload", "/upload/photos", nil,
				upPart{disp: `name="title"`, text: "Été à Zürich"}, big, notepad, excel,
				upPart{disp: `name="note"`, text: "after the files"})
			var got uploaded
			if status != 200 || json.Unmarshal(body, &got) != nil {
				t.Fatalf("upload: %d %s", status, body)
			}
			if got.Fields["title"][0] != "Été à Zürich" || got.Fields["note"][0] != "after the files" {
				t.Errorf("fields %q", got.Fields)
			}
			if len(got.Files) != 3 {
				t.Fatalf("files %+v", got.Files)
			}
			for i, p := range []upPart{big, notepad, excel} {
				f := got.Files[i]
				if f.SHA256 != p.sha256() || f.Size != max(p.size, int64(len(p.text))) {
					t.Errorf("file %d (%s): %+v; want sha256 %s", i, f.Filename, f, p.sha256())
				}
			}

			// Over HTTP/2 (h2c), plain and in gzip: the same files, the
			// same fields.
			h2 := d.overH2C()
			for _, coding := range []string{"", "gzip"} {
				name := "h2c upload " + coding
				file := upPart{disp: `name="file"; filename="data.bin"`, ct: "application/octet-stream", seed: 3, size: 2 * mib}
				status, body := h2.uploadAs(t, name, "/upload/x", coding, nil, file, upPart{disp: `name="note"`, text: "après"})
				var got uploaded
				if status != 200 || json.Unmarshal(body, &got) != nil {
					t.Fatalf("%s: %d %s", name, status, body)
				}
				if len(got.Files) != 1 || got.Files[0].SHA256 != file.sha256() || got.Files[0].Size != file.size || got.Fields["note"][0] != "après" {
					t.Errorf("%s: %s; want the file's sha256 %s", name, body, file.sha256())
				}
			}
			h2.done(d)

			// Compressed, as a script or an app may send it: decoded by
			// the middleware as it streams in, the file far over the text
			// limit taken, the handler reading the decoded form.
			for _, coding := range []string{"gzip", "deflate"} {
				name := coding + " upload"
				file := upPart{disp: `name="file"; filename="data.bin"`, ct: "application/octet-stream", seed: 2, size: 2 * mib}
				status, body := d.uploadAs(t, name, "/upload/x", coding, nil, file, upPart{disp: `name="note"`, text: "après"})
				var got uploaded
				if status != 200 || json.Unmarshal(body, &got) != nil {
					t.Fatalf("%s: %d %s", name, status, body)
				}
				if len(got.Files) != 1 || got.Files[0].SHA256 != file.sha256() || got.Files[0].Size != file.size || got.Fields["note"][0] != "après" {
					t.Errorf("%s: %s; want the file's sha256 %s", name, body, file.sha256())
				}
			}
			status, body = d.uploadAs(t, "gzip, bad field after the file", "/upload/photos", "gzip",
				&logExpect{reason: "overlong", location: "multipart", field: "note", checkField: true, offset: 2},
				big, upPart{disp: `name="note"`, text: "ab\xc0\xafc"})
			if status != 400 || !strings.Contains(string(body), `"overlong"`) {
				t.Errorf("gzip, bad field: %d %s", status, body)
			}

			status, body = d.upload(t, "bad field after the file", "/upload/photos",
				&logExpect{reason: "overlong", location: "multipart", field: "note", checkField: true, offset: 2},
				big, upPart{disp: `name="note"`, text: "ab\xc0\xafc"})
			if status != 400 || !strings.Contains(string(body), `"overlong"`) {
				t.Errorf("bad field: %d %s", status, body)
			}

			status, body = d.upload(t, "bidi file name", "/upload/photos",
				&logExpect{reason: "forbidden_char", location: "multipart", class: "bidi_control", offset: -1},
				upPart{disp: "name=\"f\"; filename=\"invoice\u202etxt.exe\"", ct: "application/octet-stream", text: "MZ"})
			if status != 400 {
				t.Errorf("bidi file name: %d %s", status, body)
			}

			status, body = d.upload(t, "strict text file", "/strict/x",
				&logExpect{reason: "invalid_byte", location: "multipart", field: "notes", checkField: true, offset: 0, route: "/strict/*"},
				notepad)
			if status != 400 {
				t.Errorf("/strict/: a UTF-16 text file: %d %s", status, body)
			}

			d.shutdown(t)
			d.checkLog(t)
		})
	}
}
