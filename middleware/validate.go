package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
)

// The configuration checks every adapter makes when it is built: the
// rules themselves (rules.Table.Validate, in newGuard, which every adapter
// passes through), and the syntax of the route keys, which is the
// router's.

// tableOf returns the table of rs (rules.Default() for nil), or an error
// for a nil pointer, which would otherwise panic at rs.Table().
func tableOf(rs rules.Ruleset) (rules.Table, error) {
	switch v := rs.(type) {
	case nil:
		return rules.Table{Default: rules.Default()}, nil
	case *rules.Policy:
		if v == nil {
			return rules.Table{}, errors.New("utf8guard: Rules is a nil *rules.Policy")
		}
	case *rules.Table:
		if v == nil {
			return rules.Table{}, errors.New("utf8guard: Rules is a nil *rules.Table")
		}
	}
	return rs.Table(), nil
}

// validateRules returns the table of rs, or the first mistake in it
// (rules.Table.Validate).
func validateRules(rs rules.Ruleset) (rules.Table, error) {
	t, err := tableOf(rs)
	if err != nil {
		return t, err
	}
	switch rs.(type) {
	case rules.Policy, *rules.Policy:
		// A policy alone: its errors name no route, nor a "default".
		return t, t.Default.Validate()
	}
	return t, t.Validate()
}

// ValidateRules returns the error that makes rs invalid for every adapter
// (rules.Table.Validate; a nil *rules.Policy or *rules.Table), or nil.
// NewPipeline makes this check; an adapter's CheckRoutes makes it without
// building a pipeline.
func ValidateRules(rs rules.Ruleset) error {
	_, err := validateRules(rs)
	return err
}

// ValidateEchoRoutes returns an error for the first key of rs's table, in
// sorted order, that cannot be an Echo route template: one that does not
// start with "/" (Echo adds the "/" to a route registered without one, so
// such a key matches nothing), or one in another router's syntax: a
// ServeMux or chi parameter ("/users/{id}"; Echo's is "/users/:id") or a
// ServeMux method ("GET /users"). The error is a *rules.ValidationError
// that names the key. The Echo adapters (Config.ToMiddleware,
// echov5.Config.ToMiddleware) call it when they are built; an adapter for
// another router with Echo's syntax can call it too.
//
// Whether each key names a route that is registered can only be told once
// the routes are: CheckRoutes.
func ValidateEchoRoutes(rs rules.Ruleset) error {
	t, err := tableOf(rs)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(t.Routes) {
		if msg := echoKeyProblem(k); msg != "" {
			return &rules.ValidationError{Route: k, InRoutes: true, Err: errors.New(msg)}
		}
	}
	return nil
}

// echoKeyProblem returns why k cannot be an Echo route template, or "".
func echoKeyProblem(k string) string {
	if m, path, ok := strings.Cut(k, " "); ok && m != "" && strings.HasPrefix(path, "/") && strings.ToUpper(m) == m {
		return `a ServeMux method prefix is no part of an Echo route template: the key is the path alone, "` + path + `", for every method`
	}
	if k == "" || k[0] != '/' {
		return `an Echo route template starts with "/", as Echo registers it`
	}
	for seg := range strings.SplitSeq(k, "/") {
		if strings.Contains(seg, "{") || strings.Contains(seg, "}") {
			name := strings.Trim(seg, "{}.$")
			return strconv.Quote(seg) + " is another router's syntax (net/http, chi); Echo names a parameter \":" + name + "\" and matches the rest of a path with \"*\""
		}
	}
	return ""
}

// validateMuxPatterns returns an error for the first key of rs's table
// that is not a ServeMux pattern (http.ServeMux.Handle would panic on it),
// or that uses Echo's syntax (":id", "*"), which a ServeMux takes
// literally. The net/http adapter calls it when HTTPConfig.Route is nil,
// so that the keys are matched against Request.Pattern.
func validateMuxPatterns(rs rules.Ruleset) error {
	t, err := tableOf(rs)
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(t.Routes) {
		if msg := muxKeyProblem(k); msg != "" {
			return &rules.ValidationError{Route: k, InRoutes: true, Err: errors.New(msg)}
		}
	}
	return nil
}

// muxKeyProblem returns why k is not a ServeMux pattern, or "".
func muxKeyProblem(k string) (msg string) {
	_, path, _ := strings.Cut(k, " ")
	if !strings.Contains(k, " ") {
		path = k
	}
	if i := strings.IndexByte(path, '/'); i > 0 {
		path = path[i:] // after a host
	}
	for seg := range strings.SplitSeq(path, "/") {
		if strings.HasPrefix(seg, ":") || seg == "*" {
			return strconv.Quote(seg) + " is Echo's syntax, which a ServeMux takes literally: a ServeMux pattern names a parameter \"{name}\" and the rest of a path \"{name...}\" (or set HTTPConfig.Route to name routes your own way)"
		}
	}
	defer func() {
		if p := recover(); p != nil {
			msg = "not a ServeMux pattern: " + strings.TrimPrefix(fmt.Sprint(p), "http: ") + " (or set HTTPConfig.Route to name routes your own way)"
		}
	}()
	http.NewServeMux().Handle(k, http.NotFoundHandler())
	return ""
}

func sortedKeys(m map[string]rules.Policy) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
