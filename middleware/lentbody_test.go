package middleware

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/racetest"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestLentOnlyWhenHanded: run hands the adapter the lent memory to give
// back only for an accepted request whose handler reads it as lent: not
// for a refused one (its Rejection may point into the body). A body
// rewritten to its canonical form is read by the same reader from memory
// of its own, and the memory the body was read into goes back as spare,
// never read by the handler.
func TestLentOnlyWhenHanded(t *testing.T) {
	strict := rules.Strict()
	nfc := rules.Strict()
	nfc.Normalization = normalize.NFC
	for _, tc := range []struct {
		name   string
		pol    rules.Policy
		body   string
		lent   bool
		status bool // accepted
	}{
		{"accepted", strict, `{"a":"café"}`, true, true},
		{"refused", strict, "{\"a\":\"caf\xc3\"}", false, false},
		{"rewritten", nfc, "{\"a\":\"cafe\u0301\"}", true, true},
		{"normal already", nfc, `{"a":"café"}`, true, true},
		{"refused after the check", nfc, "{\"\u00e9\":1,\"e\u0301\":2}", false, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/api/items", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		hand, rj, _, h := runGuard(t, tc.pol, r)
		if (rj == nil) != tc.status {
			t.Errorf("%s: rejection %v", tc.name, rj)
			continue
		}
		if (h.lent != nil) != tc.lent {
			t.Errorf("%s: lent %v, want %v", tc.name, h.lent != nil, tc.lent)
		}
		if h.lent != nil && hand.Body != io.ReadCloser(h.lent) {
			t.Errorf("%s: the handler does not read the lent body", tc.name)
		}
		if lb := h.lent; lb != nil {
			rewritten := tc.name == "rewritten"
			lent, spare, inSpare, _ := lb.Memory()
			switch {
			case rewritten && (lent || !spare):
				t.Errorf("%s: mem %v, spare %v: want the canonical form in memory of its own and the read memory spare", tc.name, lent, spare)
			case rewritten && inSpare:
				t.Errorf("%s: the canonical form is in the spare memory", tc.name)
			case !rewritten && (!lent || spare):
				t.Errorf("%s: mem %v, spare %v: want the body in lent memory", tc.name, lent, spare)
			}
		}
		if rj == nil {
			got, _ := io.ReadAll(hand.Body)
			want := tc.body
			if tc.name == "rewritten" {
				want = `{"a":"café"}`
			}
			if string(got) != want {
				t.Errorf("%s: the handler reads %q, want %q", tc.name, got, want)
			}
		}
		h.release()
	}
}

// TestReclaimRefused: in Enforce mode the memory a refused request's body
// was read into goes back to its pool at once (reclaim), both for a body
// refused by its check and for one refused once canonicalized (too large
// in NFKC), and the Rejection refers to memory of its own: a Field that
// names a member in the body is a copy.
func TestReclaimRefused(t *testing.T) {
	if racetest.Enabled {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	// One P, whose pool the refused body's memory goes back to and is
	// taken from (a sync.Pool is per P; a goroutine locked to its thread
	// may still change P when it blocks), and no collection, which would
	// empty the pool.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	nfkc := rules.Strict()
	nfkc.Normalization = normalize.NFKC
	const n = 100 << 10 // past upfrontBytes: moved to pooled memory at the commit
	pad := strings.Repeat(" ", n)
	for _, tc := range []struct {
		name string
		pol  rules.Policy
		body string
	}{
		{"check", rules.Strict(), `{"` + strings.Repeat("k", 40) + "\":\"caf\xc3\"}" + pad},
		{"collision", rules.Strict(), `{"` + strings.Repeat("k", 40) + `":1,"` + strings.Repeat("k", 40) + `":2}` + pad},
		{"canonical form too large", nfkc, `{"a":"` + strings.Repeat("\ufdfa", n/3) + `"}`},
	} {
		if tc.name == "canonical form too large" {
			tc.pol.Limits.BodyBytes = int64(len(tc.body)) + 10
		}
		r := httptest.NewRequest(http.MethodPost, "/api/items", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/json")
		_, rj, pass, h := runGuard(t, tc.pol, r)
		if rj == nil || pass || h.lent != nil {
			t.Fatalf("%s: rejection %v, pass %v, lent %v: want refused, nothing lent", tc.name, rj, pass, h.lent != nil)
		}
		mem := bodyio.TakeMem(len(tc.body))
		if !bytes.HasPrefix(mem, []byte(tc.body[:64])) {
			t.Errorf("%s (%v): the body's memory is not back in its pool", tc.name, rj.Reason)
		}
		if bodyio.Overlaps(unsafe.Slice(unsafe.StringData(rj.Field), len(rj.Field)), mem) ||
			bodyio.Overlaps(unsafe.Slice(unsafe.StringData(rj.Sample), len(rj.Sample)), mem) {
			t.Errorf("%s: the Rejection refers to the body's memory", tc.name)
		}
		if got, _ := io.ReadAll(r.Body); len(got) != 0 && tc.name == "canonical form too large" {
			t.Errorf("%s: the refused body still reads %d octets", tc.name, len(got))
		}
	}
}

// runGuard runs r through the pipeline under pol, routed to its path: the
// request the handler gets, the rejection, whether the handler runs, and
// what the adapter releases after it.
func runGuard(t *testing.T, pol rules.Policy, r *http.Request) (*http.Request, *Rejection, bool, held) {
	t.Helper()
	g, err := newGuard(pol, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	hand, _, rj, pass, h := g.run(r, r.URL.Path, nil, nil, false, g.policies().def, nil)
	return hand, rj, pass, h
}

// TestLentLargeBodies: an accepted body of declared length up to
// maxLentBytes is lent in pooled memory of its class, one longer than
// upfrontBytes too (moved there once a commitShare-th has come); a longer
// body, one of unknown length, and a Monitor-mode body are the handler's
// own memory.
func TestLentLargeBodies(t *testing.T) {
	for _, tc := range []struct {
		size    int
		chunked bool
		monitor bool
		lent    bool
	}{
		{bodyio.UpfrontBytes, false, false, true},
		{bodyio.UpfrontBytes + 1, false, false, true},
		{300 << 10, false, false, true},
		{bodyio.MaxLentBytes, false, false, true},
		{bodyio.MaxLentBytes + 1, false, false, false},
		{300 << 10, true, false, false},
		{300 << 10, false, true, false},
	} {
		pol := rules.Strict()
		pol.Limits.BodyBytes = 2 << 20
		if tc.monitor {
			pol.Mode = rules.Monitor
		}
		body := leakBody(tc.size, tc.size)
		var rd io.Reader = bytes.NewReader(body)
		if tc.chunked {
			rd = struct{ io.Reader }{rd} // no length: sent chunked
		}
		r := httptest.NewRequest(http.MethodPost, "/up", rd)
		r.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if tc.chunked {
			r.ContentLength = -1
		}
		hand, rj, _, h := runGuard(t, pol, r)
		if rj != nil {
			t.Fatalf("%+v: %v", tc, rj)
		}
		if got := h.lent != nil; got != tc.lent {
			t.Errorf("%+v: lent %v", tc, got)
		} else if got {
			// TakeMem gives memory of the class a body of that size takes.
			if _, _, _, got := h.lent.Memory(); got != len(bodyio.TakeMem(tc.size)) {
				t.Errorf("%+v: lent memory of %d octets, want its class's %d", tc, got, len(bodyio.TakeMem(tc.size)))
			}
		}
		got, err := io.ReadAll(hand.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("%+v: the handler reads %d octets (%v), want the body's %d", tc, len(got), err, len(body))
		}
		h.release()
	}
}
