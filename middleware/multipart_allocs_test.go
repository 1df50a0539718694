package middleware

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// nestedMultipart returns a multipart body of about n octets, nested depth
// levels deep (the deepest upload.MaxDepth allows): each level one
// field of text, repeated to a ninth of n or so (under the field limit up to 512 KiB), and a file part that
// holds the next level. Its parts are as many whatever n.
func nestedMultipart(n, depth int, text string) (body []byte, boundary string) {
	per := max(n/(depth+1)-400, len(text))
	field := strings.Repeat(text, per/len(text))
	var inner []byte
	for d := depth; d >= 0; d-- {
		var b bytes.Buffer
		bd := fmt.Sprintf("bnd-%d", d)
		b.WriteString("--" + bd + "\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\n" + field + "\r\n")
		if inner != nil {
			b.WriteString("--" + bd + "\r\nContent-Disposition: attachment; filename=\"n.txt\"\r\n" +
				"Content-Type: multipart/mixed; boundary=" + fmt.Sprintf("bnd-%d", d+1) + "\r\n\r\n")
			b.Write(inner)
			b.WriteString("\r\n")
		}
		b.WriteString("--" + bd + "--\r\n")
		inner = b.Bytes()
	}
	return inner, "bnd-0"
}

// TestMultipartNestedAllocs: a nested multipart body costs a number of
// allocations that does not grow with its size, and, beyond the body the
// handler is handed (the one as read, or the one rebuilt), a tenth of its
// size checked (about a third: the top-level part read), and a few times it rebuilt. Contents
// of a body in memory are its own octets, not copies (one per nesting
// level, once), and a rebuilt nested body is held once, not once per level
// it is nested in.
func TestMultipartNestedAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	strict := rules.Strict()
	nfc := strict
	nfc.Normalization = normalize.NFC
	for _, tc := range []struct {
		name string
		pol  rules.Policy
		text string
		// at most, in octets per octet of body, beyond the bodies
		// handed: the one as read, and the one rebuilt (rebuilt)
		ratio   float64
		rebuilt bool
	}{
		{"strict", strict, "é", 0.5, false},        // 4.3 when each level copied its contents
		{"nfc-rebuilt", nfc, "e\u0301", 2.5, true}, // 22 when each level held its nested bodies again
	} {
		t.Run(tc.name, func(t *testing.T) {
			nop := zerolog.Nop()
			pol := tc.pol
			mw, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
			if err != nil {
				t.Fatal(err)
			}
			h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(http.StatusOK)
			}))
			var counts [2]float64
			for i, size := range []int{64 << 10, 512 << 10} {
				body, boundary := nestedMultipart(size, upload.MaxDepth, tc.text)
				r := httptest.NewRequest(http.MethodPost, "/", nil)
				r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
				w := &canonDiscard{h: http.Header{}}
				br := bytes.NewReader(body)
				or := &onlyReader{br}
				allocs, octets := allocsOf(10, func() {
					br.Reset(body)
					r.Body = io.NopCloser(or)
					r.ContentLength = int64(len(body))
					r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
					w.code = 0
					h.ServeHTTP(w, r)
					if w.code != http.StatusOK {
						t.Fatalf("status %d", w.code)
					}
				})
				handed := 1.0 // the body as read
				if tc.rebuilt {
					handed = 2 // and the body rebuilt
				}
				beyond := octets/float64(len(body)) - handed
				t.Logf("%d octets: %.1f allocations, %.0f octets allocated (%.2f per octet beyond the bodies handed)",
					len(body), allocs, octets, beyond)
				if i > 0 && beyond > tc.ratio {
					t.Errorf("%.2f octets allocated per octet of body beyond the bodies handed, want at most %v", beyond, tc.ratio)
				}
				counts[i] = allocs
			}
			// A few more at 512 KiB: a collection between requests
			// empties the pools, whose buffers are then made again.
			if counts[1] > counts[0]+32 {
				t.Errorf("%.0f allocations at 512 KiB, %.0f at 64 KiB: they grow with the body", counts[1], counts[0])
			}
		})
	}
}

// TestMultipartBodyMemoryPooled: a multipart body of declared length up
// to spoolMemory is gathered in pooled memory, which goes back to its pool
// after the handler of an accepted request (lent, as a text body is) and
// at once for a refused one: what a request allocates is then what the
// check needs (the part headers Go's reader copies, the working memory),
// not the body again. On a body of 256 KiB: 0.16 octets per octet
// accepted, 0.33 refused (the outside scan's window, the part read), where
// each request allocated the body once more before: 1.29 and 1.30.
func TestMultipartBodyMemoryPooled(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector drops pooled memory at random")
	}
	pol := rules.Strict()
	nop := zerolog.Nop()
	mw, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	h := mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Body.(*bodyio.LentBody); !ok {
			t.Errorf("the handler reads a %T, not pooled memory lent", r.Body)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	text := strings.Repeat("é and some text, ", (256<<10)/18)
	for _, tc := range []struct {
		name   string
		last   string // the last field's content
		status int
	}{
		{"accepted", "ok", http.StatusOK},
		{"refused at the end", "\xc0\xae", http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\n" +
				text + "\r\n--b\r\nContent-Disposition: form-data; name=\"g\"\r\n\r\n" + tc.last + "\r\n--b--\r\n")
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			w := &canonDiscard{h: http.Header{}}
			br := bytes.NewReader(body)
			or := &onlyReader{br}
			_, octets := allocsOf(20, func() {
				br.Reset(body)
				r.Body = io.NopCloser(or)
				r.ContentLength = int64(len(body))
				r.Header.Set("Content-Type", "multipart/form-data; boundary=b")
				w.code = 0
				h.ServeHTTP(w, r)
				if w.code != tc.status {
					t.Fatalf("status %d, want %d", w.code, tc.status)
				}
			})
			perOctet := octets / float64(len(body))
			t.Logf("%d octets: %.0f octets allocated per request (%.3f per octet)", len(body), octets, perOctet)
			if perOctet > 0.5 {
				t.Errorf("%.3f octets allocated per octet of body, want at most 0.5: the body's memory is not pooled", perOctet)
			}
		})
	}
}
