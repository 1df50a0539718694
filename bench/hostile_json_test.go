package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The middleware rows of the hostile-input suite (hostile_suite_test.go) for
// JSON: entry=echo.JSON serves, through Echo's ServeHTTP with the
// middleware, JSON bodies built to be slow for it, beside benign bodies of
// the same size on the same route:
//
//	BenchmarkHostile/entry=echo.JSON/case=precis-pointer/bound=20/size=64KiB/impl=benign
//	BenchmarkHostile/entry=echo.JSON/case=precis-pointer/bound=20/size=64KiB/impl=worst
//
// Run them with
//
//	go test -run '^$' -bench 'Hostile/entry=echo.JSON' -benchmem -cpu=1 -count=5 ./bench/
//
// The cases (route: the strict preset with the JSON PRECIS field
// /profile/nick under Nickname, which is what makes the middleware track
// where in the document each string is; so the bound of a PRECIS route):
//
//	precis-pointer   511 nested objects with long keys, then an array of
//	                 empty strings: every string sits under a JSON pointer
//	                 of half the body (quadratic before the
//	                 pointer was matched incrementally)
//	many-keys        one object with as many short distinct members as fit
//	                 (the duplicate-member check's table)
//	small-objects    an array of as many two-member objects as fit
//	                 (the duplicate-member check's per-object work)
//	long-keys        objects of sixteen keys, each as long as the body
//	                 allows, equal but for their last octet (the
//	                 duplicate-member check compares keys)
//
// The benign body is an array of user records as an API receives them,
// with a profile (nick, bio) and some non-ASCII text.

// hostileBenign returns a benign JSON body of exactly n octets.
func hostileBenign(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"profile":{"nick":"Zoë","bio":"été à Zürich"},"users":[`)
	for i := 0; ; i++ {
		rec := fmt.Sprintf(`{"id":%d,"name":"Zoë Ångström %d","email":"zoe%d@example.com",`+
			`"profile":{"nick":"zoe%d","bio":"Lorem ipsum, été über straße, Привет мир, 你好世界"},"tags":["café","naïve","日本語"]},`, i, i, i, i)
		if b.Len()+len(rec)+len(`{}],"pad":""}`) > n {
			break
		}
		b.WriteString(rec)
	}
	b.WriteString(`{}],"pad":"`)
	return hostilePad(&b, n, 'x', `"}`)
}

// hostilePad fills b with pad up to n octets less len(end), then writes
// end.
func hostilePad(b *bytes.Buffer, n int, pad byte, end string) []byte {
	if k := n - len(end) - b.Len(); k > 0 {
		b.Write(bytes.Repeat([]byte{pad}, k))
	}
	b.WriteString(end)
	if b.Len() != n {
		panic(fmt.Sprintf("hostile body of %d octets, want %d", b.Len(), n))
	}
	return b.Bytes()
}

// hostilePrecisPointer is the precis-pointer case: 511 nested objects
// whose keys fill half the body, then an array of empty strings.
func hostilePrecisPointer(n int) []byte {
	const depth = 511
	keyLen := max(1, n/2/depth-len(`{"":`))
	key := strings.Repeat("k", keyLen)
	var b bytes.Buffer
	for range depth {
		b.WriteString(`{"` + key + `":`)
	}
	end := `]` + strings.Repeat("}", depth)
	b.WriteString(`[""`)
	for b.Len()+len(`,""`)+len(end) <= n {
		b.WriteString(`,""`)
	}
	return hostilePad(&b, n, ' ', end)
}

// hostileManyKeys is the many-keys case: {"0":0,"1":0,...}.
func hostileManyKeys(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"k":""`)
	for i := 0; ; i++ {
		m := fmt.Sprintf(`,"%x":0`, i)
		if b.Len()+len(m)+len(`,"z":""}`) > n {
			break
		}
		b.WriteString(m)
	}
	b.WriteString(`,"z":"`)
	return hostilePad(&b, n, 'x', `"}`)
}

// hostileSmallObjects is the small-objects case: [{"a":0,"b":0},...].
func hostileSmallObjects(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`[{"a":""}`)
	for b.Len()+len(`,{"a":0,"b":0}`)+len(`,{"z":""}]`) <= n {
		b.WriteString(`,{"a":0,"b":0}`)
	}
	b.WriteString(`,{"z":"`)
	return hostilePad(&b, n, 'x', `"}]`)
}

// hostileLongKeys is the long-keys case: objects of sixteen keys of 4 KiB
// (less for small bodies), equal but for their last octet.
func hostileLongKeys(n int) []byte {
	keyLen := min(4<<10, n/32)
	prefix := strings.Repeat("k", keyLen-1)
	var b bytes.Buffer
	b.WriteString(`[{"a":""}`)
	obj := func() string {
		var o strings.Builder
		o.WriteString(`,{`)
		for k := range 16 {
			if k > 0 {
				o.WriteByte(',')
			}
			o.WriteString(`"` + prefix + string(rune('a'+k)) + `":0`)
		}
		o.WriteString(`}`)
		return o.String()
	}()
	for b.Len()+len(obj)+len(`,{"z":""}]`) <= n {
		b.WriteString(obj)
	}
	b.WriteString(`,{"z":"`)
	return hostilePad(&b, n, 'x', `"}]`)
}

func init() {
	for _, c := range []struct {
		name  string
		build func(n int) []byte
	}{
		{"precis-pointer", hostilePrecisPointer},
		{"many-keys", hostileManyKeys},
		{"small-objects", hostileSmallObjects},
		{"long-keys", hostileLongKeys},
	} {
		addHostile(hostileRow{entry: "echo.JSON", name: c.name, bound: boundNormRoute,
			benign: hostileBenign, worst: c.build, setup: hostileServeJSON})
	}
}

// hostileServeJSON returns a function that posts body to the PRECIS route
// of hostileEcho, which must answer 200.
func hostileServeJSON(tb testing.TB, body []byte) func() {
	return serveJSONLoop(tb, hostileEcho(tb), body)
}

// hostileEcho returns Echo with the middleware under the strict preset and
// a JSON PRECIS field, and a handler that reads the whole body.
func hostileEcho(tb testing.TB) *echo.Echo {
	pol := rules.Strict()
	pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname}}
	nop := zerolog.Nop()
	mw, err := echov4.Config{Rules: &pol, Logger: &nop}.ToMiddleware()
	if err != nil {
		tb.Fatal(err)
	}
	e := echo.New()
	e.Use(mw)
	e.POST("/api/items", func(c echo.Context) error {
		if _, err := io.Copy(io.Discard, c.Request().Body); err != nil {
			return err
		}
		return c.NoContent(http.StatusOK)
	})
	return e
}

// serveJSONLoop returns a function that posts body to e's /api/items,
// after checking that the answer is 200.
func serveJSONLoop(tb testing.TB, e *echo.Echo, body []byte) func() {
	r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
	r.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w := &mwWriter{h: http.Header{}}
	reset := func() {
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
