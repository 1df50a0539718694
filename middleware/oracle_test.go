package middleware

// The handler-side oracle: a handler that reads a
// request every way real handlers do (Echo's c.Param, c.QueryParams,
// c.FormParams, c.FormFile, c.Bind; net/http's URL, ParseMultipartForm,
// MultipartReader, Cookies, Trailer; encoding/json and encoding/xml) and
// re-checks every value against the route's rules.Policy with packages
// sanitize and normalize directly, sharing no code with the middleware; and
// compares what it read with what the client sent (orcOrig): keys that
// became one, multipart parts that appeared or vanished, path syntax that
// appeared. What it reports about an accepted request in Enforce mode is a
// bug in the middleware, never in the oracle: it holds only what the policy
// documents (rules/policy.go, rules/presets.go) and the issues require.
//
// This file holds the checks of the path, the query, cookies, headers and
// what a binder filled in, oracle_body_test.go those of the bodies;
// oracle_fuzz_test.go the handlers, servers, request harness and
// FuzzOracle; oracle_mechanisms_test.go the named regressions, and
// oracle_clients_test.go the clean clients.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// orcReport is what the oracle found in one request. The harness makes one
// per request and passes it in the request's context.
type orcReport struct {
	mount mount
	orig  *orcOrig

	mu       sync.Mutex // the handler may run on a server goroutine
	ran      bool
	route    string
	problems []string
	path     string // URL.Path, RawQuery and the body as the handler read them
	rawQuery string
	body     []byte
}

func (rep *orcReport) add(format string, args ...any) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.problems = append(rep.problems, fmt.Sprintf(format, args...))
}

// result returns whether the handler ran and what it found.
func (rep *orcReport) result() (bool, []string) {
	rep.mu.Lock()
	defer rep.mu.Unlock()
	return rep.ran, append([]string(nil), rep.problems...)
}

type orcKey struct{}

func orcReportOf(ctx context.Context) *orcReport {
	rep, _ := ctx.Value(orcKey{}).(*orcReport)
	return rep
}

// orcOrig is the request as the client sent it, parsed by net/http alone.
type orcOrig struct {
	path, rawPath, rawQuery, ctype string
	body                           []byte
}

// orcCheck checks the values one handler read against one policy.
type orcCheck struct {
	rep  *orcReport
	pol  *rules.Policy
	form normalize.Form
}

func newOrcCheck(rep *orcReport, pol *rules.Policy) *orcCheck {
	k := &orcCheck{rep: rep, pol: pol}
	switch pol.Normalization {
	case normalize.NFC:
		k.form = normalize.NFC
	case normalize.NFKC:
		k.form = normalize.NFKC
	}
	return k
}

func (k *orcCheck) bad(format string, args ...any) { k.rep.add(format, args...) }

// names is the class set of names: multipart field and file names.
func (k *orcCheck) names() sanitize.Class { return k.pol.Multipart.Forbid | k.pol.Header.Forbid }

// profile returns the PRECIS profile of the field name at loc, or 0. Names
// match without regard to case, as the policy documents.
func (k *orcCheck) profile(loc rules.Location, name string) normalize.Profile {
	for _, f := range k.pol.Precis {
		if f.Location == loc && strings.EqualFold(f.Field, name) {
			return f.Profile
		}
	}
	return 0
}

// text checks one value: well-formed UTF-8 and none of forbid; then, with
// a PRECIS profile, in the profile's enforced form (merely allowed by it,
// with allowedOnly); without one and with norm, in the route's form.
func (k *orcCheck) text(what, v string, forbid sanitize.Class, norm bool, prof normalize.Profile, allowedOnly bool) {
	if err := sanitize.CheckString(v, forbid); err != nil {
		k.bad("%s %+q: %v", what, orcCut(v), err)
		return
	}
	switch {
	case prof != 0:
		if e, err := normalize.Enforce(prof, v); err != nil {
			k.bad("%s %+q: PRECIS %v refuses it: %v", what, orcCut(v), prof, err)
		} else if e != v && !allowedOnly {
			k.bad("%s %+q: not in the enforced form %+q of PRECIS %v", what, orcCut(v), orcCut(e), prof)
		}
	case norm && k.form != normalize.None && !k.form.IsNormalString(v):
		k.bad("%s %+q: not %s", what, orcCut(v), k.form.Name())
	}
}

// limit checks a length against a limit (negative: none).
func (k *orcCheck) limit(what string, n int, limit int64) {
	if limit >= 0 && int64(n) > limit {
		k.bad("%s: %d octets, over the limit of %d", what, n, limit)
	}
}

// orcCut bounds a value for a failure message.
func orcCut(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// path checks URL.Path and the path parameters (names, values; wild says
// which parameters may span segments).
func (k *orcCheck) path(u *url.URL, names, values []string, wild func(string) bool) {
	p, orig := k.pol, k.rep.orig
	if !p.Path.On {
		return
	}
	k.text("URL.Path", u.Path, p.Path.Forbid, true, 0, false)
	k.limit("URL.EscapedPath()", len(u.EscapedPath()), int64(p.Limits.PathBytes))
	if p.Path.RefuseDoubleEncoding && orcHasEscape(u.Path) {
		k.bad("URL.Path %+q holds an escape (double encoding)", u.Path)
	}
	if dec, err := url.PathUnescape(u.RawPath); u.RawPath != "" && (err != nil || dec != u.Path) {
		k.bad("URL.RawPath %q does not decode to URL.Path %+q", u.RawPath, u.Path)
	}
	k.syntax("URL.Path", u.Path, orig.path)
	// Under e.Pre with an encoded slash Echo hands on the raw escaped
	// values, as ToMiddleware documents: a handler must decode them.
	rawParams := k.rep.mount == mountPre && orcEncodedSlash(orig.rawPath)
	for i, name := range names {
		v, what := values[i], "path parameter "+name
		if rawParams && strings.Contains(v, "%") {
			d, err := url.PathUnescape(v)
			if err != nil {
				k.bad("%s %q: %v", what, v, err)
				continue
			}
			v = d
		}
		// Under e.Pre the enforced form of a PRECIS parameter cannot reach
		// the handler (Echo routes again), as ToMiddleware documents.
		k.text(what, v, p.Path.Forbid, true, k.profile(rules.Path, name), k.rep.mount == mountPre)
		k.syntax(what, v, orig.path)
		// A '/' in a parameter must come from the client: an encoded
		// slash, or the path itself (Echo's router puts "4/1" in :id when
		// the param ends the route: /p/:id matches /p/4/1). A value that
		// is not in the decoded path, in the route's form, got its '/'
		// from a rewrite.
		if !wild(name) && strings.Contains(v, "/") && !orcEncodedSlash(orig.rawPath) &&
			!strings.Contains(k.form.String(orig.path), v) {
			k.bad("%s %+q holds a '/' that no %%2F or '/' in the request explains", what, v)
		}
		if p.Path.RefuseDoubleEncoding && orcHasEscape(v) {
			k.bad("%s %+q holds an escape (double encoding)", what, v)
		}
	}
}

// syntax reports path syntax in v (a '/', '\', '%', ';', '?', '#' or a dot
// segment) that the decoded request path did not hold: a canonical form
// must not create it.
func (k *orcCheck) syntax(what, v, orig string) {
	for _, c := range `/\%;?#` {
		if n, m := strings.Count(v, string(c)), strings.Count(orig, string(c)); n > m {
			k.bad("%s %+q holds %d %q, the decoded request path %+q %d", what, v, n, c, orig, m)
		}
	}
	if n, m := orcDots(v), orcDots(orig); n > m {
		k.bad("%s %+q holds %d dot segments, the decoded request path %+q %d", what, v, n, orig, m)
	}
}

func orcDots(s string) (n int) {
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "." || seg == ".." {
			n++
		}
	}
	return n
}

var orcEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)

func orcHasEscape(s string) bool { return orcEscape.MatchString(s) }

func orcEncodedSlash(raw string) bool {
	return strings.Contains(raw, "%2F") || strings.Contains(raw, "%2f")
}

// pairs checks the keys and values of a query or a form body at loc.
func (k *orcCheck) pairs(what string, loc rules.Location, vals url.Values) {
	c, lim := k.pol.Location(loc), int64(k.pol.Limits.FieldBytes)
	if !c.On {
		return
	}
	n := 0
	for key, vs := range vals {
		n += len(vs)
		k.text(what+" key", key, c.Forbid, true, 0, false)
		k.limit(what+" key "+strconv.Quote(key), len(key), lim)
		for _, v := range vs {
			k.text(what+"["+strconv.Quote(key)+"]", v, c.Forbid, true, k.profile(loc, key), false)
			k.limit(what+"["+strconv.Quote(key)+"]", len(v), lim)
		}
	}
	k.limit(what+" field count", n, int64(k.pol.Limits.Fields))
}

// rawPairs checks a raw query or form text as a handler that splits it
// itself reads it: every pair, those url.ParseQuery drops too.
func (k *orcCheck) rawPairs(what string, loc rules.Location, raw string) {
	if !k.pol.Location(loc).On {
		return
	}
	vals := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		key, val, _ := strings.Cut(pair, "=")
		dk, err1 := url.QueryUnescape(key)
		dv, err2 := url.QueryUnescape(val)
		if err := errors.Join(err1, err2); err != nil {
			k.bad("%s pair %q: %v", what, pair, err)
		} else if pair != "" {
			vals[dk] = append(vals[dk], dv)
		}
	}
	k.pairs(what, loc, vals)
}

// orcRawKeys returns the decoded keys of a raw query or form text.
func orcRawKeys(raw string) (keys []string) {
	for pair := range strings.SplitSeq(raw, "&") {
		key, _, _ := strings.Cut(pair, "=")
		if d, err := url.QueryUnescape(key); err == nil && pair != "" {
			keys = append(keys, d)
		}
	}
	return keys
}

// collisions reports distinct keys the client sent that are one key in the
// route's normalization form: the handler would see them merged.
func (k *orcCheck) collisions(what string, keys []string) {
	if k.form == normalize.None {
		return
	}
	first := map[string]string{}
	for _, key := range keys {
		c := k.form.String(key)
		if f, ok := first[c]; ok && f != key {
			k.bad("%s keys %+q and %+q are one key %+q in %s", what, f, key, c, k.form.Name())
		} else if !ok {
			first[c] = key
		}
	}
}

// cookies checks every cookie's name and value as r.Cookies returns them
// and as a handler splitting the Cookie headers itself reads them, trimming
// only SP and HTAB, as RFC 6265 allows.
func (k *orcCheck) cookies(r *http.Request) {
	p := k.pol
	if !p.Cookies {
		return
	}
	for _, c := range r.Cookies() {
		k.text("r.Cookies() "+c.Name, c.Name+c.Value, p.Header.Forbid, false, 0, false)
	}
	for _, line := range r.Header["Cookie"] {
		for piece := range strings.SplitSeq(line, ";") {
			if piece = strings.Trim(piece, " \t"); piece != "" {
				name, value, _ := strings.Cut(piece, "=")
				k.text("Cookie header name", name, p.Header.Forbid, false, 0, false)
				k.text("Cookie header value of "+strconv.Quote(name), value, p.Header.Forbid, false, 0, false)
				k.limit("cookie "+strconv.Quote(name), len(value), int64(p.Limits.FieldBytes))
			}
		}
	}
}

// headers checks the listed headers in h (the header or the trailer).
func (k *orcCheck) headers(what string, h http.Header) {
	if p := k.pol; p.Header.On {
		for _, name := range p.Headers {
			for _, v := range h.Values(name) {
				k.text(what+" "+name, v, p.Header.Forbid, false, 0, false)
				k.limit(what+" "+name, len(v), int64(p.Limits.FieldBytes))
			}
		}
	}
}

// bound checks every string a binder put into v.
func (k *orcCheck) bound(what string, v reflect.Value, forbid sanitize.Class, norm bool) {
	switch v.Kind() {
	case reflect.String:
		k.text(what, v.String(), forbid, norm, 0, false)
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			k.bound(what, v.Elem(), forbid, norm)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			k.bound(what, v.Index(i), forbid, norm)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			k.bound(what+" key", it.Key(), forbid, norm)
			k.bound(what+"["+fmt.Sprint(it.Key())+"]", it.Value(), forbid, norm)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			k.bound(what+"."+v.Type().Field(i).Name, v.Field(i), forbid, norm)
		}
	}
}

// bindClasses returns the classes that every value a binder may take from
// locs has passed, and whether all of them are checked.
func (k *orcCheck) bindClasses(locs ...rules.Location) (sanitize.Class, bool) {
	forbid := sanitize.AllClasses
	for _, l := range locs {
		if c := k.pol.Location(l); c.On {
			forbid &= c.Forbid
		} else {
			return 0, false
		}
	}
	return forbid, true
}
