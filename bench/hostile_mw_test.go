package bench

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"golang.org/x/text/unicode/norm"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// Middleware rows of the hostile-input suite for the normalizing route of
// the strict preset with Normalization NFC, rewriting. Each
// request carries text that is already in NFC (benign: mix, the prose of
// every script) or its decomposition (worst: the same text in NFD, or runs
// of U+0301), in the query, a form body, a multipart body or a JSON body,
// served through Echo's ServeHTTP:
//
//	echo.Query      1000 query pairs (the Fields limit) of the input's text
//	echo.Form       the same pairs as an urlencoded body
//	echo.Multipart  100 text fields (the MultipartParts limit)
//	echo.JSONNorm   a JSON array of strings of 4 KiB; worst: each string a
//	                letter and a run of U+0301
//
// The size is that of the query or the body, approximately (the
// constructions are cut to whole pairs, fields and strings).

// hostileNormEcho returns Echo with the middleware under the strict preset
// normalizing to NFC, and handlers that read the whole body.
func hostileNormEcho(tb testing.TB) *echo.Echo {
	pol := rules.Strict()
	pol.Normalization = normalize.NFC
	pol.Limits.QueryBytes = 2 << 20 // the echo.Query rows reach 1 MiB; the default, 64 KiB, refuses them
	nop := zerolog.Nop()
	mw, err := echov4.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
	if err != nil {
		tb.Fatal(err)
	}
	e := echo.New()
	e.Use(mw)
	h := func(c echo.Context) error {
		if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
			return err
		}
		return c.NoContent(http.StatusOK)
	}
	e.GET("/api/search", h)
	e.POST("/api/items", h)
	return e
}

// pairsText returns k values cut from text so that the escaped pairs
// "vN=value" fill about n octets.
func pairValues(text []byte, k, n int) []string {
	per := n / k
	vals := make([]string, 0, k)
	for len(vals) < k {
		// The escaped length is about three times the octets of a
		// non-ASCII letter: aim at per escaped octets.
		v := []byte{}
		for esc := 0; esc < per-8 && len(text) > 0; {
			_, size := utf8.DecodeRune(text)
			esc += len(url.QueryEscape(string(text[:size])))
			v = append(v, text[:size]...)
			text = text[size:]
		}
		vals = append(vals, string(v))
	}
	return vals
}

func encodePairs(vals []string) []byte {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "v%d=%s", i, url.QueryEscape(v))
	}
	return []byte(b.String())
}

// mwText is the text of the middleware rows: mix, in NFC or NFD, long
// enough for n octets once escaped.
func mwText(n int, nfd bool) []byte {
	p := bytes.ReplaceAll(mixText(n), []byte("\n"), []byte(" "))
	if nfd {
		p = norm.NFD.Bytes(p)
	}
	return p
}

func queryPairs(nfd bool) func(int) []byte {
	return func(n int) []byte {
		// Under the 1 MiB body limit.
		return encodePairs(pairValues(mwText(n, nfd), 1000, n-n/16))
	}
}

func serveGET(tb testing.TB, e *echo.Echo, target string) func() {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	w := &mwWriter{h: http.Header{}}
	u := *r.URL
	e.ServeHTTP(w, r)
	*r.URL = u
	if w.code != http.StatusOK {
		tb.Fatalf("status %d", w.code)
	}
	return func() {
		// The middleware may rewrite the URL; serve the same request
		// (parsing the target again would count its allocations here).
		*r.URL = u
		e.ServeHTTP(w, r)
	}
}

func servePOST(tb testing.TB, e *echo.Echo, ctype string, body []byte) func() {
	r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
	w := &mwWriter{h: http.Header{}}
	reset := func() {
		r.Header = http.Header{echo.HeaderContentType: {ctype}}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = nil
	}
	reset()
	e.ServeHTTP(w, r)
	if w.code != http.StatusOK {
		tb.Fatalf("status %d", w.code)
	}
	return func() {
		reset()
		e.ServeHTTP(w, r)
	}
}

// multipartBody returns a multipart body of 100 text fields cut from text,
// of about n octets, and its boundary.
func multipartBody(text []byte, n int) []byte {
	const fields = 100
	per := (n-n/16)/fields - 128
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.SetBoundary("hostileboundary0123456789")
	for i := range fields {
		k := min(per, len(text))
		for k > 0 && k < len(text) && text[k]&0xC0 == 0x80 {
			k--
		}
		_ = mw.WriteField(fmt.Sprintf("f%d", i), string(text[:k]))
		text = text[k:]
	}
	_ = mw.Close()
	return b.Bytes()
}

const multipartType = "multipart/form-data; boundary=hostileboundary0123456789"

// jsonStrings returns a JSON array of strings of about 4 KiB each, filling
// about n octets, each made by str.
func jsonStrings(n int, str func(i int) string) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; b.Len() < n-n/16-4200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(str(i))
		b.WriteByte('"')
	}
	b.WriteByte(']')
	return b.Bytes()
}

func init() {
	query := func(tb testing.TB, p []byte) func() {
		return serveGET(tb, hostileNormEcho(tb), "/api/search?"+string(p))
	}
	form := func(tb testing.TB, p []byte) func() {
		return servePOST(tb, hostileNormEcho(tb), echo.MIMEApplicationForm, p)
	}
	mp := func(tb testing.TB, p []byte) func() {
		return servePOST(tb, hostileNormEcho(tb), multipartType, p)
	}
	js := func(tb testing.TB, p []byte) func() {
		return servePOST(tb, hostileNormEcho(tb), echo.MIMEApplicationJSON, p)
	}
	// The pairs, fields and strings are cut to whole units: allow for it.
	const slack = 64 << 10
	jsonText := func(nfd bool) func(int) []byte {
		return func(n int) []byte {
			text := mwText(n, false)
			text = []byte(strings.NewReplacer("\n", " ", `"`, "'", `\`, "/").Replace(string(text)))
			return jsonStrings(n, func(i int) string {
				if nfd {
					return "a" + strings.Repeat("\u0301", 2000)
				}
				lo := min(i*4000, len(text)-4000)
				for lo > 0 && !utf8.RuneStart(text[lo]) {
					lo--
				}
				hi := lo + 4000
				for hi > lo && !utf8.RuneStart(text[hi]) {
					hi--
				}
				return string(text[lo:hi])
			})
		}
	}
	addHostile(
		hostileRow{entry: "echo.Query", name: "nfd-pairs", bound: boundNormRoute, sizeSlack: slack,
			benign: queryPairs(false), worst: queryPairs(true), setup: query},
		hostileRow{entry: "echo.Form", name: "nfd-pairs", bound: boundNormRoute, sizeSlack: slack,
			benign: queryPairs(false), worst: queryPairs(true), setup: form},
		hostileRow{entry: "echo.Multipart", name: "nfd-fields", bound: boundNormRoute, sizeSlack: slack,
			benign: func(n int) []byte { return multipartBody(mwText(n, false), n) },
			worst:  func(n int) []byte { return multipartBody(mwText(n, true), n) }, setup: mp},
		hostileRow{entry: "echo.JSONNorm", name: "acute-runs", bound: boundNormRoute, sizeSlack: slack,
			benign: jsonText(false), worst: jsonText(true), setup: js},
	)
}
