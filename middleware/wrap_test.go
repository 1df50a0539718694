package middleware

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/utf8guard/utf8guard/rules"
)

// TestWrapCache checks lookup and store: a handler is found only for the
// next it was stored for, and a taken slot is not overwritten.
func TestWrapCache(t *testing.T) {
	var wc wrapCache
	errA, errB := errors.New("a"), errors.New("b")
	a := func(echo.Context) error { return errA }
	b := func(echo.Context) error { return errB }
	if wc.lookup(a) != nil || !wc.free(a) {
		t.Fatal("an empty cache has a handler")
	}
	ha := func(c echo.Context) error { return a(c) }
	wc.store(a, ha)
	if h := wc.lookup(a); h == nil || funcAddr(h) != funcAddr(ha) || h(nil) != errA {
		t.Fatal("the stored handler is not found")
	}
	if wc.free(a) {
		t.Error("a's slot is free after store")
	}
	wc.store(a, b)
	if h := wc.lookup(a); funcAddr(h) != funcAddr(ha) {
		t.Error("store replaced a taken slot")
	}
	if h := wc.lookup(b); h != nil && h(nil) != errB {
		t.Error("b found a's handler")
	}
}

// TestWrapCacheChurn gives the cache a new closure for every request, as
// another e.Use middleware mounted after ours does, with collections in
// between so that the addresses of dead closures are reused: a handler
// found must call the next it was looked up for, never one stored for an
// earlier closure.
func TestWrapCacheChurn(t *testing.T) {
	var wc wrapCache
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hits := 0
			for i := range 20000 {
				want := &struct{ n int }{g<<20 | i}
				var got *struct{ n int }
				next := func(echo.Context) error { got = want; return nil }
				h := wc.lookup(next)
				if h != nil {
					hits++
				} else {
					h = func(c echo.Context) error { return next(c) }
					if wc.free(next) {
						wc.store(next, h)
					}
				}
				if err := h(nil); err != nil {
					t.Error(err)
					return
				}
				if got != want {
					t.Errorf("request %d: the handler ran another request's next", i)
					return
				}
				if i%1000 == 0 {
					runtime.GC()
				}
			}
			if hits != 0 {
				t.Errorf("%d hits for closures that were all new", hits)
			}
		}()
	}
	wg.Wait()
}

// TestWrapCachePre checks that under e.Pre, where Echo makes the next
// handler per request over the request itself, nothing is stored: the
// cache must not keep requests alive.
func TestWrapCachePre(t *testing.T) {
	pol := rules.Strict()
	m, err := Config{Policy: &pol}.compile()
	if err != nil {
		t.Fatal(err)
	}
	e := echo.New()
	e.Pre(m.wrap)
	e.GET("/a/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	for i := range 100 {
		w := httptest.NewRecorder()
		e.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/a/"+strconv.Itoa(i), nil))
		if w.Code != http.StatusOK {
			t.Fatalf("status %d", w.Code)
		}
	}
	for i := range m.cache.slots {
		if m.cache.slots[i].Load() != nil {
			t.Fatal("a slot was taken under e.Pre")
		}
	}
	// After routing, the route's handler is stored once and found after.
	m2, _ := Config{Policy: &pol}.compile()
	e2 := echo.New()
	e2.Use(m2.wrap)
	e2.GET("/a/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	e2.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/a/1", nil))
	taken := 0
	for i := range m2.cache.slots {
		if m2.cache.slots[i].Load() != nil {
			taken++
		}
	}
	if taken != 1 {
		t.Errorf("e.Use: %d slots taken after one request, want 1", taken)
	}
}

// TestCleanRequestNoAllocs checks that the middleware adds no allocation to
// a clean GET (three path segments, four query fields, strict preset)
// through Echo's ServeHTTP, wherever it is mounted.
func TestCleanRequestNoAllocs(t *testing.T) {
	const target = "/api/users/42?name=alice&sort=desc&page=2&limit=50"
	handler := func(c echo.Context) error {
		if c.Param("id") != "42" || c.QueryParam("sort") != "desc" {
			return echo.ErrBadRequest
		}
		return c.NoContent(http.StatusOK)
	}
	serve := func(t *testing.T, mountAt string) float64 {
		e := echo.New()
		pol := rules.Strict()
		mw := WithConfig(Config{Policy: &pol})
		switch mountAt {
		case "use":
			e.Use(mw)
		case "pre":
			e.Pre(mw)
		case "nop-pre":
			// Any e.Pre middleware costs Echo a closure per request.
			e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc { return next })
		}
		switch mountAt {
		case "group":
			e.Group("/api", mw).GET("/users/:id", handler)
		case "route":
			e.GET("/api/users/:id", handler, mw)
		default:
			e.GET("/api/users/:id", handler)
		}
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
		if n := serve(t, m); n != bare {
			t.Errorf("mounted with %s: %v allocations per request, %v without the middleware", m, n, bare)
		}
	}
	// Under e.Pre, Echo makes the next handler per request, so the one
	// over it is made per request too: one allocation.
	if n, nop := serve(t, "pre"), serve(t, "nop-pre"); n != nop+1 {
		t.Errorf("mounted with pre: %v allocations per request, %v with a no-op e.Pre middleware, want one more", n, nop)
	}
}
