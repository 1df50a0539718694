package middleware

import (
	"sync/atomic"
	"unsafe"

	"github.com/labstack/echo/v4"
)

// Echo applies the middleware of e.Use and e.Pre anew for every request:
// ServeHTTP calls each echo.MiddlewareFunc with the next handler, and the
// handler it returns, a closure over next, is one allocation per request.
// The next handler of a middleware that runs after routing is mostly the
// same from one request to the next (the route's function, or the chain
// Echo built when the route was added), so a wrapCache keeps the handler
// made for each such next and gives it out again.
//
// A func value is a pointer to a closure object, and the cache is keyed by
// that pointer. An entry holds on to its next, so while it is in the cache
// the object stays where it is (Go's collector does not move objects) and
// no other object can have its address: if the next of a request has the
// address of an entry's, they are the same object, the same function with
// the same captured values, and the entry's handler is the right one.
//
// Only a next seen after routing is stored (echoGuard.serve calls store):
// under e.Pre, Echo makes next per request, as a closure over the request,
// and an entry would keep that request alive for nothing. Another e.Use
// middleware mounted after this one also makes next per request (a closure
// over its configuration and the route's handler): those miss, get a new
// handler as without the cache, and take slots that stay taken, so the
// cache keeps at most wrapSlots of them alive and a route whose slot is
// taken costs one allocation per request, as before.
type wrapCache struct {
	slots [wrapSlots]atomic.Pointer[wrapEntry]
}

// A wrapCache remembers up to wrapSlots next handlers, each in the slot its
// address hashes to.
const (
	wrapBits  = 8
	wrapSlots = 1 << wrapBits
)

type wrapEntry struct {
	next echo.HandlerFunc // keeps the object at key alive
	key  uintptr
	h    echo.HandlerFunc
}

// funcAddr returns the address of the object that the func value f points
// to (0 for a nil f).
func funcAddr(f echo.HandlerFunc) uintptr {
	return uintptr(*(*unsafe.Pointer)(unsafe.Pointer(&f)))
}

func (c *wrapCache) slot(key uintptr) *atomic.Pointer[wrapEntry] {
	return &c.slots[(uint64(key)*0x9E3779B97F4A7C15)>>(64-wrapBits)]
}

// lookup returns the handler stored for next, or nil.
func (c *wrapCache) lookup(next echo.HandlerFunc) echo.HandlerFunc {
	key := funcAddr(next)
	if e := c.slot(key).Load(); e != nil && e.key == key {
		return e.h
	}
	return nil
}

// free reports whether store(next, ...) would keep its handler.
func (c *wrapCache) free(next echo.HandlerFunc) bool {
	return c.slot(funcAddr(next)).Load() == nil
}

// store keeps h as the handler for next if next's slot is free.
func (c *wrapCache) store(next, h echo.HandlerFunc) {
	key := funcAddr(next)
	c.slot(key).CompareAndSwap(nil, &wrapEntry{next: next, key: key, h: h})
}
