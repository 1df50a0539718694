package rules_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// TestRouteParamsOfEveryRouterSyntax: the parameters of Echo templates,
// ServeMux patterns and chi patterns, and no answer for a key that is a
// name rather than a path.
func TestRouteParamsOfEveryRouterSyntax(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		route string
		want  []string
		ok    bool
	}{
		{"/", nil, true},
		{"/health", nil, true},
		{"/users/:id", []string{"id"}, true},
		{"/users/:id/notes/:note", []string{"id", "note"}, true},
		{"/files/*", []string{"*"}, true},
		{"/users/:id/*", []string{"id", "*"}, true},
		{"/files/*path", []string{"path"}, true},           // Gin, httprouter
		{"/users/:id/*rest", []string{"id", "rest"}, true}, // Gin
		{"/static/*.js", []string{"*"}, true},              // Echo: no name after the star
		{"/users/{id}", []string{"id"}, true},
		{"GET /users/{id}", []string{"id"}, true},
		{"POST example.com/users/{id}/{rest...}", []string{"id", "rest"}, true},
		{"example.com:8080/x/{id}", []string{"id"}, true},
		{"/x/{$}", nil, true},
		{"/users/{id:[0-9]{1,3}}/x", []string{"id"}, true},
		{"/users/{id:[a-z]+}", []string{"id"}, true},
		{"users.show", nil, false},
		{"GET users", nil, false},
	} {
		got, ok := rules.RouteParams(tc.route)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("RouteParams(%q) = %q, %v; want %q, %v", tc.route, got, ok, tc.want, tc.ok)
		}
	}
}

// precisPath returns a strict policy with a PRECIS path field.
func precisPath(field string) rules.Policy {
	p := rules.Strict()
	p.Precis = []rules.PrecisField{{Location: rules.Path, Field: field, Profile: normalize.UsernameCaseMapped}}
	return p
}

// TestPrecisPathFieldMustNameARouteParameter: a path field that is no
// parameter of its route would leave that parameter unchecked; Go tables
// and policy files refuse it, naming the route, the field and the
// parameters the route has.
func TestPrecisPathFieldMustNameARouteParameter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		route, field string
		msg          string // "" for accepted
	}{
		{"/users/:username", "username", ""},
		{"/users/:username", "USERNAME", ""}, // names match as the middleware matches them
		{"GET /users/{name}", "name", ""},
		{"/files/*", "*", ""},
		{"users.show", "user", ""}, // a name, not a path: its parameters cannot be told
		{"/users/:username", "user", `Precis[0].Field: "user" is not a parameter of the route: its parameter is "username"`},
		{"GET /users/{id}/{rest...}", "user", `its parameters are "id", "rest"`},
		{"/users", "user", `"user" is not a parameter of the route: it has no parameters`},
	} {
		err := rules.Table{Routes: map[string]rules.Policy{tc.route: precisPath(tc.field)}}.Validate()
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%q with path field %q: %v", tc.route, tc.field, err)
			}
			continue
		}
		var ve *rules.ValidationError
		if !errors.As(err, &ve) || ve.Route != tc.route || ve.Field != "Precis[0].Field" || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q with path field %q: %v, want an error with %q", tc.route, tc.field, err, tc.msg)
		}
	}

	_, err := rules.Parse([]byte(`{"routes": {"/users/:username": {"preset": "strict",
  "precis": {"path": {"user": "username_case_mapped"}}}}}`))
	var pe *rules.ParseError
	want := `rules: routes["/users/:username"].precis.path.user: Precis[0].Field: "user" is not a parameter of the route: its parameter is "username"; the profile would never apply`
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 23 || err.Error() != want {
		t.Errorf("Parse: %v\nwant %s at 2:23", err, want)
	}
}

// TestCheckPathFieldsOfASharedPolicy: a policy shared by several routes
// (a table's default) may name a parameter some of them lack, not one
// none of them has.
func TestCheckPathFieldsOfASharedPolicy(t *testing.T) {
	t.Parallel()
	p := precisPath("user")
	if err := p.CheckPathFields([]string{"/health", "/users/:user", "/files/*"}); err != nil {
		t.Errorf("a parameter of one route: %v", err)
	}
	if err := p.CheckPathFields([]string{"/health", "/ids/:id", "ids.named"}); err != nil {
		t.Errorf("a route whose parameters cannot be told: %v", err)
	}
	for routes, msg := range map[string]string{
		"/health /ids/:id":      `"user" is a parameter of none of the 2 routes the policy applies to: their parameter is "id"`,
		"/health /ids/:id /x/*": `their parameters are "*", "id"`,
		"":                      "the policy applies to no route",
	} {
		err := p.CheckPathFields(strings.Fields(routes))
		var ve *rules.ValidationError
		if !errors.As(err, &ve) || ve.Field != "Precis[0].Field" || !strings.Contains(err.Error(), msg) {
			t.Errorf("routes %q: %v, want an error with %q", routes, err, msg)
		}
	}
	if err := rules.Strict().CheckPathFields(nil); err != nil {
		t.Errorf("no path field: %v", err)
	}
}

func ExampleRouteParams() {
	for _, route := range []string{"/users/:id/*", "GET /users/{id}/{rest...}", "/users/{id:[0-9]+}", "users.show"} {
		fmt.Println(rules.RouteParams(route))
	}
	// Output:
	// [id *] true
	// [id rest] true
	// [id] true
	// [] false
}

func ExamplePolicy_CheckPathFields() {
	p := rules.Strict()
	p.Precis = []rules.PrecisField{{Location: rules.Path, Field: "user", Profile: normalize.UsernameCaseMapped}}
	fmt.Println(p.CheckPathFields([]string{"/users/:username"}))
	fmt.Println(p.CheckPathFields([]string{"/users/:user", "/health"}))
	// Output:
	// rules: Precis[0].Field: "user" is not a parameter of the route: its parameter is "username"; the profile would never apply
	// <nil>
}
