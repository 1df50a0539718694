package middleware

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// The allocation pins of this package: what a clean request, and each
// step of the checks, may allocate.

// allocsOf returns the allocations and the octets allocated per call of f,
// averaged over runs calls after one warm-up call.
func allocsOf(runs int, f func()) (allocs, octets float64) {
	f()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(runs),
		float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// bodyAllocServer is the net/http adapter under the strict preset around a
// handler that reads the body without copying it (io.Copy to io.Discard
// takes the body's WriteTo).
func bodyAllocServer(t *testing.T) http.Handler {
	t.Helper()
	pol := rules.Strict()
	nop := zerolog.Nop()
	return newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	})).h
}

// onlyReader hides every method of a reader but Read, as a network body
// does.
type onlyReader struct{ r io.Reader }

func (o *onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestBodyAllocs: a checked body costs a constant number of allocations
// and, when its length is declared, at most 1.1 times its size in octets
// allocated in all (the copy the handler gets and everything else); of
// unknown length, at most 2.1 times (the working memory it is read into
// before its size is known, and the copy).
func TestBodyAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	// One P and no collection while the requests are counted, as in
	// TestJSONAllocs: a collection empties the pools (per P), and their
	// refilling counted a fraction of an allocation over the bound under
	// load (16.1 for 1MiB-unknown).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	h := bodyAllocServer(t)
	for _, tc := range []struct {
		name     string
		size     int
		declared bool
		// at most: allocations per request, octets per octet of body
		allocs float64
		ratio  float64
	}{
		{"1KiB", 1 << 10, true, 8, 0}, // ratio: see the constant below
		{"64KiB", 64 << 10, true, 8, 1.1},
		{"100KiB", 100 << 10, true, 8, 1.1},
		{"1MiB", 1 << 20, true, 8, 1.1},
		{"1MiB-unknown", 1 << 20, false, 16, 2.1},
		{"100KiB-unknown", 100 << 10, false, 16, 2.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(strings.Repeat("héllo wörld ", tc.size/13+1)[:tc.size])
			for !utf8Valid(body) {
				body = body[:len(body)-1]
			}
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("Content-Type", "text/plain; charset=utf-8")
			w := &canonDiscard{h: http.Header{}}
			br := bytes.NewReader(body)
			or := &onlyReader{br}
			allocs, octets := allocsOf(20, func() {
				br.Reset(body)
				r.Body = io.NopCloser(or)
				r.ContentLength = -1
				if tc.declared {
					r.ContentLength = int64(len(body))
				}
				w.code = 0
				h.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					t.Fatalf("status %d", w.code)
				}
			})
			t.Logf("%d octets: %.1f allocations, %.0f octets allocated (%.3f per octet of body)", len(body), allocs, octets, octets/float64(len(body)))
			if allocs > tc.allocs {
				t.Errorf("%.1f allocations per request, want at most %v", allocs, tc.allocs)
			}
			limit := tc.ratio * float64(len(body))
			if tc.ratio == 0 {
				limit = float64(len(body)) + 512 // a small body: the copy and a few small objects
			}
			if octets > limit {
				t.Errorf("%.0f octets allocated per request, want at most %.0f", octets, limit)
			}
		})
	}
}

func utf8Valid(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

// TestBodyAllocsDeclaredNotSent: a client that declares a long body and
// sends a few octets costs no more than upfrontBytes: the memory held
// grows with what arrives.
func TestBodyAllocsDeclaredNotSent(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	pol := compiled.Compile(rules.Strict())
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	_, octets := allocsOf(20, func() {
		r.Body = io.NopCloser(&onlyReader{strings.NewReader("0123456789")})
		r.ContentLength = 1 << 20
		var ls lazyScratch
		body, over, err := readBody(&ls, r, pol.Limits.BodyBytes, false, make([]byte, 8))
		ls.release()
		if err != nil || over || string(body) != "0123456789" {
			t.Fatalf("%q %v %v", body, over, err)
		}
	})
	if octets > 1024 {
		t.Errorf("%.0f octets allocated for a body declared 1 MiB long that sends 10, want at most 1024", octets)
	}
	t.Logf("%.0f octets allocated", octets)
}

// TestAdapterAllocs pins what the Echo v4 and net/http adapters add to a
// clean request, against the same server without them: for the clean GET
// (three path segments, four query fields), the one closure Echo v4 asks
// every middleware for per request, and nothing on net/http; for a clean
// 1 KiB JSON POST, also the reader the handler gets its body from (the
// body itself is in pooled memory, lent: lentBody).
func TestAdapterAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	const target = "/api/users/42?name=alice&sort=desc&page=2&limit=50"
	body := []byte(`{"id":42,"name":"Zoë Ångström","tags":["café","日本語","😀"],"note":"` +
		strings.Repeat("été, straße, Привет, 你好; ", 30) + `"}`)
	pol := rules.Strict()
	nop := zerolog.Nop()
	// GET answers at once, POST reads the body: through Echo on Echo, as
	// a net/http handler on a ServeMux.
	handle := handlerFunc(func(c echo.Context, w http.ResponseWriter, r *http.Request) error {
		if r.Method == http.MethodPost {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				if c != nil {
					return err
				}
				w.WriteHeader(http.StatusBadRequest)
				return nil
			}
		}
		if c != nil {
			return c.NoContent(http.StatusOK)
		}
		w.WriteHeader(http.StatusOK)
		return nil
	})
	echoServer := func(guarded bool) http.Handler {
		m := mountEchoAlone
		if guarded {
			m = mountGlobal
		}
		return newServer(t, setup{mount: m, echo: Config{Rules: &pol, Logger: &nop}, routes: []string{"/api/users/:id", "/api/items"},
			methods: []string{http.MethodGet, http.MethodPost}}, handle).h
	}
	muxServer := func(guarded bool) http.Handler {
		m := mountMuxAlone
		if guarded {
			m = mountHandler
		}
		return newServer(t, setup{mount: m, http: HTTPConfig{Rules: &pol, Logger: &nop}, patterns: []string{"GET /api/users/{id}", "POST /api/items"}}, handle).h
	}
	get := func(h http.Handler) float64 {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(500, func() {
			w.code = 0
			r.Pattern = ""
			h.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("GET: status %d", w.code)
			}
		})
	}
	post := func(h http.Handler) float64 {
		r := httptest.NewRequest(http.MethodPost, "/api/items", nil)
		r.Header.Set("Content-Type", "application/json")
		w := &canonDiscard{h: http.Header{}}
		br := bytes.NewReader(body)
		rc := io.NopCloser(br)
		return testing.AllocsPerRun(500, func() {
			br.Reset(body)
			r.Body, r.ContentLength, r.Pattern = rc, int64(len(body)), ""
			w.code = 0
			h.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("POST: status %d", w.code)
			}
		})
	}
	for _, tc := range []struct {
		name      string
		server    func(bool) http.Handler
		get, json float64 // allocations added
	}{
		{"echo4", echoServer, 1, 2},
		{"nethttp", muxServer, 0, 1},
	} {
		bare, guarded := tc.server(false), tc.server(true)
		if n, n0 := get(guarded), get(bare); n != n0+tc.get {
			t.Errorf("%s GET: %v allocations, %v without the adapter, want %v more", tc.name, n, n0, tc.get)
		}
		if n, n0 := post(guarded), post(bare); n != n0+tc.json {
			t.Errorf("%s JSON: %v allocations, %v without the adapter, want %v more", tc.name, n, n0, tc.json)
		}
	}
}

// jsonAllocBody builds a JSON body of about n octets: head, then unit as
// often as it fits, then tail.
func jsonAllocBody(n int, head string, unit func(i int) string, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; ; i++ {
		u := unit(i)
		if b.Len()+len(u)+len(tail) > n {
			break
		}
		b.WriteString(u)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// jsonAllocCases are JSON bodies built to make the checks keep much per
// octet (names, normal forms, open containers), on the route they aim at.
var jsonAllocCases = []struct {
	name  string
	route string // strict, nfc or precis
	body  func(n int) []byte
}{
	{"many-members", "strict", func(n int) []byte {
		return jsonAllocBody(n, `{"k":0`, func(i int) string { return fmt.Sprintf(`,"%x":0`, i) }, `}`)
	}},
	{"small-objects", "strict", func(n int) []byte {
		return jsonAllocBody(n, `[{"a":0}`, func(int) string { return `,{"a":0,"b":0}` }, `]`)
	}},
	{"escaped-members", "strict", func(n int) []byte {
		return jsonAllocBody(n, `{"k":0`, func(i int) string { return fmt.Sprintf(`,"\u00e9%x":0`, i) }, `}`)
	}},
	{"nfd-members", "nfc", func(n int) []byte {
		return jsonAllocBody(n, `{"k":0`, func(i int) string { return fmt.Sprintf(`,"%xe`+"\u0301"+`":0`, i) }, `}`)
	}},
	{"nfd-strings", "nfc", func(n int) []byte {
		return jsonAllocBody(n, `[""`, func(int) string { return `,"e` + "\u0301" + `"` }, `]`)
	}},
	{"acute-runs", "nfc", func(n int) []byte {
		// A sixteenth short: the NFC form holds a U+034F every 30 marks
		// (the stream-safe format), and must stay within the body limit.
		return jsonAllocBody(n-n/16, `[""`, func(int) string { return `,"e` + strings.Repeat("\u0301", 2000) + `"` }, `]`)
	}},
	{"precis-pointer", "precis", func(n int) []byte {
		key := strings.Repeat("k", max(1, n/2/511-4))
		return jsonAllocBody(n, strings.Repeat(`{"`+key+`":`, 511)+`[""`, func(int) string { return `,""` },
			`]`+strings.Repeat("}", 511))
	}},
}

// jsonAllocServer is the net/http adapter under the strict preset, with
// NFC or a JSON PRECIS field as route says, around a handler that reads
// the body without copying it.
func jsonAllocServer(t *testing.T, route string) http.Handler {
	t.Helper()
	pol := rules.Strict()
	switch route {
	case "nfc":
		pol.Normalization = normalize.NFC
	case "precis":
		pol.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/profile/nick", Profile: normalize.Nickname}}
	}
	nop := zerolog.Nop()
	return newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	})).h
}

// TestJSONAllocs: a JSON body costs a constant number of
// allocations per request, whatever its size and however many names,
// strings or containers it holds, and at most 1.1 times its size in
// octets beyond the body the handler is handed (the copy read, or the
// canonical form where the route rewrites it). The per-request working
// memory of the checks is pooled: once the pool has seen a body like it,
// a body allocates what the handler gets and a few small objects.
func TestJSONAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	if testing.Short() {
		t.Skip("1 MiB bodies")
	}
	// One P, so that the pools (per P) keep what the warm-up request left:
	// the figures are those of a server's steady state. (No test runs
	// beside this one: it is not parallel.) And the collector off while
	// the requests are counted: at 1 MiB, four requests allocate enough
	// for a collection, which would empty the pools (a sync.Pool keeps
	// its objects over one collection only) and count their refilling.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, tc := range jsonAllocCases {
		t.Run(tc.name, func(t *testing.T) {
			h := jsonAllocServer(t, tc.route)
			var counts [2]float64
			for k, n := range []int{16 << 10, 1 << 20} {
				body := tc.body(n)
				r := httptest.NewRequest(http.MethodPost, "/", nil)
				r.Header.Set("Content-Type", "application/json")
				w := &canonDiscard{h: http.Header{}}
				allocs, octets := allocsOf(4, func() {
					r.Body = io.NopCloser(bytes.NewReader(body))
					r.ContentLength = int64(len(body))
					w.code = 0
					h.ServeHTTP(w, r)
					if w.code != http.StatusOK {
						t.Fatalf("status %d", w.code)
					}
				})
				counts[k] = allocs
				handed := float64(len(body))
				if tc.route == "nfc" {
					handed *= 1 + 1.0/8 // the canonical form's room (jsonbody.Canon)
				}
				t.Logf("%d octets: %.1f allocations, %.0f octets allocated (%.3f per octet of body)",
					len(body), allocs, octets, octets/float64(len(body)))
				// What the handler is handed (the copy read, or the
				// canonical form), 1.1 times the body beyond it, and a
				// few small objects.
				limit := handed + 1.1*float64(len(body)) + 4096
				if octets > limit {
					t.Errorf("%d octets: %.0f octets allocated per request, want at most %.0f", len(body), octets, limit)
				}
			}
			// A body over 64 KiB is read into pooled chunks before it
			// goes to memory of its own (readBody), where one of 64 KiB
			// at most is read into pooled memory lent to the handler: a
			// few more allocations at 1 MiB, none that grows with the
			// names, strings or containers.
			if counts[1] > counts[0]+4 {
				t.Errorf("%.1f allocations at 16 KiB, %.1f at 1 MiB: want a constant number", counts[0], counts[1])
			}
		})
	}
}

// nfdPairs returns a query or form text of n octets: 1000 pairs (the
// Fields limit) k0=..., k1=..., each value a run of "e" and an escaped
// U+0301 (NFD), padded with 'x' in the last value; under NFC every value
// changes ("%C3%A9" for "e%CC%81"). With nfd false, the values are
// "%C3%A9" runs already in NFC: nothing changes.
func nfdPairs(n int, nfd bool) string {
	unit := "%C3%A9"
	if nfd {
		unit = "e%CC%81"
	}
	var b strings.Builder
	per := n / 1000
	for i := range 1000 {
		if i > 0 {
			b.WriteByte('&')
		}
		k := fmt.Sprintf("k%d=", i)
		b.WriteString(k)
		room := per - len(k) - 1
		if i == 999 {
			room = n - b.Len()
		}
		b.WriteString(strings.Repeat(unit, max(room, 0)/len(unit)))
	}
	for b.Len() < n {
		b.WriteByte('x')
	}
	return b.String()
}

// allocsWarm is allocsOf without the collection after the warm-up, which
// empties the pools: run with the collector off, it counts what a request
// allocates, not what refilling the pools after a collection does. As
// testing.AllocsPerRun, it runs on one processor; and it takes the least
// of three rounds, since the counts are the whole program's, and another
// test's goroutine that is still winding down allocates too.
func allocsWarm(runs int, f func()) (allocs, octets float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	f()
	allocs, octets = math.Inf(1), math.Inf(1)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		allocs = min(allocs, float64(after.Mallocs-before.Mallocs)/float64(runs))
		octets = min(octets, float64(after.TotalAlloc-before.TotalAlloc)/float64(runs))
	}
	return allocs, octets
}

// pairsAllocServer is the net/http adapter under the strict preset with
// NFC (queries as long as 2 MiB), around a handler that reads the body
// without copying it, and reports the length of what it was handed: the
// query and the body.
func pairsAllocServer(t *testing.T, handed *int) http.Handler {
	t.Helper()
	pol := canonPolicy(normalize.NFC)
	pol.Limits.QueryBytes = 2 << 20
	nop := zerolog.Nop()
	return newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		*handed = len(r.URL.RawQuery) + int(n)
		w.WriteHeader(http.StatusOK)
	})).h
}

// TestPairsCanonAllocs: a query or form text rewritten to its
// canonical form costs a constant number of allocations, whatever its
// size, and at most 1.1 times its size in octets allocated beyond what the
// handler is handed (the new query, the new body): the body as read, and
// pooled working memory only. Texts already canonical cost what they
// did: nothing for the query, the body for a form.
func TestPairsCanonAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	// No collection while counting: one empties the pools, and the
	// working memory they hold would show as allocations that depend on
	// how often the collector runs, not on the request.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var handed int
	h := pairsAllocServer(t, &handed)
	for _, form := range []bool{false, true} {
		for _, nfd := range []bool{false, true} {
			var counts []float64
			for _, size := range []int{16 << 10, 256 << 10} { // 1 MiB: BenchmarkHostileMW
				text := nfdPairs(size, nfd)
				name := fmt.Sprintf("form=%v/nfd=%v/%dKiB", form, nfd, size>>10)
				r := httptest.NewRequest(http.MethodGet, "/?"+text, nil)
				body := []byte(text)
				br := bytes.NewReader(body)
				if form {
					r = httptest.NewRequest(http.MethodPost, "/", nil)
					r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				rawQuery, requestURI := r.URL.RawQuery, r.RequestURI
				w := &canonDiscard{h: http.Header{}}
				allocs, octets := allocsWarm(4, func() {
					r.URL.RawQuery, r.RequestURI = rawQuery, requestURI // as a new request has them
					if form {
						br.Reset(body)
						r.Body, r.ContentLength = io.NopCloser(&onlyReader{br}), int64(len(body))
					}
					w.code = 0
					h.ServeHTTP(w, r)
					if w.code != http.StatusOK {
						t.Fatalf("%s: status %d", name, w.code)
					}
				})
				beyond := octets - float64(handed)
				t.Logf("%s: %.1f allocations, %.0f octets (%.3f per octet), %.3f per octet beyond the %d handed",
					name, allocs, octets, octets/float64(size), beyond/float64(size), handed)
				if beyond > 1.1*float64(size) {
					t.Errorf("%s: %.0f octets allocated beyond the %d handed, want at most %.0f", name, beyond, handed, 1.1*float64(size))
				}
				counts = append(counts, allocs)
			}
			// One allocation of slack: sync.Pool's own bookkeeping
			// allocates now and then as chunks come and go.
			if counts[len(counts)-1] > counts[0]+1 {
				t.Errorf("form=%v nfd=%v: %v allocations per request by size, want a constant number", form, nfd, counts)
			}
		}
	}
}

// TestPairsRepairAllocs: repairing a form (rebuildPairs) costs the same
// number of allocations however many valid pairs it has: they are decoded
// in pooled working memory; only the repaired values allocate (ToValid).
func TestPairsRepairAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	pol := rules.Strict()
	pol.Form.Repair = true
	p := compiled.Compile(pol)
	s := getScratch()
	defer putScratch(s)
	var counts []float64
	for _, n := range []int{10, 100, 900} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%d=%%C3%%A9abc+d&", i)
		}
		b.WriteString("z=%FFx")
		raw := b.String()
		counts = append(counts, testing.AllocsPerRun(20, func() {
			text, changed, rj := s.pairs.CheckPairs(raw, rules.Form, &p.Form, p.FormMode, &p.Limits)
			if rj != nil || !changed || !strings.HasSuffix(text, "&z=%EF%BF%BDx") {
				t.Fatalf("%d pairs: %q %v %v", n, text[max(len(text)-24, 0):], changed, rj)
			}
		}))
	}
	t.Logf("allocations for 10, 100, 900 pairs: %v", counts)
	if counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("allocations for 10, 100, 900 pairs: %v, want the same", counts)
	}
}

// TestPairsPrecisAllocs: a query of a thousand PRECIS fields,
// each changed by its profile (fullwidth and upper-case letters, NFD),
// costs a constant number of allocations, whatever its size: the
// profiles are enforced into pooled working memory, where each field
// allocated a few times (x/text's buffers, and the strings in and out).
func TestPairsPrecisAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	pol := canonPolicy(normalize.None, func(p *rules.Policy) {
		p.Limits.QueryBytes = 2 << 20
		p.Precis = []rules.PrecisField{
			{Location: rules.Query, Field: "user", Profile: normalize.UsernameCaseMapped},
			{Location: rules.Query, Field: "nick", Profile: normalize.Nickname},
		}
	})
	nop := zerolog.Nop()
	var got string
	srv := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RawQuery
		w.WriteHeader(http.StatusOK)
	})).h
	for _, unit := range []string{"%EF%BC%A1B", "E%CC%81b", "%C3%89B"} {
		var counts []float64
		for _, size := range []int{16 << 10, 256 << 10} {
			var b strings.Builder
			per := size / 1000
			for i := range 999 {
				k := [2]string{"user", "nick"}[i%2]
				fmt.Fprintf(&b, "%s=%s&", k, strings.Repeat(unit, max(1, (per-len(k)-2)/len(unit))))
			}
			b.WriteString("z=x")
			rawQuery := b.String()
			r := httptest.NewRequest(http.MethodGet, "/?"+rawQuery, nil)
			requestURI := r.RequestURI
			w := &canonDiscard{h: http.Header{}}
			allocs, _ := allocsWarm(4, func() {
				r.URL.RawQuery, r.RequestURI = rawQuery, requestURI // as a new request has them
				w.code = 0
				srv.ServeHTTP(w, r)
				if w.code != http.StatusOK {
					t.Fatalf("%s at %d KiB: status %d", unit, size>>10, w.code)
				}
			})
			if got == rawQuery || !strings.HasPrefix(got, "user=") {
				t.Fatalf("%s at %d KiB: query not rewritten: %.40q", unit, size>>10, got)
			}
			t.Logf("%s at %d KiB: %.1f allocations", unit, size>>10, allocs)
			counts = append(counts, allocs)
		}
		// Slack for sync.Pool's bookkeeping, and the working memory's
		// growth past what the pool keeps (spilled PRECIS forms).
		if counts[0] > 4 || counts[1] > counts[0]+3 {
			t.Errorf("%s: %v allocations per request by size, want a few, constant", unit, counts)
		}
	}
}

// TestPairsKeysAllocs: a query of a thousand distinct NFD keys,
// each rewritten and so each kept for the collision check, costs the same
// allocations at 16 and 256 KiB: the keys' normal forms get their room at
// once, where growing it key by key cost a dozen allocations and more.
func TestPairsKeysAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var handed int
	h := pairsAllocServer(t, &handed)
	var counts []float64
	for _, size := range []int{16 << 10, 256 << 10} {
		var b strings.Builder
		per := size/1000 - len("&=v")
		for i := range 999 {
			k := fmt.Sprint(i)
			fmt.Fprintf(&b, "%s%s=v&", k, strings.Repeat("e%CC%81", max(1, (per-len(k))/7)))
		}
		b.WriteString("z=x")
		rawQuery := b.String()
		r := httptest.NewRequest(http.MethodGet, "/?"+rawQuery, nil)
		requestURI := r.RequestURI
		w := &canonDiscard{h: http.Header{}}
		allocs, _ := allocsWarm(4, func() {
			r.URL.RawQuery, r.RequestURI = rawQuery, requestURI // as a new request has them
			w.code = 0
			h.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("%d KiB: status %d", size>>10, w.code)
			}
		})
		t.Logf("%d KiB: %.1f allocations", size>>10, allocs)
		counts = append(counts, allocs)
	}
	if counts[1] > counts[0]+3 {
		t.Errorf("%v allocations per request at 16 and 256 KiB, want a constant number", counts)
	}
}

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
			h := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(http.StatusOK)
			})).h
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
	h := newServer(t, setup{mount: mountBare, http: HTTPConfig{Rules: &pol, Logger: &nop}}, onHTTP(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Body.(*bodyio.LentBody); !ok {
			t.Errorf("the handler reads a %T, not pooled memory lent", r.Body)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	})).h
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

// TestCanonPathAllocs: rewriting a path costs the same number
// of allocations however many segments it has (the new Path and RawPath,
// the escaped path url.URL makes), none per segment.
func TestCanonPathAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	p := compiled.Compile(canonPolicy(normalize.NFC))
	s := getScratch()
	defer putScratch(s)
	var counts []float64
	for _, n := range []int{20, 200, 1000} {
		r := httptest.NewRequest(http.MethodGet, "/"+strings.Repeat("e%CC%81/", n)+"x", nil)
		u := *r.URL
		counts = append(counts, testing.AllocsPerRun(50, func() {
			*r.URL = u
			if rj := s.canonPath(r, p); rj != nil {
				t.Fatal(rj)
			}
		}))
		if r.URL.Path == u.Path {
			t.Fatalf("%d segments: not rewritten", n)
		}
	}
	t.Logf("allocations for 20, 200, 1000 segments: %v", counts)
	if counts[0] > 5 || counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("allocations for 20, 200, 1000 segments: %v, want the same, at most 5", counts)
	}
}

// TestCanonAllocs reports the allocations of a clean ASCII GET served
// through Echo on a strict route with and without NFC, and pins those of
// the middleware's own work: none, with or without NFC, for a clean ASCII
// request or one already in NFC.
func TestCanonAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	serve := func(pol rules.Policy) float64 {
		m := mountGlobal
		if pol.Off() {
			m = mountEchoAlone
		}
		e := newServer(t, setup{mount: m, echo: Config{Rules: &pol}, routes: []string{"/api/users/:id"}, methods: []string{http.MethodGet}},
			onEcho(func(c echo.Context) error {
				_ = c.Param("id")
				_ = c.QueryParam("name")
				return c.NoContent(http.StatusOK)
			})).h
		r := httptest.NewRequest("GET", "/api/users/42?name=alice&sort=desc&page=2", nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(500, func() {
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("status %d", w.code)
			}
		})
	}
	bare := serve(rules.Unchecked()) // no middleware
	strict := serve(rules.Strict())
	nfc := serve(canonPolicy(normalize.NFC))
	nfkcPrecis := serve(canonPrecisPolicy(normalize.NFKC))
	t.Logf("allocs per clean ASCII GET through Echo: no middleware %v, strict %v, strict+NFC %v, strict+NFKC+PRECIS fields %v",
		bare, strict, nfc, nfkcPrecis)
	if nfc != strict {
		t.Errorf("NFC costs %v allocations on a clean ASCII request, want none", nfc-strict)
	}

	for _, pol := range []rules.Policy{rules.Strict(), canonPolicy(normalize.NFC), canonPolicy(normalize.NFKC, canonRejecting)} {
		g, err := newGuard(pol, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range []string{"/api/users/42?name=alice&sort=desc", "/api/users/%C3%A9t%C3%A9?q=caf%C3%A9&r=a+b%EA%B0%80"} {
			r := httptest.NewRequest("GET", target, nil)
			names, values := []string{"id"}, []string{"42"}
			n := testing.AllocsPerRun(200, func() {
				s := getScratch()
				_, rj := g.inspect(s, r, g.policies().def, names, values, r.URL.RawPath != "")
				putScratch(s)
				if rj != nil {
					t.Fatal(rj)
				}
			})
			if n != 0 {
				t.Errorf("%s %s: inspect allocates %v times, want 0", pol.Normalization.Name(), target, n)
			}
		}
	}
}

// TestCleanRequestAllocs checks what the middleware adds to a clean GET
// (three path segments, four query fields, strict preset) through Echo's
// ServeHTTP, wherever it is mounted: Echo v4 applies every middleware per
// request (e.Use, e.Pre, groups and routes alike), so the one allocation
// of its closure, as for any Echo v4 middleware, and nothing more.
func TestCleanRequestAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	const target = "/api/users/42?name=alice&sort=desc&page=2&limit=50"
	handler := func(c echo.Context) error {
		if c.Param("id") != "42" || c.QueryParam("sort") != "desc" {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	}
	serve := func(t *testing.T, mountAt string) float64 {
		st := setup{echo: Config{Rules: ptr(rules.Strict())}, routes: []string{"/api/users/:id"}, methods: []string{http.MethodGet}}
		switch mountAt {
		case "use":
			st.mount = mountGlobal
		case "pre":
			st.mount = mountPre
		case "group":
			st.mount = mountGroup
		case "route":
			st.mount = mountRoute
		case "nop-pre":
			// Any e.Pre middleware costs Echo a closure per request.
			st.mount, st.pre = mountEchoAlone, []echo.MiddlewareFunc{func(next echo.HandlerFunc) echo.HandlerFunc { return next }}
		default:
			st.mount = mountEchoAlone
		}
		e := newServer(t, st, onEcho(handler)).h
		r := httptest.NewRequest(http.MethodGet, target, nil)
		w := &canonDiscard{h: http.Header{}}
		return testing.AllocsPerRun(1000, func() {
			e.ServeHTTP(w, r)
			if w.code != http.StatusOK {
				t.Fatalf("%s: status %d", mountAt, w.code)
			}
		})
	}
	bare := serve(t, "none")
	for _, m := range []string{"use", "group", "route"} {
		if n := serve(t, m); n != bare+1 {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware, want one more", m, n, bare)
		}
	}
	// Under e.Pre, Echo makes the next handler per request, so the one
	// over it is made per request too: one allocation.
	if n, nop := serve(t, "pre"), serve(t, "nop-pre"); n != nop+1 {
		t.Errorf("mounted with pre: %v allocations per request, %v with a no-op e.Pre middleware, want one more", n, nop)
	}
}

// TestEscapeScanAllocatesNothing: the scan of a body it passes allocates
// nothing, whatever the body holds: escapes, references, paths.
func TestEscapeScanAllocatesNothing(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector allocates")
	}
	strict := compiled.Compile(rules.Strict())
	for _, body := range escapeBenchBodies() {
		forbid := strict.Location(body.loc).Forbid
		if n := testing.AllocsPerRun(20, func() { escape.Check(body.p, body.loc, forbid, 0) }); n != 0 {
			t.Errorf("%s: %v allocations", body.name, n)
		}
	}
}

// TestCookiesCleanAllocs: checking clean cookies allocates nothing (the
// log field name is built only for a rejection).
func TestCookiesCleanAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	p := compiled.Compile(rules.Strict())
	req := httptest.NewRequest(http.MethodGet, "/c", nil)
	req.Header.Set("Cookie", "session=abc123; theme=dark; name=caf\xc3\xa9")
	if n := testing.AllocsPerRun(100, func() {
		if rj := checkCookies(req, p); rj != nil {
			t.Fatal(rj)
		}
	}); n != 0 {
		t.Errorf("checkCookies allocates %v times per clean request, want 0", n)
	}
}

// TestInspectAllocs pins the allocations of a clean request's checks: none
// for the path and query, escaped or not; for a JSON body, the body's
// buffer and the reader handed to the handler.
func TestInspectAllocs(t *testing.T) {
	if racetest.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	g, err := newGuard(rules.Strict(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	p := g.policies().def
	cases := []struct {
		target string
		body   []byte
		want   float64
	}{
		{"/api/users/42?name=alice&sort=desc&page=2&limit=50", nil, 0},
		{"/api/users/%C3%A9t%C3%A9?q=caf%C3%A9&r=a+b", nil, 0},
		// The body's memory, which inspect alone does not give back to
		// its pool (run's held does, once the handler has returned: a
		// new array every time here), and the lentBody it is lent by.
		{"/api/items", mixedText(1000), 2},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", tc.target, nil)
		if tc.body != nil {
			r.Header.Set("Content-Type", "text/plain")
		}
		n := testing.AllocsPerRun(200, func() {
			if tc.body != nil {
				r.Body, r.ContentLength = &bodyio.Reader{}, int64(len(tc.body))
				r.Body.(*bodyio.Reader).Reset(tc.body)
			}
			s := getScratch()
			_, rj := g.inspect(s, r, p, nil, nil, false)
			putScratch(s)
			if rj != nil {
				t.Fatal(rj)
			}
		})
		if tc.body != nil {
			n-- // the test's own reader
		}
		if n != tc.want {
			t.Errorf("%s: %v allocations, want %v", tc.target, n, tc.want)
		}
	}
}
