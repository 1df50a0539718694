package middleware

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

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
	h, err := HTTPConfig{Rules: &pol, Logger: &nop}.ToHandler()
	if err != nil {
		t.Fatal(err)
	}
	return h(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
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
