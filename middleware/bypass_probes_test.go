package middleware

// Requests a middleware that checked less would accept, after which a
// handler would read, by an API the project's promise names, a value the
// route's policy refuses: each test proves it is refused or rewritten.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// rvServe serves the raw request wire on an Echo v4 server with the
// middleware mounted by e.Use under pol, with h as the handler of "/x"
// (any method). It returns the status.
func rvServe(t *testing.T, pol rules.Policy, wire string, h echo.HandlerFunc) int {
	t.Helper()
	nop := zerolog.Nop()
	srv := newServer(t, setup{mount: mountGlobal, echo: Config{Rules: &pol, Logger: &nop}, routes: []string{"/x", "/x/:id", "/x/*"}}, onEcho(h))
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
	if err != nil {
		t.Fatalf("net/http refuses the request: %v", err)
	}
	r.RemoteAddr = "192.0.2.1:1"
	return srv.do(r).Code
}

// rvHTTP is rvServe on the net/http adapter around a ServeMux route.
func rvHTTP(t *testing.T, pol rules.Policy, wire string, h http.HandlerFunc) int {
	t.Helper()
	nop := zerolog.Nop()
	srv := newServer(t, setup{mount: mountHandler, http: HTTPConfig{Rules: &pol, Logger: &nop}, patterns: []string{"/x"}}, onHTTP(h))
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
	if err != nil {
		t.Fatalf("net/http refuses the request: %v", err)
	}
	return srv.do(r).Code
}

// rvPost is a POST /x wire with a Content-Length.
func rvPost(ctype, body string) string {
	return "POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: " + ctype + "\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// rvBad reports a value the policy check c refuses.
func rvBad(t *testing.T, what, v string, c rules.Check) {
	t.Helper()
	if err := sanitize.CheckString(v, c.Forbid); err != nil {
		t.Errorf("accepted, and the handler read %s %+q, which the policy refuses: %v", what, v, err)
	}
}

// rvChunked is a chunked POST /x wire with trailers ("Name: value\r\n"
// lines).
func rvChunked(ctype, body, trailers string) string {
	var b strings.Builder
	b.WriteString("POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: " + ctype + "\r\nTransfer-Encoding: chunked\r\n\r\n")
	for rest := body; rest != ""; {
		n := min(len(rest), 32<<10)
		b.WriteString(strconv.FormatInt(int64(n), 16) + "\r\n" + rest[:n] + "\r\n")
		rest = rest[n:]
	}
	b.WriteString("0\r\n" + trailers + "\r\n")
	return b.String()
}

// Finding 1. On the default preset, a charset parameter other than UTF-8
// switches every body check off (checkBody: "not UTF-8: not ours to
// check"), but no Go reader of those bodies honours the parameter:
// Request.ParseForm, ParseMultipartForm, encoding/json and Echo's binder
// (which cuts the Content-Type at ';') all read the octets as UTF-8. So
// "; charset=x" lets NUL and overlong forms, which the default preset
// refuses, reach c.FormValue and c.Bind.
func TestCharsetParameterKeepsBodyChecks(t *testing.T) {
	pol := rules.Default()
	for _, tc := range []struct{ name, ct, body string }{
		{"form", "application/x-www-form-urlencoded; charset=iso-8859-1", "a=%00%C0%AE"},
		{"json", "application/json; charset=windows-1252", `{"a":"\u0000"}`},
		{"multipart", "multipart/form-data; charset=latin1; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\x00\xc0\xae\r\n--b--\r\n"},
	} {
		t.Run(tc.name+"/echo", func(t *testing.T) {
			rvServe(t, pol, rvPost(tc.ct, tc.body), func(c echo.Context) error {
				if tc.name == "json" {
					m := map[string]string{}
					_ = c.Bind(&m)
					rvBad(t, "c.Bind a", m["a"], pol.JSON)
				} else {
					rvBad(t, "c.FormValue(a)", c.FormValue("a"), pol.Form)
				}
				return nil
			})
		})
		t.Run(tc.name+"/nethttp", func(t *testing.T) {
			rvHTTP(t, pol, rvPost(tc.ct, tc.body), func(w http.ResponseWriter, r *http.Request) {
				if tc.name == "json" {
					m := map[string]string{}
					_ = json.NewDecoder(r.Body).Decode(&m)
					rvBad(t, "json a", m["a"], pol.JSON)
				} else {
					rvBad(t, "r.FormValue(a)", r.FormValue("a"), pol.Form)
				}
			})
		})
	}
}

// Finding 2. checkOutsideParts checks the preamble and the epilogue of a
// multipart body for handlers that read the body as it is, but finds
// their ends differently from multipart.Reader: the preamble ends at the
// first line that merely starts with "--boundary" ("--bX" is no
// delimiter: the reader skips it as preamble), and the epilogue starts
// after the last "\n--boundary--" in the body (a copy of it at the very
// end hides everything after the real close delimiter). What lies between
// is read by no part and checked by nothing.
func TestMultipartOutsidePartsAreChecked(t *testing.T) {
	pol := rules.Strict()
	part := "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n"
	bad := "\xff\xc0\xae\x00\u202e"
	for name, body := range map[string]string{
		"preamble after a non-delimiter line": "--bX\r\n" + bad + "\r\n" + part + "--b--\r\n",
		"epilogue before a second close":      part + "--b--\r\n" + bad + "\r\n--b--",
	} {
		t.Run(name, func(t *testing.T) {
			code := rvServe(t, pol, rvPost("multipart/form-data; boundary=b", body), func(c echo.Context) error {
				raw, _ := io.ReadAll(c.Request().Body)
				if !bytes.Contains(raw, []byte(bad)) {
					t.Errorf("body %q", raw)
				}
				rvBad(t, "the raw body", string(raw), pol.Multipart)
				return nil
			})
			if code != http.StatusOK {
				t.Logf("status %d", code)
			}
		})
	}
}

// Finding 3. A body is checked only as the kind its Content-Type names.
// A handler that decodes it as JSON or XML whatever the Content-Type
// (json.NewDecoder(r.Body), which the strict preset's positive list of
// media types is there for, and which checkOutsideParts names) decodes
// escapes that the text, form, multipart and JSON checks never decoded:
// "\u202e" and "\u0000" in a text/plain or form body or a multipart
// preamble, "&#x202E;" in a JSON body. On an NFKC route the middleware
// writes the escape itself: "＼ｕ２０２Ｅ" in a text body becomes "\u202E".
func TestEscapesOfOtherSyntaxesAreScanned(t *testing.T) {
	strict := rules.Strict()
	nfkc := rules.Strict()
	nfkc.Normalization = normalize.NFKC
	for _, tc := range []struct {
		name, ct, body string
		pol            rules.Policy
		xml            bool
	}{
		{"text/plain", "text/plain", `{"a":"\u202e\u0000"}`, strict, false},
		{"form", "application/x-www-form-urlencoded", `{"a":"\u202e"}`, strict, false},
		{"multipart preamble", "multipart/form-data; boundary=b",
			"{\"a\":\"\\u202e\"}\r\n--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nx\r\n--b--\r\n", strict, false},
		{"xml in json", "application/json", `["<a>&#x202E;</a>"]`, strict, true},
		{"xml in text", "text/plain", `<a>&#x85;</a>`, strict, true},
		{"nfkc text", "text/plain", "{\"a\":\"\uff3c\uff55\uff12\uff10\uff12\uff25\"}", nfkc, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code := rvServe(t, tc.pol, rvPost(tc.ct, tc.body), func(c echo.Context) error {
				if tc.xml {
					var v struct {
						V string `xml:",chardata"`
					}
					_ = xml.NewDecoder(c.Request().Body).Decode(&v)
					rvBad(t, "xml.Decode chardata", v.V, tc.pol.XML)
					return nil
				}
				var v map[string]string
				_ = json.NewDecoder(c.Request().Body).Decode(&v)
				rvBad(t, "json.Decode a", v["a"], tc.pol.JSON)
				return nil
			})
			if code != http.StatusOK {
				t.Logf("status %d", code)
			}
		})
	}
}

// Finding 4. Monitor mode still changes a request whose body it does not
// read (a listed binary type, or any unlisted type on the default preset)
// when it is chunked: passUnread wraps it in http.MaxBytesReader and the
// trailer guard in every mode, so the handler's read of a body over the
// limit fails after Limits.BodyBytes octets, and a trailer the policy
// would refuse fails the read and is deleted. Echo alone hands both on
// whole (README, "Monitor mode and roll-out").
func TestMonitorLeavesUnreadChunkedBodiesAsSent(t *testing.T) {
	upload := rules.Strict()
	upload.BinaryTypes = []string{"application/octet-stream"}
	for name, pol := range map[string]rules.Policy{"default": rules.Default().AsMonitor(), "strict upload": upload.AsMonitor()} {
		t.Run(name+"/over the limit", func(t *testing.T) {
			body := strings.Repeat("a", 1<<20+10)
			rvServe(t, pol, rvChunked("application/octet-stream", body, ""), func(c echo.Context) error {
				b, err := io.ReadAll(c.Request().Body)
				if err != nil || len(b) != len(body) {
					t.Errorf("monitor mode: the handler read %d of %d octets, error %v", len(b), len(body), err)
				}
				return nil
			})
		})
		if !pol.Cookies {
			continue
		}
		t.Run(name+"/trailer", func(t *testing.T) {
			rvServe(t, pol, rvChunked("application/octet-stream", "abc", "Cookie: a=\u202eb\r\n"), func(c echo.Context) error {
				b, err := io.ReadAll(c.Request().Body)
				if err != nil || string(b) != "abc" || c.Request().Trailer.Get("Cookie") == "" {
					t.Errorf("monitor mode: the handler read %q, error %v, trailers %q", b, err, c.Request().Trailer)
				}
				return nil
			})
		})
	}
}
