package rules

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// RouteParams returns the names of the path parameters of route, a route
// key in the syntax of any router utf8guard adapts, in order, and true:
//
//   - Echo: ":name", to the end of its segment ("/users/:id"), and "*",
//     whose parameter is named "*" ("/files/*");
//   - net/http's ServeMux: "{name}" and "{name...}" ("{$}" is none), after
//     an optional method and host ("GET example.com/users/{id}");
//   - chi: "{name}", "{name:regexp}" and "*".
//
// A route with no parameters gives nil and true. A key that holds no "/"
// is no path template but a name (one that HTTPConfig.Route gives, say):
// RouteParams returns nil and false, as its parameters cannot be told.
//
// RouteParams does not judge the syntax: that is the router's, and the
// adapters check it. It is how a PRECIS path field is held to the route
// it applies to (Table.Validate, and echov4.CheckRoutes for the
// default policy).
func RouteParams(route string) ([]string, bool) {
	path := route
	if m, rest, ok := strings.Cut(route, " "); ok && m != "" && !strings.Contains(m, "/") {
		path = strings.TrimLeft(rest, " \t") // after a method
	}
	i := strings.IndexByte(path, '/')
	if i < 0 {
		return nil, false
	}
	path = path[i:] // after a host
	var params []string
	for path != "" {
		switch path[0] {
		case '{':
			end, depth := len(path), 0 // a chi regexp may hold braces
			for j := 0; j < len(path); j++ {
				if path[j] == '{' {
					depth++
				} else if path[j] == '}' {
					if depth--; depth == 0 {
						end = j
						break
					}
				}
			}
			name, _, _ := strings.Cut(path[1:end], ":")
			if name = strings.TrimSuffix(name, "..."); name != "" && name != "$" {
				params = append(params, name)
			}
			path = path[min(end+1, len(path)):]
		case ':':
			end := strings.IndexByte(path, '/')
			if end < 0 {
				end = len(path)
			}
			params = append(params, path[1:end])
			path = path[end:]
		case '*':
			// Echo's and chi's catch-all is "*"; Gin's and httprouter's
			// have a name ("/files/*path").
			end := strings.IndexByte(path, '/')
			if end < 0 {
				end = len(path)
			}
			name := path[1:end]
			if !isParamName(name) {
				name = "*" // Echo's "*" (what follows it is no name)
			}
			params = append(params, name)
			path = path[end:]
		default:
			path = path[1:]
		}
	}
	return params, true
}

// CheckPathFields returns a *ValidationError for the first PRECIS path
// field of p that names a parameter of none of routes, the route keys or
// registered routes p applies to, or nil. Names match without regard to
// case, as the middleware matches them. A route whose parameters cannot be
// told (RouteParams) could hold any, and stops the check: nil.
//
// Table.Validate checks each route's policy against its key. The default
// policy has no key: the routes it applies to are the registered routes no
// key names, which the start-up checks of the adapters know
// (echov4.CheckRoutes, middleware.CheckMuxRoutes); they call this.
// With no route at all, p's path fields apply nowhere, and the first is an
// error.
func (p Policy) CheckPathFields(routes []string) error {
	var params []string
	for _, r := range routes {
		ps, ok := RouteParams(r)
		if !ok {
			return nil
		}
		for _, name := range ps {
			if !hasParam(params, name) {
				params = append(params, name)
			}
		}
	}
	for i, f := range p.Precis {
		if f.Location != Path || hasParam(params, f.Field) {
			continue
		}
		var msg string
		switch {
		case len(routes) == 0:
			msg = "the policy applies to no route, so the profile would never apply"
		case len(routes) == 1:
			msg = strconv.Quote(f.Field) + " is not a parameter of the route: " + describeParams(params, "its") +
				"; the profile would never apply"
		default:
			slices.Sort(params) // the routers' order of routes is no order
			msg = strconv.Quote(f.Field) + " is a parameter of none of the " + strconv.Itoa(len(routes)) +
				" routes the policy applies to: " + describeParams(params, "their") + "; the profile would never apply"
		}
		return &ValidationError{Field: "Precis[" + strconv.Itoa(i) + "].Field", Err: errors.New(msg)}
	}
	return nil
}

// hasParam reports whether params holds name, without regard to case.
func hasParam(params []string, name string) bool {
	return slices.ContainsFunc(params, func(p string) bool { return strings.EqualFold(p, name) })
}

// describeParams says, for an error, what parameters there are: "its
// parameters are "id", "name"", or "it has no parameters".
func describeParams(params []string, its string) string {
	if len(params) == 0 {
		if its == "its" {
			return "it has no parameters"
		}
		return "they have no parameters"
	}
	q := make([]string, len(params))
	for i, p := range params {
		q[i] = strconv.Quote(p)
	}
	if len(q) == 1 {
		return its + " parameter is " + q[0]
	}
	return its + " parameters are " + strings.Join(q, ", ")
}

// isParamName reports whether s is a name a router gives a parameter:
// letters, digits and underscores, at least one.
func isParamName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}
