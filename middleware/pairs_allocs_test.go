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

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

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
	h, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	return h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		*handed = len(r.URL.RawQuery) + int(n)
		w.WriteHeader(http.StatusOK)
	}))
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
	h, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	var got string
	srv := h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RawQuery
		w.WriteHeader(http.StatusOK)
	}))
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
