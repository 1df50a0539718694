package middleware_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware"
	"github.com/utf8guard/utf8guard/middleware/echov4"
	"github.com/utf8guard/utf8guard/middleware/echov5"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// valAdapters builds each adapter with rs: the error of its ToMiddleware,
// ToHandler or NewPipeline, and whether its panicking form (WithConfig,
// Handler) panicked with that error.
var valAdapters = map[string]func(rs rules.Ruleset) (err error, panicked error){
	"v4": func(rs rules.Ruleset) (error, error) {
		_, err := echov4.Config{Rules: rs}.ToMiddleware()
		return err, valPanic(func() { echov4.WithConfig(echov4.Config{Rules: rs}) })
	},
	"v5": func(rs rules.Ruleset) (error, error) {
		_, err := echov5.Config{Rules: rs}.ToMiddleware()
		return err, valPanic(func() { echov5.WithConfig(echov5.Config{Rules: rs}) })
	},
	"nethttp": func(rs rules.Ruleset) (error, error) {
		_, err := middleware.HTTPConfig{Rules: rs}.ToHandler()
		return err, valPanic(func() { middleware.Handler(middleware.HTTPConfig{Rules: rs}) })
	},
	"pipeline": func(rs rules.Ruleset) (error, error) {
		_, err := middleware.NewPipeline(middleware.PipelineConfig{Rules: rs})
		return err, err // no panicking form
	},
}

// valPanic returns what f panicked with, as an error, or nil.
func valPanic(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err, _ = p.(error)
			if err == nil {
				err = errors.New("panicked with a non-error")
			}
		}
	}()
	f()
	return nil
}

// TestInvalidConfig: a policy Validate refuses, wherever it is in the
// configuration, is an error from every adapter's constructor (the error
// of rules.Validate, naming where the mistake is) and a panic with that
// error from the panicking forms.
func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	noHeaders := rules.Strict()
	noHeaders.Header.On = true
	zeroProfile := rules.Strict()
	zeroProfile.Precis = []rules.PrecisField{{Location: rules.JSON, Field: "/user/name"}}
	negative := rules.Default()
	negative.Limits.FieldBytes = -10
	params := rules.Strict()
	params.BodyTypes = []string{"text/csv;charset=utf-8"}
	unnormalized := rules.Strict()
	unnormalized.RejectUnnormalized = true
	badMode := rules.Strict()
	badMode.Mode = 3
	for _, tc := range []struct {
		name string
		rs   rules.Ruleset
		want string
	}{
		{"Header.On without headers", noHeaders, "rules: Header.On: header checks are on, but Headers lists no header names"},
		{"pointer to a policy", &noHeaders, "rules: Header.On: "},
		{"PRECIS zero profile in a route", rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/users/:id": zeroProfile}},
			`rules: route "/users/:id": Precis[0].Profile: zero profile; want normalize.UsernameCaseMapped`},
		{"negative limit as the default", &rules.Table{Default: negative}, "rules: default policy: Limits.FieldBytes: -10 is not a limit"},
		{"body type with parameters", params, `rules: BodyTypes[0]: invalid media type "text/csv;charset=utf-8"`},
		{"RejectUnnormalized without a form", unnormalized, "rules: RejectUnnormalized: "},
		{"unknown mode", badMode, "rules: Mode: unknown mode 3"},
		{"empty route key", rules.Table{Routes: map[string]rules.Policy{"": rules.Strict()}}, `rules: route "": a route key must not be empty`},
		{"nil *rules.Policy", (*rules.Policy)(nil), "utf8guard: Rules is a nil *rules.Policy"},
		{"nil *rules.Table", (*rules.Table)(nil), "utf8guard: Rules is a nil *rules.Table"},
	} {
		for name, build := range valAdapters {
			err, panicked := build(tc.rs)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("%s, %s: error %v, want %s...", tc.name, name, err, tc.want)
			}
			if panicked == nil || panicked.Error() != err.Error() {
				t.Errorf("%s, %s: panicked with %v, want the error", tc.name, name, panicked)
			}
		}
	}
}

// TestValidConfig: the configurations that must keep working.
func TestValidConfig(t *testing.T) {
	t.Parallel()
	nfc := rules.Strict()
	nfc.Normalization, nfc.RejectUnnormalized = normalize.NFC, true
	nfc.Precis = []rules.PrecisField{{Location: rules.Path, Field: "id", Profile: normalize.UsernameCaseMapped}}
	// In a table, a path field must name a parameter of its key, and no
	// key is both an Echo template and a ServeMux pattern with one.
	nfcQuery := nfc
	nfcQuery.Precis = []rules.PrecisField{{Location: rules.Query, Field: "id", Profile: normalize.UsernameCaseMapped}}
	for name, rs := range map[string]rules.Ruleset{
		"nil":        nil,
		"policy":     rules.Strict(),
		"pointer":    &nfc,
		"table":      rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{"/users": nfcQuery, "/files/": rules.Unchecked()}},
		"zero table": rules.Table{},
	} {
		for adapter, build := range valAdapters {
			if err, _ := build(rs); err != nil {
				t.Errorf("%s, %s: %v", name, adapter, err)
			}
		}
	}
}

// TestRouteKeySyntax: the Echo adapters refuse keys no Echo route can
// have; the net/http adapter refuses keys that are not ServeMux patterns
// while it matches keys against Request.Pattern, and takes any key when
// HTTPConfig.Route names the routes.
func TestRouteKeySyntax(t *testing.T) {
	t.Parallel()
	table := func(key string) rules.Table {
		return rules.Table{Default: rules.Strict(), Routes: map[string]rules.Policy{key: rules.Unchecked(), "/ok": rules.Strict()}}
	}
	for _, tc := range []struct {
		key           string
		echo, nethttp string // "" accepted, else a part of the error
	}{
		{"/users/:id", "", `"/users/:id": ":id" is Echo's syntax, which a ServeMux takes literally`},
		{"/files/*", "", `"*" is Echo's syntax`},
		{"/users/{id}", `route "/users/{id}": "{id}" is another router's syntax (net/http, chi); Echo names a parameter ":id"`, ""},
		{"/files/{rest...}", `"{rest...}" is another router's syntax`, ""},
		{"GET /users/{id}", `a ServeMux method prefix is no part of an Echo route template: the key is the path alone, "/users/{id}"`, ""},
		{"users/:id", `route "users/:id": an Echo route template starts with "/"`, `":id" is Echo's syntax`},
		{"open", `an Echo route template starts with "/"`, `not a ServeMux pattern`},
		{"example.com/a", `starts with "/"`, ""},
		{"/a/{", `"{" is another router's syntax`, "not a ServeMux pattern"},
	} {
		for adapter, build := range valAdapters {
			want := tc.echo
			switch adapter {
			case "nethttp":
				want = tc.nethttp
			case "pipeline":
				want = "" // router-neutral: any key
			}
			err, _ := build(table(tc.key))
			switch {
			case want == "" && err != nil:
				t.Errorf("%s, key %q: %v", adapter, tc.key, err)
			case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
				t.Errorf("%s, key %q: %v, want an error with %q", adapter, tc.key, err, want)
			case err != nil:
				var ve *rules.ValidationError
				if !errors.As(err, &ve) || ve.Route != tc.key || !ve.InRoutes {
					t.Errorf("%s, key %q: %#v, want a *rules.ValidationError naming the key", adapter, tc.key, err)
				}
			}
		}
		// With a Route function, keys are the adapter's own names.
		route := func(*http.Request) string { return "" }
		if _, err := (middleware.HTTPConfig{Rules: table(tc.key), Route: route}).ToHandler(); err != nil {
			t.Errorf("nethttp with Route, key %q: %v", tc.key, err)
		}
	}
}

// TestValidateEchoRoutes: the function the Echo adapters call, for other
// adapters.
func TestValidateEchoRoutes(t *testing.T) {
	t.Parallel()
	if err := middleware.ValidateEchoRoutes(rules.Table{Routes: map[string]rules.Policy{"/b/{x}": {}, "/a/{y}": {}}}); err == nil ||
		!strings.HasPrefix(err.Error(), `rules: route "/a/{y}": `) {
		t.Errorf("%v, want the error of the first key in sorted order", err)
	}
	for _, rs := range []rules.Ruleset{nil, rules.Strict(), rules.Table{}} {
		if err := middleware.ValidateEchoRoutes(rs); err != nil {
			t.Errorf("%v: %v", rs, err)
		}
	}
}
