package middleware_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/rules"
)

// TestLiveRulesSwapUnderLoad: rules swapped while requests run check each
// request by one table, the old or the new, from start to end. Under
// e.Pre the route is found before the check, by the mode of its policy
// (an enforcing route is found on the decoded path, a monitoring one on
// the path as sent): a request found by one table and checked by the
// other would be observed under the wrong route for its outcome.
func TestLiveRulesSwapUnderLoad(t *testing.T) {
	enforce := rules.Table{Default: rules.Strict()}
	monitor := rules.Table{Default: rules.Strict().AsMonitor()}
	live, err := rules.NewLive(enforce)
	if err != nil {
		t.Fatal(err)
	}
	nop := zerolog.Nop()
	var mixed, rejected, flagged atomic.Int64
	var firstMix atomic.Value
	observe := func(_ *http.Request, o middleware.Observation) {
		// Found on the decoded path only when enforcing: /admin/:id with
		// a refusal, or no route with a flag.
		ok := o.Outcome == middleware.Rejected && o.Route == "/admin/:id" ||
			o.Outcome == middleware.Flagged && o.Route == ""
		switch {
		case !ok:
			mixed.Add(1)
			firstMix.CompareAndSwap(nil, o.Outcome.String()+" "+o.Route)
		case o.Outcome == middleware.Rejected:
			rejected.Add(1)
		default:
			flagged.Add(1)
		}
	}
	s := newServer(t, mounting{adapter: "v5", how: "pre", cfg: middleware.HTTPConfig{Rules: live, Logger: &nop, Observe: observe},
		routes: []string{"/admin/:id"}, methods: []string{http.MethodGet}},
		handlerFunc(func(c echoCtx, w http.ResponseWriter, _ *http.Request) { io.WriteString(w, c.Param("id")) }))

	// The clients send at least requests each, and go on (for at most
	// 10 s) until both tables have checked some: on a loaded machine the
	// swapper may not run at first.
	const workers, requests = 4, 400
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the swapper
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			next := enforce
			if i%2 == 0 {
				next = monitor
			}
			if err := live.Set(next); err != nil {
				t.Error(err)
				return
			}
			runtime.Gosched()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	var sent atomic.Int64
	var clients sync.WaitGroup
	for range workers {
		clients.Add(1)
		go func() {
			defer clients.Done()
			for n := 0; n < requests || (rejected.Load() == 0 || flagged.Load() == 0) && time.Now().Before(deadline); n++ {
				w := s.Do(httptest.NewRequest(http.MethodGet, "/%61dmin/x%00", nil))
				sent.Add(1)
				if w.Code != http.StatusBadRequest && w.Code != http.StatusNotFound {
					t.Errorf("status %d, want 400 (enforced) or 404 (monitored, routed as sent)", w.Code)
				}
			}
		}()
	}
	clients.Wait()
	close(stop)
	wg.Wait()
	if n := mixed.Load(); n != 0 {
		t.Errorf("%d of %d requests were found by one table and checked by the other (the first: %v)", n, sent.Load(), firstMix.Load())
	}
	if rejected.Load() == 0 || flagged.Load() == 0 {
		t.Errorf("%d rejected, %d flagged: the swaps did not land between requests", rejected.Load(), flagged.Load())
	}
	t.Logf("%d requests: %d by the enforcing table, %d by the monitoring one", sent.Load(), rejected.Load(), flagged.Load())
}

// TestLiveRulesSetChecksFirst: Set refuses rules the adapters built on
// them could not use, and keeps the rules in force: an invalid policy, a
// key in another router's syntax, a key that names no registered route
// once the adapter knows its routes.
func TestLiveRulesSetChecksFirst(t *testing.T) {
	start := rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/open/*": rules.Unchecked()}}
	live, err := rules.NewLive(start)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, mounting{adapter: "v5", how: "use", cfg: middleware.HTTPConfig{Rules: live},
		routes: []string{"/open/*", "/users/:id"}, methods: []string{http.MethodGet}},
		handlerFunc(func(c echoCtx, w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	get := func(target string) int {
		return s.Do(httptest.NewRequest(http.MethodGet, target, nil)).Code
	}
	if code := get("/open/%C0%AE"); code != http.StatusOK { // the first request: the adapter learns its routes
		t.Fatalf("GET /open/%%C0%%AE: %d, want 200 (unchecked)", code)
	}
	badLimit := rules.Strict()
	badLimit.Limits.BodyBytes = -2
	for _, tc := range []struct {
		name string
		rs   rules.Ruleset
		want string
	}{
		{"invalid policy", rules.Table{Default: badLimit}, "BodyBytes"},
		{"ServeMux syntax", rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"GET /users/{id}": rules.Unchecked()}}, "/users/{id}"},
		{"no such route", rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/opne/*": rules.Unchecked()}}, `did you mean "/open/*"`},
	} {
		err := live.Set(tc.rs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Set: %v, want an error naming %q", tc.name, err, tc.want)
		}
		if tc.name == "no such route" {
			var ue *middleware.UnknownRoutesError
			if !errors.As(err, &ue) {
				t.Errorf("%s: %T, want an *UnknownRoutesError", tc.name, err)
			}
		}
		if code := get("/open/%C0%AE"); code != http.StatusOK {
			t.Errorf("%s: after the refused Set, GET /open/%%C0%%AE: %d, want 200: the old rules must stay", tc.name, code)
		}
	}
	// A good table takes effect for the next request.
	if err := live.Set(rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/users/:id": rules.Unchecked()}}); err != nil {
		t.Fatal(err)
	}
	if code := get("/open/%C0%AE"); code != http.StatusBadRequest {
		t.Errorf("after Set: GET /open/%%C0%%AE: %d, want 400 (the default now)", code)
	}
	if code := get("/users/%C0%AE"); code != http.StatusOK {
		t.Errorf("after Set: GET /users/%%C0%%AE: %d, want 200 (unchecked now)", code)
	}
}
