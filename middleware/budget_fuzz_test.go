package middleware

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// FuzzRequestBudget holds every request to a budget of work, counted in
// what it allocates, which is deterministic where time is not: a request
// of n octets (its query or body) must cost at most budgetBytesPer*n +
// budgetBytes octets and budgetAllocs allocations through the pipeline,
// on a strict route, routes that normalize to NFC and NFKC, and a route
// with PRECIS fields. An allocation that grows faster than the request
// (a table per name, a copy per pass, a buffer regrown at every step)
// fails it long before time would show it. The seeds are the hostile
// constructions of BenchmarkHostileMW (bench/hostile_middleware_test.go),
// at a few KiB.
//
// Under the race detector the requests run but their allocations are not
// counted: it changes them.
//
//	go test -run '^$' -fuzz FuzzRequestBudget -fuzztime 2m ./middleware/
func FuzzRequestBudget(f *testing.F) {
	for _, s := range budgetSeeds() {
		f.Add(s.kind, []byte(s.payload))
	}
	pipelines := budgetPipelines(f)
	f.Fuzz(func(t *testing.T, kind uint8, payload []byte) {
		if len(payload) > 64<<10 {
			return // the budget is linear: small inputs show what large ones would
		}
		entry, route := budgetEntry(kind%uint8(budgetEntries)), int(kind/uint8(budgetEntries))%len(pipelines)
		pl := pipelines[route]
		serve := func() {
			r := budgetRequest(entry, payload)
			v := pl.Check(r, Match{Route: "/api/e"}, nil)
			if v.Pass && v.Request.Body != nil {
				_, _ = io.Copy(io.Discard, v.Request.Body)
			}
		}
		serve() // fills the pools
		if racetest.Enabled {
			return
		}
		allocs, bytes := budgetCost(serve)
		n := uint64(len(payload))
		t.Logf("%s on %s, %d octets: %d allocations, %d octets (%.1f a request octet)",
			entry, budgetRoutes[route], n, allocs, bytes, float64(bytes)/float64(max(n, 1)))
		if allocs > budgetAllocs || bytes > budgetBytesPer*n+budgetBytes {
			t.Errorf("%s on %s, %d octets: %d allocations (budget %d), %d octets allocated (budget %d)",
				entry, budgetRoutes[route], n, allocs, budgetAllocs, bytes, budgetBytesPer*n+budgetBytes)
		}
	})
}

// The budget of a request of n octets: budgetBytesPer*n + budgetBytes
// octets allocated, and budgetAllocs allocations. Reading a body costs its
// size once (the handler's copy), a rewrite to the canonical form once
// more, and NFKC may make a text eleven times longer (U+FDFA), written
// out and copied: the factor leaves room for that and no more. The
// constant is what Go's multipart reader allocates for each part (some
// 1.5 KiB) in each of the five passes a rebuilt body takes, for the parts
// a small body can hold. A table per pair of names, a copy per pass of
// every text or a buffer regrown at every step go past them. The count is
// what a request of the largest input holds at most: Go's readers
// allocate for each multipart part and each header line, and PRECIS's
// enforcement for each field it maps.
const (
	budgetBytesPer = 32
	budgetBytes    = 384 << 10
	budgetAllocs   = 4000
)

// budgetCost runs serve and returns what it allocated, the less of two
// runs (a goroutine of the runtime or of another test may allocate
// meanwhile; the fuzzing engine runs one input at a time).
func budgetCost(serve func()) (allocs, bytes uint64) {
	allocs, bytes = ^uint64(0), ^uint64(0)
	var before, after runtime.MemStats
	for range 2 {
		runtime.ReadMemStats(&before)
		serve()
		runtime.ReadMemStats(&after)
		allocs = min(allocs, after.Mallocs-before.Mallocs)
		bytes = min(bytes, after.TotalAlloc-before.TotalAlloc)
	}
	return allocs, bytes
}

// budgetEntry is where a request of FuzzRequestBudget carries its payload.
type budgetEntry uint8

const (
	budgetQuery budgetEntry = iota
	budgetForm
	budgetJSON
	budgetXML
	budgetMultipart
	budgetText
	budgetEntries
)

func (e budgetEntry) String() string {
	return [...]string{"query", "form", "json", "xml", "multipart", "text"}[e]
}

// budgetBoundary is the boundary of the multipart payloads.
const budgetBoundary = "BUDGET"

// budgetRequest returns a request to /api/e that carries payload at e.
func budgetRequest(e budgetEntry, payload []byte) *http.Request {
	r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/api/e"}, Header: http.Header{},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, RemoteAddr: "192.0.2.1:1234", Host: "example.com"}
	if e == budgetQuery {
		r.Method, r.URL.RawQuery = http.MethodGet, string(payload)
		return r
	}
	r.Header.Set("Content-Type", [...]string{
		budgetForm:      "application/x-www-form-urlencoded",
		budgetJSON:      "application/json",
		budgetXML:       "application/xml",
		budgetMultipart: "multipart/form-data; boundary=" + budgetBoundary,
		budgetText:      "text/plain; charset=utf-8",
	}[e])
	r.Body = io.NopCloser(strings.NewReader(string(payload)))
	r.ContentLength = int64(len(payload))
	return r
}

// budgetRoutes name the routes of budgetPipelines, by index.
var budgetRoutes = []string{"strict", "nfc", "nfkc", "precis"}

// budgetPipelines returns a pipeline per route of budgetRoutes, logging
// nowhere.
func budgetPipelines(tb testing.TB) []*Pipeline {
	strict := rules.Strict()
	nfc, nfkc, precis := strict, strict, strict
	nfc.Normalization = normalize.NFC
	nfkc.Normalization = normalize.NFKC
	precis.Precis = []rules.PrecisField{
		{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Query, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.Form, Field: "user", Profile: normalize.UsernameCaseMapped},
		{Location: rules.Multipart, Field: "nick", Profile: normalize.Nickname},
		{Location: rules.JSON, Field: "/nick", Profile: normalize.Nickname},
	}
	nop := zerolog.Nop()
	var out []*Pipeline
	for _, p := range []rules.Policy{strict, nfc, nfkc, precis} {
		pl, err := NewPipeline(PipelineConfig{Rules: &p, Logger: &nop})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, pl)
	}
	return out
}

// budgetSeed is a seed of FuzzRequestBudget: kind is the entry plus
// budgetEntries times the route.
type budgetSeed struct {
	kind    uint8
	payload string
}

// budgetSeeds returns the hostile constructions of BenchmarkHostileMW at
// a few KiB, with a benign request at every entry point.
func budgetSeeds() []budgetSeed {
	const n = 4 << 10
	rep := func(s string, k int) string { return strings.Repeat(s, max(1, k/len(s))) }
	pairs := func(count int, kv func(i int) string) string {
		var b strings.Builder
		for i := range count {
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(kv(i))
		}
		return b.String()
	}
	mp := func(parts ...string) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString("--" + budgetBoundary + "\r\n" + p + "\r\n")
		}
		b.WriteString("--" + budgetBoundary + "--\r\n")
		return b.String()
	}
	field := func(name, v string) string {
		return `Content-Disposition: form-data; name="` + name + `"` + "\r\n\r\n" + v
	}
	var fields []string
	for i := range 50 {
		fields = append(fields, field(fmt.Sprintf("f%d", i), rep("e\u0301", n/50)))
	}
	var headers []string
	for i := range 20 {
		h := fmt.Sprintf(`Content-Disposition: form-data; name="h%d"`, i)
		for k := range 10 {
			h += fmt.Sprintf("\r\nX-H%d: v é", k)
		}
		headers = append(headers, h+"\r\n\r\nv")
	}
	nested := "Content-Disposition: form-data; name=\"n\"; filename=\"n\"\r\nContent-Type: multipart/mixed; boundary=IN\r\n\r\n" +
		"--IN\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\n" + rep("e\u0301", 1000) + "\r\n--IN--"
	var members strings.Builder
	members.WriteString(`{"k":0`)
	for i := range 500 {
		fmt.Fprintf(&members, `,"%x":0`, i)
	}
	members.WriteString(`}`)
	var nfdKeys strings.Builder
	nfdKeys.WriteString(`{"k":0`)
	for i := range 300 {
		fmt.Fprintf(&nfdKeys, ",\"%xe\u0301\":0", i)
	}
	nfdKeys.WriteString(`}`)
	seed := func(e budgetEntry, route int, payload string) budgetSeed {
		return budgetSeed{uint8(e) + uint8(route)*uint8(budgetEntries), payload}
	}
	const strict, nfc, nfkc, precis = 0, 1, 2, 3
	return []budgetSeed{
		// Benign requests, every entry point, every route.
		seed(budgetQuery, strict, "name=Zo%C3%AB&email=zoe%40example.com&q=caf%C3%A9+na%C3%AFve&page=2"),
		seed(budgetForm, nfc, "name=Zo%C3%AB&bio="+rep("%C3%A9t%C3%A9+", 2000)),
		seed(budgetJSON, precis, `{"nick":"Zoë","users":[{"id":1,"name":"Ångström","tags":["café","日本語"]}]}`),
		seed(budgetXML, nfc, `<?xml version="1.0"?><users><user id="1"><name>Zoë</name><bio>été &amp; café</bio></user></users>`),
		seed(budgetMultipart, nfkc, mp(field("name", "Zoë"), field("bio", rep("été ", 2000)))),
		seed(budgetText, nfc, rep("Lorem ipsum, été über straße. ", n)),

		// Query and form pairs.
		seed(budgetQuery, strict, pairs(200, func(i int) string { return fmt.Sprintf("k%d=", i) + rep("%C3%A9", 20) })),
		seed(budgetQuery, strict, "a=1"+rep("&", n)+"&b=2"),
		seed(budgetQuery, nfc, pairs(200, func(i int) string { return fmt.Sprintf("k%d=", i) + rep("e%CC%81", 20) })),
		seed(budgetForm, nfc, pairs(200, func(i int) string { return fmt.Sprintf("%d", i) + rep("e%CC%81", 20) + "=v" })),
		seed(budgetQuery, nfkc, pairs(200, func(i int) string { return fmt.Sprintf("k%d=", i) + rep("%EF%BC%A1", 20) })),
		seed(budgetQuery, precis, pairs(200, func(i int) string { return [2]string{"user=", "nick="}[i%2] + rep("%EF%BC%A1B", 20) })),
		seed(budgetForm, precis, pairs(200, func(i int) string { return "user=" + rep("MIKE", 20) })),
		seed(budgetQuery, nfc, "%C3%A9=1&e%CC%81=2"),

		// JSON.
		seed(budgetJSON, strict, members.String()),
		seed(budgetJSON, strict, "["+rep(`{"a":0,"b":0},`, n)+"{}]"),
		seed(budgetJSON, strict, `["`+rep(`\u00e9\u00e8\"\\`, n)+`"]`),
		seed(budgetJSON, strict, "["+rep("[],", n)+"[]]"),
		seed(budgetJSON, strict, "["+rep(strings.Repeat("[", 100)+strings.Repeat("]", 100)+",", n)+"0]"),
		seed(budgetJSON, nfc, `{"s":"e`+rep("\u0301", n)+`"}`),
		seed(budgetJSON, nfc, `[""`+rep(`,"e`+"\u0301"+`"`, n)+`]`),
		seed(budgetJSON, nfc, `[""`+rep(`,"\u0065\u0301"`, n)+`]`),
		seed(budgetJSON, nfc, nfdKeys.String()),
		seed(budgetJSON, nfkc, `["`+rep("\ufdfa", n)+`"]`),
		seed(budgetJSON, precis, `{"nick":"`+rep("Zoë ", n)+`"}`),

		// XML.
		seed(budgetXML, strict, "<!-- c --><a"+pairs(200, func(i int) string { return fmt.Sprintf(` a%x="&#xE9;"`, i) })+">x</a>"),
		seed(budgetXML, strict, "<!-- c -->"+rep("<a>&#xE9;", n/2)+rep("</a>", n/2*4/9)),
		seed(budgetXML, strict, "<!-- c --><a>"+rep("&#xE9;&#233;&amp;", n)+"</a>"),
		seed(budgetXML, strict, `<!DOCTYPE a [<!ENTITY e "`+rep("&#xE9;", n)+`">]><a/>`),
		seed(budgetXML, nfc, "<a>e"+rep("&#x301;", n)+"</a>"),
		seed(budgetXML, nfc, "<a>"+rep("\u00e9<!---->&#xE9;<!---->", n)+"</a>"),
		seed(budgetXML, nfc, rep("<a>é", n/2)+rep("</a>é", n/2*5/7)),
		seed(budgetXML, nfc, "<a>"+rep("é<br>é<!---->é", n)+"</a>"),

		// Multipart.
		seed(budgetMultipart, nfc, mp(fields...)),
		seed(budgetMultipart, nfc, mp(field(rep("e\u0301", 1000), "v"), field("e\u0301"+rep("e\u0301", 999), "w"))),
		seed(budgetMultipart, precis, mp(field("nick", rep("\uff21B", 1000)), field("nick", rep("\uff21B", 1000)))),
		seed(budgetMultipart, nfc, mp(field("t", rep("e\u0301", 500)), nested)),
		seed(budgetMultipart, strict, mp(headers...)),
		seed(budgetMultipart, strict, mp("Content-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"+
			rep(strings.Repeat("=C3=A9", 12)+"=\r\n", n))),
		seed(budgetMultipart, strict, mp("Content-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\n"+
			rep("\r\n--"+budgetBoundary+"x", n))),

		// Text.
		seed(budgetText, nfc, "e"+rep("\u0301", n)),
		seed(budgetText, nfc, rep("caf"+"e\u0301 ", n)),
	}
}
